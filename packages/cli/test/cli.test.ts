/**
 * The `scanbridge` command, run in-process exactly as the executable runs it (runCli over the
 * Stdio service): the command line, what is printed on stdout and stderr, and the exit code are
 * the contract. What needs a real process (signals, a real pipe) is in process.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readCommandLine } from "../src/commands.js"

const unknownFlag = (args: ReadonlyArray<string>) => readCommandLine(args).unknown
import { Either } from "effect"
import { defaultNormalizer } from "@scanbridge/migrate"
import { VERSION } from "../src/version.js"
import { WORKERS_FROM_BYTES, defaultWorkers } from "../src/workers.js"
import { repoRoot, run } from "./harness.js"

const TIMEOUT = 30_000

const plain = (text: string) => text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "")
const nonEmptyLines = (text: string) => text.split("\n").filter((l) => l.trim() !== "")
const fromRepo = (file: string) => readFileSync(join(repoRoot, file), "utf8")

const SUMMARY = /^(\d+) records in [\d.]+ s \(\d+\/s\): (\d+) migrated to (\w+) as (\d+) scans, (\d+) rejected$/m
const summaryOf = (stderr: string) => {
  const m = SUMMARY.exec(stderr)
  expect(m, `no summary line in:\n${stderr}`).not.toBeNull()
  const [, records, migrated, target, scans, rejected] = m!
  return { records: Number(records), migrated: Number(migrated), target, scans: Number(scans), rejected: Number(rejected) }
}

/** The rows of a table printed by render.ts: the lines after the `----` rule, up to a blank line. */
const tableRows = (text: string, headerStart: string) => {
  const lines = text.split("\n")
  const header = lines.findIndex((l) => l.startsWith(headerStart))
  expect(header, `no table headed "${headerStart}" in:\n${text}`).toBeGreaterThanOrEqual(0)
  expect(lines[header + 1]).toMatch(/^-+(  -+)*$/)
  const rows: Array<Array<string>> = []
  for (const line of lines.slice(header + 2)) {
    if (line.trim() === "") break
    rows.push(line.trim().split(/\s{2,}/))
  }
  return { header: lines[header]!, rows }
}

let tmp: string
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "scanbridge-cli-"))
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe("--version", () => {
  it("prints the package's version, one line, as the executable does without loading the commands", async () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, "packages/cli/package.json"), "utf8")) as { version: string }
    expect(VERSION).toBe(pkg.version)
    const r = await run("--version")
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `${pkg.version}\n`, ""])
  })
})

describe("--help", () => {
  it(
    "scanbridge --help lists every command with its description",
    async () => {
      const r = await run("--help")
      expect(r.code).toBe(0)
      const out = plain(r.stdout)
      expect(out).toContain("Read every generation of the vendor's scanning APIs")
      for (const [command, words] of [
        ["migrate", "Migrate stored records"],
        ["inspect", "Show a scan as a table"],
        ["diff", "Compare two scans"],
        ["simulate", "Run the simulator"]
      ] as const) {
        expect(out).toMatch(new RegExp(`- ${command}\\b`))
        expect(out).toContain(words)
      }
    },
    TIMEOUT
  )

  const commands: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    [
      "migrate",
      [
        "Migrate stored records of any API",
        "--to",
        "--out",
        "--rejects",
        "--report",
        "--strict",
        "--workers",
        "--progress",
        "--quiet",
        "64 MiB",
        "canonical|platform|session|estimation|fit"
      ]
    ],
    ["inspect", ["Show a scan as a table", "cm and inches", "<file>"]],
    ["diff", ["Compare two scans of one person", "largest difference first", "<a>", "<b>"]],
    ["simulate", ["Run the simulator of all four APIs", "--port", "0 picks a free port"]]
  ]
  for (const [command, words] of commands) {
    it(
      `${command} --help exits 0 and describes the command`,
      async () => {
        const r = await run(command, "--help")
        expect(r.code).toBe(0)
        const out = plain(r.stdout)
        expect(out).toContain("DESCRIPTION")
        for (const w of words) expect(out).toContain(w)
      },
      TIMEOUT
    )
  }
})

