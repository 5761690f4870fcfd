/**
 * The two sides of the differential test and their comparison. A side is a function of a record's
 * text: what a migration to the canonical target answers for it, its output lines byte for byte or
 * its reject's tag, message and path. The fast side is what runs by default (compiled guards);
 * the reference side is Effect Schema decoding every record (`setSchemaPathOnly`). A reader that
 * takes the fast path's place slots in as another fast side.
 */
import type { DecodeOptions } from "@scanbridge/model"
import { setSchemaPathOnly, slowPaths } from "@scanbridge/model/internal"
import { Normalizer, defaultNormalizer } from "../src/index.js"
import { migrateRecord } from "../src/internal/pipeline.js"
import { type CorpusRecord, corpusBatch } from "./differential-records.js"

export type Answer =
  | { readonly format: string; readonly lines: ReadonlyArray<string> }
  | { readonly reject: { readonly tag: string; readonly message: string; readonly path: ReadonlyArray<string | number> | null } }

export type Side = (raw: string) => Answer

/** The decode options every record is compared under: the default (every unit auto), and lengths in cm and in inches. */
export const OPTIONS: ReadonlyArray<readonly [string, DecodeOptions]> = [
  ["default", {}],
  ["lengthUnit cm", { lengthUnit: "cm" }],
  ["lengthUnit in", { lengthUnit: "in" }]
]

/** A migration to the canonical target under `options`, one record at a time. */
const migration = (options: DecodeOptions): Side => {
  const run = migrateRecord(Normalizer.withOptions(defaultNormalizer, options), { to: "canonical" })
  return (raw) => {
    const outcome = run({ file: "differential", line: 1, raw })
    return outcome._tag === "Migrated"
      ? { format: outcome.format, lines: outcome.lines }
      : { reject: { tag: outcome.reject.error.tag, message: outcome.reject.error.message, path: outcome.reject.error.path } }
  }
}

/** What runs by default: the compiled guards, Effect Schema only for what they refuse. */
export const fastSide = (options: DecodeOptions): Side => migration(options)

/** Effect Schema decodes every record, the keys it does not name found by walking the schema. */
export const referenceSide = (options: DecodeOptions): Side => {
  const run = migration(options)
  return (raw) => {
    setSchemaPathOnly(true)
    try {
      return run(raw)
    } finally {
      setSchemaPathOnly(false)
    }
  }
}

/** Where a mismatch was: enough to make the record again (`corpusBatch(seed, batch, size)[index]`), and both answers. */
export interface Mismatch {
  readonly seed: number
  readonly batch: number
  readonly batchSize: number
  readonly index: number
  readonly options: string
  readonly origin: string
  /** The record's text, cut at 2,000 characters. */
  readonly record: string
  readonly fast: Answer
  readonly reference: Answer
}

/** How many records each side accepted and rejected, by format and by reject tag; the mismatches (the first 20). */
export interface Summary {
  records: number
  compared: number
  accepted: number
  rejected: number
  readonly byFormat: Record<string, number>
  readonly byRejectTag: Record<string, number>
  /** Records by where they came from and by each mutation they went through (an example, `generated platform`, `key deleted`, `in an envelope`...). */
  readonly byOrigin: Record<string, number>
  mismatches: number
  /** Proto3 messages the fast side read in the generated one pass (not printed exactly, not refused). */
  onePassReads: number
  readonly firstMismatches: Array<Mismatch>
}

export const emptySummary = (): Summary => ({
  records: 0,
  compared: 0,
  accepted: 0,
  rejected: 0,
  byFormat: {},
  byRejectTag: {},
  byOrigin: {},
  mismatches: 0,
  onePassReads: 0,
  firstMismatches: []
})

const bump = (counts: Record<string, number>, key: string, by = 1) => {
  counts[key] = (counts[key] ?? 0) + by
}

