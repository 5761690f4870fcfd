/**
 * `scanbridge migrate --from postgres://... --query ... --into postgres://... --table ...`, and a
 * CSV export, against a real PostgreSQL the suite starts itself: the command's flags, what it
 * prints, and that no URL or password is ever printed.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import type pg from "pg"
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { type AddressInfo, createServer } from "node:net"
import { join } from "node:path"
import { type RunningPostgres, startPostgres } from "../../migrate/test/postgres.js"
import { exited, repoRoot, run, spawnCli } from "./harness.js"

const TIMEOUT = 300_000
let running: RunningPostgres
let admin: pg.Client
let url: string

beforeAll(async () => {
  running = await startPostgres()
  ;({ admin, url } = running)
  await admin.query("create table legacy (id text primary key, payload jsonb)")
  const lines = readFileSync(join(repoRoot, "examples/export/platform/entries.ndjson"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
  for (const [i, line] of lines.entries()) await admin.query("insert into legacy values ($1, $2)", [`row-${i}`, line])
  await admin.query(`insert into legacy values ('row-x', '{"kind":"not a scan"}')`)
}, TIMEOUT)
afterAll(() => running?.stop(), TIMEOUT)

describe("scanbridge migrate with PostgreSQL", () => {
  it(
    "migrates a JSONB column into a table of scans and its rejects table, and prints no credential",
    async () => {
      const r = await run("migrate", "--from", url, "--query", "select id, payload from legacy", "--into", url, "--table", "migrated")
      expect(r.code, r.stderr).toBe(0)
      const scans = await admin.query("select count(*) as n from migrated")
      const rejects = await admin.query("select record, error_tag from migrated_rejects")
      expect(Number(scans.rows[0].n)).toBeGreaterThan(0)
      expect(rejects.rows).toEqual([{ record: "row-x", error_tag: "UnknownFormatError" }])
      expect(r.stderr).toContain("8 records")
      // The reject is in the table beside the scans: no --rejects to ask for.
      expect(r.stderr).toContain("1 rejected record(s) kept in the table migrated_rejects")
      expect(r.stderr).not.toContain("pass --rejects FILE")
      for (const text of [r.stdout, r.stderr]) {
        expect(text).not.toContain(Redacted.value(running.server.password))
        expect(text).not.toContain(url)
      }
    },
    TIMEOUT
  )

  it(
    "writes canonical NDJSON from a query to standard output, and refuses flags that do not go together",
    async () => {
      const r = await run("migrate", "--from", url, "--query", "select id, payload from legacy where id <> 'row-x'", "--quiet")
      expect(r.code).toBe(0)
      expect(
        r.stdout
          .trim()
          .split("\n")
          .every((l) => JSON.parse(l).format === "scanbridge.scan/v1")
      ).toBe(true)
      const refusals: ReadonlyArray<[ReadonlyArray<string>, string]> = [
        [["migrate", "--from", url], "--from and --query go together"],
        [["migrate", "in.ndjson", "--from", url, "--query", "select 1, 2"], "give no input files with it"],
        [["migrate", "--from", url, "--query", "select 1, 2", "--into", url, "--out", "x.ndjson"], "drop --out"],
        [["migrate", "in.ndjson", "--into", url, "--to", "csv", "--units", "cm"], "drop --to and --units"],
        [["migrate", "in.ndjson", "--into", url, "--to", "fhir", "--fhir-patient-system", "urn:oid:1.2.3"], "drop --to and --fhir-patient-system"],
        [
          ["migrate", "in.ndjson", "--into", `mysql://u:${Redacted.value(running.server.password)}@h/db`],
          "--into: expected a postgres:// or postgresql:// URL"
        ],
        [["migrate"], "give the inputs to migrate"]
      ]
      for (const [args, message] of refusals) {
        const refused = await run(...args)
        expect(refused.code).toBe(2)
        expect(refused.stderr).toContain(message)
        expect(refused.stderr).not.toContain(Redacted.value(running.server.password))
      }
      const wrong = await run(
        "migrate",
        "--from",
        url.replace(encodeURIComponent(Redacted.value(running.server.password)), "wrong-secret"),
        "--query",
        "select id, payload from legacy"
      )
      expect(wrong.code).toBe(1)
      expect(wrong.stderr).toContain("password authentication failed")
      expect(wrong.stderr).not.toContain("wrong-secret")
    },
    TIMEOUT
  )

  it(
    "says when several records were one scan: the table's rows are fewer than the scans, in the summary and the report",
    async () => {
      await admin.query("create table twice as select id || '-again' as id, payload from legacy where id <> 'row-x' union all select id, payload from legacy")
      const dir = await mkdtemp(join(tmpdir(), "scanbridge-pg-twice-"))
      const report = join(dir, "twice.report.json")
      const r = await run("migrate", "--from", url, "--query", "select id, payload from twice", "--into", url, "--table", "twice_scans", "--report", report)
      expect(r.code, r.stderr).toBe(0)
      // Each of the 7 records twice; some of the 7 are themselves versions of one scan.
      const rows = Number((await admin.query("select count(*) as n from twice_scans")).rows[0].n)
      expect(rows).toBeGreaterThan(0)
      expect(rows).toBeLessThanOrEqual(7)
      const repeated = 14 - rows
      expect(r.stderr).toContain(
        ` migrated to postgres rows as 14 scans (${rows} rows: ${repeated} scan(s) were written over a row of the same scan written earlier in this run, as several records were one scan), 1 rejected\n`
      )
      expect(JSON.parse(readFileSync(report, "utf8"))).toMatchObject({ records: 15, scans: 14, repeatedScans: repeated })
      await rm(dir, { recursive: true, force: true })
    },
    TIMEOUT
  )

  it(
    "names the side that failed, --from or --into, and PGPASSWORD when the server asks for a password not given",
    async () => {
      const noPassword = url.replace(`:${encodeURIComponent(Redacted.value(running.server.password))}@`, "@")
      expect(noPassword).not.toBe(url)
      const saved = process.env["PGPASSWORD"]
      delete process.env["PGPASSWORD"]
      try {
        const from = await run("migrate", "--from", noPassword, "--query", "select id, payload from legacy")
        expect(from.code).toBe(1)
        expect(from.stderr).toMatch(/--from: connect: .*set PGPASSWORD, or give it in the URL/)
        const into = await run("migrate", "--from", url, "--query", "select id, payload from legacy", "--into", noPassword)
        expect(into.code).toBe(1)
        expect(into.stderr).toMatch(/--into: connect: .*set PGPASSWORD, or give it in the URL/)
      } finally {
        if (saved !== undefined) process.env["PGPASSWORD"] = saved
      }
      const port = await new Promise<number>((resolve) => {
        const listener = createServer().listen(0, "127.0.0.1", () => {
          const { port } = listener.address() as AddressInfo
          listener.close(() => resolve(port))
        })
      })
      const closed = url.replace(`:${running.server.port}/`, `:${port}/`)
      const refusedFrom = await run("migrate", "--from", closed, "--query", "select id, payload from legacy", "--into", url)
      expect(refusedFrom.code).toBe(1)
      expect(refusedFrom.stderr).toMatch(new RegExp(`--from: connect: .*ECONNREFUSED 127\\.0\\.0\\.1:${port}`))
      const refusedInto = await run("migrate", "--from", url, "--query", "select id, payload from legacy", "--into", closed)
      expect(refusedInto.code).toBe(1)
      expect(refusedInto.stderr).toMatch(new RegExp(`--into: connect: .*ECONNREFUSED 127\\.0\\.0\\.1:${port}`))
      for (const r of [refusedFrom, refusedInto]) expect(r.stderr).not.toContain(Redacted.value(running.server.password))
    },
    TIMEOUT
  )

  it(
    "killed midway (SIGKILL) and run again with --resume, leaves the tables and the report of a run that never stopped",
    async () => {
      // 20,000 rows of a JSON column (JSON, not JSONB: the text as stored), a tenth of them not scans.
      await admin.query(
        "create table many as select g as id, (case when g % 10 = 0 then '{\"kind\":\"not a scan\"}' else (select payload::text from legacy where id = 'row-' || (g % 7)) end)::json as payload from generate_series(1, 20000) g"
      )
      const query = "select id, payload from many"
      const migrateInto = (table: string, ...extra: ReadonlyArray<string>) => [
        "migrate",
        "--from",
        url,
        "--query",
        query,
        "--into",
        url,
        "--table",
        table,
        ...extra
      ]
      const committed = async () =>
        (await admin.query("select (report->>'records')::int as n from scanbridge_checkpoints where table_name = '\"killed\"'")).rows[0]?.n as
          | number
          | undefined
      // Somewhere after the first committed chunk: a run that ends first is run again, with less time.
      for (let wait = 300; ; wait = Math.floor(wait / 2)) {
        await admin
          .query("drop table if exists killed, killed_rejects; delete from scanbridge_checkpoints where table_name = '\"killed\"'")
          .catch(() => undefined)
        const child = spawnCli([...migrateInto("killed"), "--quiet"])
        const done = exited(child)
        while (child.exitCode === null && ((await committed().catch(() => undefined)) ?? 0) === 0) await new Promise((r) => setTimeout(r, 10))
        await new Promise((r) => setTimeout(r, Math.floor(Math.random() * wait)))
        child.kill("SIGKILL")
        if ((await done) !== 0) break
      }
      const before = await committed()
      expect(before).toBeGreaterThan(0)
      expect(before).toBeLessThan(20_000)
      const resumed = await run(...migrateInto("killed", "--resume", "--report", "-", "--quiet"))
      expect(resumed.code).toBe(0)
      const clean = await run(...migrateInto("unkilled", "--report", "-", "--quiet"))
      expect(JSON.parse(resumed.stdout)).toEqual(JSON.parse(clean.stdout))
      expect(JSON.parse(clean.stdout)).toMatchObject({ records: 20_000, rejected: 2_000 })
      const rows = async (table: string) => (await admin.query(`select * from ${table} order by 1, 2`)).rows
      expect(await rows("killed")).toEqual(await rows("unkilled"))
      expect(await rows("killed_rejects")).toEqual(await rows("unkilled_rejects"))
    },
    TIMEOUT
  )

  it(
    "a resumable run from a query into files, killed midway, resumes after its last key into the bytes of a run that never stopped; another query is refused",
    async () => {
      await admin.query(
        "create table numbered as select g as id, (case when g % 10 = 0 then '{\"kind\":\"not a scan\"}' else (select payload::text from legacy where id = 'row-' || (g % 7)) end) as payload from generate_series(1, 20000) g"
      )
      const query = "select id, payload from numbered"
      const dir = await mkdtemp(join(tmpdir(), "scanbridge-pg-files-"))
      const outputs = (name: string) => ["--out", join(dir, `${name}.ndjson`), "--rejects", join(dir, `${name}.rejects`)]
      const clean = await run("migrate", "--from", url, "--query", query, ...outputs("clean"), "--quiet")
      expect(clean.code).toBe(0)
      const checkpoint = join(dir, ".killed.ndjson.resumable.checkpoint")
      for (let wait = 300; ; wait = Math.floor(wait / 2)) {
        const child = spawnCli(["migrate", "--from", url, "--query", query, ...outputs("killed"), "--resumable", "--quiet"])
        const done = exited(child)
        while (child.exitCode === null && !existsSync(checkpoint)) await new Promise((r) => setTimeout(r, 10))
        await new Promise((r) => setTimeout(r, Math.floor(Math.random() * wait)))
        child.kill("SIGKILL")
        if ((await done) !== 0) break
      }
      // Its last key: the rows after it only are read again.
      expect(JSON.parse(readFileSync(checkpoint, "utf8")).position.key).toMatch(/^\d+$/)
      const other = await run("migrate", "--from", url, "--query", `${query} where id > 5`, ...outputs("killed"), "--resume")
      expect(other.code).toBe(1)
      expect(other.stderr).toContain(`the run being resumed read ${query} where ${query} where id > 5 is now`)
      const resumed = await run("migrate", "--from", url, "--query", query, ...outputs("killed"), "--resume", "--quiet")
      expect(resumed.code, resumed.stderr).toBe(0)
      for (const ext of ["ndjson", "rejects"]) expect(readFileSync(join(dir, `killed.${ext}`)).equals(readFileSync(join(dir, `clean.${ext}`)))).toBe(true)
      await rm(dir, { recursive: true, force: true })
    },
    TIMEOUT
  )
})