describe("not a terminal", () => {
  it(
    "help piped to a file is plain text, without ANSI styles",
    async () => {
      const results = await Promise.all([["--help"], ["migrate", "--help"], ["inspect", "--help"]].map((args) => run(...args)))
      for (const r of results) {
        expect(r.code).toBe(0)
        expect(r.stdout).toContain("USAGE")
        expect(r.stdout).not.toContain("\u001b")
      }
    },
    TIMEOUT
  )

  it(
    "an error of @effect/cli on stderr is plain text too",
    async () => {
      const r = await run("migrate", "examples/export", "--to", "xml")
      expect(r.code).toBe(2)
      expect(r.stderr).toContain("--to xml: expected one of canonical, platform, session, estimation, fit, fhir, csv, parquet")
      expect(r.stderr).not.toContain("\u001b")
    },
    TIMEOUT
  )
})

describe("unknown flags", () => {
  it(
    "are one line on stderr naming the flag, exit code 2, on every command",
    async () => {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["migrate", "--bogus", "examples/export/broken.ndjson"], "--bogus for migrate"],
        [["inspect", "--bogus", "examples/canonical/photo-scan.json"], "--bogus for inspect"],
        [["diff", "examples/canonical/photo-scan.json", "--bogus", "examples/canonical/photo-scan.json"], "--bogus for diff"],
        [["simulate", "--port", "0", "--bogus"], "--bogus for simulate"],
        [["--bogus", "migrate", "examples/export"], "--bogus;"]
      ]
      const results = await Promise.all(cases.map(([args]) => run(...args)))
      for (const [i, r] of results.entries()) {
        const [args, named] = cases[i]!
        const what = `scanbridge ${args.join(" ")}`
        expect(r.code, what).toBe(2)
        expect(r.stdout, what).toBe("")
        const lines = r.stderr.split("\n")
        expect(lines.pop(), what).toBe("")
        expect(lines, what).toEqual([expect.stringMatching(/^scanbridge: unknown option .*--help$/)])
        expect(lines[0], what).toContain(`unknown option ${named}`)
      }
    },
    TIMEOUT
  )

  it("are found wherever they are, told from option values and from arguments after --", () => {
    expect(unknownFlag(["migrate", "in.ndjson", "--to", "session", "--bogus=1"])).toMatch(
      /^unknown option --bogus for migrate \(its options: --from, --query, --into, --table, --resumable, --resume, --verify, --to, --units, --fhir-patient-system, --length-unit, --body-fat-scale, --muscle-mass-unit, --adapter, --out, --rejects, --report, --strict, --workers, --progress, --quiet\)/
    )
    expect(unknownFlag(["migrate", "-x", "in.ndjson"])).toMatch(/^unknown option -x for migrate/)
    expect(unknownFlag(["inspect", "--to", "platform", "f.json"])).toMatch(
      /^unknown option --to for inspect \(its options: --record, --length-unit, --body-fat-scale, --muscle-mass-unit, --json, --adapter\); see scanbridge inspect --help$/
    )
    // Values of options that take one, even when they start with a dash; but not another of the command's flags.
    expect(unknownFlag(["migrate", "in.ndjson", "--out", "-", "--rejects", "-rejects.ndjson", "--workers", "-1"])).toBeUndefined()
    expect(unknownFlag(["migrate", "in.ndjson", "--out", "-", "--rejects", "--report", "r.json"])).toBe(
      "--rejects needs a value: --rejects FILE; see scanbridge migrate --help"
    )
    expect(unknownFlag(["simulate", "--port", "-1"])).toBeUndefined()
    expect(unknownFlag(["migrate", "--to=platform", "--STRICT", "in.ndjson"])).toBeUndefined()
    // The flags of @effect/cli that Scanbridge keeps, anywhere; its others are unknown, as --help does not list them.
    expect(unknownFlag(["migrate", "--help"])).toBeUndefined()
    expect(unknownFlag(["-h"])).toBeUndefined()
    expect(unknownFlag(["--version"])).toBeUndefined()
    expect(unknownFlag(["diff", "a", "b", "--wizard"])).toMatch(/^unknown option --wizard for diff/)
    expect(unknownFlag(["--log-level", "debug", "diff", "a", "b"])).toBe("unknown option --log-level; see scanbridge --help")
    expect(unknownFlag(["migrate", "--completions", "bash"])).toMatch(/^unknown option --completions for migrate/)
    // After --, everything is an argument.
    expect(unknownFlag(["migrate", "--", "--bogus.ndjson"])).toBeUndefined()
  })

  it("--workers defaults to one per core for an input of 64 MiB or more, on more than one core", () => {
    expect(WORKERS_FROM_BYTES).toBe(64 * 1024 * 1024)
    expect(defaultWorkers(WORKERS_FROM_BYTES - 1, 2)).toBe(0)
    expect(defaultWorkers(WORKERS_FROM_BYTES, 2)).toBe(2)
    expect(defaultWorkers(10 * WORKERS_FROM_BYTES, 8)).toBe(8)
    expect(defaultWorkers(10 * WORKERS_FROM_BYTES, 1)).toBe(0)
  })

  it(
    "a --workers that is not a count is refused as a bad flag",
    async () => {
      const r = await run("migrate", "examples/export", "--workers", "-1")
      expect(r.code).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr).toContain("--workers -1: expected a whole number, 0 or more")
    },
    TIMEOUT
  )
})

