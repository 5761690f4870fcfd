/**
 * `scanbridge migrate --resumable` killed at random points (SIGKILL: no finalizer runs) and on
 * SIGINT, then `--resume`d: the outputs are the bytes of a run that never stopped. A changed
 * input is refused. The command runs as a process of its own, from the sources, as a user's would.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { ChildProcess } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { appendFile, mkdtemp, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { exited, repoRoot, run, spawnCli } from "./harness.js"

const TIMEOUT = 600_000
let dir: string

const records = (): ReadonlyArray<string> => {
  const lines = readFileSync(join(repoRoot, "examples/export/platform/entries.ndjson"), "utf8").split("\n").filter((l) => l !== "")
  const broken = readFileSync(join(repoRoot, "examples/export/broken.ndjson"), "utf8").split("\n").filter((l) => l !== "")
  return [...lines, ...broken]
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scanbridge-resume-cli-"))
  const all = records()
  // Enough chunks that a kill lands anywhere among them: 24,000 records, 24 chunks.
  await writeFile(join(dir, "a.ndjson"), `${Array.from({ length: 16_000 }, (_, i) => all[i % all.length]).join("\n")}\n`)
  await writeFile(join(dir, "b.ndjson"), `${Array.from({ length: 8_000 }, (_, i) => all[(i * 5) % all.length]).join("\n")}\n`)
  const clean = await run("migrate", join(dir, "a.ndjson"), join(dir, "b.ndjson"), "--out", join(dir, "clean.ndjson"), "--rejects", join(dir, "clean.rejects"), "--quiet")
  expect(clean.code).toBe(0)
}, TIMEOUT)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Resolves once `file` exists: the run has written its first checkpoint. */
const whenExists = async (file: string, child: ChildProcess) => {
  while (!existsSync(file) && child.exitCode === null) await new Promise((r) => setTimeout(r, 5))
}

describe("a resumable run", () => {
  it(
    "killed at random points, then resumed, writes the bytes of a run that never stopped",
    async () => {
      const inputs = [join(dir, "a.ndjson"), join(dir, "b.ndjson")]
      const outputs = (name: string) => ["--out", join(dir, `${name}.ndjson`), "--rejects", join(dir, `${name}.rejects`)]
      for (const [round, signal] of [
        [1, "SIGKILL"],
        [2, "SIGKILL"],
        [3, "SIGINT"]
      ] as const) {
        const name = `killed-${round}`
        const checkpoint = join(dir, `.${name}.ndjson.resumable.checkpoint`)
        // Somewhere after the first checkpoint: the machine's speed decides where, and any place
        // must do. A run that ends before its signal is run again, with less time.
        for (let wait = 300; ; wait = Math.floor(wait / 2)) {
          const child = spawnCli(["migrate", ...inputs, ...outputs(name), "--resumable", "--quiet"])
          const done = exited(child)
          await whenExists(checkpoint, child)
          await new Promise((r) => setTimeout(r, Math.floor(Math.random() * wait)))
          child.kill(signal)
          const code = await done
          if (code !== 0) break
        }
        // Stopped midway: the checkpoint and the outputs so far are kept, the destinations not yet there.
        expect(existsSync(checkpoint)).toBe(true)
        expect(existsSync(join(dir, `${name}.ndjson`))).toBe(false)
        const resumed = await run("migrate", ...inputs, ...outputs(name), "--resume")
        expect(resumed.code).toBe(0)
        expect(resumed.stderr).not.toContain("nothing to resume")
        // Compared as bytes (a diff of megabytes would not help anyone).
        const same = (ext: string) => readFileSync(join(dir, `${name}.${ext}`)).equals(readFileSync(join(dir, `clean.${ext}`)))
        expect(same("ndjson")).toBe(true)
        expect(same("rejects")).toBe(true)
      }
      // Nothing is left beside the outputs once they are in place.
      expect((await readdir(dir)).filter((n) => n.startsWith("."))).toEqual([])
    },
    TIMEOUT
  )

  it(
    "refuses to resume after an input has changed, and resumes nothing when there is no checkpoint",
    async () => {
      const input = join(dir, "c.ndjson")
      await writeFile(input, `${records().slice(0, 3).join("\n")}\n`)
      const out = join(dir, "c.out")
      // A checkpoint as a stopped run leaves it: the first record written.
      const child = spawnCli(["migrate", input, "--out", out, "--resumable", "--quiet"])
      const done = exited(child)
      await done
      // That run finished: no checkpoint; resuming starts from the first record and says so.
      const nothing = await run("migrate", input, "--out", out, "--resume")
      expect(nothing.code).toBe(0)
      expect(nothing.stderr).toContain("nothing to resume")
      const first = readFileSync(out)
      await writeFile(join(dir, ".c.out.resumable.checkpoint"), JSON.stringify({
        format: "scanbridge.checkpoint/v1",
        inputs: [{ file: input, size: first.length, modified: 0 }],
        target: "canonical",
        outputs: [{ file: out, bytes: 0 }],
        position: { file: input, line: 1 },
        report: { records: 1, migrated: 1, rejected: 0, scans: 1, target: "canonical", byFormat: {}, byStatus: {}, byNoteKind: {}, byRejectReason: {} }
      }))
      await appendFile(input, `${records()[3]}\n`)
      const changed = await run("migrate", input, "--out", out, "--resume")
      expect(changed.code).toBe(1)
      expect(changed.stderr).toContain("has changed since the run being resumed")
      expect(changed.stderr).toContain("run without --resume to start again")
      expect(readFileSync(out).equals(first)).toBe(true)
      const usage = await run("migrate", input, "--resumable")
      expect(usage.code).toBe(2)
      expect(usage.stderr).toContain("--resumable keeps a checkpoint beside the output: give --out FILE")
      const parquet = await run("migrate", input, "--to", "parquet", "--out", join(dir, "c.parquet"), "--resumable")
      expect(parquet.code).toBe(2)
      expect(parquet.stderr).toContain("a Parquet file is written whole")
    },
    TIMEOUT
  )
})
