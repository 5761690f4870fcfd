/**
 * `scanbridge migrate --from postgres://... --query ... --into postgres://... --table ...`, and a
 * CSV export, against a real PostgreSQL the suite starts itself: the command's flags, what it
 * prints, and that no URL or password is ever printed.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import type pg from "pg"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { type RunningPostgres, startPostgres } from "../../migrate/test/postgres.js"
import { repoRoot, run } from "./harness.js"

const TIMEOUT = 300_000
let running: RunningPostgres
let admin: pg.Client
let url: string

beforeAll(async () => {
  running = await startPostgres()
  ;({ admin, url } = running)
  await admin.query("create table legacy (id text primary key, payload jsonb)")
  const lines = readFileSync(join(repoRoot, "examples/export/platform/entries.ndjson"), "utf8").split("\n").filter((l) => l !== "")
  for (const [i, line] of lines.entries()) await admin.query("insert into legacy values ($1, $2)", [`row-${i}`, line])
  await admin.query(`insert into legacy values ('row-x', '{"kind":"not a scan"}')`)
}, TIMEOUT)
afterAll(() => running?.stop(), TIMEOUT)

describe("scanbridge migrate with PostgreSQL", () => {
  it(
    "migrates a JSONB column into a table of scans and its rejects table, and prints no credential",
    async () => {
      const r = await run("migrate", "--from", url, "--query", "select id, payload from legacy", "--into", url, "--table", "migrated")
      expect(r.code).toBe(0)
      const scans = await admin.query("select count(*) as n from migrated")
      const rejects = await admin.query("select record, error_tag from migrated_rejects")
      expect(Number(scans.rows[0].n)).toBeGreaterThan(0)
      expect(rejects.rows).toEqual([{ record: "row-x", error_tag: "UnknownFormatError" }])
      expect(r.stderr).toContain("8 records")
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
      expect(r.stdout.trim().split("\n").every((l) => JSON.parse(l).format === "scanbridge.scan/v1")).toBe(true)
      const refusals: ReadonlyArray<[ReadonlyArray<string>, string]> = [
        [["migrate", "--from", url], "--from and --query go together"],
        [["migrate", "in.ndjson", "--from", url, "--query", "select 1, 2"], "give no input files with it"],
        [["migrate", "--from", url, "--query", "select 1, 2", "--into", url, "--out", "x.ndjson"], "drop --out"],
        [["migrate", "in.ndjson", "--into", url, "--to", "csv"], "drop --to and --units"],
        [["migrate", "in.ndjson", "--into", `mysql://u:${Redacted.value(running.server.password)}@h/db`], "--into: expected a postgres:// or postgresql:// URL"],
        [["migrate"], "give the inputs to migrate"]
      ]
      for (const [args, message] of refusals) {
        const refused = await run(...args)
        expect(refused.code).toBe(2)
        expect(refused.stderr).toContain(message)
        expect(refused.stderr).not.toContain(Redacted.value(running.server.password))
      }
      const wrong = await run("migrate", "--from", url.replace(encodeURIComponent(Redacted.value(running.server.password)), "wrong-secret"), "--query", "select id, payload from legacy")
      expect(wrong.code).toBe(1)
      expect(wrong.stderr).toContain("password authentication failed")
      expect(wrong.stderr).not.toContain("wrong-secret")
    },
    TIMEOUT
  )
})
