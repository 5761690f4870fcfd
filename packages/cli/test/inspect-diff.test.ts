/** `scanbridge inspect` and `scanbridge diff`, run in-process: --json, picking a record, --tolerance-mm. */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ExitCode } from "../src/exit.js"
import { repoRoot, run } from "./harness.js"

const ESTIMATIONS = "examples/export/estimation/read-responses.ndjson" // 8 records: est_00000001 to 4, twice
const FITS = "examples/export/fit/estimations.ndjson"
const SESSIONS = "examples/export/session/results.json" // a JSON array of 5 records: ss_00000001, one without an id, ss_00000002 to 4
const CANONICAL = "examples/canonical/photo-scan.json"

interface Difference {
  readonly name: string
  readonly a: number
  readonly b: number
  readonly delta: number
  readonly percent: number | null
}

interface DiffJson {
  readonly a: { readonly file: string; readonly record: number; readonly api: string; readonly id: string | null }
  readonly b: { readonly file: string; readonly record: number; readonly api: string; readonly id: string | null }
  readonly toleranceMm: number
  readonly differences: ReadonlyArray<Difference>
  readonly onlyInA: ReadonlyArray<string>
  readonly onlyInB: ReadonlyArray<string>
  readonly beyondTolerance: ReadonlyArray<string>
}

interface ScanJson {
  readonly source: { readonly api: string; readonly id: string | null }
  readonly measurementsMm: Record<string, number>
}

const lines = (text: string) => text.split("\n").filter((l) => l !== "")
const ndjson = (text: string) => lines(text).map((l) => JSON.parse(l) as ScanJson)

/** A failure: the exit code, nothing on stdout, one line on stderr. */
const expectOneLine = (r: { code: number; stdout: string; stderr: string }, code: number, line: string) => {
  expect(r.code, r.stderr).toBe(code)
  expect(r.stdout).toBe("")
  expect(r.stderr).toBe(`scanbridge: ${line}\n`)
}

describe("inspect --json", () => {
  it("prints a canonical scan as one line of JSON, the scan itself", async () => {
    const r = await run("inspect", CANONICAL, "--json")
    expect(r.code).toBe(0)
    expect(lines(r.stdout)).toHaveLength(1)
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(readFileSync(join(repoRoot, CANONICAL), "utf8")))
  })

  it("prints every scan of a multi-record file as NDJSON, in order", async () => {
    const r = await run("inspect", ESTIMATIONS, "--json")
    expect(r.code).toBe(0)
    const scans = ndjson(r.stdout)
    expect(scans.map((s) => s.source.id)).toEqual(Array.from({ length: 8 }, (_, i) => `est_0000000${(i % 4) + 1}`))
    expect(scans.every((s) => s.source.api === "estimation")).toBe(true)
  })
})

describe("inspect --record", () => {
  it("picks the Nth NDJSON record, and the Nth element of a JSON array", async () => {
    const third = await run("inspect", ESTIMATIONS, "--record", "3", "--json")
    expect(third.code).toBe(0)
    expect(ndjson(third.stdout).map((s) => s.source.id)).toEqual(["est_00000003"])
    const table = await run("inspect", ESTIMATIONS, "--record", "3")
    expect(table.stdout).toMatch(/^estimation est_00000003: failure/)
    expect(table.stdout).not.toContain("est_00000001")
    const second = await run("inspect", SESSIONS, "--record=3", "--json")
    expect(second.code).toBe(0)
    expect(ndjson(second.stdout).map((s) => s.source.id)).toEqual(["ss_00000002"])
  })

  it("reads only the record it picks: a good record of a file with broken ones", async () => {
    expectOneLine(await run("inspect", "examples/export/broken.ndjson", "--record", "1"), ExitCode.failure, "examples/export/broken.ndjson:1: not JSON")
    const r = await run("inspect", "examples/export/broken.ndjson", "--record", "2")
    expect(r.code).toBe(ExitCode.failure)
    expect(r.stderr).toMatch(/^scanbridge: examples\/export\/broken\.ndjson:2: unknown format: .*\n$/)
  })

  it("an N beyond the file is one line naming the flag and how many records there are", async () => {
    expectOneLine(await run("inspect", ESTIMATIONS, "--record", "9"), ExitCode.failure, `--record 9: ${ESTIMATIONS} has 8 records`)
    expectOneLine(await run("inspect", SESSIONS, "--record", "6", "--json"), ExitCode.failure, `--record 6: ${SESSIONS} has 5 records`)
    expectOneLine(await run("inspect", CANONICAL, "--record", "2"), ExitCode.failure, `--record 2: ${CANONICAL} has 1 record`)
    expect((await run("inspect", CANONICAL, "--record", "1")).code).toBe(0)
  })

  it("refuses an N that is not a whole number from 1, naming the flag", async () => {
    for (const n of ["0", "x", "-1"]) {
      const r = await run("inspect", ESTIMATIONS, "--record", n)
      expect(r.code).toBe(ExitCode.usage)
      expect(r.stderr).toContain(`--record ${n}: expected a whole number, 1 or more`)
    }
  })
})

