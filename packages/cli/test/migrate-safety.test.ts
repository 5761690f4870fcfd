/**
 * `scanbridge migrate` on the user's files: outputs that appear whole or not at all, outputs that
 * would destroy or feed an input refused, interrupts and closed pipes that leave every destination
 * as it was, progress on a terminal (on the TestClock), flags that name themselves. In-process,
 * over the Stdio service; the same with real signals and pipes is in tools/test/executable.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream, TestClock } from "effect"
import { execFileSync, spawn } from "node:child_process"
import { createReadStream, readFileSync } from "node:fs"
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readCommandLine } from "../src/commands.js"
import { STDIN_ARGUMENT } from "../src/commands/migrate.js"
import { progressText } from "../src/progress.js"
import { BrokenPipe } from "../src/stdio.js"
import { type Printed, command, repoRoot, run } from "./harness.js"

const TIMEOUT = 30_000
const OLD = "what was there before the run\n"

let tmp: string
/** 2400 records of every format, broken ones among them: several chunks (packages/migrate/src/internal/read.ts cuts them). */
let many: string
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "scanbridge-safety-"))
  const records = ["examples/export/platform/entries.ndjson", "examples/export/estimation/read-responses.ndjson", "examples/export/broken.ndjson"]
    .flatMap((f) => readFileSync(join(repoRoot, f), "utf8").split("\n"))
    .filter((l) => l.trim() !== "")
  many = join(tmp, "many.ndjson")
  await writeFile(many, `${Array.from({ length: 2400 }, (_, i) => records[i % records.length]).join("\n")}\n`)
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

/** A fresh folder holding `names`, each with OLD in it. */
const folderWith = async (name: string, ...names: ReadonlyArray<string>) => {
  const dir = join(tmp, name)
  await mkdir(dir, { recursive: true })
  for (const n of names) await writeFile(join(dir, n), OLD)
  return dir
}

const partials = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith(".partial"))

const oneLine = (stderr: string) => {
  const lines = stderr.split("\n")
  expect(lines.pop()).toBe("")
  expect(lines).toHaveLength(1)
  return lines[0]!
}

describe("outputs that would destroy or feed an input", () => {
  it(
    "an --out that is the input is refused before anything is opened, as a mistake of the command line (exit 2); the input is unchanged",
    async () => {
      const dir = await folderWith("same")
      const input = join(dir, "a.ndjson")
      const text = readFileSync(join(repoRoot, "examples/export/platform/entries.ndjson"), "utf8")
      await writeFile(input, text)
      await symlink(input, join(dir, "link.ndjson"))
      for (const out of [input, join(dir, "link.ndjson"), join(dir, ".", "..", "same", "a.ndjson")]) {
        const r = await run("migrate", input, "--out", out, "--strict")
        expect(r.code, out).toBe(2)
        expect(r.stdout).toBe("")
        expect(oneLine(r.stderr)).toMatch(/^scanbridge: --out .* is the input .*a\.ndjson: it would be overwritten/)
        expect(await readFile(input, "utf8")).toBe(text)
        expect(await partials(dir)).toEqual([])
      }
    },
    TIMEOUT
  )

  it(
    "an output inside an input folder is refused, naming its flag; so are two outputs in one file; each exits 2, a mistake of the command line",
    async () => {
      const dir = await folderWith("inside", "rejects.ndjson")
      await writeFile(join(dir, "in.ndjson"), readFileSync(join(repoRoot, "examples/export/broken.ndjson")))
      const inside = await run("migrate", dir, "--out", join(tmp, "x.ndjson"), "--rejects", join(dir, "rejects.ndjson"))
      expect(inside.code).toBe(2)
      expect(oneLine(inside.stderr)).toMatch(/^scanbridge: --rejects .* is inside the input folder .*inside: the run would read its own output/)
      expect(await readFile(join(dir, "rejects.ndjson"), "utf8")).toBe(OLD)

      const twice = await run("migrate", join(dir, "in.ndjson"), "--out", join(tmp, "twice.ndjson"), "--report", join(tmp, "twice.ndjson"))
      expect(twice.code).toBe(2)
      expect(oneLine(twice.stderr)).toMatch(/^scanbridge: --report .*twice\.ndjson is also --out/)

      const stdoutTwice = await run("migrate", join(dir, "in.ndjson"), "--report", "-")
      expect(stdoutTwice.code).toBe(2)
      expect(oneLine(stdoutTwice.stderr)).toBe("scanbridge: --out and --report both write to standard output; give one of them a file")
    },
    TIMEOUT
  )
})

/**
 * A run held in the middle: standard output takes the first chunk's records, then `onWrite` decides
 * what the next write does. `written` is done once the first write is in.
 */
