/**
 * Resuming a run (`after`): whatever chunk a run stopped after, a run resumed from there, with the
 * outputs as far as they had been written, ends with the bytes and the report of a run that never
 * stopped, over NDJSON (blank lines, rejects, a line too long for a chunk), a JSON array and a .gz.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Layer } from "effect"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { type MigrateProgress, Normalizer, type ResumePoint, migrate, textOf } from "../src/index.js"
import { CHUNK_LINES } from "../src/internal/read.js"
import { samples } from "./records.js"

const layer = Layer.mergeAll(NodeContext.layer, Normalizer.default)

interface Written {
  readonly out: string
  readonly rejects: string
  readonly progress: ReadonlyArray<MigrateProgress & { readonly outLength: number; readonly rejectsLength: number }>
  readonly report: unknown
}

const runOf = (inputs: ReadonlyArray<string>, to: string, after?: ResumePoint, start?: { out: string; rejects: string }) =>
  Effect.gen(function* () {
    let out = start?.out ?? ""
    let rejects = start?.rejects ?? ""
    const progress: Array<Written["progress"][number]> = []
    const report = yield* migrate({
      inputs,
      to,
      ...(after === undefined ? {} : { after }),
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
      const inputs = ["a.ndjson", "b.json", "c.ndjson.gz", "d.ndjson"].map((f) => join(dir, f))
      for (const to of ["canonical", "csv"]) {
        const clean = await Effect.runPromise(runOf(inputs, to))
        expect(clean.progress.length).toBeGreaterThan(6)
        await fc.assert(
          fc.asyncProperty(fc.integer({ min: 0, max: clean.progress.length - 1 }), async (k) => {
            const stop = clean.progress[k]!
            if (stop.position === undefined) return
            const resumed = await Effect.runPromise(
              runOf(inputs, to, { position: stop.position, report: stop.report }, { out: clean.out.slice(0, stop.outLength), rejects: clean.rejects.slice(0, stop.rejectsLength) })
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
