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
  /**
   * What errors call this database, when a run has more than one: the flag that gave its URL
   * (`--from`, `--into`). Every PostgresError of the source or sink then begins with it.
   */
  readonly name?: string
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

/**
 * A connection's end, as a failure of what waits on it: the server going away (a fast or immediate stop, a
 * restart, a terminated backend) ends the socket, and the driver settles only the statement
 * running then. A cursor waiting between reads, or for the close of its portal, would wait for
 * ever, and a process with nothing else to wait on would exit 0 having written nothing.
 */
const LOSS = new WeakMap<pg.ClientBase, Loss>()

/** How a connection ended, once it has, and who waits on it meanwhile. */
interface Loss {
  error: unknown
  readonly waiting: Set<(error: unknown) => void>
}

const watchLoss = (client: pg.ClientBase): void => {
  const loss: Loss = { error: undefined, waiting: new Set() }
  const lose = (error: unknown) => {
    if (loss.error !== undefined) return
    loss.error = error
    for (const fail of loss.waiting) fail(error)
    loss.waiting.clear()
  }
  // A connection lost while held fails what waits on it, as a PostgresError; the driver's event
  // of it is not a crash of the process.
  client.on("error", lose)
  client.once("end", () => lose(new Error("Connection terminated unexpectedly")))
  LOSS.set(client, loss)
}

/**
 * `promise`, or the connection's loss if that comes first. Not `Promise.race` with one promise of
 * the loss: each race would leave a reaction on it, holding its result (a batch of rows) for as
 * long as the connection lives.
 */
export const whileConnected = <A>(client: pg.ClientBase, promise: Promise<A>): Promise<A> => {
  const loss = LOSS.get(client)
  if (loss === undefined) return promise
  if (loss.error !== undefined) {
    promise.catch(() => {})
    return Promise.reject(loss.error)
  }
  return new Promise<A>((resolve, reject) => {
    loss.waiting.add(reject)
    promise.then(
      (value) => {
        loss.waiting.delete(reject)
        resolve(value)
      },
      (error: unknown) => {
        loss.waiting.delete(reject)
        reject(error)
      }
    )
  })
}

/** One connection of the pool, given back with the scope (destroyed rather than reused if it failed). */
export const connection = (pool: pg.Pool, url: Redacted.Redacted<string>): Effect.Effect<pg.PoolClient, PostgresError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () =>
        pool.connect().then((client) => {
          watchLoss(client)
          return client
        }),
      catch: (e) => PostgresError.of("connect", url, e)
    }),
    (client, exit) => Effect.sync(() => client.release(exit._tag === "Failure"))
  )

/**
 * A statement on `client`, a PostgresError naming `operation` if it fails. Always through the
 * extended protocol, which takes one statement: text with a user's query in it that closes what
 * surrounds it and goes on with another statement is refused by the server, not run
 * (`queryMode` is the driver's, since pg 8.8; its types do not list it yet).
 */
export const run = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  client: pg.ClientBase,
  url: Redacted.Redacted<string>,
  operation: string,
  text: string,
  values?: ReadonlyArray<unknown>
): Effect.Effect<pg.QueryResult<R>, PostgresError> =>
  Effect.tryPromise({
    try: () => whileConnected(client, client.query<R>({ text, values: values as Array<unknown> | undefined, queryMode: "extended" } as pg.QueryConfig)),
    catch: (e) => PostgresError.of(operation, url, e)
  })
