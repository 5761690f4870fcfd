/**
 * The PostgreSQL source at the edges an operator reaches: a server stopped mid-read or mid-write
 * (fast and immediate), a key column that shares a name with what the source selects or whose
 * text sorts otherwise than its values, duplicate and NULL keys, a query that tries to write or to
 * break out of the statement around it, a table name PostgreSQL would cut. Each ends in a typed
 * error or in the tables of a run that never stopped; none hangs, none loses a row.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { Normalizer, type ResumePoint, migrate } from "../src/index.js"
import { PostgresError, postgresSink, postgresSource } from "../src/postgres/index.js"
import { type RunningPostgres, type StopMode, startPostgres } from "./postgres.js"
import { EXPORT } from "./records.js"
import { readFileSync } from "node:fs"
import { join } from "node:path"

const TIMEOUT = 300_000
const layer = Layer.mergeAll(NodeContext.layer, Normalizer.default)

let db: RunningPostgres
const url = () => Redacted.make(db.url)
const sql = (text: string, values?: ReadonlyArray<unknown>) => Effect.promise(() => db.admin.query(text, values as Array<unknown>))

const entries = readFileSync(join(EXPORT, "platform/entries.ndjson"), "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")

beforeAll(async () => {
  db = await startPostgres()
  // Ids whose text order is not their order (9 < 10, "9" > "10"), a reject every seventh row.
  await db.admin.query(
    `create table legacy as select g::bigint as id, case when g % 7 = 0 then '{"not":"a scan"}' else jsonb_set($1::jsonb, '{entry,id}', to_jsonb('scan_' || g))::text end as payload from generate_series(1, 2000) g`,
    [entries[0]]
  )
}, TIMEOUT)
afterAll(() => db?.stop(), TIMEOUT)

/** Rows of `table` without their transaction ids, in key order. */
const rowsOf = (table: string) => Effect.map(sql(`select * from ${table} order by 1, 2`), (r) => r.rows)

/** That `table` and its rejects hold the rows of `clean` and its rejects. */
const expectSameTables = (table: string, clean: string) =>
  Effect.gen(function* () {
    expect(yield* rowsOf(table)).toEqual(yield* rowsOf(clean))
    expect(yield* rowsOf(`${table}_rejects`)).toEqual(yield* rowsOf(`${clean}_rejects`))
  })

/** A run of `query` into `table`, resumed from the table's checkpoint when `resume`; `onChunk` runs after each committed chunk. */
const pgToPg = (query: string, table: string, options: { readonly resume?: boolean; readonly onChunk?: (n: number) => Effect.Effect<void> } = {}) =>
  Effect.scoped(
    Effect.gen(function* () {
      const into = yield* postgresSink({ url: url(), table, input: { name: query, identity: "[]" } })
      const after: ResumePoint | undefined = options.resume === true ? yield* into.resumePoint : undefined
      const source = yield* postgresSource({ url: url(), query, batch: 50 })
      let chunks = 0
      const onChunk = options.onChunk
      return yield* migrate({
        inputs: source.after(after?.position),
        into,
        ...(after === undefined ? {} : { after }),
        ...(onChunk === undefined ? {} : { onProgress: () => onChunk(++chunks) })
      })
    })
  ).pipe(Effect.provide(layer))

/** The source's records, written to memory. */
const pgToMemory = (query: string, onChunk?: (n: number) => Effect.Effect<void>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const source = yield* postgresSource({ url: url(), query, batch: 50 })
      let chunks = 0
      return yield* migrate({
        inputs: source,
        output: () => Effect.void,
        ...(onChunk === undefined ? {} : { onProgress: () => onChunk(++chunks) })
      })
    })
  ).pipe(Effect.provide(layer))

const terminate = sql("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'scanbridge' and pid <> pg_backend_pid()")

describe("the PostgreSQL source and sink when the server goes away", () => {
  for (const mode of ["fast", "immediate"] as const satisfies ReadonlyArray<StopMode>) {
    it.live(
      `a server stopped (${mode}) mid-read ends the run with a PostgresError, not a wait for ever`,
      () =>
        Effect.gen(function* () {
          const stopped = yield* Effect.flip(pgToMemory("select id, payload from legacy", (n) => (n === 3 ? Effect.promise(() => db.kill(mode)) : Effect.void)))
          expect(stopped).toBeInstanceOf(PostgresError)
          expect(stopped.message).not.toContain(Redacted.value(db.server.password))
          yield* Effect.promise(() => db.restart())
        }),
      TIMEOUT
    )

    it.live(
      `a server stopped (${mode}) mid-write ends the run with a PostgresError; resumed, the tables are a clean run's`,
      () =>
        Effect.gen(function* () {
          const query = "select id, payload from legacy"
          const table = `stopped_${mode}`
          const stopped = yield* Effect.flip(pgToPg(query, table, { onChunk: (n) => (n === 4 ? Effect.promise(() => db.kill(mode)) : Effect.void) }))
          expect(stopped).toBeInstanceOf(PostgresError)
          yield* Effect.promise(() => db.restart())
          const resumed = yield* pgToPg(query, table, { resume: true })
          const clean = yield* pgToPg(query, `clean_${mode}`)
          expect(resumed).toEqual(clean)
          yield* expectSameTables(table, `clean_${mode}`)
        }),
      TIMEOUT
    )
  }
})

