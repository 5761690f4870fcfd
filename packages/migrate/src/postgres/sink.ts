/**
 * The PostgreSQL sink: a run's scans upserted into a table Scanbridge creates (schema.ts), its
 * rejects into a companion table, a chunk at a time, each chunk in one transaction. A chunk's
 * rows are COPY'd into a temporary staging table and upserted from there on the scan's source
 * identity, so the same input run twice leaves the same rows, and a row whose scan has not
 * changed is not rewritten at all. COPY then upsert writes more rows per second than a
 * multi-row INSERT (json_populate_recordset) and nearly as many as a bare COPY (measured:
 * docs/databases.md).
 */
import { Effect, Encoding, type Redacted, type Scope } from "effect"
import type pg from "pg"
import { from as copyFrom } from "pg-copy-streams"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { InputIdentity } from "../checkpoint.js"
import type { ChunkSink, ResumePoint, SinkChunk } from "../migrate.js"
import { textOf } from "../output.js"
import type { Reject } from "../report.js"
import { type PostgresOptions, connection, postgresPool, run, whileConnected } from "./connection.js"
import { PostgresError } from "./errors.js"
import { POSTGRES_ROWS, copyCell } from "./rows.js"
import {
  REJECTS_KEY,
  REJECTS_SUFFIX,
  REJECTS_TABLE,
  SCANS_KEY,
  SCANS_TABLE,
  columnsDiffer,
  createTable,
  CHECKPOINTS,
  RUN_KEYS,
  createCheckpoints,
  createRunKeys,
  qualified,
  quote,
  tableName
} from "./schema.js"

export interface PostgresSinkOptions extends PostgresOptions {
  /** The scans table, `name` or `schema.name`; its rejects go to `<name>_rejects` beside it. */
  readonly table: string
  /**
   * What the run reads, for its checkpoint (committed with each chunk, in `scanbridge_checkpoints`
   * beside the table): `name` keys it (a query, the input files' names), `identity` tells an input
   * that has changed since (the files' sizes and times). Without it no checkpoint is kept.
   */
  readonly input?: { readonly name: string; readonly identity: string }
}

/**
 * What a run into the sink reads, as its checkpoint knows it: a query by its text, files by
 * their names, and in either case what tells a changed input (the files' sizes and times).
 */
export const sinkInput = (reads: { readonly query: string } | ReadonlyArray<InputIdentity>): NonNullable<PostgresSinkOptions["input"]> =>
  "query" in reads ? { name: reads.query, identity: "[]" } : { name: JSON.stringify(reads.map((i) => i.file)), identity: JSON.stringify(reads) }

/** The sink, and where the last run of the same input into the same table stopped. */
export interface PostgresSink extends ChunkSink<PostgresError> {
  /**
   * The checkpoint of `options.input` in this table, if a run left one: what `migrate`'s `after`
   * takes. An input whose identity has changed since is refused: resuming would skip records that
   * are not the ones that were migrated.
   */
  readonly resumePoint: Effect.Effect<ResumePoint | undefined, PostgresError>
}

interface Table {
  readonly name: string
  readonly columns: ReadonlyArray<{ readonly name: string }>
  readonly key: ReadonlyArray<string>
  /** Whether a row that exists differs from its new version, so that an unchanged one is left as it is. */
  readonly changed: ReadonlyArray<string>
}

/** Copies `rows` (COPY text, LF-ended) into `stage`, then upserts them into `table`: the last of two rows with one key wins. */
const copyAndUpsert = (client: pg.PoolClient, url: Redacted.Redacted<string>, table: Table, stage: string, rows: Uint8Array) =>
  Effect.gen(function* () {
    const columns = table.columns.map((c) => quote(c.name)).join(", ")
    yield* Effect.tryPromise({
      try: () => whileConnected(client, pipeline(Readable.from([rows]), client.query(copyFrom(`copy ${stage} (${columns}) from stdin`)))),
      catch: (e) => PostgresError.of("write", url, e)
    })
    const keys = table.key.map(quote).join(", ")
    const updates = table.columns.filter((c) => !table.key.includes(c.name)).map((c) => `${quote(c.name)} = excluded.${quote(c.name)}`)
    const changed = table.changed.map((c) => `${table.name}.${quote(c)} is distinct from excluded.${quote(c)}`).join(" or ")
    yield* run(
      client,
      url,
      "write",
      `insert into ${table.name} (${columns}) select distinct on (${keys}) ${columns} from ${stage} order by ${keys}, "scanbridge_order" desc ` +
        `on conflict (${keys}) do update set ${updates.join(", ")} where ${changed}`
    )
  })

