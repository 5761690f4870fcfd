/**
 * Importing `scanbridge` loads no command line, no simulator and no Node-specific platform: a
 * child process imports it (from its sources, as the workspace resolves it) with a loader hook
 * that records every module loaded. The same hook then sees migrateFile load Node's file system
 * on its first call, so the check cannot pass by recording nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)
const packageDir = fileURLToPath(new URL("..", import.meta.url))
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))

const MARK = "scanbridge:migrateFile"
const HEAVY = [
  ["@effect/cli", /\/@effect\/cli\//],
  ["@effect/platform-node", /\/@effect\/platform-node(-shared)?\//],
  ["the simulator", /\/packages\/simulator\//],
  ["the CLI package", /\/packages\/cli\//]
] as const

// Imports the package by its name, uses the plain functions, then marks the log and migrates a file.
const script = (out: string) => `
import { appendFileSync } from "node:fs"
const { normalize, detectFormat, encoders, migrateFile } = await import("scanbridge")
const record = JSON.parse(${JSON.stringify(JSON.stringify({ format: "scanbridge.scan/v1" }))})
try { normalize(record) } catch {}
try { detectFormat(record); encoders.toPlatformEntry(record) } catch {}
appendFileSync(process.env.SCANBRIDGE_LOADED_LOG, "${MARK}\\n")
const report = await migrateFile(${JSON.stringify(join(repoRoot, "examples/export/platform/entries.ndjson"))}, { out: ${JSON.stringify(out)} })
console.log(JSON.stringify(report))
`

describe("importing scanbridge", () => {
  it("loads neither @effect/cli, @effect/platform-node nor the simulator; migrateFile loads Node's file system on its first call", async () => {
    const dir = await mkdtemp(join(tmpdir(), "scanbridge-light-"))
    try {
      const log = join(dir, "loaded.txt")
      const { stdout } = await run(
        process.execPath,
        [
          "--conditions=@scanbridge/source",
          "--import",
          "tsx",
          "--import",
          join(repoRoot, "tools/record-loads.mjs"),
          "--input-type=module",
          "-e",
          script(join(dir, "out.ndjson"))
        ],
        { cwd: packageDir, env: { ...process.env, SCANBRIDGE_LOADED_LOG: log } }
      )
      expect((JSON.parse(stdout) as { migrated: number }).migrated).toBeGreaterThan(0)
      const lines = (await readFile(log, "utf8")).split("\n")
      const mark = lines.indexOf(MARK)
      expect(mark).toBeGreaterThan(0)
      const onImport = lines.slice(0, mark)
      const onMigrate = lines.slice(mark + 1)
      // The import really went through the hook: the package's own sources are in the list.
      expect(onImport.some((url) => url.endsWith("/packages/scanbridge/src/plain.ts"))).toBe(true)
      for (const [name, pattern] of HEAVY)
        expect(
          onImport.filter((url) => pattern.test(url)),
          name
        ).toEqual([])
      expect(onMigrate.some((url) => /\/@effect\/platform-node\//.test(url))).toBe(true)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