describe("migrate", () => {
  it(
    "writes canonical NDJSON to stdout and the summary to stderr",
    async () => {
      const r = await run("migrate", "examples/export")
      expect(r.code).toBe(0)
      const summary = summaryOf(r.stderr)
      expect(summary.target).toBe("canonical")
      expect(summary.records).toBe(summary.migrated + summary.rejected)
      // broken.ndjson holds three records that cannot be migrated.
      expect(summary.rejected).toBe(3)
      expect(r.stderr).toContain("migrated to canonical")
      expect(r.stderr).toContain("rejected")
      expect(r.stderr).toContain("pass --rejects FILE")

      const lines = r.stdout.split("\n")
      expect(lines.pop()).toBe("") // every record ends with a newline
      expect(lines).toHaveLength(summary.scans)
      for (const line of lines) {
        const scan = JSON.parse(line) as { format: unknown; source: { api: unknown } }
        expect(scan.format).toBe("scanbridge.scan/v1")
        expect(["platform", "session", "estimation", "fit"]).toContain(scan.source.api)
      }
      // Composes in a pipe: nothing but records on stdout.
      expect(r.stdout).not.toMatch(/migrated to|records in|rejected record|count/)
      expect(r.stdout).not.toContain("\r")
    },
    TIMEOUT
  )

  it(
    "its stdout is input for another scanbridge command",
    async () => {
      const first = await run("migrate", "examples/export")
      expect(first.code).toBe(0)
      const piped = join(tmp, "piped.ndjson")
      await writeFile(piped, first.stdout)
      const r = await run("inspect", piped)
      expect(r.code).toBe(0)
      expect(r.stderr).toBe("")
      expect(r.stdout.split("\n").filter((l) => l.startsWith("subject: "))).toHaveLength(summaryOf(first.stderr).scans)
    },
    TIMEOUT
  )

  it(
    "--to platform --out --rejects --report writes three files and nothing to stdout",
    async () => {
      const out = join(tmp, "o.ndjson")
      const rejects = join(tmp, "r.ndjson")
      const reportFile = join(tmp, "rep.json")
      const r = await run("migrate", "examples/export", "--to", "platform", "--out", out, "--rejects", rejects, "--report", reportFile)
      expect(r.code).toBe(0)
      expect(r.stdout).toBe("")
      for (const f of [out, rejects, reportFile]) expect(existsSync(f)).toBe(true)

      const report = JSON.parse(await readFile(reportFile, "utf8")) as {
        records: number
        migrated: number
        rejected: number
        scans: number
        target: string
        byFormat: Record<string, number>
        byRejectReason: Record<string, number>
      }
      expect(report.target).toBe("platform")
      expect(report.records).toBe(report.migrated + report.rejected)
      expect(Object.values(report.byFormat).reduce((a, b) => a + b, 0)).toBe(report.migrated)
      expect(Object.values(report.byRejectReason).reduce((a, b) => a + b, 0)).toBe(report.rejected)
      // The summary on stderr tells the same story as the report file.
      expect(summaryOf(r.stderr)).toEqual({
        records: report.records,
        migrated: report.migrated,
        target: "platform",
        scans: report.scans,
        rejected: report.rejected
      })
      expect(r.stderr).not.toContain("pass --rejects FILE")

      const outLines = nonEmptyLines(await readFile(out, "utf8"))
      expect(outLines).toHaveLength(report.scans)
      for (const line of outLines) expect(Either.getOrThrow(defaultNormalizer.detect(JSON.parse(line))).format.api).toBe("platform")

      const rejectLines = nonEmptyLines(await readFile(rejects, "utf8"))
      expect(rejectLines).toHaveLength(report.rejected)
      const parsed = rejectLines.map(
        (l) =>
          JSON.parse(l) as { file: string; line: number; error: { tag: string; message: string; path: ReadonlyArray<string | number> | null }; raw: string }
      )
      for (const rej of parsed) {
        expect(Object.keys(rej).sort()).toEqual(["error", "file", "line", "raw"])
        expect(Object.keys(rej.error).sort()).toEqual(["message", "path", "tag"])
        expect(typeof rej.file).toBe("string")
        expect(Number.isInteger(rej.line) && rej.line >= 1).toBe(true)
        expect(typeof rej.error.tag).toBe("string")
        expect(rej.error.message.length).toBeGreaterThan(0)
        expect(rej.error.path === null || Array.isArray(rej.error.path)).toBe(true)
        expect(typeof rej.raw).toBe("string")
        // `raw` is the record where `file` and `line` say it is.
        const text = fromRepo(rej.file)
        const expected = rej.file.endsWith(".json")
          ? JSON.stringify((JSON.parse(text) as ReadonlyArray<unknown>)[rej.line - 1])
          : text.split("\n")[rej.line - 1]
        expect(rej.raw).toBe(expected)
      }
      const byTag: Record<string, number> = {}
      for (const rej of parsed) byTag[rej.error.tag] = (byTag[rej.error.tag] ?? 0) + 1
      expect(byTag).toEqual(report.byRejectReason)
      // The three broken records, in file order.
      const broken = parsed.filter((p) => p.file.endsWith("broken.ndjson"))
      expect(broken.map((p) => [p.line, p.error.tag])).toEqual([
        [1, "InvalidJson"],
        [2, "UnknownFormatError"],
        [3, "DecodeError"]
      ])
      expect(broken[2]!.error.path).toEqual(["measurements", 0, "estimation", "result", "measurement", "hip_girth"])
      // Pending scans have no platform shape.
      expect(parsed.some((p) => p.error.tag === "EncodeError" && JSON.stringify(p.error.path) === JSON.stringify(["status"]))).toBe(true)
    },
    TIMEOUT
  )

  it(
    "two runs with the same options write the same bytes",
    async () => {
      const args = (n: number) => [
        "migrate",
        "examples/export",
        "--to",
        "session",
        "--out",
        join(tmp, `same-${n}.ndjson`),
        "--rejects",
        join(tmp, `same-r-${n}.ndjson`)
      ]
      const [a, b] = [await run(...args(1)), await run(...args(2))]
      expect([a.code, b.code]).toEqual([0, 0])
      const [outA, outB] = [await readFile(join(tmp, "same-1.ndjson")), await readFile(join(tmp, "same-2.ndjson"))]
      expect(outA.length).toBeGreaterThan(0)
      expect(outA.equals(outB)).toBe(true)
      const [rejA, rejB] = [await readFile(join(tmp, "same-r-1.ndjson")), await readFile(join(tmp, "same-r-2.ndjson"))]
      expect(rejA.equals(rejB)).toBe(true)
    },
    TIMEOUT
  )

  it(
    "--workers 2 writes the same bytes, report and exit code as --workers 0",
    async () => {
      // 2000 records of every format, broken ones included: several chunks for each worker.
      const records = [
        ...fromRepo("examples/export/platform/entries.ndjson").split("\n"),
        ...fromRepo("examples/export/estimation/read-responses.ndjson").split("\n"),
        ...fromRepo("examples/export/fit/estimations.ndjson").split("\n"),
        ...(JSON.parse(fromRepo("examples/export/session/results.json")) as Array<unknown>).map((r) => JSON.stringify(r)),
        ...fromRepo("examples/export/broken.ndjson").split("\n")
      ].filter((l) => l.trim() !== "")
      const input = join(tmp, "many.ndjson")
      await writeFile(input, `${Array.from({ length: 2000 }, (_, i) => records[(i * 5) % records.length]).join("\n")}\n`)
      const runWith = (workers: number) =>
        run(
          "migrate",
          input,
          "--workers",
          String(workers),
          "--strict",
          "--out",
          join(tmp, `w${workers}.ndjson`),
          "--rejects",
          join(tmp, `w${workers}-r.ndjson`),
          "--report",
          join(tmp, `w${workers}.json`)
        )
      const [none, two] = [await runWith(0), await runWith(2)]
      expect(none.code).toBe(3)
      expect(two.code).toBe(none.code)
      expect(summaryOf(two.stderr)).toEqual(summaryOf(none.stderr))
      expect(summaryOf(none.stderr).records).toBe(2000)
      for (const file of ["w{}.ndjson", "w{}-r.ndjson", "w{}.json"]) {
        const [a, b] = [await readFile(join(tmp, file.replace("{}", "0"))), await readFile(join(tmp, file.replace("{}", "2")))]
        expect(a.length).toBeGreaterThan(0)
        expect(b.equals(a)).toBe(true)
      }
    },
    TIMEOUT
  )

  it(
    "--strict exits 3 when a record was rejected",
    async () => {
      const r = await run("migrate", "examples/export", "--strict")
      expect(r.code).toBe(3)
      expect(summaryOf(r.stderr).rejected).toBeGreaterThan(0)
      // The records that did migrate are still written.
      expect(nonEmptyLines(r.stdout)).toHaveLength(summaryOf(r.stderr).scans)
    },
    TIMEOUT
  )

  it(
    "--strict exits 0 when nothing was rejected",
    async () => {
      const r = await run("migrate", "examples/canonical/photo-scan.json", "--strict")
      expect(r.code).toBe(0)
      expect(summaryOf(r.stderr)).toMatchObject({ records: 1, migrated: 1, rejected: 0, scans: 1 })
      const lines = nonEmptyLines(r.stdout)
      expect(lines).toHaveLength(1)
      expect(JSON.parse(lines[0]!)).toEqual(JSON.parse(fromRepo("examples/canonical/photo-scan.json")))
    },
    TIMEOUT
  )

  it(
    "a missing input is one line on stderr and exit code 1",
    async () => {
      const r = await run("migrate", "examples/no-such-file.ndjson")
      expect(r.code).toBe(1)
      expect(r.stdout).toBe("")
      const lines = r.stderr.split("\n")
      expect(lines.pop()).toBe("")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^scanbridge: /)
      expect(lines[0]).toContain("examples/no-such-file.ndjson")
    },
    TIMEOUT
  )

  it(
    "an unknown --to is refused with the allowed values",
    async () => {
      const out = join(tmp, "xml.ndjson")
      const r = await run("migrate", "examples/export", "--to", "xml", "--out", out)
      expect(r.code).not.toBe(0)
      expect(r.code).not.toBeNull()
      const err = plain(r.stderr)
      for (const t of ["canonical", "platform", "session", "estimation", "fit"]) expect(err).toContain(t)
      expect(r.stdout).toBe("")
      expect(existsSync(out)).toBe(false)
    },
    TIMEOUT
  )
})