const heldRun = (args: ReadonlyArray<string>, next: Effect.Effect<void, BrokenPipe>, options: { readonly terminal?: boolean } = {}) =>
  Effect.gen(function* () {
    const written = yield* Deferred.make<void>()
    const printed: Printed = { out: "", err: "" }
    let writes = 0
    const fiber = yield* Effect.fork(
      command(args, {
        printed,
        ...options,
        out: (text) =>
          Effect.suspend(() => {
            if (++writes > 1) return next
            printed.out += text
            return Deferred.succeed(written, undefined)
          })
      })
    )
    yield* Deferred.await(written)
    return { fiber, printed }
  })

describe("a run that does not end as it should leaves every destination as it was", () => {
  it.live(
    "interrupted in the middle: temporary files removed, outputs untouched",
    () =>
      Effect.gen(function* () {
        const dir = yield* Effect.promise(() => folderWith("interrupted", "rejects.ndjson", "report.json"))
        const { fiber } = yield* heldRun(["migrate", many, "--rejects", join(dir, "rejects.ndjson"), "--report", join(dir, "report.json")], Effect.never)
        // Mid-run the outputs are being written beside their destinations.
        expect(yield* Effect.promise(() => partials(dir))).toHaveLength(2)
        yield* Fiber.interrupt(fiber)
        expect(yield* Effect.promise(() => partials(dir))).toEqual([])
        for (const f of ["rejects.ndjson", "report.json"]) expect(yield* Effect.promise(() => readFile(join(dir, f), "utf8"))).toBe(OLD)
      }),
    TIMEOUT
  )

  it.live(
    "standard output closed by its reader: exit 141, nothing on stderr, the other outputs untouched",
    () =>
      Effect.gen(function* () {
        const dir = yield* Effect.promise(() => folderWith("closed", "rejects.ndjson", "report.json"))
        const { fiber, printed } = yield* heldRun(
          ["migrate", many, "--rejects", join(dir, "rejects.ndjson"), "--report", join(dir, "report.json")],
          Effect.fail(new BrokenPipe())
        )
        const r = yield* Fiber.join(fiber)
        expect(r.code).toBe(141)
        expect(printed.err).toBe("")
        expect(yield* Effect.promise(() => partials(dir))).toEqual([])
        for (const f of ["rejects.ndjson", "report.json"]) expect(yield* Effect.promise(() => readFile(join(dir, f), "utf8"))).toBe(OLD)
      }),
    TIMEOUT
  )

  it.live(
    "failing at the end (the output's folder gone before the rename): exit 1, one line, nothing replaced",
    () =>
      Effect.gen(function* () {
        const dir = yield* Effect.promise(() => folderWith("failing", "rejects.ndjson"))
        const gone = join(dir, "gone")
        yield* Effect.promise(() => mkdir(gone))
        // The report goes to stdout after the run and before the outputs are committed.
        const removeFolder = Effect.promise(() => rm(gone, { recursive: true }))
        const r = yield* command(["migrate", many, "--out", join(gone, "scans.ndjson"), "--rejects", join(dir, "rejects.ndjson"), "--report", "-"], {
          out: () => removeFolder
        })
        expect(r.code).toBe(1)
        expect(oneLine(r.stderr)).toMatch(/^scanbridge: .*scans\.ndjson: /)
        expect(yield* Effect.promise(() => readFile(join(dir, "rejects.ndjson"), "utf8"))).toBe(OLD)
        expect(yield* Effect.promise(() => partials(dir))).toEqual([])
      }),
    TIMEOUT
  )

  it(
    "the disk full while the workers write their chunks (a file size limit): exit 1, one line naming the output, nothing replaced",
    async () => {
      const dir = await folderWith("full", "scans.ndjson", "rejects.ndjson")
      // `ulimit -f` in KiB: writing a file past 512 KiB fails with EFBIG, as on a full disk.
      const main = join(repoRoot, "packages/cli/src/main.ts")
      const args = ["migrate", many, "--workers", "2", "--out", join(dir, "scans.ndjson"), "--rejects", join(dir, "rejects.ndjson")]
      const child = spawn(
        "bash",
        ["-c", 'ulimit -f 512 && exec "$@"', "bash", process.execPath, "--conditions=@scanbridge/source", "--import", "tsx", main, ...args],
        {
          cwd: repoRoot,
          stdio: ["ignore", "ignore", "pipe"]
        }
      )
      let stderr = ""
      child.stderr.on("data", (b: Buffer) => void (stderr += b.toString()))
      const code = await new Promise<number | null>((resolve) => child.once("close", resolve))
      expect(code).toBe(1)
      expect(oneLine(stderr)).toMatch(/^scanbridge: .*scans\.ndjson: .*(EFBIG|too large)/i)
      for (const f of ["scans.ndjson", "rejects.ndjson"]) expect(await readFile(join(dir, f), "utf8")).toBe(OLD)
      expect(await partials(dir)).toEqual([])
    },
    TIMEOUT
  )

  it(
    "a run that succeeds replaces every output whole",
    async () => {
      const dir = await folderWith("succeeds", "scans.ndjson", "rejects.ndjson", "report.json")
      const r = await run("migrate", many, "--out", join(dir, "scans.ndjson"), "--rejects", join(dir, "rejects.ndjson"), "--report", join(dir, "report.json"))
      expect(r.code).toBe(0)
      const report = JSON.parse(await readFile(join(dir, "report.json"), "utf8")) as { records: number; rejected: number; scans: number }
      expect(report.records).toBe(2400)
      expect((await readFile(join(dir, "scans.ndjson"), "utf8")).split("\n").filter((l) => l !== "")).toHaveLength(report.scans)
      expect((await readFile(join(dir, "rejects.ndjson"), "utf8")).split("\n").filter((l) => l !== "")).toHaveLength(report.rejected)
      expect(await partials(dir)).toEqual([])
    },
    TIMEOUT
  )
})

