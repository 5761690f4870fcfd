/**
 * Resuming a run (`after`): whatever chunk a run stopped after, a run resumed from there, with the
 * outputs as far as they had been written, ends with the bytes and the report of a run that never
 * stopped, over NDJSON (blank lines, rejects, a line too long for a chunk, a first record that is an
 * array), a JSON array (named .json, and pretty-printed or on one line under an NDJSON name) and a .gz.
 * A run that hashes its inputs hashes exactly what a resumed run stands on: each file up to the
 * last record written, and `verifyInputs` reads the same bytes again.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, Layer } from "effect"
import { createHash } from "node:crypto"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gunzipSync, gzipSync } from "node:zlib"
import {
  CHECKPOINT_FORMAT,
  type Checkpoint,
  type MigrateProgress,
  Normalizer,
  type ResumePoint,
  listInputs,
  migrate,
  textOf,
  verifyInputs
} from "../src/index.js"
import { CHUNK_LINES } from "../src/internal/read.js"
import { samples } from "./records.js"

const layer = Layer.mergeAll(NodeContext.layer, Normalizer.default)

interface Written {
  readonly out: string
  readonly rejects: string
  readonly progress: ReadonlyArray<MigrateProgress & { readonly outLength: number; readonly rejectsLength: number }>
  readonly report: unknown
}

const runOf = (inputs: ReadonlyArray<string>, to: string, after?: ResumePoint, start?: { out: string; rejects: string }, hashInputs = false) =>
  Effect.gen(function* () {
    let out = start?.out ?? ""
    let rejects = start?.rejects ?? ""
    const progress: Array<Written["progress"][number]> = []
    const report = yield* migrate({
      inputs,
      to,
      ...(after === undefined ? {} : { after }),
      hashInputs,
      output: (t) => Effect.sync(() => void (out += textOf(t))),
      rejects: (t) => Effect.sync(() => void (rejects += textOf(t))),
      onProgress: (p) => Effect.sync(() => void progress.push({ ...p, outLength: out.length, rejectsLength: rejects.length }))
    })
    return { out, rejects, progress, report } satisfies Written
  }).pipe(Effect.provide(layer))

describe("a resumed run", () => {
  it("writes what a run that never stopped writes, wherever the first one stopped", async () => {
    const dir = await mkdtemp(join(tmpdir(), "scanbridge-resume-"))
    try {
      const records = samples.map((s) => JSON.stringify(s))
      const line = (i: number) => (i % 37 === 5 ? "" : i % 41 === 3 ? "{not json" : records[i % records.length]!)
      const many = (n: number, from: number) => Array.from({ length: n }, (_, i) => line(from + i)).join("\n")
      await writeFile(join(dir, "a.ndjson"), `${many(CHUNK_LINES * 2 + 17, 0)}\n`)
      await writeFile(join(dir, "b.json"), `[${records.join(",")}]`)
      await writeFile(join(dir, "c.ndjson.gz"), gzipSync(`${many(CHUNK_LINES + 3, 7)}`))
      await writeFile(join(dir, "d.ndjson"), `${records[0]}\n${"x".repeat(2 * 1024 * 1024)}\n${many(40, 3)}`)
      // JSON arrays under NDJSON names (read as their elements, in chunks), and NDJSON whose first record is an array.
      const elements = Array.from({ length: CHUNK_LINES + 40 }, (_, i) => records[i % records.length]!)
      await writeFile(
        join(dir, "e.ndjson"),
        JSON.stringify(
          elements.map((r) => JSON.parse(r) as unknown),
          null,
          2
        )
      )
      await writeFile(join(dir, "f.jsonl"), `[${records.join(",")}]\n`)
      await writeFile(join(dir, "g.ndjson"), `[${records[0]}]\n${many(30, 1)}`)
      const inputs = ["a.ndjson", "b.json", "c.ndjson.gz", "d.ndjson", "e.ndjson", "f.jsonl", "g.ndjson"].map((f) => join(dir, f))
      for (const to of ["canonical", "csv"]) {
        const clean = await Effect.runPromise(runOf(inputs, to))
        expect(clean.progress.length).toBeGreaterThan(6)
        await fc.assert(
          fc.asyncProperty(fc.integer({ min: 0, max: clean.progress.length - 1 }), async (k) => {
            const stop = clean.progress[k]!
            if (stop.position === undefined) return
            const resumed = await Effect.runPromise(
              runOf(
                inputs,
                to,
                { position: stop.position, report: stop.report },
                { out: clean.out.slice(0, stop.outLength), rejects: clean.rejects.slice(0, stop.rejectsLength) }
              )
            )
            expect(resumed.out).toBe(clean.out)
            expect(resumed.rejects).toBe(clean.rejects)
            expect(resumed.report).toStrictEqual(clean.report)
            expect(JSON.stringify(resumed.report)).toBe(JSON.stringify(clean.report))
          }),
          { numRuns: 12 }
        )
        // Every stop, in order, once: the positions only move on.
        const lines = clean.progress.map((p) => `${p.position?.file} ${p.position?.line}`)
        expect(new Set(lines).size).toBeGreaterThan(5)
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)
})

/** The byte just after line `line` (1-based) of `content`, its \n included. */
const endOfLine = (content: Uint8Array, line: number) => {
  let at = 0
  for (let n = 1; n <= line; n++) {
    const lf = content.indexOf(10, at)
    at = lf < 0 ? content.length : lf + 1
  }
  return at
}

