/**
 * The store on a PostgreSQL server that several gateway instances share behind one load
 * balancer: a flow begun on one instance finishes on any other, and a claim or a lease is
 * decided once between them (sql.ts). Each instance migrates the schema as it starts, under an
 * advisory lock, so they may start together.
 *
 * The URL is held redacted and goes nowhere but to the driver: not into an error (whose reasons
 * are codes, sql.ts), a log, nor a span (@effect/sql-pg's spans name the host, port and
 * database). A server that goes away is a GatewayStoreError within `timeout`, never a wait for
 * ever: connecting, waiting for a free connection, each statement on the server
 * (statement_timeout) and each answer on the socket (query_timeout) are bounded, and a
 * connection the server drops while idle is replaced, not a crash. The driver's timers are the
 * wall clock's, so a gateway whose time is Effect's TestClock still sees a stopped server fail.
 */
import { Duration, Effect, type Layer, Redacted } from "effect"
import type { GatewayStore, GatewayStoreError } from "../store.js"
import { loadPg, sqlStoreLayer } from "./driver.js"

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`: held redacted, never in an error, a log or a span. */
  readonly url: Redacted.Redacted<string>
  /** How many connections this instance may hold at once. Default 10. */
  readonly maxConnections?: number
  /** How long connecting, or one statement, may take before it fails. Default 10 seconds. */
  readonly timeout?: Duration.DurationInput
}

export const DEFAULT_POSTGRES_TIMEOUT = Duration.seconds(10)

export const postgresStoreLayer = (options: PostgresStoreOptions): Layer.Layer<GatewayStore, GatewayStoreError> => {
  const timeout = Duration.toMillis(options.timeout ?? DEFAULT_POSTGRES_TIMEOUT)
  return sqlStoreLayer(
    Effect.acquireRelease(
      Effect.map(loadPg, (pg) => {
        const pool = new pg.Pool({
          connectionString: Redacted.value(options.url),
          max: options.maxConnections ?? 10,
          connectionTimeoutMillis: timeout,
          statement_timeout: timeout,
          // A little after the server's own timeout, so that a live server says 57014 first.
          query_timeout: timeout + 1000,
          idle_in_transaction_session_timeout: timeout,
          keepAlive: true,
          application_name: "scanbridge-gateway"
        })
        pool.on("error", () => {})
        return pool
      }),
      (pool) => Effect.promise(() => pool.end().catch(() => undefined))
    )
  )
}
