/**
 * `scanbridge migrate --resumable` killed at random points (SIGKILL: no finalizer runs) and on
 * SIGINT, then `--resume`d: the outputs are the bytes of a run that never stopped, however the
 * outputs are spelled. A changed input is refused, and so is a resume that would write other bytes
 * than the run being resumed (other rejects, target, units or adapters); `--verify` refuses an
 * input edited to the same size and time. The command runs as a process of its own, from the
 * sources, as a user's would.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { ChildProcess } from "node:child_process"
import { existsSync, readFileSync, realpathSync } from "node:fs"
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { basename, dirname, join, relative } from "node:path"
import { exited, repoRoot, run, spawnCli } from "./harness.js"

const TIMEOUT = 600_000
let dir: string

const records = (): ReadonlyArray<string> => {
  const lines = readFileSync(join(repoRoot, "examples/export/platform/entries.ndjson"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
  const broken = readFileSync(join(repoRoot, "examples/export/broken.ndjson"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
  return [...lines, ...broken]
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scanbridge-resume-cli-"))
  const all = records()
  // Enough chunks that a kill lands anywhere among them: 24,000 records, 24 chunks.
  await writeFile(join(dir, "a.ndjson"), `${Array.from({ length: 16_000 }, (_, i) => all[i % all.length]).join("\n")}\n`)
  await writeFile(join(dir, "b.ndjson"), `${Array.from({ length: 8_000 }, (_, i) => all[(i * 5) % all.length]).join("\n")}\n`)
  const clean = await run(
    "migrate",
    ...inputs(),
    "--out",
    join(dir, "clean.ndjson"),
    "--rejects",
    join(dir, "clean.rejects"),
    "--report",
    join(dir, "clean.report"),
    "--quiet"
  )
  expect(clean.code).toBe(0)
}, TIMEOUT)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const inputs = () => [join(dir, "a.ndjson"), join(dir, "b.ndjson")]

/** Resolves once `file` exists: the run has written its first checkpoint. */
const whenExists = async (file: string, child: ChildProcess) => {
  while (!existsSync(file) && child.exitCode === null) await new Promise((r) => setTimeout(r, 5))
}

/** Where a run writing `out` keeps its checkpoint. */
const checkpointOf = (out: string) => join(dirname(out), `.${basename(out)}.resumable.checkpoint`)

/**
 * `scanbridge ...args` (a --resumable run writing `out`) stopped by `signal` somewhere after its
 * first checkpoint: the machine's speed decides where, and any place must do. A run that ends
 * before its signal, or is stopped only once its outputs are in place, is run again, with less time.
 */
const stopMidway = async (args: ReadonlyArray<string>, out: string, signal: NodeJS.Signals = "SIGKILL") => {
  for (let wait = 300; ; wait = Math.floor(wait / 2)) {
    const child = spawnCli(args)
    const done = exited(child)
    await whenExists(checkpointOf(out), child)
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * wait)))
    child.kill(signal)
    if ((await done) !== 0 && existsSync(checkpointOf(out)) && !existsSync(out)) return
    // A run that ended, or was killed once its output was in place but before its checkpoint was
    // removed: the next must not find that checkpoint and be killed before it has begun.
    await rm(out, { force: true })
    await rm(checkpointOf(out), { force: true })
  }
}

/** `scanbridge ...args`, refused: exit code 1, and `message` on stderr. */
const refused = async (args: ReadonlyArray<string>, message: string) => {
  const result = await run(...args)
  expect(result.code).toBe(1)
  expect(result.stderr).toContain(message)
}

/**
 * `scanbridge ...args` run to success, each of `outputs` (a file, and the extension of the
 * run that never stopped's `clean.EXT`) then holding that run's bytes. Compared as bytes: a diff
 * of megabytes would not help anyone.
 */
