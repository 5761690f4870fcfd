/**
 * A run as a value (`Migration.run`): whatever chunk a resumable run is interrupted after, the run
 * resumed from its checkpoint writes the bytes of a run that never stopped; an interrupted run
 * that was not resumable leaves every destination as it was; a plan that cannot run is refused
 * before anything is opened; workers, progress and sources and sinks of an integrator's own.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, FastCheck as fc, Stream } from "effect"
import { existsSync, readFileSync, readdirSync } from "node:fs"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type MigrateProgress, Migration, type MigrationPlan, type SinkChunk, type SourceRecord, textOf } from "../src/index.js"
import { CHUNK_LINES } from "../src/internal/read.js"
import { samples } from "./records.js"

const records = samples.map((s) => JSON.stringify(s))
const line = (i: number) => (i % 41 === 3 ? "{not json" : records[i % records.length]!)
const many = (n: number, from = 0) => Array.from({ length: n }, (_, i) => line(from + i)).join("\n")
const PATIENTS = "https://hospital.example/patients"

/** A folder with two inputs of several chunks each, and the plan's outputs beside them. */
const withInputs =
  <A>(f: (dir: string, inputs: ReadonlyArray<string>) => Promise<A>) =>
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "scanbridge-run-"))
    try {
      await writeFile(join(dir, "a.ndjson"), `${many(CHUNK_LINES * 2 + 17)}\n`)
      await writeFile(join(dir, "b.ndjson"), `${many(CHUNK_LINES + 5, 11)}\n`)
      return await f(dir, [join(dir, "a.ndjson"), join(dir, "b.ndjson")])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }

const runIt = <SE, KE>(plan: MigrationPlan<SE, KE>) => Effect.runPromiseExit(Migration.run(plan).pipe(Effect.provide(NodeContext.layer)))

const textPlan = (dir: string, inputs: ReadonlyArray<string>, name: string, extra: Partial<MigrationPlan> = {}): MigrationPlan => ({
  source: Migration.files(inputs),
  sink: { _tag: "Text", to: "csv", out: join(dir, `${name}.csv`), rejects: join(dir, `${name}.rejects.ndjson`) },
  report: join(dir, `${name}.report.json`),
  workers: 0,
  ...extra
})

const outputsOf = async (dir: string, name: string) =>
  Promise.all([`${name}.csv`, `${name}.rejects.ndjson`, `${name}.report.json`].map((f) => readFile(join(dir, f), "utf8")))

/** A plan's progress handler that interrupts the run once `k` chunks have been written. */
const stopAfter = (k: number) => {
  let seen = 0
  return (_: MigrateProgress) => (++seen > k ? Effect.interrupt : Effect.void)
}

