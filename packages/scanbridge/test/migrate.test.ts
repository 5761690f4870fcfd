/**
 * The plain API's `migrate(options)`, tested as the command line's resume is: whatever chunk a
 * resumable run is aborted after, the run resumed writes the bytes of a run that never stopped; an
 * aborted run that was not resumable, or one whose progress callback throws, leaves every
 * destination as it was; a worker thread writes what the calling thread writes; options that
 * cannot go together are refused, naming the option, before anything is written.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
// The chunk size decides how many times a run can be stopped: read, so that the inputs stay several chunks long if it changes.
import { CHUNK_LINES } from "../../migrate/src/internal/read.js"
import { samples } from "../../migrate/test/records.js"
import { type MigrateOptions, type MigrateProgress, ScanbridgeError, migrate } from "../src/index.js"

const records = samples.map((s) => JSON.stringify(s))
// Every 41st line is not JSON, so that the rejects have something to resume too.
const line = (i: number) => (i % 41 === 3 ? "{not json" : records[i % records.length]!)
const many = (n: number, from = 0) => Array.from({ length: n }, (_, i) => line(from + i)).join("\n")

/** A folder with two inputs of several chunks each; the runs' outputs go beside them. */
const withInputs = (f: (dir: string, inputs: ReadonlyArray<string>) => Promise<void>) => async () => {
  const dir = await mkdtemp(join(tmpdir(), "scanbridge-plain-migrate-"))
  try {
    await writeFile(join(dir, "a.ndjson"), `${many(CHUNK_LINES * 2 + 17)}\n`)
    await writeFile(join(dir, "b.ndjson"), `${many(CHUNK_LINES + 5, 11)}\n`)
    await f(dir, [join(dir, "a.ndjson"), join(dir, "b.ndjson")])
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** A run's options: the inputs to `<name>.csv`, its rejects and its report, on the calling thread. */
const optionsOf = (dir: string, inputs: ReadonlyArray<string>, name: string, extra: Partial<MigrateOptions> = {}): MigrateOptions => ({
  from: inputs,
  out: join(dir, `${name}.csv`),
  to: "csv",
  rejects: join(dir, `${name}.rejects.ndjson`),
  report: join(dir, `${name}.report.json`),
  workers: 0,
  ...extra
})

const outputsOf = (dir: string, name: string) =>
  Promise.all([`${name}.csv`, `${name}.rejects.ndjson`, `${name}.report.json`].map((f) => readFile(join(dir, f), "utf8")))

/** What the Promise rejected with, which must be a ScanbridgeError. */
const rejectionOf = async (run: Promise<unknown>): Promise<ScanbridgeError> => {
  try {
    await run
  } catch (e) {
    expect(e).toBeInstanceOf(ScanbridgeError)
    return e as ScanbridgeError
  }
  throw new Error("expected the run to reject, it resolved")
}

/** A signal and a progress callback that aborts it on its k-th call (1-based). */
const abortOnCall = (k: number) => {
  const controller = new AbortController()
  let calls = 0
  return { signal: controller.signal, onProgress: () => void (++calls === k && controller.abort()) }
}

/** The figures of every progress call of a run, and its report. */
const progressOf = async (options: MigrateOptions) => {
  const seen: Array<MigrateProgress> = []
  const report = await migrate({ ...options, onProgress: (p) => void seen.push(p) })
  return { seen, report }
}

describe("migrate: abort and resume", () => {
  it(
    "aborted after any chunk of a resumable run and resumed, writes the bytes of a run that never stopped",
    withInputs(async (dir, inputs) => {
      const { seen } = await progressOf(optionsOf(dir, inputs, "clean"))
      const expected = await outputsOf(dir, "clean")
      expect(seen.length).toBeGreaterThan(3)
      // A name per run, not per k: fast-check may draw the same k twice, and the first run's outputs are then in place.
      let runs = 0
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: seen.length - 1 }), async (k) => {
          const name = `r${++runs}-${k}`
          const stopped = await rejectionOf(migrate(optionsOf(dir, inputs, name, { resumable: true, ...abortOnCall(k) })))
          expect(stopped.code).toBe("Interrupted")
          // Nothing is in place yet: what was written is kept beside the destinations, with the checkpoint.
          for (const f of [`${name}.csv`, `${name}.rejects.ndjson`, `${name}.report.json`]) expect(existsSync(join(dir, f))).toBe(false)
          expect(existsSync(join(dir, `.${name}.csv.resumable.checkpoint`))).toBe(true)
          const report = await migrate(optionsOf(dir, inputs, name, { resume: true }))
          expect(await outputsOf(dir, name)).toEqual(expected)
          expect(JSON.parse(expected[2]!)).toEqual(JSON.parse(JSON.stringify(report)))
          // The checkpoint and the kept files are gone once the run has succeeded.
          expect(readdirSync(dir).filter((f) => f.startsWith(`.${name}.`))).toEqual([])
        }),
        { numRuns: 4 }
      )
    })
  )

  it(
    "aborted when not resumable, leaves every destination as it was and no file beside it",
    withInputs(async (dir, inputs) => {
      await writeFile(join(dir, "kept.csv"), "what was there\n")
      const stopped = await rejectionOf(migrate(optionsOf(dir, inputs, "kept", abortOnCall(1))))
      expect(stopped.code).toBe("Interrupted")
      expect(await readFile(join(dir, "kept.csv"), "utf8")).toBe("what was there\n")
      expect(readdirSync(dir).sort()).toEqual(["a.ndjson", "b.ndjson", "kept.csv"])
    })
  )

  it(
    "a progress callback that throws fails the run with code Defect, every destination as it was",
    withInputs(async (dir, inputs) => {
      await writeFile(join(dir, "kept.csv"), "what was there\n")
      const onProgress = () => {
        throw new Error("a bug in the caller's progress bar")
      }
      const failed = await rejectionOf(migrate(optionsOf(dir, inputs, "kept", { onProgress })))
      expect(failed.code).toBe("Defect")
      expect(failed.message).toMatch(/a bug in the caller's progress bar/)
      expect(await readFile(join(dir, "kept.csv"), "utf8")).toBe("what was there\n")
      expect(readdirSync(dir).sort()).toEqual(["a.ndjson", "b.ndjson", "kept.csv"])
    })
  )
})