const isBlank = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim() === ""

/** A checkpoint of a run stopped at `stop`, as far as `verifyInputs` reads one. */
const checkpointOf = (stop: MigrateProgress): Checkpoint => ({
  format: CHECKPOINT_FORMAT,
  inputs: [],
  target: "canonical",
  adapters: [],
  outputs: [],
  position: { file: stop.position!.file, line: stop.position!.line },
  report: stop.report,
  digests: stop.digests ?? []
})

describe("a run that hashes its inputs", () => {
  it("hashes each input up to the last record written (all of a file done with), and a resumed run goes on with the same digests", async () => {
    const dir = await mkdtemp(join(tmpdir(), "scanbridge-digest-"))
    try {
      const records = samples.map((s) => JSON.stringify(s))
      // Short lines, so that a chunk is CHUNK_LINES lines, and its last four are blank: its digest
      // ends at the record before them. White space of every kind a blank line may hold, CRLF too.
      const blanks = ["", "  ", "\t\r", "\u00a0 \u3000"]
      const line = (i: number) => {
        const inChunk = i % CHUNK_LINES
        if (inChunk >= CHUNK_LINES - blanks.length) return blanks[CHUNK_LINES - 1 - inChunk]!
        const text = i % 16 === 3 ? records[i % records.length]! : `{"record":${i}}`
        return i % 5 === 0 ? `${text}\r` : text
      }
      const many = (n: number) => Array.from({ length: n }, (_, i) => line(i)).join("\n")
      await writeFile(join(dir, "a.ndjson"), `\ufeff${many(CHUNK_LINES * 3 + 9)}\n\n \n`)
      await writeFile(join(dir, "b.json"), `[${records.join(",")}]`)
      await writeFile(join(dir, "c.ndjson.gz"), gzipSync(many(CHUNK_LINES + 5)))
      await writeFile(join(dir, "d.ndjson"), "\n  \n\n")
      await writeFile(join(dir, "e.ndjson"), `${many(10)}\n${records[0]}`)
      const names = ["a.ndjson", "b.json", "c.ndjson.gz", "d.ndjson", "e.ndjson"]
      const inputs = names.map((f) => join(dir, f))
      const content = new Map(await Promise.all(inputs.map(async (f) => [f, f.endsWith(".gz") ? gunzipSync(await readFile(f)) : await readFile(f)] as const)))
      const hashed = (p: MigrateProgress) => p.digests ?? []

      const clean = await Effect.runPromise(runOf(inputs, "canonical", undefined, undefined, true))
      let endedBeforeBlanks = 0
      for (const p of clean.progress) {
        if (p.position === undefined) continue
        const at = inputs.indexOf(p.position.file)
        // Every file begun, in order.
        expect(hashed(p).map((d) => d.file)).toEqual(inputs.slice(0, Math.max(at + 1, hashed(p).length)))
        for (const d of hashed(p)) {
          const bytes = content.get(d.file)!
          expect(d.sha256).toBe(createHash("sha256").update(bytes.subarray(0, d.bytes)).digest("hex"))
          const whole = d.bytes === bytes.length
          if (d.file === p.position.file && !d.file.endsWith(".json")) {
            // Up to the end of the last record written, or all of a file done with.
            const end = endOfLine(bytes, p.position.line)
            expect(d.bytes === end || (whole && isBlank(bytes.subarray(end)))).toBe(true)
            if (d.bytes === end && end < bytes.length && isBlank(bytes.subarray(end, endOfLine(bytes, p.position.line + 1)))) endedBeforeBlanks++
          } else expect(whole).toBe(true)
        }
      }
      expect(endedBeforeBlanks).toBeGreaterThan(0)

      const last = clean.progress[clean.progress.length - 1]!
      // Every file's digest read again, the .gz decompressed and the JSON document whole, matches.
      const listed = await Effect.runPromise(Effect.provide(listInputs(inputs), NodeContext.layer))
      await Effect.runPromise(Effect.provide(verifyInputs("checkpoint", checkpointOf(last), listed), NodeContext.layer))
      for (const stop of clean.progress.filter((p, i) => p.position !== undefined && i % 2 === 0)) {
        const after = { position: stop.position!, report: stop.report, digests: hashed(stop) }
        const resumed = await Effect.runPromise(
          runOf(inputs, "canonical", after, { out: clean.out.slice(0, stop.outLength), rejects: clean.rejects.slice(0, stop.rejectsLength) }, true)
        )
        expect(resumed.out).toBe(clean.out)
        // A run resumed after the last chunk has no progress of its own.
        expect(hashed(resumed.progress[resumed.progress.length - 1] ?? stop)).toEqual(hashed(last))
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it("verifies the bytes a checkpoint hashed, and refuses a file whose bytes before it changed, naming it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "scanbridge-verify-"))
    try {
      const records = samples.map((s) => JSON.stringify(s))
      const file = join(dir, "a.ndjson")
      const text = `${Array.from({ length: CHUNK_LINES * 2 }, (_, i) => `{"record":${i % 10}}`).join("\n")}\n${records.slice(0, 3).join("\n")}\n`
      await writeFile(file, text)
      const clean = await Effect.runPromise(runOf([file], "canonical", undefined, undefined, true))
      const stop = clean.progress[0]!
      const checkpoint = checkpointOf(stop)
      const verify = () =>
        Effect.runPromise(
          Effect.either(
            Effect.provide(
              Effect.flatMap(listInputs([file]), (listed) => verifyInputs("checkpoint", checkpoint, listed)),
              NodeContext.layer
            )
          )
        )
      expect(Either.isRight(await verify())).toBe(true)
      // The same size, a digit of the first record changed: the first chunk's bytes differ.
      const changed = (from: number) => `${text.slice(0, from)}${text[from] === "1" ? "2" : "1"}${text.slice(from + 1)}`
      await writeFile(file, changed(text.indexOf(":") + 1))
      const refused = await verify()
      expect(Either.isLeft(refused) && refused.left._tag === "ResumeError" && refused.left.file === file).toBe(true)
      expect(Either.isLeft(refused) ? refused.left.message : "").toContain(
        `${file} has changed since the run being resumed read its first ${stop.digests![0]!.bytes} bytes`
      )
      // A change after the checkpoint's record is the resumed run's to read.
      await writeFile(file, changed(text.length - 3))
      expect(Either.isRight(await verify())).toBe(true)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