const succeedsAsClean = async (args: ReadonlyArray<string>, outputs: ReadonlyArray<readonly [string, string]>) => {
  const result = await run(...args)
  expect(result.code).toBe(0)
  for (const [file, ext] of outputs) expect(readFileSync(file).equals(readFileSync(join(dir, `clean.${ext}`)))).toBe(true)
  return result
}

describe("a resumable run", () => {
  it(
    "killed at random points, then resumed, writes the bytes of a run that never stopped",
    async () => {
      const outputs = (name: string) => ["--out", join(dir, `${name}.ndjson`), "--rejects", join(dir, `${name}.rejects`)]
      // With workers, each writes its chunks into the outputs itself, at their place, so a kill can
      // leave a later chunk's bytes written before an earlier one's: the resumed run cuts the files
      // back to the checkpoint, and its workers may be fewer or more.
      for (const [round, signal, killed, resumed] of [
        [1, "SIGKILL", "0", "0"],
        [2, "SIGKILL", "2", "2"],
        [3, "SIGINT", "0", "0"],
        [4, "SIGKILL", "2", "0"],
        [5, "SIGINT", "1", "2"]
      ] as const) {
        const name = `killed-${round}`
        await stopMidway(["migrate", ...inputs(), ...outputs(name), "--resumable", "--quiet", "--workers", killed], join(dir, `${name}.ndjson`), signal)
        // Stopped midway: the checkpoint and the outputs so far are kept, the destinations not yet there.
        expect(existsSync(checkpointOf(join(dir, `${name}.ndjson`)))).toBe(true)
        expect(existsSync(join(dir, `${name}.ndjson`))).toBe(false)
        const again = await succeedsAsClean(
          ["migrate", ...inputs(), ...outputs(name), "--resume", "--workers", resumed],
          [
            [join(dir, `${name}.ndjson`), "ndjson"],
            [join(dir, `${name}.rejects`), "rejects"]
          ]
        )
        expect(again.stderr).not.toContain("nothing to resume")
      }
      // Nothing is left beside the outputs once they are in place.
      expect((await readdir(dir)).filter((n) => n.startsWith("."))).toEqual([])
    },
    TIMEOUT
  )

  it(
    "killed (SIGKILL) while it writes a --report, then resumed, leaves no temporary file of it, and writes the report of a run that never stopped",
    async () => {
      // A folder of its own: the only files in it are this run's.
      const own = join(dir, "report-killed")
      await mkdir(own)
      const args = ["migrate", ...inputs(), "--out", join(own, "out.ndjson"), "--rejects", join(own, "out.rejects"), "--report", join(own, "report.json")]
      await stopMidway([...args, "--resumable", "--quiet"], join(own, "out.ndjson"))
      // The report's temporary file has the name the resumed run writes: a random one was left for ever.
      expect(await readdir(own)).toContain(".report.json.resumable.partial")
      await succeedsAsClean(
        [...args, "--resume", "--quiet"],
        [
          [join(own, "out.ndjson"), "ndjson"],
          [join(own, "out.rejects"), "rejects"],
          [join(own, "report.json"), "report"]
        ]
      )
      expect((await readdir(own)).sort()).toEqual(["out.ndjson", "out.rejects", "report.json"])
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
      await writeFile(
        join(dir, ".c.out.resumable.checkpoint"),
        JSON.stringify({
          format: "scanbridge.checkpoint/v2",
          inputs: [{ file: input, size: first.length, modified: 0 }],
          target: "canonical",
          adapters: [],
          outputs: [{ name: "--out", file: join(realpathSync(dir), "c.out"), bytes: 0 }],
          position: { file: input, line: 1 },
          report: { records: 1, migrated: 1, rejected: 0, scans: 1, target: "canonical", byFormat: {}, byStatus: {}, byNoteKind: {}, byRejectReason: {} },
          digests: []
        })
      )
      await appendFile(input, `${records()[3]}\n`)
      const changed = await run("migrate", input, "--out", out, "--resume")
      expect(changed.code).toBe(1)
      expect(changed.stderr).toContain("has changed since the run being resumed")
      expect(changed.stderr).toContain("run without --resume to start again")
      expect(readFileSync(out).equals(first)).toBe(true)
      const usage = await run("migrate", input, "--resumable")
      expect(usage.code).toBe(2)
      expect(usage.stderr).toContain("--resumable keeps a checkpoint beside the output: give --out a file")
      const parquet = await run("migrate", input, "--to", "parquet", "--out", join(dir, "c.parquet"), "--resumable")
      expect(parquet.code).toBe(2)
      expect(parquet.stderr).toContain("a Parquet file is written whole")
      // Rejects written to standard output cannot be cut back to a checkpoint.
      const rejectsOut = await run("migrate", input, "--out", out, "--rejects", "-", "--resumable")
      expect(rejectsOut.code).toBe(2)
      expect(rejectsOut.stderr).toContain("--resumable: rejects written to a stream cannot be taken back")
      // A checkpoint of the first format (outputs by the names given, no hashes) is refused, not misread.
      await writeFile(
        join(dir, ".c.out.resumable.checkpoint"),
        JSON.stringify({ format: "scanbridge.checkpoint/v1", inputs: [], target: "canonical", outputs: [] })
      )
      const old = await run("migrate", input, "--out", out, "--resume")
      expect(old.code).toBe(1)
      expect(old.stderr).toContain(
        "is a checkpoint of another version of Scanbridge (scanbridge.checkpoint/v1; this one reads scanbridge.checkpoint/v2); run without --resume to start again"
      )
    },
    TIMEOUT
  )
})