describe("the PostgreSQL source's key", () => {
  it.live(
    "a key column called key, whose text order is not its order, resumes after the last committed row: the tables are a clean run's",
    () =>
      Effect.gen(function* () {
        const query = "select id as key, payload from legacy"
        const broken = yield* Effect.flip(pgToPg(query, "keyed", { onChunk: (n) => (n === 5 ? Effect.asVoid(terminate) : Effect.void) }))
        expect(broken).toBeInstanceOf(PostgresError)
        const resumed = yield* pgToPg(query, "keyed", { resume: true })
        const clean = yield* pgToPg(query, "keyed_clean")
        expect(resumed).toEqual(clean)
        expect(clean.records).toBe(2000)
        yield* expectSameTables("keyed", "keyed_clean")
        expect((yield* rowsOf("keyed_rejects")).length).toBe(Math.floor(2000 / 7))
      }),
    TIMEOUT
  )

  it.live(
    "a key column named as the record's output column, and a record column named key, keep their roles",
    () =>
      Effect.gen(function* () {
        const report = yield* pgToPg("select id as record, payload as key from legacy where id <= 100", "swapped")
        expect(report.records).toBe(100)
        const rejects = yield* rowsOf("swapped_rejects")
        expect(rejects.map((r) => r.key)).toEqual(["14", "21", "28", "35", "42", "49", "56", "63", "7", "70", "77", "84", "91", "98"])
      }),
    TIMEOUT
  )

  it.live(
    "duplicate keys are refused, before the rows with them are written, and a resume after them refuses them too",
    () =>
      Effect.gen(function* () {
        const query = "select id % 500 as id, payload from legacy where id <= 1000"
        const refused = yield* Effect.flip(pgToPg(query, "twice"))
        expect(refused.message).toContain('the key "0" is on more than one row (the second is row 2)')
        expect(yield* rowsOf("twice_rejects")).toEqual([])
        // The key the checkpoint holds is a duplicate's first: a resume sees its second.
        yield* sql("create table pairs as select g / 2 as id, '{}' as payload from generate_series(0, 199) g")
        const pairs = "select id, payload from pairs"
        const first = yield* Effect.flip(pgToPg(pairs, "pairs_out"))
        expect(first.message).toContain('the key "0" is on more than one row')
        yield* sql(`insert into scanbridge_checkpoints values ('"pairs_out"', $1, '[]', '{"file":"x","line":1,"key":"0"}', $2)`, [
          pairs,
          JSON.stringify({
            records: 1,
            migrated: 0,
            rejected: 1,
            scans: 0,
            target: "postgres rows",
            byFormat: {},
            byStatus: {},
            byNoteKind: {},
            byRejectReason: {}
          })
        ])
        const resumed = yield* Effect.flip(pgToPg(pairs, "pairs_out", { resume: true }))
        expect(resumed.message).toContain('the key "0" is on more than one row')
      }),
    TIMEOUT
  )

  it.live(
    "a NULL key and a key whose order cannot be kept (a float, JSON) are refused",
    () =>
      Effect.gen(function* () {
        const nulls = yield* Effect.flip(pgToMemory("select case when id = 30 then null else id end, payload from legacy where id <= 60"))
        expect(nulls.message).toContain("is NULL")
        for (const key of ["id::float8", "to_json(id)"]) {
          const refused = yield* Effect.flip(pgToMemory(`select ${key}, payload from legacy`))
          expect(refused.message).toContain("whose order a resumed run cannot keep")
        }
        const numeric = yield* pgToMemory("select id::numeric / 4, payload from legacy where id <= 40")
        expect(numeric.records).toBe(40)
      }),
    TIMEOUT
  )
})

describe("the PostgreSQL source's query", () => {
  it.live(
    "runs read-only, as one statement: a query that breaks out of its wrapper or writes is refused, and nothing is dropped or changed",
    () =>
      Effect.gen(function* () {
        yield* sql("create table canary (n int)")
        yield* sql("insert into canary values (1)")
        const injected = yield* Effect.flip(
          pgToMemory("select id, payload from legacy) as s; drop table canary; select * from (select 1 as id, '{}' as payload")
        )
        expect(injected).toMatchObject({ _tag: "PostgresError", code: "42601" })
        const deletes = yield* Effect.flip(pgToMemory("with gone as (delete from canary returning n) select n, '{}' from gone"))
        expect(deletes).toBeInstanceOf(PostgresError)
        yield* sql("create sequence counter")
        const writes = yield* Effect.flip(pgToMemory("select nextval('counter'), '{}'"))
        expect(writes).toMatchObject({ _tag: "PostgresError", code: "25006" })
        expect((yield* sql("select last_value::int as n, is_called from counter")).rows[0]).toEqual({ n: 1, is_called: false })
        expect((yield* sql("select count(*)::int as n from canary")).rows[0].n).toBe(1)
      }),
    TIMEOUT
  )

  it.live(
    "a table name whose _rejects PostgreSQL would cut is refused before any table is created",
    () =>
      Effect.gen(function* () {
        const long = "t".repeat(63)
        const refused = yield* Effect.flip(Effect.scoped(postgresSink({ url: url(), table: long })))
        expect(refused.message).toContain("is not a table name")
        expect((yield* sql("select count(*)::int as n from pg_class where relname like 'ttttt%'")).rows[0].n).toBe(0)
        yield* Effect.scoped(postgresSink({ url: url(), table: "t".repeat(55) }))
        expect((yield* sql("select count(*)::int as n from pg_class where relname like 'ttttt%' and relkind = 'r'")).rows[0].n).toBe(2)
      }),
    TIMEOUT
  )
})
