/**
 * The migration on worker threads: real threads, running test/worker-entry.ts, against the same
 * migration in the calling thread.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Codegen } from "@scanbridge/model"
import { readFileSync, statSync } from "node:fs"
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import { type MigratePool, Normalizer, defaultNormalizer, makeMigratePool, migrate, outputFile, textOf } from "../src/index.js"
import type { EncodeOptions } from "@scanbridge/model"
import { WORKER_HEAP } from "../src/internal/default-workers.js"
import { CHUNK_BYTES, CHUNK_LINES } from "../src/internal/read.js"
import { migrateChunk } from "../src/internal/pipeline.js"
import { RANGE_BYTES } from "../src/internal/ranges.js"

const repo = fileURLToPath(new URL("../../..", import.meta.url))
const EXPORT = join(repo, "examples", "export")
const TIMEOUT = 60_000

// worker-entry.mjs registers tsx, then loads worker-entry.ts (or what SCANBRIDGE_TEST_WORKER names).
const ENTRY = new URL("./worker-entry.mjs", import.meta.url)
const platformOf = (worker: string, workerData?: unknown) =>
  Layer.mergeAll(
    NodeContext.layer,
    Normalizer.default,
    NodeWorker.layerPlatform(() => new Worker(ENTRY, { env: { ...process.env, SCANBRIDGE_TEST_WORKER: worker }, resourceLimits: WORKER_HEAP, workerData }))
  )

/** A pool whose workers have all started, so that every chunk it has room for goes to them. */
const startedPool = (size: number) => Effect.tap(makeMigratePool({ size }), (pool) => pool.started)