describe("a resume of other outputs or flags than the run being resumed", () => {
  // Two runs stopped midway, one keeping its rejects and one not, in a folder a link also leads to;
  // the files they left (their checkpoint and outputs so far) are put back before each resume.
  let folder: string
  let linked: string
  const stopped = new Map<string, Buffer>()
  const kept = (name: string) => [`.${name}.ndjson.resumable.checkpoint`, `.${name}.ndjson.resumable.partial`, `.${name}.rejects.resumable.partial`]
  const putBack = async () => {
    for (const [file, bytes] of stopped) await writeFile(join(folder, file), bytes)
    for (const name of ["s", "n"]) for (const ext of ["ndjson", "rejects", "report"]) await rm(join(folder, `${name}.${ext}`), { force: true })
  }
  const cleanOutputs = () =>
    [
      [join(folder, "s.ndjson"), "ndjson"],
      [join(folder, "s.rejects"), "rejects"]
    ] as const
  /** Whether the stopped runs' files are as they were left. */
  const untouched = () => [...stopped].every(([file, bytes]) => existsSync(join(folder, file)) && readFileSync(join(folder, file)).equals(bytes))

  beforeAll(async () => {
    folder = join(dir, "outputs")
    linked = join(dir, "linked")
    await mkdir(folder)
    await symlink(folder, linked)
    // Named from the spawned command's folder (the repository), not as the resumes below name them.
    const from = (file: string) => relative(repoRoot, join(folder, file))
    await stopMidway(["migrate", ...inputs(), "--out", from("s.ndjson"), "--rejects", from("s.rejects"), "--resumable", "--quiet"], join(folder, "s.ndjson"))
    await stopMidway(["migrate", ...inputs(), "--out", from("n.ndjson"), "--resumable", "--quiet"], join(folder, "n.ndjson"))
    for (const file of [...kept("s"), ...kept("n")]) if (existsSync(join(folder, file))) stopped.set(file, await readFile(join(folder, file)))
    expect(stopped.size).toBe(5)
  }, TIMEOUT)

  it(
    "resumes outputs spelled another way (./, absolute, through a linked folder) into the bytes of a run that never stopped",
    async () => {
      for (const spelled of [(f: string) => `./${relative(process.cwd(), join(folder, f))}`, (f: string) => join(folder, f), (f: string) => join(linked, f)]) {
        await putBack()
        await succeedsAsClean(["migrate", ...inputs(), "--out", spelled("s.ndjson"), "--rejects", spelled("s.rejects"), "--resume", "--quiet"], cleanOutputs())
      }
    },
    TIMEOUT
  )

  it(
    "refuses other rejects than the run being resumed's, saying which and how to go on, and leaves its files as they were",
    async () => {
      await putBack()
      const real = realpathSync(folder)
      await refused(
        ["migrate", ...inputs(), "--out", join(folder, "s.ndjson"), "--rejects", join(folder, "other.rejects"), "--resume"],
        `cannot resume: the run being resumed writes --out ${real}/s.ndjson and --rejects ${real}/s.rejects, this run --out ${real}/s.ndjson and --rejects ${real}/other.rejects: resume with --out ${real}/s.ndjson and --rejects ${real}/s.rejects; run without --resume to start again`
      )
      await refused(
        ["migrate", ...inputs(), "--out", join(folder, "s.ndjson"), "--resume"],
        `this run --out ${real}/s.ndjson and no --rejects: resume with --out ${real}/s.ndjson and --rejects ${real}/s.rejects`
      )
      // Rejects asked for only now: those before the checkpoint were never kept.
      await refused(
        ["migrate", ...inputs(), "--out", join(folder, "n.ndjson"), "--rejects", join(folder, "n.rejects"), "--resume"],
        `the run being resumed writes --out ${real}/n.ndjson and no --rejects, this run --out ${real}/n.ndjson and --rejects ${real}/n.rejects (what belongs in --rejects before the checkpoint was not kept): resume with --out ${real}/n.ndjson and no --rejects`
      )
      expect(untouched()).toBe(true)
      expect(existsSync(join(folder, "other.rejects")) || existsSync(join(folder, "n.rejects"))).toBe(false)
      // Resumed as it was begun, it writes what a run that never stopped writes; a --report given
      // only now is that run's report, which the checkpoint's report goes on to.
      await succeedsAsClean(
        ["migrate", ...inputs(), "--out", join(folder, "n.ndjson"), "--report", join(folder, "n.report"), "--resume", "--quiet"],
        [
          [join(folder, "n.ndjson"), "ndjson"],
          [join(folder, "n.report"), "report"]
        ]
      )
    },
    TIMEOUT
  )

  it(
    "refuses another --to, --units or --adapter than the run being resumed's",
    async () => {
      await putBack()
      const resume = ["migrate", ...inputs(), "--out", join(folder, "s.ndjson"), "--rejects", join(folder, "s.rejects"), "--resume"]
      await refused([...resume, "--to", "platform"], "cannot resume: the run being resumed wrote canonical, not platform; run without --resume to start again")
      await refused(
        [...resume, "--adapter", "./examples/custom-adapter/src/index.ts"],
        "cannot resume: the run being resumed migrated with the built-in adapters only, this run with the adapters of file://"
      )
      expect(untouched()).toBe(true)
      // The same checkpoint, as a run --to csv would have left it: the unit is part of what it wrote.
      const checkpoint = join(folder, kept("s")[0]!)
      await writeFile(checkpoint, JSON.stringify({ ...JSON.parse(readFileSync(checkpoint, "utf8")), target: "csv" }))
      await refused([...resume, "--to", "csv", "--units", "cm"], "cannot resume: the run being resumed wrote csv, not csv in cm")
    },
    TIMEOUT
  )

  it(
    "with --verify, refuses an input edited to the same size and time, naming it, and resumes an unchanged one",
    async () => {
      await putBack()
      const input = join(dir, "a.ndjson")
      const original = await readFile(input)
      const times = await stat(input)
      const args = [...inputs(), "--out", join(folder, "s.ndjson"), "--rejects", join(folder, "s.rejects"), "--resume"]
      try {
        // The first record's first digit, changed: the same size, and the time put back.
        const at = original.indexOf(0x30)
        const edited = Buffer.from(original)
        edited[at] = original[at] === 0x31 ? 0x32 : 0x31
        await writeFile(input, edited)
        await utimes(input, times.atime, times.mtime)
        const refused = await run("migrate", ...args, "--verify")
        expect(refused.code).toBe(1)
        expect(refused.stderr).toMatch(
          new RegExp(
            `^scanbridge: cannot resume: ${input} has changed since the run being resumed read its first \\d+ bytes \\(SHA-256 [0-9a-f]{64} then, [0-9a-f]{64} now\\); run without --resume to start again`
          )
        )
        expect(untouched()).toBe(true)
      } finally {
        await writeFile(input, original)
        await utimes(input, times.atime, times.mtime)
      }
      await succeedsAsClean(["migrate", ...args, "--verify", "--quiet"], cleanOutputs())
      const alone = await run("migrate", ...inputs(), "--out", join(folder, "s.ndjson"), "--verify")
      expect(alone.code).toBe(2)
      expect(alone.stderr).toContain("--verify checks the inputs of the run being resumed: give it with --resume")
    },
    TIMEOUT
  )
})

