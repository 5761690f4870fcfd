/**
 * What `scanbridge` loads to start: `--version` nothing but itself, `--help` the command line's
 * definitions without any command's run or the simulator; a command loads its own run when it
 * runs, and `migrate` of a small input nothing of the worker side either. The executable is run from its sources with a loader hook (tools/record-loads.mjs) that
 * records every module the process loads.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { VERSION } from "../src/version.js"
import { repoRoot } from "./harness.js"

const TIMEOUT = 60_000

/** The modules `scanbridge ...args` loads, each as a path from the repository's root (or a URL outside it). */
const loadedBy = async (...args: ReadonlyArray<string>): Promise<{ readonly stdout: string; readonly loaded: ReadonlyArray<string> }> => {
  const dir = await mkdtemp(join(tmpdir(), "scanbridge-startup-"))
  try {
    const log = join(dir, "loaded.txt")
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--conditions=@scanbridge/source",
        "--import",
        "tsx",
        "--import",
        join(repoRoot, "tools/record-loads.mjs"),
        join(repoRoot, "packages/cli/src/main.ts"),
        ...args
      ],
      { cwd: repoRoot, env: { ...process.env, SCANBRIDGE_LOADED_LOG: log } }
    )
    const root = `file://${repoRoot.endsWith("/") ? repoRoot : `${repoRoot}/`}`
    const loaded = (await readFile(log, "utf8")).split("\n").map((url) => (url.startsWith(root) ? url.slice(root.length) : url))
    return { stdout, loaded }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const RUNS = /^packages\/cli\/src\/commands\/[a-z]+-run\.ts$/
const SIMULATOR = /^packages\/simulator\//
// What only a migration worker thread, or the simulator's server, loads.
const WORKER_SIDE =
  /^packages\/cli\/src\/serve-worker\.ts$|^packages\/migrate\/src\/node\/serve\.ts$|\/@effect\/platform-node\/dist\/esm\/NodeWorkerRunner\.js$/
const HTTP_SERVER = /\/@effect\/platform(-node)?\/dist\/esm\/(HttpServer|HttpRouter|NodeHttpServer)\.js$/

describe("start-up", () => {
  it(
    "--version loads no dependency and nothing of the command line, only the executable's own small modules",
    async () => {
      const { stdout, loaded } = await loadedBy("--version")
      expect(stdout).toBe(`${VERSION}\n`)
      const ours = loaded.filter((m) => m.startsWith("packages/"))
      expect(ours).toContain("packages/cli/src/main.ts")
      expect(ours.filter((m) => !["packages/cli/src/main.ts", "packages/cli/src/is-worker.ts", "packages/cli/src/version.ts"].includes(m))).toEqual([])
      expect(loaded.filter((m) => /\/node_modules\/(effect|@effect)\//.test(m))).toEqual([])
    },
    TIMEOUT
  )

  it(
    "--help loads the commands' definitions, not their runs nor the simulator; inspect loads its own run and no other",
    async () => {
      const help = await loadedBy("--help")
      expect(help.stdout).toMatch(/migrate/)
      expect(help.loaded).toContain("packages/cli/src/commands/migrate.ts")
      expect(help.loaded.filter((m) => RUNS.test(m) || SIMULATOR.test(m))).toEqual([])

      const inspect = await loadedBy("inspect", "examples/canonical/photo-scan.json", "--json")
      expect(JSON.parse(inspect.stdout.split("\n")[0]!)).toMatchObject({ format: "scanbridge.scan/v1" })
      expect(inspect.loaded.filter((m) => RUNS.test(m) || SIMULATOR.test(m))).toEqual(["packages/cli/src/commands/inspect-run.ts"])
    },
    TIMEOUT
  )

  it(
    "migrate of one file loads its own run and the adapters, no other command's run, no simulator, no worker side",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "scanbridge-startup-migrate-"))
      try {
        const out = join(dir, "scans.ndjson")
        const migrate = await loadedBy("migrate", "examples/export/platform/entries.ndjson", "--out", out, "--quiet")
        const records = (await readFile(out, "utf8")).split("\n").filter((l) => l !== "")
        expect(records).toHaveLength(7)
        // It did load what a migration needs: the run, the engine and the built-in adapters.
        expect(migrate.loaded).toEqual(
          expect.arrayContaining(["packages/cli/src/commands/migrate-run.ts", "packages/migrate/src/migrate.ts", "packages/platform/src/adapter-entry.ts"])
        )
        // The adapters by their ./adapter entries: reading a format loads no HTTP client.
        expect(migrate.loaded.filter((m) => /^packages\/(platform|session|fit|estimation|http)\/src\/(client|index)\.ts$/.test(m))).toEqual([])
        expect(migrate.loaded.filter((m) => RUNS.test(m) || SIMULATOR.test(m))).toEqual(["packages/cli/src/commands/migrate-run.ts"])
        expect(migrate.loaded.filter((m) => WORKER_SIDE.test(m) || HTTP_SERVER.test(m))).toEqual([])
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    },
    TIMEOUT
  )
})