describe("migrate, inputs that are not what their name says", () => {
  it(
    "warns of an input that holds no records, on stderr and in the report, and exits 0: nothing was lost",
    async () => {
      for (const [name, content] of [
        ["empty.ndjson", ""],
        ["blank.ndjson", "\n  \n"],
        ["none.json", "[]"]
      ] as const) {
        const input = join(tmp, name)
        const report = join(tmp, `${name}.report.json`)
        await writeFile(input, content)
        const r = await run("migrate", input, "--report", report)
        expect(r.code).toBe(0)
        expect(r.stdout).toBe("")
        const warning = `warning: no records read: ${input} is empty or only blank lines (or an empty JSON array)`
        expect(r.stderr).toContain(`0 records`)
        expect(r.stderr).toContain(warning)
        const written = JSON.parse(await readFile(report, "utf8")) as { records: number; warnings: ReadonlyArray<string> }
        expect(written).toMatchObject({ records: 0, warnings: [warning.slice("warning: ".length)] })
      }
      // One input with records among empty ones: no warning (the report counts what was read).
      const some = await run("migrate", "examples/export/platform/entries.ndjson", join(tmp, "empty.ndjson"))
      expect(some.code).toBe(0)
      expect(some.stderr).not.toContain("warning:")
    },
    TIMEOUT
  )

  it(
    "reads a JSON array saved under an .ndjson name as its records, pretty-printed or on one line, as the same array in a .json file",
    async () => {
      const array = fromRepo("examples/export/platform/entries.ndjson")
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as unknown)
      const reference = join(tmp, "array.json")
      await writeFile(reference, JSON.stringify(array))
      const expected = await run("migrate", reference)
      for (const text of [JSON.stringify(array, null, 2), JSON.stringify(array)]) {
        const input = join(tmp, "array.ndjson")
        await writeFile(input, text)
        const r = await run("migrate", input)
        expect(r.code).toBe(0)
        expect(summaryOf(r.stderr)).toMatchObject({ records: array.length, migrated: array.length, rejected: 0 })
        expect(r.stdout).toBe(expected.stdout)
      }
    },
    TIMEOUT
  )
})

