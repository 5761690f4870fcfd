/**
 * The plain API's migratePostgres: files or a query into a PostgreSQL table, on a server the
 * suite starts itself; a rerun leaves the same rows (its failures: failures.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type pg from "pg"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type RunningPostgres, startPostgres } from "../../migrate/test/postgres.js"
import { migratePostgres } from "../src/index.js"

const TIMEOUT = 300_000
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))
let running: RunningPostgres
let admin: pg.Client
let url: string

beforeAll(async () => {
  running = await startPostgres()
  ;({ admin, url } = running)
}, TIMEOUT)
afterAll(() => running?.stop(), TIMEOUT)

describe("migratePostgres", () => {
  it(
    "migrates files into a table, then that table's scans as a query into another, and a rerun changes nothing",
    async () => {
      const report = await migratePostgres({ from: join(repoRoot, "examples/export"), into: { url, table: "from_files" } })
      expect(report).toMatchObject({ records: 27, migrated: 24, rejected: 3, scans: 26 })
      const rejects = await admin.query("select count(*)::int as n from from_files_rejects")
      expect(rejects.rows[0].n).toBe(3)
      const again = await migratePostgres({ from: join(repoRoot, "examples/export"), into: { url, table: "from_files" }, resume: true })
      // Resumed after the last record committed: nothing is left to read, and the report is the whole run's.
      expect(again).toEqual(report)
      const copied = await migratePostgres({
        from: { url, query: "select source_api || '/' || scan_key, scan from from_files" },
        into: { url, table: "copied" }
      })
      const rows = await admin.query("select count(*)::int as n from from_files")
      expect(copied).toMatchObject({ records: rows.rows[0].n, rejected: 0 })
      const same = await admin.query("select count(*)::int as n from from_files a join copied b using (source_api, scan_key) where a.scan = b.scan")
      expect(same.rows[0].n).toBe(rows.rows[0].n)
    },
    TIMEOUT
  )
})
