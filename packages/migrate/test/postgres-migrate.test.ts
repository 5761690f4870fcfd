/**
 * PostgreSQL in and out (src/postgres): a query's rows migrated into the sink's tables on a real
 * server the suite starts itself. The rows and rejects reconcile with the report, a rerun rewrites
 * nothing, a connection lost midway is a typed error after which a rerun completes the table, and
 * no error holds the password.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Either, Exit, Layer, Redacted, Stream, Tracer } from "effect"
import type pg from "pg"
import { readFileSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { stringifyScan } from "@scanbridge/model"
import { Normalizer, type Report, defaultNormalizer, migrate } from "../src/index.js"
import { scanKey } from "../src/postgres/rows.js"
import { PostgresError, postgresSink, postgresSource } from "../src/postgres/index.js"
import { SCANS_TABLE } from "../src/postgres/schema.js"
import { EXPORT } from "./records.js"
import { type RunningPostgres, type TestPostgres, startPostgres, urlOf as textUrlOf } from "./postgres.js"

const TIMEOUT = 300_000

// V8's gc(), without starting Node with --expose-gc.
setFlagsFromString("--expose-gc")
const collectGarbage = runInNewContext("gc") as () => void
const layer = Layer.mergeAll(NodeContext.layer, Normalizer.default)

let running: RunningPostgres
let server: TestPostgres
let admin: pg.Client
const urlOf = (s: TestPostgres, password?: string) => Redacted.make(textUrlOf(s, password))

/** Every record of the example export as text, the broken ones included (one is not JSON at all). */
const exampleRecords = (): ReadonlyArray<string> => {
  const ndjson = (file: string) =>
    readFileSync(join(EXPORT, file), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
  return [
    ...ndjson("platform/entries.ndjson"),
    JSON.stringify(JSON.parse(readFileSync(join(EXPORT, "platform/list-page.json"), "utf8"))),
    ...(JSON.parse(readFileSync(join(EXPORT, "session/results.json"), "utf8")) as Array<unknown>).map((r) => JSON.stringify(r)),
    ...ndjson("estimation/read-responses.ndjson"),
    ...ndjson("fit/estimations.ndjson"),
    ...ndjson("broken.ndjson")
  ]
}

beforeAll(async () => {
  running = await startPostgres()
  ;({ server, admin } = running)
  const records = exampleRecords()
  await admin.query("create table legacy (id bigint primary key, payload text)")
  // Each record under several ids, in an order no id range repeats.
  for (let i = 0; i < 300; i++) await admin.query("insert into legacy values ($1, $2)", [i * 7 + 3, records[i % records.length]])
}, TIMEOUT)
afterAll(() => running?.stop(), TIMEOUT)

const pgToPg = (query: string, table: string, onProgress?: (report: Report) => Effect.Effect<void>, batch = 64) =>
  Effect.scoped(
    Effect.gen(function* () {
      const url = urlOf(server)
      const inputs = yield* postgresSource({ url, query, batch })
      const into = yield* postgresSink({ url, table })
      return yield* migrate({ inputs, into, ...(onProgress === undefined ? {} : { onProgress: (p) => onProgress(p.report) }) })
    })
  ).pipe(Effect.provide(layer))

const rowsOf = async (table: string) => (await admin.query(`select xmin::text, * from ${table} order by 2, 3`)).rows

describe("PostgreSQL in and out", () => {
  it.live(
    "migrates a query's rows into the scans and rejects tables, every record accounted for, and a rerun rewrites nothing",
    () =>
      Effect.gen(function* () {
        const report = yield* pgToPg("select id, payload from legacy", "scans")
        expect(report.records).toBe(300)
        expect(report.migrated + report.rejected).toBe(300)
        expect(report.rejected).toBeGreaterThan(0)
        const scans = yield* Effect.promise(() => rowsOf("scans"))
        const rejects = yield* Effect.promise(() => rowsOf("scans_rejects"))
        // The same scan under several ids is one row: the table holds each distinct source identity once.
        const distinct = yield* Effect.promise(() => admin.query("select count(distinct (source_api, scan_key)) as n from scans"))
        expect(scans.length).toBe(Number(distinct.rows[0].n))
        expect(scans.length).toBeGreaterThan(0)
        // The scans written over a row of the same scan are counted: the rows are the scans less those.
        expect(report.repeatedScans).toBeGreaterThan(0)
        expect(report.scans - report.repeatedScans!).toBe(scans.length)
        expect(rejects.length).toBe(report.rejected)
        // A reject is named by its row's key, and holds the record as it was stored.
        const ids = new Set((yield* Effect.promise(() => admin.query("select id::text from legacy"))).rows.map((r) => r.id))
        for (const r of rejects) {
          expect(ids.has(r.record)).toBe(true)
          expect(r.key).toBe(r.record)
          const stored = yield* Effect.promise(() => admin.query("select payload from legacy where id = $1", [r.record]))
          expect(r.raw).toBe(stored.rows[0].payload)
        }
        // Every column of the sink, each scan whole as JSONB, and the measurements as columns.
        const columns = yield* Effect.promise(() =>
          admin.query("select attname from pg_attribute where attrelid = 'scans'::regclass and attnum > 0 order by attnum")
        )
        expect(columns.rows.map((r) => r.attname)).toEqual(SCANS_TABLE.map((c) => c.name))
        const joined = yield* Effect.promise(() =>
          admin.query("select count(*) as n from scans where (scan->'measurementsMm'->>'waistGirth')::float8 is distinct from waist_girth_mm")
        )
        expect(Number(joined.rows[0].n)).toBe(0)

        // Again: the same rows. A row whose every version in the input is one is not even rewritten
        // (xmin is the transaction that wrote it); a scan read in two versions (a list page's and
        // an entry's) is written in each one's turn, and ends as the later, as before.
        const versions = (yield* Effect.promise(() => rowsOf("scans"))).length
        const again = yield* pgToPg("select id, payload from legacy", "scans")
        expect(again).toEqual(report)
        const after = yield* Effect.promise(() => rowsOf("scans"))
        expect(after.map(({ xmin: _, ...row }) => row)).toEqual(scans.map(({ xmin: _, ...row }) => row))
        expect(after.length).toBe(versions)
        // The keys the input holds in one version only, by the normalizer's own reading of it.
        const seen = new Map<string, Set<string>>()
        for (const record of exampleRecords()) {
          const json = (() => {
            try {
              return JSON.parse(record) as unknown
            } catch {
              return undefined
            }
          })()
          const detected = defaultNormalizer.detect(json)
          const read = defaultNormalizer.normalize(json)
          if (Either.isLeft(detected) || Either.isLeft(read)) continue
          for (const scan of read.right) {
            const key = `${scan.source.api} ${scanKey(scan, stringifyScan(scan))}`
            seen.set(key, (seen.get(key) ?? new Set()).add(`${detected.right.format.name} ${stringifyScan(scan)}`))
          }
        }
        const single = after.filter((row) => seen.get(`${row.source_api} ${row.scan_key}`)!.size === 1)
        expect(single.length).toBeGreaterThan(0)
        for (const row of single) expect(row.xmin).toBe(scans.find((s) => s.scan_key === row.scan_key && s.source_api === row.source_api)!.xmin)
        expect(yield* Effect.promise(() => rowsOf("scans_rejects"))).toEqual(rejects)
      }),
    TIMEOUT
  )

  it.live(
    "fails with a typed PostgresError when the connection is lost midway; a rerun completes the same table a clean run writes",
    () =>
      Effect.gen(function* () {
        let chunks = 0
        const native = yield* Effect.tracer
        const recorded: Array<Tracer.Span> = []
        const recording = Tracer.make({
          span: (...args) => {
            const span = native.span(...args)
            recorded.push(span)
            return span
          },
          context: (f, fiber) => native.context(f, fiber)
        })
        const lost = yield* Effect.flip(
          pgToPg("select id, payload from legacy", "lost", () =>
            ++chunks === 2
              ? Effect.promise(() =>
                  admin.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'scanbridge' and pid <> pg_backend_pid()")
                ).pipe(Effect.asVoid)
              : Effect.void
          ).pipe(Effect.withTracer(recording))
        )
        expect(lost).toBeInstanceOf(PostgresError)
        expect(lost.message).not.toContain(Redacted.value(server.password))
        expect(recorded.length).toBeGreaterThan(3)
        expect(recorded.map((s) => s.name)).toContain("scanbridge.postgres.write")
        // Every span's name, attributes and ending (the lost connection's error among them): no credential.
        const seen = recorded
          .map(
            (s) =>
              `${s.name} ${JSON.stringify([...s.attributes])} ${s.status._tag === "Ended" && Exit.isFailure(s.status.exit) ? Cause.pretty(s.status.exit.cause) : ""}`
          )
          .join("\n")
        expect(seen).toContain("PostgresError")
        expect(seen).not.toContain(Redacted.value(server.password))
        expect(seen).not.toContain(Redacted.value(urlOf(server)))
        const partial = yield* Effect.promise(() => admin.query("select count(*) as n from lost"))
        expect(Number(partial.rows[0].n)).toBeGreaterThan(0)
        yield* pgToPg("select id, payload from legacy", "lost")
        yield* pgToPg("select id, payload from legacy", "clean")
        const strip = (rows: ReadonlyArray<Record<string, unknown>>) => rows.map(({ xmin: _, ...row }) => row)
        expect(strip(yield* Effect.promise(() => rowsOf("lost")))).toEqual(strip(yield* Effect.promise(() => rowsOf("clean"))))
        expect(strip(yield* Effect.promise(() => rowsOf("lost_rejects")))).toEqual(strip(yield* Effect.promise(() => rowsOf("clean_rejects"))))
      }),
    TIMEOUT
  )

  it.live(
    "resumes a run whose connection was lost from its last committed chunk: the rows after it only are read, and the tables and report are a clean run's",
    () =>
      Effect.gen(function* () {
        const query = "select id, payload from legacy"
        const input = { name: query, identity: "legacy, 300 rows" }
        const url = urlOf(server)
        const migrateInto = (table: string, resume: boolean, onProgress?: () => Effect.Effect<void>) =>
          Effect.scoped(
            Effect.gen(function* () {
              const into = yield* postgresSink({ url, table, input })
              const after = resume ? yield* into.resumePoint : undefined
              let read = 0
              const all = yield* postgresSource({ url, query, batch: 64 })
              const source = all.after(after?.position)
              const inputs = { records: source.records.pipe(Stream.tap((batch) => Effect.sync(() => void (read += batch.length)))) }
              const report = yield* migrate({ inputs, into, ...(after === undefined ? {} : { after }), ...(onProgress === undefined ? {} : { onProgress }) })
              return { report, read }
            })
          ).pipe(Effect.provide(layer))
        let chunks = 0
        const lost = yield* Effect.flip(
          migrateInto("resumed", false, () =>
            ++chunks === 3
              ? Effect.promise(() =>
                  admin.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'scanbridge' and pid <> pg_backend_pid()")
                ).pipe(Effect.asVoid)
              : Effect.void
          )
        )
        expect(lost).toBeInstanceOf(PostgresError)
        const resumed = yield* migrateInto("resumed", true)
        // Progress follows a chunk's commit: three chunks (64 rows each) were committed when the
        // connection went, and the fourth failed. Only the rows after the third are read again.
        expect(resumed.read).toBe(300 - 3 * 64)
        const clean = yield* migrateInto("unbroken", false)
        expect(resumed.report).toEqual(clean.report)
        // Repeats across the stop are counted too: the keys written before it were kept beside the checkpoint.
        expect(resumed.report.scans - resumed.report.repeatedScans!).toBe(
          Number((yield* Effect.promise(() => admin.query("select count(*) as n from resumed"))).rows[0].n)
        )
        const strip = (rows: ReadonlyArray<Record<string, unknown>>) => rows.map(({ xmin: _, ...row }) => row)
        expect(strip(yield* Effect.promise(() => rowsOf("resumed")))).toEqual(strip(yield* Effect.promise(() => rowsOf("unbroken"))))
        expect(strip(yield* Effect.promise(() => rowsOf("resumed_rejects")))).toEqual(strip(yield* Effect.promise(() => rowsOf("unbroken_rejects"))))
        // An input that has changed since is not resumed.
        const changed = yield* Effect.flip(
          Effect.scoped(
            Effect.flatMap(postgresSink({ url, table: "resumed", input: { name: query, identity: "legacy, 301 rows" } }), (sink) => sink.resumePoint)
          )
        )
        expect(changed.message).toContain("the input has changed since the run being resumed")
      }),
    TIMEOUT
  )

  it.live(
    "streams a 100,000-row source with flat memory: the heap at the end is what it was a tenth of the way in",
    () =>
      Effect.gen(function* () {
        const template = JSON.parse(readFileSync(join(EXPORT, "platform/entries.ndjson"), "utf8").split("\n")[0]!) as { entry: { id: string } }
        yield* Effect.promise(() =>
          admin.query(
            "create table big as select g as id, jsonb_set($1::jsonb, '{entry,id}', to_jsonb('scan_' || g)) as payload from generate_series(1, 100000) g",
            [JSON.stringify(template)]
          )
        )
        const heap: Array<number> = []
        // The heap's live objects, not the garbage a collection has yet to take: measured after one.
        const live = () => {
          collectGarbage()
          return process.memoryUsage().heapUsed
        }
        const report = yield* pgToPg(
          "select id, payload from big",
          "big_scans",
          (r) => Effect.sync(() => void (r.records % 10_240 === 0 && heap.push(live()))),
          1024
        )
        expect(report).toMatchObject({ records: 100_000, migrated: 100_000, scans: 100_000 })
        const rows = yield* Effect.promise(() => admin.query("select count(*) as n from big_scans"))
        expect(Number(rows.rows[0].n)).toBe(100_000)
        // The records alone are some 150 MB as strings: were they held, the heap would grow by that much.
        const MB = 1024 * 1024
        expect(heap.length).toBeGreaterThanOrEqual(9)
        // Measured: 37-38 MB throughout.
        expect(Math.max(...heap) - heap[0]!).toBeLessThan(16 * MB)
      }),
    TIMEOUT
  )

  it.live(
    "keeps the password out of errors: a wrong one, a query that fails, a table that is not the sink's",
    () =>
      Effect.gen(function* () {
        const wrong = `wrong-${Redacted.value(server.password)}`
        const refused = yield* Effect.flip(Effect.scoped(postgresSource({ url: urlOf(server, wrong), query: "select id, payload from legacy" })))
        expect(refused).toMatchObject({ _tag: "PostgresError", operation: "connect", code: "28P01" })
        const bad = yield* Effect.flip(Effect.scoped(postgresSource({ url: urlOf(server), query: "select id from nowhere" })))
        expect(bad).toMatchObject({ _tag: "PostgresError", operation: "read", code: "42P01" })
        const three = yield* Effect.flip(Effect.scoped(postgresSource({ url: urlOf(server), query: "select id, payload, 1 from legacy" })))
        expect(three.message).toContain("expected two, a key, then the record")
        yield* Effect.promise(() => admin.query("create table taken (id int)"))
        const taken = yield* Effect.flip(Effect.scoped(postgresSink({ url: urlOf(server), table: "taken" })))
        expect(taken.message).toContain("exists with other columns than Scanbridge's")
        const named = yield* Effect.flip(Effect.scoped(postgresSink({ url: urlOf(server), table: "drop table x; --" })))
        expect(named.message).toContain("is not a table name")
        for (const e of [refused, bad, three, taken, named]) {
          const text = `${String(e)} ${JSON.stringify(e)}`
          expect(text).not.toContain(Redacted.value(server.password))
          expect(text).not.toContain(wrong)
        }
      }),
    TIMEOUT
  )

  it.live(
    "counts the scans several records were, within a chunk and across chunks, whether or not a checkpoint is kept",
    () =>
      Effect.gen(function* () {
        const entries = readFileSync(join(EXPORT, "platform/entries.ndjson"), "utf8")
          .split("\n")
          .filter((l) => l.trim() !== "")
        // 15 scans of their own ids, then 11 records that are scans already read: 26 records, 15 rows.
        const scan = (i: number) => {
          const entry = JSON.parse(entries[0]!) as { entry: { id: string } }
          entry.entry.id = `twice_${i}`
          return JSON.stringify(entry)
        }
        yield* Effect.promise(() => admin.query("create table twice (id bigint primary key, payload text)"))
        const records = [...[...Array(15).keys()].map(scan), ...[0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 14].map(scan)]
        for (const [i, r] of records.entries()) yield* Effect.promise(() => admin.query("insert into twice values ($1, $2)", [i, r]))
        for (const input of [undefined, { name: "twice", identity: "26 rows" }]) {
          const table = input === undefined ? "twice_plain" : "twice_kept"
          const report = yield* Effect.scoped(
            Effect.gen(function* () {
              const url = urlOf(server)
              const source = yield* postgresSource({ url, query: "select id, payload from twice", batch: 5 })
              const into = yield* postgresSink({ url, table, ...(input === undefined ? {} : { input }) })
              return yield* migrate({ inputs: source, into })
            })
          ).pipe(Effect.provide(layer))
          const rows = Number((yield* Effect.promise(() => admin.query(`select count(*) as n from ${table}`))).rows[0].n)
          expect(report).toMatchObject({ records: 26, migrated: 26, scans: 26, repeatedScans: 11 })
          expect(rows).toBe(15)
        }
      }),
    TIMEOUT
  )

  it.live(
    "names the side that failed (--from, --into), and what to do about a password the server asks for",
    () =>
      Effect.gen(function* () {
        const query = "select id, payload from legacy"
        const noPassword = Redacted.make(`postgres://${server.username}@${server.host}:${server.port}/${server.database}`)
        const saved = process.env["PGPASSWORD"]
        delete process.env["PGPASSWORD"]
        const [from, into] = yield* Effect.all([
          Effect.flip(Effect.scoped(postgresSource({ url: noPassword, query, name: "--from" }))),
          Effect.flip(Effect.scoped(postgresSink({ url: noPassword, table: "nowhere", name: "--into" })))
        ]).pipe(Effect.ensuring(Effect.sync(() => (saved === undefined ? undefined : void (process.env["PGPASSWORD"] = saved)))))
        expect(from.message).toMatch(/^--from: connect: .*password.*: set PGPASSWORD, or give it in the URL/)
        expect(into.message).toMatch(/^--into: connect: .*password.*: set PGPASSWORD, or give it in the URL/)
        const wrong = yield* Effect.flip(Effect.scoped(postgresSink({ url: urlOf(server, "not-it"), table: "nowhere", name: "--into" })))
        expect(wrong).toMatchObject({ operation: "connect", code: "28P01" })
        expect(wrong.message).toMatch(/^--into: connect: .*\(the password, from the URL or else PGPASSWORD, is not this user's: check it\)$/)
        // A port nothing listens on: the free one a server just left.
        const port = yield* Effect.promise(
          () =>
            new Promise<number>((resolve) => {
              const listener = createServer().listen(0, "127.0.0.1", () => {
                const { port } = listener.address() as AddressInfo
                listener.close(() => resolve(port))
              })
            })
        )
        const closed = urlOf({ ...server, port })
        const refusedFrom = yield* Effect.flip(Effect.scoped(postgresSource({ url: closed, query, name: "--from" })))
        const refusedInto = yield* Effect.flip(Effect.scoped(postgresSink({ url: closed, table: "nowhere", name: "--into" })))
        for (const [side, e] of [
          ["--from", refusedFrom],
          ["--into", refusedInto]
        ] as const) {
          expect(e).toMatchObject({ operation: "connect", code: "ECONNREFUSED" })
          expect(e.message).toMatch(new RegExp(`^${side}: connect: .*ECONNREFUSED 127\\.0\\.0\\.1:${port} \\(no server accepts connections there`))
        }
        // Failures after the connection name their side too.
        const bad = yield* Effect.flip(Effect.scoped(postgresSource({ url: urlOf(server), query: "select id from nowhere", name: "--from" })))
        expect(bad.message).toMatch(/^--from: read: /)
        for (const e of [from, into, wrong, refusedFrom, refusedInto, bad])
          expect(`${String(e)} ${JSON.stringify(e)}`).not.toContain(Redacted.value(server.password))
      }),
    TIMEOUT
  )
})