describe("inspect", () => {
  it(
    "shows a canonical scan as a table in mm, cm and inches, with its subject and notes",
    async () => {
      const r = await run("inspect", "examples/canonical/photo-scan.json")
      expect(r.code).toBe(0)
      expect(r.stdout).toContain("platform scan_8f2c1a: success, photo, 2026-03-14T09:26:53.000Z")
      expect(r.stdout).toMatch(/^subject: female, 29 y, 164\.0 cm, 54 kg$/m)
      const { header, rows } = tableRows(r.stdout, "measurement")
      expect(header.split(/\s+/)).toEqual(["measurement", "mm", "cm", "in"])
      expect(rows.find((row) => row[0] === "bustGirth")).toEqual(["bustGirth", "862", "86.2", "33.94"])
      // Every measurement of the file, each converted correctly.
      const scan = JSON.parse(fromRepo("examples/canonical/photo-scan.json")) as { measurementsMm: Record<string, number> }
      expect(rows.map((row) => row[0]).sort()).toEqual(Object.keys(scan.measurementsMm).sort())
      for (const [name, mm, cm, inches] of rows) {
        const value = scan.measurementsMm[name!]!
        expect(Number(mm)).toBe(value)
        expect(cm).toBe((value / 10).toFixed(1))
        expect(inches).toBe((value / 25.4).toFixed(2))
      }
      expect(r.stdout).toContain("notes:\n  converted createdAt: UNIX seconds 1773480413")
    },
    TIMEOUT
  )

  it(
    "shows the notes of an estimation read response (units it had to assume)",
    async () => {
      const file = join(tmp, "read-response.ndjson")
      await writeFile(file, `${fromRepo("examples/export/estimation/read-responses.ndjson").split("\n")[0]}\n`)
      const r = await run("inspect", file)
      expect(r.code).toBe(0)
      expect(r.stdout).toContain("estimation est_00000001: success")
      expect(r.stdout).toMatch(/^subject: female, 29 y, 164\.0 cm, 54 kg$/m)
      const notes = r.stdout.slice(r.stdout.indexOf("\nnotes:\n"))
      expect(notes).toMatch(/^ {2}assumed estimation\.result\.measurement: .*millimetres/m)
      expect(notes).toMatch(/^ {2}assumed estimation\.result\.body_composition\.body_fat_percentage: /m)
      const { rows } = tableRows(r.stdout, "measurement")
      expect(rows.find((row) => row[0] === "bustGirth")).toEqual(["bustGirth", "875", "87.5", "34.45"])
    },
    TIMEOUT
  )

  it(
    "a file that is not a scan fails with one line naming it",
    async () => {
      const r = await run("inspect", "examples/export/broken.ndjson")
      expect(r.code).toBe(1)
      expect(r.stdout).toBe("")
      expect(nonEmptyLines(r.stderr)).toHaveLength(1)
      expect(r.stderr).toMatch(/^scanbridge: examples\/export\/broken\.ndjson:1: not JSON\n$/)
    },
    TIMEOUT
  )
})