describe("a resumable run --to fhir", () => {
  it(
    "stopped midway, refuses a resume with other --units or another --fhir-patient-system, leaving its files, and resumes with the same",
    async () => {
      const own = join(dir, "fhir")
      await mkdir(own)
      // Four chunks, most of their records rejected (counted, not kept), each with bundles to write.
      const all = records()
      const input = join(own, "in.ndjson")
      await writeFile(input, `${Array.from({ length: 4096 }, (_, i) => (i % 16 === 0 ? all[(i / 16) % all.length] : `{"no":"scan","i":${i}}`)).join("\n")}\n`)
      const patients = "https://hospital.example/patients"
      const args = (out: string, ...flags: ReadonlyArray<string>) => ["migrate", input, "--to", "fhir", ...flags, "--out", join(own, out), "--quiet"]
      const flags = ["--units", "in", "--fhir-patient-system", patients]
      expect((await run(...args("clean.ndjson", ...flags))).code).toBe(0)
      await stopMidway([...args("out.ndjson", ...flags), "--resumable"], join(own, "out.ndjson"))
      const left = new Map(
        await Promise.all((await readdir(own)).filter((f) => f.startsWith(".out.")).map(async (f) => [f, await readFile(join(own, f))] as const))
      )
      // A kill between writing the next checkpoint and renaming it over the last leaves it beside them.
      expect([...left.keys()].filter((f) => !f.endsWith(".checkpoint.next")).sort()).toEqual([
        ".out.ndjson.resumable.checkpoint",
        ".out.ndjson.resumable.partial"
      ])
      const was = `fhir in in with patient system ${patients}`
      for (const [other, now] of [
        [["--units", "cm", "--fhir-patient-system", patients], `fhir in cm with patient system ${patients}`],
        [["--fhir-patient-system", patients], `fhir in cm with patient system ${patients}`],
        [["--units", "in", "--fhir-patient-system", "https://other.example/patients"], "fhir in in with patient system https://other.example/patients"],
        [["--units", "in"], "fhir in in;"]
      ] as const) {
        await refused([...args("out.ndjson", ...other), "--resume"], `cannot resume: the run being resumed wrote ${was}, not ${now}`)
        for (const [file, bytes] of left) expect(readFileSync(join(own, file)).equals(bytes), file).toBe(true)
        expect(existsSync(join(own, "out.ndjson"))).toBe(false)
      }
      expect((await run(...args("out.ndjson", ...flags), "--resume")).code).toBe(0)
      expect(readFileSync(join(own, "out.ndjson")).equals(readFileSync(join(own, "clean.ndjson")))).toBe(true)
    },
    TIMEOUT
  )
})
