/**
 * The differential test (issue 34): the fast path (compiled guards, what runs by default) and the
 * reference path (Effect Schema decoding every record) migrate the same records to the canonical
 * target, under the default options and with lengths in cm and in inches, and must give the same
 * output bytes and the same rejects (tag, message, path). 20,000 records here, 5,000 of them again
 * in a jitless process of their own; a million each way in differential.sweep.ts (`pnpm test:faults`).
 * The records: differential-records.ts; the sides: differential-sides.ts.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { defaultNormalizer } from "../src/index.js"
import { type ChildSummary, compareInChild } from "./differential-process.js"
import { SEED } from "./differential-records.js"
import { type Summary, compareCorpus, describeMismatches } from "./differential-sides.js"

const BATCH = 1_000
const BATCHES = 20
const JITLESS_BATCHES = 5

let summary: Summary
let jitless: ChildSummary
beforeAll(async () => {
  // The jitless process runs on the other core while this one compares.
  const child = compareInChild(SEED, 0, JITLESS_BATCHES, BATCH, true)
  summary = compareCorpus(SEED, 0, BATCHES, BATCH)
  jitless = await child
  const { firstMismatches: _, ...counts } = summary
  console.info(`differential, seed ${SEED}: ${JSON.stringify(counts, null, 1)}`)
}, 600_000)

describe("the fast path against the reference path", () => {
  it("gives the same output bytes and the same rejects on 20,000 records, under each unit option", () => {
    expect(summary.records).toBe(BATCH * BATCHES)
    expect(summary.mismatches, describeMismatches(summary)).toBe(0)
  })

  it("and so does it jitless, in a process of its own that generates no code", () => {
    expect(jitless.records).toBe(BATCH * JITLESS_BATCHES)
    expect(jitless.generatedCode).toBe(0)
    expect(jitless.onePassReads).toBe(0)
    expect(jitless.mismatches, describeMismatches(jitless)).toBe(0)
  })

  it("compares records of every format, accepted and rejected, from every source and every mutation", () => {
    // A corpus that every decoder refused, or that missed a format, would agree for nothing.
    for (const format of defaultNormalizer.formats) expect(summary.byFormat[`default: ${format.name}`] ?? 0, format.name).toBeGreaterThan(20)
    expect(summary.accepted).toBeGreaterThan(summary.compared / 5)
    expect(summary.rejected).toBeGreaterThan(summary.compared / 5)
    // Proto3 messages spelled otherwise than printed went through the generated one pass.
    expect(summary.onePassReads).toBeGreaterThan(50)
    for (const tag of ["DecodeError", "UnknownFormatError", "InvalidJson"]) expect(summary.byRejectTag[`default: ${tag}`] ?? 0, tag).toBeGreaterThan(50)
    // Every encoder wrote some of the generated records (FHIR's bundles also as contained panels).
    const origins = Object.keys(summary.byOrigin)
    for (const target of defaultNormalizer.encoders.keys())
      expect(
        origins.some((o) => o.startsWith(`generated ${target}`)),
        target
      ).toBe(true)
    expect(origins).toContain("generated fhir cm contained")
    for (const origin of [
      "example",
      "in an envelope",
      "key deleted",
      "type changed",
      "unknown key",
      "key respelled",
      "keys reordered",
      "number scaled",
      "numeric string scaled",
      "unit changed",
      "string emptied",
      "string made huge",
      "value made deep",
      "object nulled",
      "array emptied",
      "array repeated",
      "text cut short"
    ])
      expect(summary.byOrigin[origin] ?? 0, origin).toBeGreaterThan(50)
  })
})