describe("diff", () => {
  const A = "examples/export/estimation/read-responses.ndjson"
  const B = "examples/export/fit/estimations.ndjson"

  const check = (stdout: string, labels: readonly [string, string]) => {
    expect(stdout).toMatch(new RegExp(`^a: ${labels[0].replace(/[./]/g, "\\$&")} \\(`, "m"))
    expect(stdout).toMatch(new RegExp(`^b: ${labels[1].replace(/[./]/g, "\\$&")} \\(`, "m"))
    const { header, rows } = tableRows(stdout, "measurement")
    expect(header).toMatch(/^measurement\s+a mm\s+b mm\s+b - a mm\s+b - a %$/)
    expect(rows.length).toBeGreaterThan(10)
    const parsed = rows.map(([name, a, b, delta, percent]) => ({ name: name!, a: Number(a), b: Number(b), delta: Number(delta), percent: percent! }))
    for (const d of parsed) {
      expect(d.delta).toBeCloseTo(d.b - d.a, 6)
      expect(d.percent).toBe((Math.round(((d.b - d.a) / d.a) * 10000) / 100).toFixed(2))
    }
    for (let i = 1; i < parsed.length; i++) expect(Math.abs(parsed[i - 1]!.delta)).toBeGreaterThanOrEqual(Math.abs(parsed[i]!.delta))
    return parsed
  }

  it(
    "compares the first scans of two files, largest absolute difference first",
    async () => {
      const r = await run("diff", A, B)
      // They differ, and the default tolerance is 0 mm.
      expect(r.code).toBe(4)
      expect(r.stdout).toContain("(estimation est_00000001)")
      expect(r.stdout).toContain("(fit et_00000001)")
      const rows = check(r.stdout, [A, B])
      expect(rows[0]).toEqual({ name: "waistGirth", a: 651, b: 838, delta: 187, percent: "28.73" })
    },
    TIMEOUT
  )

  it(
    "orders by absolute difference when b is smaller than a",
    async () => {
      const r = await run("diff", B, A, "--tolerance-mm", "1000")
      expect(r.code).toBe(0)
      const rows = check(r.stdout, [B, A])
      expect(rows.every((d) => d.delta < 0)).toBe(true)
      expect(rows[0]!.name).toBe("waistGirth")
      expect(rows.at(-1)!.name).toBe("outerAnkleHeightR")
    },
    TIMEOUT
  )
})
