/**
 * The PostgreSQL source: the rows of a query, read through a server-side cursor a batch at a
 * time (never the whole result), in the order of their key, as records. A row is its key, which
 * names its reject, and its record: a JSON, JSONB or text column, read as the text it holds.
 */
import { Effect, Option, type Scope, Stream } from "effect"
import type pg from "pg"
import Cursor from "pg-cursor"
import type { MigrateSource, RecordPosition, SourceRecord } from "../migrate.js"
import { CHUNK_LINES } from "../internal/read.js"
import { type PostgresOptions, connection, postgresPool, run, whileConnected } from "./connection.js"
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

/**
 * Key types whose order the source keeps across runs: the server orders and compares the column
 * itself, and a resumed run gives back the last key as the text the server wrote of it, which
 * reads back as the same value for these. A float's text is not a key to resume from, JSON has no
 * order, and a type unknown here may have neither; cast such a key in the query (`id::bigint`).
 */
const KEY_TYPES: ReadonlyMap<number, string> = new Map([
  [20, "bigint"],
  [21, "smallint"],
  [23, "integer"],
  [26, "oid"],
  [1700, "numeric"],
  [25, "text"],
  [1043, "varchar"],
  [1042, "char"],
  [2950, "uuid"],
  [1082, "date"],
  [1114, "timestamp"],
  [1184, "timestamptz"]
])

const refuse = (message: string) => new PostgresError({ operation: "read", code: null, message: `read: ${message}` })

/** A key as a message may quote it: a key is an id, but it may be any length. */
const shown = (key: string) => JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key)

/**
 * The query's rows as records, in the order of its key; its connection is held until the scope
 * closes, in one read-only transaction (a snapshot: rows written meanwhile are not half seen).
 */
export const postgresSource = (options: PostgresSourceOptions): Effect.Effect<PostgresSource, PostgresError, Scope.Scope> =>
  Effect.gen(function* () {
    const url = options.url
    const pool = yield* postgresPool(options, 1)
    const client = yield* connection(pool, url)
    const query = options.query.trim().replace(/;\s*$/, "")
    // Read only, so that a query cannot write whatever it holds; the transaction ends with the scope.
    yield* Effect.acquireRelease(run(client, url, "read", "begin transaction isolation level repeatable read, read only"), () =>
      Effect.ignore(run(client, url, "read", "rollback"))
    )
    // The columns, without reading a row; one statement (run), however the query ends.
    const described = yield* run(client, url, "read", `select * from (${query}) as source limit 0`)
    if (described.fields.length !== 2) {
      return yield* refuse(
        `the query returns ${described.fields.length} column(s) (${described.fields.map((f) => f.name).join(", ")}): expected two, a key, then the record`
      )
    }
    const [keyField, recordField] = described.fields as [pg.FieldDef, pg.FieldDef]
    if (!KEY_TYPES.has(keyField.dataTypeID)) {
      return yield* refuse(
        `the key column ${JSON.stringify(keyField.name)} is of a type (oid ${keyField.dataTypeID}) whose order a resumed run cannot keep: ` +
          `use a key of ${[...new Set(KEY_TYPES.values())].join(", ")}, or cast it in the query`
      )
    }
    // Qualified by the subquery's name, so that neither binds to an output column of the same name.
    const key = `source.${quote(keyField.name.replaceAll('"', '""'))}`
    const record = `source.${quote(recordField.name.replaceAll('"', '""'))}`
    const batch = options.batch ?? CHUNK_LINES
    const recordsAfter = (after: PostgresSourceOptions["after"]): Stream.Stream<ReadonlyArray<SourceRecord>, PostgresError> => {
      // A key equal to the one before is a duplicate: its reject would overwrite the other's, and a
      // resume after it would skip it. A resumed run reads from its last key on, so that a
      // duplicate of that key is seen too, and passes over that row itself.
      const text =
        `select ${key}::text, ${record}::text, ${key} = lag(${key}) over (order by ${key}), ${after === undefined ? "false" : `${key} = $1`} ` +
        `from (${query}) as source${after === undefined ? "" : ` where ${key} >= $1`} order by ${key}`
      let line = after?.line ?? 0
      const cursor = Stream.acquireRelease(
        Effect.sync(() => client.query(new Cursor<SourceRow>(text, after === undefined ? [] : [after.key], { rowMode: "array" }))),
        (c) => Effect.promise(() => whileConnected(client, c.close()).catch(() => undefined))
      )
      const recordsOf = (rows: ReadonlyArray<SourceRow>): Effect.Effect<ReadonlyArray<SourceRecord>, PostgresError> => {
        const records: Array<SourceRecord> = []
        for (const [key, raw, duplicate, resumedFrom] of rows) {
          if (resumedFrom === true && duplicate !== true) continue
          line++
          if (key === null)
            return Effect.fail(refuse(`the key of row ${line} is NULL: every row needs a key, which names its reject and where a resumed run goes on`))
          if (duplicate === true) {
            return Effect.fail(
              refuse(
                `the key ${shown(key)} is on more than one row (the second is row ${line}): a key must be unique, as it names a row's reject and where a resumed run goes on`
              )
            )
          }
          // A NULL record is JSON's null: rejected as a record of no known format, with its key.
          records.push({ file: query, line, raw: raw ?? "null", key })
        }
        return Effect.succeed(records)
      }
      return Stream.flatMap(cursor, (c) =>
        Stream.repeatEffectOption(
          Effect.tryPromise({ try: () => whileConnected(client, c.read(batch)), catch: (e) => Option.some(PostgresError.of("read", url, e)) }).pipe(
            Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(Option.none()) : Effect.mapError(recordsOf(rows), Option.some)))
          )
        )
      )
    }
    // The run's other database, if it has one, fails with errors of its own: each names its side.
    const named = (records: Stream.Stream<ReadonlyArray<SourceRecord>, PostgresError>) => Stream.mapError(records, (e) => e.on(options.name))
    const after = (position: RecordPosition | undefined): MigrateSource<PostgresError> =>
      position?.key === undefined ? { records: named(recordsAfter(undefined)) } : { records: named(recordsAfter({ key: position.key, line: position.line })) }
    return { records: named(recordsAfter(options.after)), after }
  }).pipe(
    Effect.mapError((e) => e.on(options.name)),
    Effect.withSpan("scanbridge.postgres.source")
  )

/** A row as the source reads it: the key and the record as text, whether the key repeats the one before, whether it is the resumed run's last. */
type SourceRow = [key: string | null, record: string | null, duplicate: boolean | null, resumedFrom: boolean | null]