/**
 * How many of the staged scans go over a row this run had written: a key staged n times is n - 1
 * repeats, and n if an earlier chunk wrote it. The chunk's keys join the run's (`runKeys`, rows of
 * this table and input), in the chunk's transaction: a chunk rolled back takes its keys back too.
 */
const repeatsIn = (client: pg.PoolClient, url: Redacted.Redacted<string>, stage: string, runKeys: string, run_: readonly [string, string]) => {
  const keys = SCANS_KEY.map(quote).join(", ")
  return Effect.map(
    run<{ repeated: string }>(
      client,
      url,
      "write",
      `with staged as (select ${keys}, count(*) as n from ${stage} group by ${keys}), ` +
        `fresh as (insert into ${runKeys} ("table_name", "input", ${keys}) select $1, $2, ${keys} from staged on conflict do nothing returning 1) ` +
        `select ((select coalesce(sum(n), 0) from staged) - (select count(*) from fresh))::text as repeated`,
      run_
    ),
    ({ rows }) => Number(rows[0]?.repeated ?? 0)
  )
}

/** U+0000 and lone UTF-16 surrogates: what PostgreSQL text cannot hold. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Text PostgreSQL can hold: what it cannot, as U+FFFD (a reject's message and path only; its record is kept exactly). */
const storable = (text: string): string => text.replace(UNSTORABLE, "\uFFFD")

/** A reject as a row of the rejects table. A record PostgreSQL text cannot hold is kept as its bytes, base64. */
const rejectRow = (reject: Reject & { readonly key?: string }): string => {
  const exact = reject.raw.search(UNSTORABLE) === -1
  const base64 = reject.rawBase64 ?? (exact ? null : Encoding.encodeBase64(new TextEncoder().encode(reject.raw)))
  return [
    storable(reject.file),
    storable(reject.key ?? String(reject.line)),
    reject.line,
    reject.key === undefined ? null : storable(reject.key),
    storable(reject.error.tag),
    storable(reject.error.message),
    reject.error.path === null ? null : JSON.stringify(reject.error.path.map((p) => (typeof p === "string" ? storable(p) : p))),
    exact ? reject.raw : null,
    base64
  ]
    .map(copyCell)
    .join("\t")
}

const rejectRows = (rejected: Uint8Array): Uint8Array => {
  let rows = ""
  for (const line of textOf(rejected).split("\n")) if (line !== "") rows += `${rejectRow(JSON.parse(line) as Reject)}\n`
  return new TextEncoder().encode(rows)
}

/** A staging table for `table`, emptied at every commit, with the order rows came in. */
const stageFor = (client: pg.PoolClient, url: Redacted.Redacted<string>, table: Table, stage: string) =>
  Effect.zipRight(
    run(client, url, "create table", `create temporary table ${stage} (like ${table.name}) on commit delete rows`),
    run(client, url, "create table", `alter table ${stage} add column "scanbridge_order" bigint generated always as identity`)
  )

/** Creates the tables if missing, and refuses a table whose columns are not the sink's. */
const prepare = (client: pg.PoolClient, url: Redacted.Redacted<string>, scans: Table, rejects: Table) =>
  Effect.gen(function* () {
    for (const [t, columns, key] of [
      [scans, SCANS_TABLE, SCANS_KEY],
      [rejects, REJECTS_TABLE, REJECTS_KEY]
    ] as const) {
      yield* run(client, url, "create table", createTable(t.name, columns, key))
      const actual = yield* run<{ name: string; type: string }>(
        client,
        url,
        "create table",
        `select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped order by attnum`,
        [t.name]
      )
      const differs = columnsDiffer(
        columns,
        actual.rows.map((r) => [r.name, r.type] as const)
      )
      if (differs !== undefined) {
        return yield* new PostgresError({
          operation: "create table",
          code: null,
          message: `create table: ${t.name} exists with other columns than Scanbridge's (it ${differs}): choose another --table, or drop it`
        })
      }
    }
  })

/**
 * A sink writing to `options.table` (created if missing) through a connection of its own, held
 * for the run. Each chunk: its scans and its rejects upserted, in one transaction.
 */
