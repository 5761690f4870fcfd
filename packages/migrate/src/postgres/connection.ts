/**
 * A connection pool to a PostgreSQL server, from a URL held as `Redacted`, through `pg` (the
 * driver @effect/sql-pg wraps): the sink's COPY and its transaction need one connection of the
 * driver's own, which @effect/sql-pg does not hand out. JSON and JSONB columns are read as the
 * text the server sends, so a record is read as it was stored.
 */
import { Effect, Redacted, type Scope } from "effect"
import pg from "pg"
import { PostgresError } from "./errors.js"

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database`; held redacted, never in an error, a log or a span. */
  readonly url: Redacted.Redacted<string>
}

const JSON_OID = 114
const JSONB_OID = 3802
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === JSON_OID || oid === JSONB_OID ? (text: string) => text : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"]
}

/** A pool, ended with the scope. A URL the driver cannot read is a PostgresError, not a throw. */
export const postgresPool = (options: PostgresOptions, max: number): Effect.Effect<pg.Pool, PostgresError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const pool = new pg.Pool({ connectionString: Redacted.value(options.url), max, types, application_name: "scanbridge" })
        // An idle connection the server drops is the pool's to replace, not a crash of the process.
        pool.on("error", () => {})
        return pool
      },
      catch: (e) => PostgresError.of("connect", options.url, e)
    }),
    (pool) => Effect.promise(() => pool.end().catch(() => undefined))
  )

/** One connection of the pool, given back with the scope (destroyed rather than reused if it failed). */
export const connection = (pool: pg.Pool, url: Redacted.Redacted<string>): Effect.Effect<pg.PoolClient, PostgresError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () =>
        pool.connect().then((client) => {
          // A connection lost while held fails the statement that uses it, as a PostgresError; the
          // driver's event of it is not a crash of the process.
          client.on("error", () => {})
          return client
        }),
      catch: (e) => PostgresError.of("connect", url, e)
    }),
    (client, exit) => Effect.sync(() => client.release(exit._tag === "Failure"))
  )

/** A statement on `client`, a PostgresError naming `operation` if it fails. */
export const run = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  client: pg.ClientBase,
  url: Redacted.Redacted<string>,
  operation: string,
  text: string,
  values?: ReadonlyArray<unknown>
): Effect.Effect<pg.QueryResult<R>, PostgresError> =>
  Effect.tryPromise({ try: () => client.query<R>(text, values as Array<unknown> | undefined), catch: (e) => PostgresError.of(operation, url, e) })