describe("Migration.run", () => {
  it(
    "interrupted after any chunk and resumed, writes the bytes of a run that never stopped",
    withInputs(async (dir, inputs) => {
      const clean = await runIt(textPlan(dir, inputs, "clean"))
      expect(Exit.isSuccess(clean)).toBe(true)
      const expected = await outputsOf(dir, "clean")
      let chunks = 0
      let trial = 0
      await runIt(textPlan(dir, inputs, "count", { onProgress: () => Effect.sync(() => void chunks++) }))
      expect(chunks).toBeGreaterThan(3)
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: chunks - 1 }), async (k) => {
          // fast-check may draw a k twice: each run has outputs of its own.
          const name = `r${k}-${++trial}`
          const stopped = await runIt(textPlan(dir, inputs, name, { resume: "resumable", onProgress: stopAfter(k) }))
          expect(Exit.isInterrupted(stopped)).toBe(true)
          // Nothing is in place yet: the outputs so far are kept beside their destinations.
          expect(existsSync(join(dir, `${name}.csv`))).toBe(false)
          let resumedFrom: unknown = "not told"
          const resumed = await runIt(textPlan(dir, inputs, name, { resume: "resume", onResume: (from) => Effect.sync(() => void (resumedFrom = from)) }))
          expect(Exit.isSuccess(resumed)).toBe(true)
          expect(resumedFrom).toBeDefined()
          expect(await outputsOf(dir, name)).toEqual(expected)
          // The checkpoint and the kept files are gone once the run has succeeded.
          expect(readdirSync(dir).filter((f) => f.startsWith(`.${name}.`))).toEqual([])
        }),
        { numRuns: 4 }
      )
    })
  )

  it(
    "interrupted when not resumable, leaves every destination as it was and no file beside it",
    withInputs(async (dir, inputs) => {
      await writeFile(join(dir, "kept.csv"), "what was there\n")
      const stopped = await runIt(textPlan(dir, inputs, "kept", { onProgress: stopAfter(1) }))
      expect(Exit.isInterrupted(stopped)).toBe(true)
      expect(await readFile(join(dir, "kept.csv"), "utf8")).toBe("what was there\n")
      expect(readdirSync(dir).sort()).toEqual(["a.ndjson", "b.ndjson", "kept.csv"])
    })
  )

  it(
    "on a worker thread writes the bytes the calling thread writes",
    withInputs(async (dir, inputs) => {
      await runIt(textPlan(dir, inputs, "here"))
      const onWorkers = await runIt(textPlan(dir, inputs, "there", { workers: 1 }))
      expect(Exit.isSuccess(onWorkers), String(Exit.isFailure(onWorkers) ? onWorkers.cause : "")).toBe(true)
      expect(await outputsOf(dir, "there")).toEqual(await outputsOf(dir, "here"))
    })
  )

  it(
    "started in the background, streams its progress and ends it with the run",
    withInputs(async (dir, inputs) => {
      const { progress, report } = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const running = yield* Migration.start(textPlan(dir, inputs, "started"))
            const [seen, report] = yield* Effect.all([Stream.runCollect(running.progress), running.report], { concurrency: 2 })
            return { progress: Chunk.toReadonlyArray(seen), report }
          })
        ).pipe(Effect.provide(NodeContext.layer))
      )
      expect(progress.length).toBeGreaterThan(0)
      const last = progress[progress.length - 1]!
      expect(last.report.records).toBeLessThanOrEqual(report.records)
      expect(progress.every((p, i) => i === 0 || p.bytesRead >= progress[i - 1]!.bytesRead)).toBe(true)
      expect(JSON.parse(await readFile(join(dir, "started.report.json"), "utf8"))).toEqual(JSON.parse(JSON.stringify(report)))
    })
  )

  it(
    "refuses a plan that cannot run, naming the option, before anything is opened",
    withInputs(async (dir, inputs) => {
      const refused = async (plan: MigrationPlan, option: string, message: RegExp) => {
        const exit = await runIt(plan)
        expect(Exit.isFailure(exit)).toBe(true)
        const error = Exit.isFailure(exit)
          ? (exit.cause as { readonly _tag: string; readonly error?: { readonly _tag: string; readonly option?: string; readonly message: string } })
          : undefined
        expect(error?.error).toMatchObject({ _tag: "MigratePlanError", option })
        expect(error?.error?.message).toMatch(message)
      }
      const out = join(dir, "x.ndjson")
      await refused({ source: Migration.files(inputs), sink: { _tag: "Text", units: "cm", out } }, "units", /^units "cm": only to csv, parquet or fhir/)
      await refused(
        { source: Migration.files(inputs), sink: { _tag: "Text", to: "fhir", units: "mm", out } },
        "units",
        /^units "mm": to fhir writes its lengths in cm or in$/
      )
      await refused(
        { source: Migration.files(inputs), sink: { _tag: "Text", patientSystem: PATIENTS, out } },
        "patientSystem",
        /^patientSystem "https:\/\/hospital.example\/patients": only to fhir names a patient; canonical names none$/
      )
      for (const system of ["patients", "https://hospital.example/my patients", "https://x/\u0007", ""])
        await refused(
          { source: Migration.files(inputs), sink: { _tag: "Text", to: "fhir", patientSystem: system, out } },
          "patientSystem",
          /expected an absolute URI/
        )
      await refused(
        { source: Migration.files(inputs), sink: { _tag: "Text", to: "fhir", patientSystem: 42 as unknown as string, out } },
        "patientSystem",
        /^patientSystem 42: expected an absolute URI/
      )
      await refused(
        { source: Migration.files(inputs), sink: { _tag: "Text", to: "parquet", out }, resume: "resumable" },
        "resumable",
        /Parquet file is written whole/
      )
      await refused({ source: Migration.files(inputs), sink: { _tag: "Text", out }, verify: true }, "verify", /give it with resume/)
      await refused({ source: Migration.files(inputs), sink: { _tag: "Text", out: () => Effect.void }, resume: "resumable" }, "out", /give out a file/)
      await refused({ source: Migration.files([dir]), sink: { _tag: "Text", out: join(dir, "in-the-input.ndjson") } }, "out", /inside the input folder/)
      await refused({ source: Migration.files(inputs), sink: { _tag: "Text", out }, workers: -1 }, "workers", /^workers -1: expected a whole number/)
      expect(readdirSync(dir).sort()).toEqual(["a.ndjson", "b.ndjson"])
    })
  )

  it("resumes --to fhir only with the units and patient system of the run being resumed, into the bytes of a run that never stopped", async () => {
    const dir = await mkdtemp(join(tmpdir(), "scanbridge-run-fhir-"))
    try {
      // Three chunks, most of their records rejected (not JSON), each with bundles to write.
      const input = join(dir, "a.ndjson")
      await writeFile(
        input,
        `${Array.from({ length: CHUNK_LINES * 3 }, (_, i) => (i % 20 === 0 ? records[(i / 20) % records.length] : "{not json")).join("\n")}\n`
      )
      const plan = (name: string, units: "cm" | "in" | undefined, patientSystem: string | undefined, extra: Partial<MigrationPlan> = {}): MigrationPlan => ({
        source: Migration.files([input]),
        sink: {
          _tag: "Text",
          to: "fhir",
          ...(units === undefined ? {} : { units }),
          ...(patientSystem === undefined ? {} : { patientSystem }),
          out: join(dir, `${name}.ndjson`)
        },
        workers: 0,
        ...extra
      })
      expect(Exit.isSuccess(await runIt(plan("clean", "in", PATIENTS)))).toBe(true)
      const clean = await readFile(join(dir, "clean.ndjson"))
      expect(clean.includes('"code":"[in_i]"') && clean.includes(PATIENTS)).toBe(true)
      expect(Exit.isInterrupted(await runIt(plan("r", "in", PATIENTS, { resume: "resumable", onProgress: stopAfter(1) })))).toBe(true)
      const kept = new Map(
        readdirSync(dir)
          .filter((f) => f.startsWith(".r."))
          .map((f) => [f, readFileSync(join(dir, f))] as const)
      )
      expect([...kept.keys()].sort()).toEqual([".r.ndjson.resumable.checkpoint", ".r.ndjson.resumable.partial"])
      const refused = async (units: "cm" | "in" | undefined, patientSystem: string | undefined, now: string) => {
        const exit = await runIt(plan("r", units, patientSystem, { resume: "resume" }))
        const error = Exit.isFailure(exit) ? (exit.cause as { readonly error?: { readonly _tag: string; readonly message: string } }).error : undefined
        expect(error?._tag).toBe("ResumeError")
        expect(error?.message).toContain(`cannot resume: the run being resumed wrote fhir in in with patient system ${PATIENTS}, not ${now}`)
        // Refused before anything was opened: what the stopped run left is as it was.
        for (const [file, bytes] of kept) expect(readFileSync(join(dir, file)).equals(bytes)).toBe(true)
        expect(existsSync(join(dir, "r.ndjson"))).toBe(false)
      }
      await refused("cm", PATIENTS, `fhir in cm with patient system ${PATIENTS}`)
      await refused(undefined, PATIENTS, `fhir in cm with patient system ${PATIENTS}`)
      await refused("in", "https://other.example/patients", "fhir in in with patient system https://other.example/patients")
      await refused("in", undefined, "fhir in in;")
      expect(Exit.isSuccess(await runIt(plan("r", "in", PATIENTS, { resume: "resume" })))).toBe(true)
      expect((await readFile(join(dir, "r.ndjson"))).equals(clean)).toBe(true)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("reads an integrator's source into an integrator's sink, and resumes it from the sink's checkpoint", async () => {
    const rows: ReadonlyArray<SourceRecord> = records.map((raw, i) => ({ file: "legacy", line: i + 1, raw, key: `k${i}` }))
    const written: Array<SinkChunk> = []
    let firstChunkReport: SinkChunk["report"] | undefined
    const plan = (after: number | undefined): MigrationPlan => ({
      source: {
        _tag: "Records",
        identity: "legacy table",
        records: (position) => ({ records: Stream.make(rows.slice(position?.line ?? 0)) })
      },
      sink: {
        _tag: "Chunks",
        make: () =>
          Effect.succeed({
            target: { to: "canonical" },
            write: (chunk: SinkChunk) => Effect.sync(() => void written.push(chunk)),
            resumePoint: Effect.succeed(after === undefined ? undefined : { position: { file: "legacy", line: after }, report: firstChunkReport! })
          })
      },
      resume: after === undefined ? "off" : "resume",
      workers: 0
    })
    const first = await runIt(plan(undefined))
    expect(Exit.isSuccess(first) && first.value.records).toBe(rows.length)
    expect(
      textOf(written[0]!.out)
        .split("\n")
        .filter((l) => l !== "").length
    ).toBe(
      first.pipe(
        Exit.map((r) => r.scans),
        Exit.getOrElse(() => -1)
      )
    )
    firstChunkReport = written[0]!.report
    written.length = 0
    const resumed = await runIt(plan(2))
    expect(Exit.isSuccess(resumed)).toBe(true)
    // Only the records after the sink's checkpoint are read again.
    expect(written.reduce((n, c) => n + c.records, 0)).toBe(rows.length - 2)
  })
})