describe("progress", () => {
  const PROGRESS =
    /\r(\d+\.\d) %  ([\d.]+ [KM]?B) of ([\d.]+ [KM]?B)  (\d+:\d\d) elapsed  ETA (\d+:\d\d|--:--)  ([\d,]+) records\/s  ([\d,]+) records  ([\d,]+) rejected\u001b\[K/

  it.effect("on a terminal: within a second, percent of input bytes, elapsed, ETA, the current rate and rejects so far", () =>
    Effect.gen(function* () {
      const { fiber, printed } = yield* heldRun(["migrate", many], Effect.never, { terminal: true })
      expect(printed.err).toBe("")
      yield* TestClock.adjust("1 second")
      const lines = printed.err.split("\r").filter((l) => l !== "")
      expect(lines.length).toBeGreaterThanOrEqual(1)
      const m = PROGRESS.exec(`\r${lines.at(-1)}`)
      expect(m, printed.err).not.toBeNull()
      const [, percent, , , elapsed, , rate, records, rejected] = m!
      // The first chunk (some of the 2400 lines) is written; the second is held.
      const firstChunk = Number(records!.replace(/,/g, ""))
      expect(firstChunk).toBeGreaterThan(0)
      expect(firstChunk).toBeLessThan(2400)
      expect(Number(percent)).toBeGreaterThan(0)
      expect(Number(percent)).toBeLessThan(100)
      expect(elapsed).toBe("0:01")
      // Over the last second: all the first chunk's records came in its first instant.
      expect(rate).toBe(records)
      expect(Number(rejected)).toBeGreaterThan(0)
      // The rate is the current one: with nothing more done, it falls to 0 once the window has passed.
      yield* TestClock.adjust("10 seconds")
      expect(PROGRESS.exec(`\r${printed.err.split("\r").at(-1)}`)![6]).toBe("0")
      yield* Fiber.interrupt(fiber)
    })
  )

  it("without a known size (standard input, a FIFO): the bytes read instead of the percent and the time left", () => {
    const report = {
      records: 1234,
      migrated: 1200,
      rejected: 34,
      scans: 1200,
      target: "canonical",
      byFormat: {},
      byStatus: {},
      byNoteKind: {},
      byRejectReason: {}
    }
    expect(
      progressText({
        progress: { report, bytesRead: 1_234_567, bytesTotal: null, position: undefined },
        elapsedMs: 3_723_000,
        bytesPerSecond: 1000,
        recordsPerSecond: 99.6
      })
    ).toBe("1.23 MB read  1:02:03 elapsed  100 records/s  1,234 records  34 rejected")
    expect(
      progressText({ progress: { report, bytesRead: 500, bytesTotal: 2000, position: undefined }, elapsedMs: 61_000, bytesPerSecond: 10, recordsPerSecond: 0 })
    ).toBe("25.0 %  500 B of 2.00 KB  1:01 elapsed  ETA 2:30  0 records/s  1,234 records  34 rejected")
  })

  it("--quiet prints nothing but errors; --progress always off a terminal writes whole lines", async () => {
    const quiet = await run("migrate", "examples/export", "--quiet", "--out", join(tmp, "quiet.ndjson"))
    expect(quiet.code).toBe(0)
    expect(quiet.stderr).toBe("")
    const auto = await run("migrate", "examples/export", "--progress", "auto", "--out", join(tmp, "auto.ndjson"))
    expect(auto.stderr).not.toContain("records/s")
    const never = await run("migrate", "examples/export", "--progress", "never", "--out", join(tmp, "never.ndjson"))
    expect(never.stderr).toBe(auto.stderr.replace(/in [\d.]+ s \(\d+\/s\)/, never.stderr.match(/in [\d.]+ s \(\d+\/s\)/)![0]))
  })

  it.effect("--progress always off a terminal writes a line a second, without redrawing", () =>
    Effect.gen(function* () {
      const { fiber, printed } = yield* heldRun(["migrate", many, "--progress", "always"], Effect.never)
      yield* TestClock.adjust("3 seconds")
      expect(printed.err).not.toContain("\r")
      expect(printed.err.split("\n").filter((l) => l.includes("records/s"))).toHaveLength(3)
      yield* Fiber.interrupt(fiber)
    })
  )
})

describe("the command line", () => {
  it("a bad value names its flag and what it expects; exit 2", async () => {
    for (const [args, message] of [
      [["--to", "xml"], "--to xml: expected one of canonical, platform, session, estimation, fit"],
      [["--workers", "two"], "--workers two: expected a whole number, 0 or more"],
      [["--progress", "sometimes"], "--progress sometimes: expected one of auto, always, never"]
    ] as const) {
      const r = await run("migrate", "examples/export", ...args)
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr).toContain(message)
    }
  })

  it("migrate --help shows the usage as typed, each flag's default, the exit codes and seven examples", async () => {
    const r = await run("migrate", "--help")
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("scanbridge migrate <inputs>...")
    for (const d of [
      "(default: canonical)",
      "(default: standard output)",
      "(default: counted, not kept)",
      "(default: off)",
      "(default: auto)",
      "(default: mm for csv and parquet, cm for fhir)",
      "(default: none: no patient is named)",
      "64 MiB or more or come --from a database, else 0)"
    ]) {
      expect(r.stdout).toContain(d)
    }
    for (const code of ["0", "1", "2", "3", "130", "141", "143"]) expect(r.stdout).toMatch(new RegExp(`^ +${code}  \\S`, "m"))
    const examples = r.stdout
      .slice(r.stdout.indexOf("EXAMPLES"))
      .split("\n")
      .filter((l) => l.trim().startsWith("$ "))
    expect(examples).toHaveLength(7)
    for (const e of examples) expect(e).toContain("scanbridge migrate ")
  })
})