describe("diff --json", () => {
  it("prints {a, b, toleranceMm, differences, onlyInA, onlyInB, beyondTolerance}, largest difference first", async () => {
    const r = await run("diff", ESTIMATIONS, FITS, "--json")
    expect(r.code).toBe(ExitCode.differs)
    expect(lines(r.stdout)).toHaveLength(1)
    const d = JSON.parse(r.stdout) as DiffJson
    expect(Object.keys(d)).toEqual(["a", "b", "toleranceMm", "differences", "onlyInA", "onlyInB", "beyondTolerance"])
    expect(d.a).toEqual({ file: ESTIMATIONS, record: 1, api: "estimation", id: "est_00000001" })
    expect(d.b).toEqual({ file: FITS, record: 1, api: "fit", id: "et_00000001" })
    expect(d.toleranceMm).toBe(0)
    expect(d.differences[0]).toEqual({ name: "waistGirth", a: 651, b: 838, delta: 187, percent: 28.73 })
    for (const x of d.differences) expect(x.delta).toBeCloseTo(x.b - x.a, 6)
    for (let i = 1; i < d.differences.length; i++) expect(Math.abs(d.differences[i - 1]!.delta)).toBeGreaterThanOrEqual(Math.abs(d.differences[i]!.delta))
    expect(d.beyondTolerance).toEqual(d.differences.filter((x) => x.delta !== 0).map((x) => x.name))
    // The same differences as the table.
    const table = await run("diff", ESTIMATIONS, FITS)
    for (const x of d.differences) expect(table.stdout).toMatch(new RegExp(`^${x.name}\\s+${x.a}\\s+${x.b}\\s+${x.delta}\\s`, "m"))
  })
})

describe("diff --record-a / --record-b", () => {
  it("compares the records they pick, of one file or two", async () => {
    const r = await run("diff", ESTIMATIONS, ESTIMATIONS, "--record-a", "5", "--record-b", "2", "--json")
    const d = JSON.parse(r.stdout) as DiffJson
    expect(d.a).toMatchObject({ record: 5, id: "est_00000001" })
    expect(d.b).toMatchObject({ record: 2, id: "est_00000002" })
    const all = ndjson((await run("inspect", ESTIMATIONS, "--json")).stdout)
    const waist = d.differences.find((x) => x.name === "waistGirth")!
    expect([waist.a, waist.b]).toEqual([all[4]!.measurementsMm["waistGirth"], all[1]!.measurementsMm["waistGirth"]])
    const sessions = JSON.parse((await run("diff", SESSIONS, ESTIMATIONS, "--record-a", "4", "--json")).stdout) as DiffJson
    expect(sessions.a).toMatchObject({ record: 4, id: "ss_00000003" })
    expect(sessions.b).toMatchObject({ record: 1, id: "est_00000001" })
  })

  it("an N beyond a file names its flag and how many records there are", async () => {
    expectOneLine(await run("diff", ESTIMATIONS, FITS, "--record-b", "4"), ExitCode.failure, `--record-b 4: ${FITS} has 3 records`)
    expectOneLine(await run("diff", ESTIMATIONS, FITS, "--record-a", "12", "--json"), ExitCode.failure, `--record-a 12: ${ESTIMATIONS} has 8 records`)
  })

  it("a file that is not a scan still fails with exit code 1", async () => {
    expectOneLine(await run("diff", "examples/export/broken.ndjson", FITS), ExitCode.failure, "examples/export/broken.ndjson:1: not JSON")
  })
})