const cut = (text: string, max = 2_000) => (text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`)

/** A string that is the same for two answers exactly when they are the same bytes and the same reject. */
const key = (answer: Answer) => JSON.stringify(answer)

/** Answers cut for a report: a line or message of a huge record is cut like the record. */
const shown = (answer: Answer): Answer =>
  "lines" in answer ? { format: answer.format, lines: answer.lines.map((l) => cut(l)) } : { reject: { ...answer.reject, message: cut(answer.reject.message) } }

/** The two sides under every option set, for each record of a batch, counted into `summary`. */
export const compareBatch = (
  summary: Summary,
  sides: ReadonlyArray<readonly [string, Side, Side]>,
  where: { readonly seed: number; readonly batch: number; readonly batchSize: number },
  records: ReadonlyArray<CorpusRecord>
): void => {
  summary.records += records.length
  records.forEach((record, index) => {
    for (const part of record.origin.split(", ")) bump(summary.byOrigin, part)
    for (const [options, fast, reference] of sides) {
      const onePass = slowPaths.proto3OnePassReads
      const a = fast(record.raw)
      summary.onePassReads += slowPaths.proto3OnePassReads - onePass
      const b = reference(record.raw)
      summary.compared++
      if ("lines" in a) {
        summary.accepted++
        bump(summary.byFormat, `${options}: ${a.format}`)
      } else {
        summary.rejected++
        bump(summary.byRejectTag, `${options}: ${a.reject.tag}`)
      }
      if (key(a) === key(b)) continue
      summary.mismatches++
      if (summary.firstMismatches.length < 20)
        summary.firstMismatches.push({ ...where, index, options, origin: record.origin, record: cut(record.raw), fast: shown(a), reference: shown(b) })
    }
  })
}

/** Two summaries (of two processes, say) as one; the first mismatches of `a` before `b`'s. */
export const mergeSummaries = (a: Summary, b: Summary): Summary => {
  const merged = emptySummary()
  for (const s of [a, b]) {
    merged.records += s.records
    merged.compared += s.compared
    merged.accepted += s.accepted
    merged.rejected += s.rejected
    merged.mismatches += s.mismatches
    merged.onePassReads += s.onePassReads
    for (const [into, from] of [
      [merged.byFormat, s.byFormat],
      [merged.byRejectTag, s.byRejectTag],
      [merged.byOrigin, s.byOrigin]
    ] as const)
      for (const [k, n] of Object.entries(from)) bump(into, k, n)
    merged.firstMismatches.push(...s.firstMismatches.slice(0, 20 - merged.firstMismatches.length))
  }
  return merged
}

/** Every option set's two sides. */
export const allSides = (): ReadonlyArray<readonly [string, Side, Side]> =>
  OPTIONS.map(([name, options]) => [name, fastSide(options), referenceSide(options)] as const)

/**
 * Batches `from` to `from + count - 1` of the corpus seeded by `seed`, made and compared one at a
 * time; `progress` is told the summary after each. Every `optionsEvery`-th batch is compared under
 * every option set, the others under the default options only (the sweep's million, where the
 * units a caller gives add time, not cases: they change how lengths are read, which the default
 * suite's records cover under each).
 */
export const compareCorpus = (
  seed: number,
  from: number,
  count: number,
  batchSize: number,
  progress?: (summary: Summary, batch: number) => void,
  optionsEvery = 1
): Summary => {
  const summary = emptySummary()
  const every = allSides()
  const byDefault = every.filter(([name]) => name === "default")
  for (let batch = from; batch < from + count; batch++) {
    const sides = batch % optionsEvery === 0 ? every : byDefault
    compareBatch(summary, sides, { seed, batch, batchSize }, corpusBatch(seed, batch, batchSize))
    progress?.(summary, batch)
  }
  return summary
}

/** A summary's mismatches as a reader reproduces them: the seed, the batch, the record and both answers. */
export const describeMismatches = (summary: Summary): string =>
  [
    `${summary.mismatches} of ${summary.compared} comparisons differ (the first ${summary.firstMismatches.length}):`,
    ...summary.firstMismatches.map((m) =>
      [
        `- corpusBatch(${m.seed}, ${m.batch}, ${m.batchSize})[${m.index}] (${m.origin}), ${m.options}:`,
        `  record:    ${m.record}`,
        `  fast:      ${JSON.stringify(m.fast)}`,
        `  reference: ${JSON.stringify(m.reference)}`
      ].join("\n")
    )
  ].join("\n")