describe("pipes", () => {
  it.effect("- reads standard input, wherever it stands among the flags and inputs", () =>
    Effect.gen(function* () {
      const file = "examples/export/platform/entries.ndjson"
      const bytes = readFileSync(join(repoRoot, file))
      const fromFile = yield* command(["migrate", file, "--quiet", "--to", "platform"])
      const fromStdin = yield* command(["migrate", "-", "--quiet", "--to", "platform"], { stdin: Stream.make(new Uint8Array(bytes)) })
      expect(fromStdin.code).toBe(0)
      expect(fromStdin.stderr).toBe("")
      expect(fromStdin.stdout).toBe(fromFile.stdout)
      const both = yield* command(["migrate", "--quiet", file, "-", "--to", "platform"], { stdin: Stream.make(new Uint8Array(bytes)) })
      expect(both.stdout).toBe(fromFile.stdout + fromFile.stdout)
      // An option's value stays one: `--out -` is standard output.
      expect(readCommandLine(["migrate", "-", "--out", "-", "a.ndjson", "--", "-"]).args).toEqual([
        "migrate",
        STDIN_ARGUMENT,
        "--out",
        "-",
        "a.ndjson",
        "--",
        STDIN_ARGUMENT
      ])
    })
  )

  it(
    "--out - writes standard output, as no --out does; --out to a FIFO streams into it",
    async () => {
      const plain = await run("migrate", "examples/export", "--quiet")
      const dash = await run("migrate", "examples/export", "--quiet", "--out", "-")
      expect(dash.stdout).toBe(plain.stdout)
      expect(plain.stdout.length).toBeGreaterThan(1000)

      const fifo = join(tmp, "out.fifo")
      execFileSync("mkfifo", [fifo])
      const read = new Promise<string>((resolve, reject) => {
        let text = ""
        createReadStream(fifo, "utf8")
          .on("data", (d) => void (text += String(d)))
          .on("end", () => resolve(text))
          .on("error", reject)
      })
      const r = await run("migrate", "examples/export", "--quiet", "--out", fifo)
      expect(r.code).toBe(0)
      expect(await read).toBe(plain.stdout)
    },
    TIMEOUT
  )
})