export const postgresSink = (options: PostgresSinkOptions): Effect.Effect<PostgresSink, PostgresError, Scope.Scope> =>
  Effect.gen(function* () {
    const name = tableName(options.table)
    if (typeof name === "string") return yield* new PostgresError({ operation: "create table", code: null, message: `--table ${name}` })
    const url = options.url
    const pool = yield* postgresPool(options, 1)
    const client = yield* connection(pool, url)
    const scans: Table = { name: qualified(name), columns: SCANS_TABLE, key: SCANS_KEY, changed: ["scan", "format"] }
    const rejects: Table = {
      name: qualified(name, REJECTS_SUFFIX),
      columns: REJECTS_TABLE,
      key: REJECTS_KEY,
      changed: REJECTS_TABLE.filter((c) => !REJECTS_KEY.includes(c.name as never)).map((c) => c.name)
    }
    yield* prepare(client, url, scans, rejects)
    const checkpoints = qualified({ schema: name.schema, name: CHECKPOINTS })
    yield* run(client, url, "create table", createCheckpoints(name))
    const input = options.input
    const checkpoint = (chunk: SinkChunk) =>
      input === undefined || chunk.position === undefined
        ? Effect.void
        : run(
            client,
            url,
            "write",
            `insert into ${checkpoints} ("table_name", "input", "identity", "position", "report") values ($1, $2, $3, $4, $5) ` +
              `on conflict ("table_name", "input") do update set "identity" = excluded."identity", "position" = excluded."position", "report" = excluded."report", "updated_at" = now()`,
            [scans.name, input.name, input.identity, JSON.stringify(chunk.position), JSON.stringify(chunk.report)]
          )
    const resumePoint: Effect.Effect<ResumePoint | undefined, PostgresError> =
      input === undefined
        ? Effect.succeed(undefined)
        : Effect.flatMap(
            run<{ identity: string; position: string; report: string }>(
              client,
              url,
              "resume",
              `select "identity", "position"::text, "report"::text from ${checkpoints} where "table_name" = $1 and "input" = $2`,
              [scans.name, input.name]
            ),
            ({ rows: [row] }) =>
              row === undefined
                ? Effect.succeed(undefined)
                : row.identity !== input.identity
                  ? Effect.fail(
                      new PostgresError({
                        operation: "resume",
                        code: null,
                        message: `resume: the input has changed since the run being resumed (then ${row.identity}, now ${input.identity}): run without resuming`
                      })
                    )
                  : Effect.succeed({ position: JSON.parse(row.position) as ResumePoint["position"], report: JSON.parse(row.report) as ResumePoint["report"] })
          )
    yield* stageFor(client, url, scans, `"scanbridge_stage_scans"`)
    yield* stageFor(client, url, rejects, `"scanbridge_stage_rejects"`)
    // A run with a checkpoint keeps its scans' keys beside it, for the run that resumes it; one
    // without, for as long as its connection.
    yield* run(client, url, "create table", createRunKeys(name, input === undefined))
    const runKeys = input === undefined ? quote(RUN_KEYS) : qualified({ schema: name.schema, name: RUN_KEYS })
    const thisRun = [scans.name, input?.name ?? ""] as const
    const write = (chunk: SinkChunk) =>
      Effect.gen(function* () {
        yield* run(client, url, "write", "begin")
        // A run's first chunk (nothing counted before it, so not a resumed run's) forgets the keys of any earlier run of the input.
        if (chunk.report.records === chunk.records) yield* run(client, url, "write", `delete from ${runKeys} where "table_name" = $1 and "input" = $2`, thisRun)
        let repeatedScans = 0
        if (chunk.out.length > 0) {
          yield* copyAndUpsert(client, url, scans, `"scanbridge_stage_scans"`, chunk.out)
          repeatedScans = yield* repeatsIn(client, url, `"scanbridge_stage_scans"`, runKeys, thisRun)
        }
        if (chunk.rejected.length > 0) yield* copyAndUpsert(client, url, rejects, `"scanbridge_stage_rejects"`, rejectRows(chunk.rejected))
        const report = repeatedScans === 0 ? chunk.report : { ...chunk.report, repeatedScans: (chunk.report.repeatedScans ?? 0) + repeatedScans }
        yield* checkpoint({ ...chunk, report })
        yield* run(client, url, "write", "commit")
        return { repeatedScans }
      }).pipe(
        // A failed chunk is rolled back whole (if the connection still answers): what was committed before stays.
        Effect.tapError(() => Effect.ignore(run(client, url, "write", "rollback"))),
        Effect.mapError((e) => e.on(options.name)),
        Effect.withSpan("scanbridge.postgres.write", { attributes: { table: scans.name, records: chunk.records } })
      )
    return { target: { to: POSTGRES_ROWS }, write, resumePoint: Effect.mapError(resumePoint, (e) => e.on(options.name)) }
  }).pipe(
    // The run's other database, if it has one, fails with errors of its own: each names its side.
    Effect.mapError((e) => e.on(options.name)),
    Effect.withSpan("scanbridge.postgres.sink", { attributes: { table: options.table } })
  )