describe("diff --tolerance-mm", () => {
  it(`exits ${ExitCode.differs} when a measurement differs by more than the tolerance, 0 when none does`, async () => {
    const d = JSON.parse((await run("diff", ESTIMATIONS, FITS, "--json")).stdout) as DiffJson
    const largest = Math.abs(d.differences[0]!.delta)
    const within = await run("diff", ESTIMATIONS, FITS, "--tolerance-mm", String(largest), "--json")
    expect(within.code).toBe(ExitCode.ok)
    expect((JSON.parse(within.stdout) as DiffJson).beyondTolerance).toEqual([])
    const just = await run("diff", ESTIMATIONS, FITS, "--tolerance-mm", String(largest - 0.5), "--json")
    expect(just.code).toBe(ExitCode.differs)
    expect((JSON.parse(just.stdout) as DiffJson).beyondTolerance).toEqual(["waistGirth"])
    const table = await run("diff", ESTIMATIONS, FITS, "--tolerance-mm", "100")
    expect(table.code).toBe(ExitCode.differs)
    const count = d.differences.filter((x) => Math.abs(x.delta) > 100).length
    expect(table.stdout).toContain(`\n${count} of ${d.differences.length} shared measurements differ by more than 100 mm\n`)
  })

  it("a scan against itself differs by nothing, whatever the tolerance", async () => {
    const r = await run("diff", CANONICAL, CANONICAL)
    expect(r.code).toBe(ExitCode.ok)
    expect(r.stdout).toContain("0 of ")
  })

  it("refuses a negative or non-numeric tolerance, naming the flag", async () => {
    for (const x of ["-1", "wide"]) {
      const r = await run("diff", CANONICAL, CANONICAL, "--tolerance-mm", x)
      expect(r.code).toBe(ExitCode.usage)
      expect(r.stderr).toContain(`--tolerance-mm ${x}: expected a number from 0`)
    }
  })
})

describe("--help", () => {
  it("inspect and diff show their new flags with their defaults", async () => {
    const inspect = await run("inspect", "--help")
    for (const text of ["--record N", "(default: every record)", "--json", "NDJSON"]) expect(inspect.stdout).toContain(text)
    const diff = await run("diff", "--help")
    for (const text of [
      "--record-a N",
      "--record-b N",
      "(default: the first record with a scan)",
      "--tolerance-mm N",
      "(default: 0)",
      "--json",
      `${ExitCode.differs} some do`
    ]) {
      expect(diff.stdout).toContain(text)
    }
  })

  it("scanbridge --help still lists inspect and diff with their descriptions", async () => {
    const r = await run("--help")
    expect(r.stdout).toMatch(
      /^ {2}- inspect \[--record N\] \[--length-unit auto\|mm\|cm\|in\] \[--body-fat-scale auto\|percent\|e4\] \[--muscle-mass-unit auto\|g\|kg\] \[--json\] \[--adapter MODULE\.\.\.\] <file> +Show a scan as a table/m
    )
    expect(r.stdout).toMatch(
      /^ {2}- diff \[--record-a N\] \[--record-b N\] \[--tolerance-mm N\] \[--length-unit auto\|mm\|cm\|in\] \[--body-fat-scale auto\|percent\|e4\] \[--muscle-mass-unit auto\|g\|kg\] \[--json\] \[--adapter MODULE\.\.\.\] <a> <b> +Compare two scans of one person/m
    )
  })
})
