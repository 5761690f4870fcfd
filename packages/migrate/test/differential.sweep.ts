/**
 * The differential test's sweep (`pnpm test:faults`): a million records of the corpus
 * (differential-records.ts), each migrated to the canonical target by the fast path and the
 * reference path under the default options (every tenth batch also with lengths in cm and in
 * inches, which the default suite covers on every record), and the same million again in a
 * jitless process. Two processes, one per core, each holding one batch of a
 * thousand records at a time. A mismatch is printed with its seed, batch and record, to be made
 * again with `corpusBatch(seed, batch, 1000)`.
 */
import { describe, expect, it } from "@effect/vitest"
import { defaultNormalizer } from "../src/index.js"
import { compareInChild } from "./differential-process.js"
import { describeMismatches } from "./differential-sides.js"

/** Not the default suite's seed: the sweep's million are others. */
const SWEEP_SEED = 3_401
const BATCH = 1_000
const BATCHES = 1_000
const OPTIONS_EVERY = 10

describe("the fast path against the reference path, a million records", () => {
  it("gives the same output bytes and the same rejects, with generated code and jitless", async () => {
    const [generated, jitless] = await Promise.all([
      compareInChild(SWEEP_SEED, 0, BATCHES, BATCH, false, OPTIONS_EVERY),
      compareInChild(SWEEP_SEED, 0, BATCHES, BATCH, true, OPTIONS_EVERY)
    ])
    for (const [name, summary] of [
      ["generated code", generated],
      ["jitless", jitless]
    ] as const) {
      const { firstMismatches: _, ...counts } = summary
      console.info(`differential sweep, ${name}, seed ${SWEEP_SEED}: ${JSON.stringify(counts, null, 1)}`)
      expect(summary.records, name).toBe(BATCH * BATCHES)
      expect(summary.mismatches, `${name}: ${describeMismatches(summary)}`).toBe(0)
      for (const format of defaultNormalizer.formats) expect(summary.byFormat[`default: ${format.name}`] ?? 0, format.name).toBeGreaterThan(1_000)
    }
    expect(generated.generatedCode).toBeGreaterThan(0)
    expect(jitless.generatedCode).toBe(0)
  })
})
