/**
 * The PostgreSQL source: the rows of a query, read through a server-side cursor a batch at a
 * time (never the whole result), in the order of their key, as records. A row is its key, which
 * names its reject, and its record: a JSON, JSONB or text column, read as the text it holds.
 */
import { Effect, Option, type Scope, Stream } from "effect"
import Cursor from "pg-cursor"
import type { MigrateSource, RecordPosition, SourceRecord } from "../migrate.js"
import { CHUNK_LINES } from "../internal/read.js"
import { type PostgresOptions, connection, postgresPool, run } from "./connection.js"
import { PostgresError } from "./errors.js"
import { quote } from "./schema.js"

export interface PostgresSourceOptions extends PostgresOptions {
  /**
   * A query of two columns: a key that orders the rows and names each one (a primary key), then
   * the record, in a JSON, JSONB or text column: `select id, payload from legacy_scans`.
   */
  readonly query: string
  /** Rows read at a time (default 1024). */
  readonly batch?: number
  /**
   * Only the rows after this one: a resumed run's last committed record (`ResumePoint.position`),
   * by its key; the rows after it are numbered on from its line.
   */
  readonly after?: { readonly key: string; readonly line: number }
}

/**
 * A query's rows as records; `after(position)` gives the rows after a resumed run's last one (by
 * its key), or all of them for no position or one without a key.
 */
export interface PostgresSource extends MigrateSource<PostgresError> {
  readonly after: (position: RecordPosition | undefined) => MigrateSource<PostgresError>
}

/** The query's rows as records, in the order of its key; its connection is held until the scope closes. */
export const postgresSource = (options: PostgresSourceOptions): Effect.Effect<PostgresSource, PostgresError, Scope.Scope> =>
  Effect.gen(function* () {
    const url = options.url
    const pool = yield* postgresPool(options, 1)
    const client = yield* connection(pool, url)
    const query = options.query.trim().replace(/;\s*$/, "")
    // The columns, without reading a row.
    const described = yield* run(client, url, "read", `select * from (${query}) as source limit 0`)
    if (described.fields.length !== 2) {
      return yield* new PostgresError({
        operation: "read",
        code: null,
        message: `read: the query returns ${described.fields.length} column(s) (${described.fields.map((f) => f.name).join(", ")}): expected two, a key, then the record`
      })
    }
    const [key, record] = described.fields.map((f) => quote(f.name.replaceAll('"', '""')))
    const batch = options.batch ?? CHUNK_LINES
    const recordsAfter = (after: PostgresSourceOptions["after"]): Stream.Stream<ReadonlyArray<SourceRecord>, PostgresError> => {
      const text = `select ${key}::text as key, ${record}::text as record from (${query}) as source${after === undefined ? "" : ` where ${key} > $1`} order by ${key}`
      let line = after?.line ?? 0
      const cursor = Stream.acquireRelease(
        Effect.sync(() => client.query(new Cursor<{ key: string | null; record: string | null }>(text, after === undefined ? [] : [after.key]))),
        (c) => Effect.promise(() => c.close().catch(() => undefined))
      )
      return Stream.flatMap(cursor, (c) =>
        Stream.repeatEffectOption(
          Effect.tryPromise({ try: () => c.read(batch), catch: (e) => Option.some(PostgresError.of("read", url, e)) }).pipe(
            Effect.flatMap((rows) =>
              rows.length === 0
                ? Effect.fail(Option.none())
                : Effect.succeed(
                    rows.map((row): SourceRecord => {
                      line++
                      // A NULL record is JSON's null: rejected as a record of no known format, with its key.
                      const raw = row.record ?? "null"
                      return row.key === null ? { file: query, line, raw } : { file: query, line, raw, key: row.key }
                    })
                  )
            )
          )
        )
      )
    }
    const after = (position: RecordPosition | undefined): MigrateSource<PostgresError> =>
      position?.key === undefined ? { records: recordsAfter(undefined) } : { records: recordsAfter({ key: position.key, line: position.line }) }
    return { records: recordsAfter(options.after), after }
  }).pipe(Effect.withSpan("scanbridge.postgres.source"))