/** Every record of the example export, as one NDJSON line each, the broken ones included. */
const exampleLines = (): ReadonlyArray<string> => {
  const ndjson = (file: string) =>
    readFileSync(join(EXPORT, file), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
  const array = (file: string) => (JSON.parse(readFileSync(join(EXPORT, file), "utf8")) as Array<unknown>).map((r) => JSON.stringify(r))
  return [
    ...ndjson("platform/entries.ndjson"),
    JSON.stringify(JSON.parse(readFileSync(join(EXPORT, "platform/list-page.json"), "utf8"))),
    ...array("session/results.json"),
    ...ndjson("estimation/read-responses.ndjson"),
    ...ndjson("fit/estimations.ndjson"),
    ...ndjson("broken.ndjson")
  ]
}

// A quarter of a chunk's lines.
const QUARTER = CHUNK_LINES / 4

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scanbridge-workers-"))
  const lines = exampleLines()
  // 12 chunks' records in an order no chunk repeats (the formats and the rejects land at different
  // places in each chunk), in an NDJSON file, a JSON array and a folder.
  const pick = (n: number) => Array.from({ length: n }, (_, i) => lines[(i * 7 + Math.floor(i / lines.length)) % lines.length]!)
  await mkdir(join(dir, "folder"))
  await writeFile(join(dir, "folder", "a.ndjson"), `${pick(8 * QUARTER).join("\n")}\n\n`)
  // A JSON array holds only JSON: its rejects are records of no known format.
  const json = pick(4 * QUARTER).filter((l) => {
    try {
      return JSON.parse(l) !== undefined
    } catch {
      return false
    }
  })
  await writeFile(join(dir, "folder", "b.json"), `[${json.slice(0, 3 * QUARTER).join(",")}]`)
  await writeFile(join(dir, "c.jsonl"), pick(QUARTER).join("\n"))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** The inputs written above: a folder of NDJSON and JSON files, and a `.jsonl` file, 12 quarters of a chunk, with rejects. */
const exampleInputs = () => [join(dir, "folder"), join(dir, "c.jsonl")]

/** A migration into memory, on the pool if given, its target told `options` (units, a patient system). */
const run = (inputs: ReadonlyArray<string>, to: string, pool?: MigratePool, options: EncodeOptions = {}) =>
  Effect.gen(function* () {
    let out = ""
    let rejects = ""
    let progress = 0
    const report = yield* migrate({
      inputs,
      to,
      ...options,
      output: (t) => Effect.sync(() => void (out += textOf(t))),
      rejects: (t) => Effect.sync(() => void (rejects += textOf(t))),
      onProgress: () => Effect.sync(() => void progress++),
      ...(pool === undefined ? {} : { pool })
    })
    return { out, rejects, report, progress }
  })

/** Two runs of the same inputs wrote the same outputs, rejects and report (the same keys in the same order, so the report file is the same bytes too). */
const expectSameRun = (
  there: { readonly out: string; readonly rejects: string; readonly report: unknown },
  here: { readonly out: string; readonly rejects: string; readonly report: unknown }
) => {
  expect(there.out).toBe(here.out)
  expect(there.rejects).toBe(here.rejects)
  expect(JSON.stringify(there.report)).toBe(JSON.stringify(here.report))
}

/** A migration into output files (as a command line's), on the pool if given: what they hold once committed. */
const toFiles = (inputs: ReadonlyArray<string>, to: string, pool?: MigratePool, options: EncodeOptions = {}) =>
  Effect.scoped(
    Effect.gen(function* () {
      const out = yield* outputFile(join(dir, "files.out"))
      const rejects = yield* outputFile(join(dir, "files.rejects"))
      let progress = 0
      const report = yield* migrate({
        inputs,
        to,
        ...options,
        output: out.write,
        rejects: rejects.write,
        onProgress: () => Effect.sync(() => void progress++),
        ...(pool === undefined ? {} : { pool })
      })
      yield* out.commit
      yield* rejects.commit
      return { out: readFileSync(join(dir, "files.out"), "utf8"), rejects: readFileSync(join(dir, "files.rejects"), "utf8"), report, progress }
    })
  )

describe("migrate on worker threads", () => {
  it.effect(
    "writes the same bytes and the same report as the calling thread, over several chunks with rejects",
    () =>
      Effect.gen(function* () {
        const inputs = exampleInputs()
        const pool = yield* startedPool(2)
        for (const [to, units] of [["canonical"], ["platform"], ["csv", "in"]] as const) {
          const options = units === undefined ? {} : { units }
          const here = yield* run(inputs, to, undefined, options)
          const there = yield* run(inputs, to, pool, options)
          expect(here.report.records).toBe(12 * QUARTER)
          expect(here.report.records).toBe(here.report.migrated + here.report.rejected)
          expect(here.report.rejected).toBeGreaterThan(12 * 6)
          expect(here.progress).toBeGreaterThanOrEqual(5)
          expectSameRun(there, here)
          // Read in ranges by the workers, a file is cut otherwise than read here: fewer progress
          // reports, each after a whole range.
          expect(there.progress).toBeGreaterThanOrEqual(3)
        }
      }).pipe(Effect.scoped, Effect.provide(platformOf("./worker-entry.ts"))),
    TIMEOUT
  )

  it.effect(
    "writes fhir in the units and with the patient system it is told, as the calling thread does",
    () =>
      Effect.gen(function* () {
        // A quarter of a chunk, one chunk: the started pool's worker migrates it.
        const inputs = [join(dir, "c.jsonl")]
        const told = { units: "in", patientSystem: "https://hospital.example/patients" } as const
        const pool = yield* startedPool(1)
        const here = yield* run(inputs, "fhir", undefined, told)
        const there = yield* run(inputs, "fhir", pool, told)
        expect(here.report.scans).toBeGreaterThan(100)
        // Searched and compared as booleans: a diff of megabytes would not help anyone.
        expect(here.out.includes('"code":"[in_i]"') && here.out.includes(`"system":"${told.patientSystem}"`)).toBe(true)
        expect(there.out === here.out).toBe(true)
        expect(there.rejects === here.rejects).toBe(true)
        // The same worker, told nothing: the default units (cm), no patient.
        const metric = yield* run(inputs, "fhir", pool)
        expect(metric.out.includes('"code":"[in_i]"') || metric.out.includes(told.patientSystem)).toBe(false)
        expect(metric.out === (yield* run(inputs, "fhir")).out).toBe(true)
      }).pipe(Effect.scoped, Effect.provide(platformOf("./worker-entry.ts"))),
    TIMEOUT
  )

  it.effect(
    "migrates hostile records (100,000 deep, a 2 MB list page, toString keys) as the calling thread does",
    () =>
      Effect.gen(function* () {
        const valid = exampleLines()[0]!
        const hostile = [
          `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
          `{"entry":${`{"a":`.repeat(3_000)}1${"}".repeat(3_000)}}`,
          `{"results":[${Array.from({ length: 1_000_000 }, () => "1").join(",")}]}`,
          `{"toString":1,"valueOf":{},"__proto__":{"x":1},"constructor":"c"}`
        ]
        const file = join(dir, "hostile.ndjson")
        yield* Effect.promise(() =>
          writeFile(file, `${Array.from({ length: 600 }, (_, i) => (i % 50 === 7 ? hostile[Math.floor(i / 50) % hostile.length] : valid)).join("\n")}\n`)
        )
        const pool = yield* startedPool(1)
        const here = yield* run([file], "canonical")
        const there = yield* run([file], "canonical", pool)
        expect(here.report.records).toBe(600)
        expect(here.report.rejected).toBe(12)
        expectSameRun(there, here)
      }).pipe(Effect.scoped, Effect.provide(platformOf("./worker-entry.ts"))),
    TIMEOUT
  )

  it.effect(
    "fails with a MigrateWorkerError when a worker cannot start, rather than wait for it",
    () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(startedPool(2))
        expect(error._tag).toBe("MigrateWorkerError")
        expect(error.message).toContain("no-such-worker.ts")
        // A run fails too, however soon its input is done: it waits for the pool to start.
        const pool = yield* makeMigratePool({ size: 1 })
        const failed = yield* Effect.flip(run([join(dir, "c.jsonl")], "canonical", pool))
        expect(failed._tag).toBe("MigrateWorkerError")
        expect(failed.message).toContain("no-such-worker.ts")
      }).pipe(Effect.scoped, Effect.provide(platformOf("./no-such-worker.ts"))),
    TIMEOUT
  )

  // Live: the gate opens after a while of real time, whatever a machine's speed; nothing is
  // asserted of how long anything takes.
  it.live(
    "migrates nothing on the calling thread while the workers start: the first chunk waits for them",
    () =>
      Effect.gen(function* () {
        const inputs = exampleInputs()
        const here = yield* run(inputs, "canonical")
        // gated-worker.ts starts once gate[0] is 1.
        const gate = new Int32Array(new SharedArrayBuffer(4))
        const pool = yield* makeMigratePool({ size: 1 }).pipe(Effect.provide(platformOf("./gated-worker.ts", gate.buffer)))
        let out = ""
        let startedAtFirstWrite: boolean | undefined
        const output = (t: string | Uint8Array) =>
          Effect.gen(function* () {
            if (startedAtFirstWrite === undefined) startedAtFirstWrite = yield* pool.isStarted
            out += textOf(t)
          })
        // Time enough for the calling thread to read and migrate the whole input, were it to.
        yield* Effect.forkScoped(
          Effect.delay(
            Effect.sync(() => Atomics.store(gate, 0, 1)),
            "100 millis"
          )
        )
        const report = yield* migrate({ inputs, to: "canonical", output, pool })
        expect(startedAtFirstWrite).toBe(true)
        expect(out).toBe(here.out)
        expect(JSON.stringify(report)).toBe(JSON.stringify(here.report))
      }).pipe(Effect.scoped, Effect.provide(platformOf("./worker-entry.ts"))),
    TIMEOUT
  )

  // Live: the pool's chunks take real time (the test clock would hold them for ever).
  it.live(
    "once the workers are up, sends them every chunk, waiting for a place rather than migrating one here",
    () =>
      Effect.gen(function* () {
        const inputs = exampleInputs()
        const here = yield* run(inputs, "canonical")
        // A pool of one place whose chunks take a while: every chunk read meanwhile finds it full.
        // The calling thread used to migrate those itself, and then did what no worker shares.
        let onPool = 0
        const slow: MigratePool = {
          size: 1,
          concurrency: 1,
          started: Effect.void,
          isStarted: Effect.succeed(true),
          // Not `readsAndWrites`: it is sent chunks read, never a range of a file.
          migrateChunk: (target, chunk, keepRejects) =>
            Effect.map(
              Effect.delay(
                chunk._tag === "Range"
                  ? Effect.die("a range sent to a pool that does not read")
                  : Effect.sync(() => migrateChunk(defaultNormalizer, target, keepRejects)(chunk)),
                "20 millis"
              ),
              (migrated) => {
                onPool += migrated.tally.records
                return migrated
              }
            )
        }
        const there = yield* run(inputs, "canonical", slow)
        expect(there.out).toBe(here.out)
        expect(JSON.stringify(there.report)).toBe(JSON.stringify(here.report))
        expect(onPool).toBe(here.report.records)
      }).pipe(Effect.provide(Layer.merge(NodeContext.layer, Normalizer.default))),
    TIMEOUT
  )

  it.effect(
    "fails with a MigrateWorkerError when a worker stops while it holds a chunk",
    () =>
      Effect.gen(function* () {
        const pool = yield* startedPool(1)
        const error = yield* Effect.flip(run([join(dir, "c.jsonl")], "canonical", pool))
        expect(error._tag).toBe("MigrateWorkerError")
        expect(error.message).toContain("exited with code 3")
      }).pipe(Effect.scoped, Effect.provide(platformOf("./crash-worker.ts"))),
    TIMEOUT
  )

  it.effect(
    "sends the workers chunks that ended early at CHUNK_BYTES, and keeps only a single larger line here",
    () =>
      Effect.gen(function* () {
        // crash-worker.ts stops on the first chunk it is sent.
        const pool = yield* startedPool(1)
        // Twelve lines of 0.29 CHUNK_BYTES: four chunks of three, none past CHUNK_BYTES.
        const line = JSON.stringify({ avatar: "A".repeat(Math.floor(0.29 * CHUNK_BYTES)) })
        const several = join(dir, "several-large.ndjson")
        const single = join(dir, "single-larger.ndjson")
        yield* Effect.promise(() => writeFile(several, Array.from({ length: 12 }, () => line).join("\n")))
        yield* Effect.promise(() => writeFile(single, JSON.stringify({ avatar: "B".repeat(CHUNK_BYTES) })))
        // (Only the report, should the run succeed: the records would fill the test's output.)
        const error = yield* Effect.flip(Effect.map(run([several], "canonical", pool), (done) => done.report))
        expect(error.message).toContain("exited with code 3")
        // Read here (hashed, so not in ranges by the workers, whose reads stop short of such a
        // line: ranges.test.ts), the single larger line is migrated here too.
        const kept = yield* migrate({
          inputs: [single],
          to: "canonical",
          hashInputs: true,
          output: () => Effect.void,
          pool: yield* startedPool(1)
        })
        expect(kept.records).toBe(1)
        // Not hashed, the file goes to the workers in ranges (this one stops on any): a worker's
        // read stops short of such a line and leaves it to this thread (ranges.test.ts).
        const ranged = yield* migrate({ inputs: [single], to: "canonical", output: () => Effect.void, pool: yield* startedPool(1) }).pipe(Effect.flip)
        expect(ranged.message).toContain("exited with code 3")
      }).pipe(Effect.scoped, Effect.provide(platformOf("./crash-worker.ts"))),
    TIMEOUT
  )

  it.effect(
    "makes its workers jitless when the main thread is, before they compile anything",
    () =>
      Effect.gen(function* () {
        // jitless-worker.ts stops with code 7 on any generated code: only a jitless worker migrates.
        const inputs = [join(dir, "c.jsonl")]
        const here = yield* run(inputs, "canonical")
        const notJitless = yield* Effect.flip(Effect.scoped(Effect.flatMap(startedPool(1), (pool) => run(inputs, "canonical", pool))))
        expect(notJitless.message).toContain("exited with code 7")
        Codegen.configure({ jitless: true })
        const there = yield* Effect.scoped(Effect.flatMap(startedPool(1), (pool) => run(inputs, "canonical", pool))).pipe(
          Effect.ensuring(Effect.sync(() => Codegen.configure({ jitless: false })))
        )
        expect(there.out).toBe(here.out)
        expect(there.rejects).toBe(here.rejects)
      }).pipe(Effect.provide(platformOf("./jitless-worker.ts"))),
    TIMEOUT
  )

  it.effect(
    "reuses the buffers a file output has written, never those a writer may keep, here and on the workers",
    () =>
      Effect.gen(function* () {
        const inputs = exampleInputs()
        const here = yield* run(inputs, "canonical")
        const pool = yield* startedPool(2)
        const file = join(dir, "recycled.ndjson")
        for (const onPool of [undefined, pool]) {
          for (const keep of ["output", "rejects"] as const) {
            // One output is a file (its buffers are used again once written), the other keeps
            // every Uint8Array it is given, to be read after the run: a buffer reused while
            // kept would show here as other bytes.
            const kept: Array<Uint8Array> = []
            const keeper = (t: string | Uint8Array) => Effect.sync(() => void kept.push(typeof t === "string" ? new TextEncoder().encode(t) : t))
            const written = yield* outputFile(file)
            yield* migrate({
              inputs,
              to: "canonical",
              output: keep === "output" ? keeper : written.write,
              rejects: keep === "rejects" ? keeper : written.write,
              ...(onPool === undefined ? {} : { pool: onPool })
            })
            yield* written.commit
            expect(readFileSync(file, "utf8")).toBe(keep === "output" ? here.rejects : here.out)
            expect(kept.map(textOf).join("")).toBe(keep === "output" ? here.out : here.rejects)
          }
        }
      }).pipe(Effect.scoped, Effect.provide(platformOf("./worker-entry.ts"))),
    TIMEOUT
  )

  it.effect(
    "without a rejects writer, counts the rejects in the same report and writes the same output, here and on the workers",
    () =>
      Effect.gen(function* () {
        const inputs = exampleInputs()
        const pool = yield* startedPool(2)
        const kept = yield* run(inputs, "canonical", pool)
        expect(kept.report.rejected).toBeGreaterThan(0)
        for (const onPool of [undefined, pool]) {
          let out = ""
          const report = yield* migrate({
            inputs,
            to: "canonical",
            output: (t) => Effect.sync(() => void (out += textOf(t))),
            ...(onPool === undefined ? {} : { pool: onPool })
          })
          expect(out).toBe(kept.out)
          expect(JSON.stringify(report)).toBe(JSON.stringify(kept.report))
        }
      }).pipe(Effect.scoped, Effect.provide(platformOf("./worker-entry.ts"))),
    TIMEOUT
  )

  it.effect(
    "tells its workers the caller's decode options, and reads as the calling thread told the same does",
    () =>
      Effect.gen(function* () {
        // Canonical records of one body with its lengths in inches: refused as they stand, read with lengthUnit "in".
        const record = (i: number) =>
          JSON.stringify({
            format: "scanbridge.scan/v1",
            source: { api: "platform", id: `scan-${i}` },
            status: "success",
            createdAt: null,
            expiresAt: null,
            externalId: null,
            method: null,
            subject: { age: 30, gender: "male", heightMm: 1640 + (i % 7), weightG: 70000 },
            measurementsMm: { backNeckHeight: 54.6, hipGirth: 35.5 + (i % 3), waistGirth: 29 },
            composition: null,
            posture: null,
            avatar: null,
            adjustment: null,
            failure: null,
            notes: []
          })
        const file = join(dir, "inches.ndjson")
        yield* Effect.promise(() => writeFile(file, `${Array.from({ length: 2 * CHUNK_LINES }, (_, i) => record(i)).join("\n")}\n`))
        const told = yield* Effect.tap(makeMigratePool({ size: 1, decodeOptions: { lengthUnit: "in" } }), (pool) => pool.started)
        const there = yield* run([file], "canonical", told)
        expect(there.report.migrated).toBe(2 * CHUNK_LINES)
        expect(there.out).toContain('"backNeckHeight":1386.84')
        const here = yield* run([file], "canonical").pipe(Effect.provideService(Normalizer, Normalizer.withOptions(defaultNormalizer, { lengthUnit: "in" })))
        expect(there.out).toBe(here.out)
        // The same pool without the options: every record refused, with the way out.
        const untold = yield* startedPool(1)
        const refused = yield* run([file], "canonical", untold)
        expect(refused.report.rejected).toBe(2 * CHUNK_LINES)
        expect(refused.rejects).toContain("--length-unit in")
      }).pipe(Effect.scoped, Effect.provide(platformOf("./worker-entry.ts"))),
    TIMEOUT
  )

  it.effect(
    "writes file outputs from the workers themselves, at their place: the bytes of the calling thread's run, a header and a single larger line among them",
    () =>
      Effect.gen(function* () {
        const lines = exampleLines()
        // Ten chunks' records, a line larger than a chunk (migrated and placed on the calling
        // thread, between the workers' chunks) and a rejected one.
        const large = JSON.stringify({ avatar: "L".repeat(CHUNK_BYTES + 10) })
        const file = join(dir, "placed.ndjson")
        const many = (n: number, from: number) => Array.from({ length: n }, (_, i) => lines[(from + i * 3) % lines.length]!)
        yield* Effect.promise(() => writeFile(file, `${[...many(5 * CHUNK_LINES, 0), large, ...many(5 * CHUNK_LINES + 11, 1)].join("\n")}\n`))
        const pool = yield* startedPool(2)
        for (const [to, units] of [["canonical"], ["csv", "in"]] as const) {
          const options = units === undefined ? {} : { units }
          const here = yield* run([file], to, undefined, options)
          expect(here.report.rejected).toBeGreaterThan(CHUNK_LINES / 10)
          const there = yield* toFiles([file], to, pool, options)
          // Read by the workers, in ranges of several pieces each (the larger line's range ended on
          // this thread), one progress report each.
          expect(there.progress).toBe(Math.ceil(statSync(file).size / RANGE_BYTES))
          expect(there.progress).toBeGreaterThanOrEqual(2)
          expectSameRun(there, here)
        }
      }).pipe(Effect.scoped, Effect.provide(platformOf("./worker-entry.ts"))),
    TIMEOUT
  )

  it.effect(
    "fails with a MigrateOutputError naming the output when a worker cannot write it, and leaves the destination as it was",
    () =>
      Effect.gen(function* () {
        const lines = exampleLines()
        const file = join(dir, "unwritable.ndjson")
        yield* Effect.promise(() => writeFile(file, `${Array.from({ length: 12 * CHUNK_LINES }, (_, i) => lines[i % lines.length]!).join("\n")}\n`))
        const pool = yield* startedPool(2)
        const destination = join(dir, "unwritable.out")
        yield* Effect.promise(() => writeFile(destination, "as it was\n"))
        const error = yield* Effect.flip(
          Effect.scoped(
            Effect.gen(function* () {
              const out = yield* outputFile(destination)
              // Its temporary file goes before the run: the workers cannot open it. (The calling
              // thread's own handle, open already, could still write it: only a worker's write
              // fails here. A disk that fills: packages/cli/test/migrate-safety.test.ts.)
              yield* Effect.promise(() => rm(out.temporary!))
              return yield* migrate({ inputs: [file], to: "canonical", output: out.write, pool })
            })
          )
        )
        expect(error._tag).toBe("MigrateOutputError")
        expect(error.message).toContain(destination)
        expect(error.message).toContain("ENOENT")
        expect(readFileSync(destination, "utf8")).toBe("as it was\n")
      }).pipe(Effect.scoped, Effect.provide(platformOf("./worker-entry.ts"))),
    TIMEOUT
  )

  it.effect("refuses a pool of no workers", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(makeMigratePool({ size: 0 }))
      expect(error.message).toContain("at least one worker")
    }).pipe(Effect.scoped, Effect.provide(platformOf("./worker-entry.ts")))
  )
})
