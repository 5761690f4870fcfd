/**
 * node-postgres, the driver under both back ends: PostgreSQL through its sockets, PGlite through
 * PGlite's own node-postgres connection (@electric-sql/pglite/node-postgres). @effect/sql-pg's
 * SqlClient over either pool is the one client the store's SQL (sql.ts) runs on, so both back
 * ends read the same types the same way (int8 as text, bytea as bytes, text[] as arrays).
 *
 * There is no Effect 3 driver for PGlite (@effect/sql-pglite is Effect 4's), and @effect/sql's
 * Client.make needs @effect/experimental's Reactivity, which only @effect/sql-pg's layers bring
 * here: a pool it is given is the way in.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, type Scope } from "effect"
import { GatewayStore, GatewayStoreError } from "../store.js"
import { makeSqlStore, type SqlStoreOptions } from "./sql.js"

/** node-postgres's pool, as @effect/sql-pg declares it. */
export type PgPool = Effect.Effect.Success<PgClient.PgClientFromPoolOptions["acquire"]>

interface PgModule {
  readonly Pool: new (config: Readonly<Record<string, unknown>>) => PgPool
}

/**
 * `pg`, the one @effect/sql-pg runs on, imported when a store opens: a bundle (the CLI's) carries
 * it, and a package that leaves it to the user (the plain API's optional peer) says it is missing
 * as a GatewayStoreError rather than failing to load. Its pool typed as @effect/sql-pg declares it.
 */
export const loadPg: Effect.Effect<PgModule, GatewayStoreError> = Effect.tryPromise({
  try: async () => {
    const module = await import("pg")
    return (module.default ?? module) as unknown as PgModule
  },
  catch: () => new GatewayStoreError({ message: "GatewayStore: the PostgreSQL driver (the pg package) could not be loaded; install pg beside Scanbridge" })
})

/** The store on the pool `acquire` opens (and closes with the layer), its database migrated first. */
export const sqlStoreLayer = (
  acquire: Effect.Effect<PgPool, GatewayStoreError, Scope.Scope>,
  options: SqlStoreOptions = {}
): Layer.Layer<GatewayStore, GatewayStoreError> =>
  Layer.unwrapScoped(
    Effect.map(acquire, (pool) =>
      Layer.effect(GatewayStore, makeSqlStore(options)).pipe(
        Layer.provide(PgClient.layerFromPool({ acquire: Effect.succeed(pool), applicationName: "scanbridge-gateway" })),
        Layer.mapError((error) => (error._tag === "SqlError" ? new GatewayStoreError({ message: "GatewayStore: the database could not be opened" }) : error))
      )
    )
  )