describe("migrate: workers and progress", () => {
  it(
    "on a worker thread writes the bytes the calling thread writes",
    withInputs(async (dir, inputs) => {
      const here = await migrate(optionsOf(dir, inputs, "here"))
      const there = await migrate(optionsOf(dir, inputs, "there", { workers: 1 }))
      expect(there).toEqual(here)
      expect(await outputsOf(dir, "there")).toEqual(await outputsOf(dir, "here"))
    })
  )

  it(
    "tells onProgress the bytes read so far, never fewer, of the inputs' size, up to the final report",
    withInputs(async (dir, inputs) => {
      const sizes = await Promise.all(inputs.map(async (i) => (await stat(i)).size))
      const { seen, report } = await progressOf(optionsOf(dir, inputs, "progress"))
      const total = sizes.reduce((a, b) => a + b, 0)
      expect(seen.length).toBeGreaterThan(1)
      expect(seen.every((p) => p.bytesTotal === total)).toBe(true)
      expect(seen.every((p, i) => i === 0 || p.bytesRead >= seen[i - 1]!.bytesRead)).toBe(true)
      expect(seen.every((p, i) => i === 0 || p.report.records >= seen[i - 1]!.report.records)).toBe(true)
      const last = seen[seen.length - 1]!
      expect(last.bytesRead).toBe(total)
      expect(last.report.records).toBe(report.records)
      expect(report.records).toBe(CHUNK_LINES * 3 + 22)
    })
  )
})

describe("migrate: options that cannot go together", () => {
  it(
    "are refused with code MigratePlanError naming the option, and nothing is written",
    withInputs(async (dir, inputs) => {
      const out = join(dir, "x.ndjson")
      const refused = async (options: MigrateOptions, option: string, message: RegExp) => {
        const error = await rejectionOf(migrate(options))
        expect(error.code).toBe("MigratePlanError")
        expect(error.cause).toMatchObject({ _tag: "MigratePlanError", option })
        expect(error.message).toMatch(message)
      }
      await refused({ from: inputs }, "out", /^out: give the file/)
      await refused({ from: inputs, out, units: "cm" }, "units", /^units "cm": only to csv, parquet or fhir/)
      await refused({ from: inputs, out, to: "fhir", units: "mm" }, "units", /^units "mm": to fhir writes its lengths in cm or in$/)
      await refused({ from: inputs, out, to: "fhir", patientSystem: "my patients" }, "patientSystem", /^patientSystem "my patients": expected an absolute URI/)
      await refused(
        { from: inputs, into: { url: "postgres://u@127.0.0.1:1/db", table: "t" }, patientSystem: "urn:oid:1.2.3" },
        "patientSystem",
        /^patientSystem: into writes canonical scans/
      )
      await refused({ from: inputs, out, verify: true }, "verify", /give it with resume/)
      await refused({ from: inputs, out: join(dir, "x.parquet"), to: "parquet", resumable: true }, "resumable", /Parquet file is written whole/)
      await refused({ from: [dir], out: join(dir, "in-the-input.ndjson") }, "out", /inside the input folder/)
      expect(readdirSync(dir).sort()).toEqual(["a.ndjson", "b.ndjson"])
    })
  )
})
