/**
 * Part of `pnpm bench` (tools/bench.ts bundles this file and runs it with node): normalize, JSON
 * text -> validated canonical scans, against JSON.parse alone on the same lines, for each of the
 * nine formats, on the bench's inputs' records (tools/bench-inputs.ts: every variant of the
 * format in the example export, each record with its own id). Prints its Markdown table on
 * stdout. Target (issue 16, as issue 34 put it): at least 0.8 x, including the cost of the garbage each side
 * makes, or within 0.05 of the limit where the limit itself is below 0.85.
 * Beside each ratio, its limit (JSON.parse against JSON.parse plus building the canonical scan
 * and nothing else) and what passing would take.
 *
 * `--gc` (run with `--expose-gc`): a gc() before each timed round, and one at the end of it, inside
 * the timing, so each side pays for collecting its own garbage; without it, whichever side runs
 * when the heap fills up pays for both. `--jitless`: `Codegen.configure({ jitless: true })`,
 * every guard made of closures. `--variants`: one row per variant of each format instead (which
 * variant leaves the fast path). `--pairs N`: paired rounds per format (default 31).
 */
import { Either } from "effect"
import { defaultNormalizer } from "@scanbridge/migrate"
import { Codegen } from "@scanbridge/model"
import { FORMATS, templates } from "./bench-inputs.js"
import { againstParse, meanBytes, measure as pairedRounds, middleHalf, normalizeOrThrow, quantile, recordsOf, timeWith } from "./bench-pairs.js"

// Before the first record: importing compiled nothing, so every guard is made as configured here.
const JITLESS = process.argv.includes("--jitless")
Codegen.configure({ jitless: JITLESS })

const GC = process.argv.includes("--gc")
const gc = (globalThis as { gc?: () => void }).gc
if (GC && gc === undefined) throw new Error("bench-normalize --gc needs node --expose-gc")
const collect = GC ? gc! : () => {}

const VARIANTS = process.argv.includes("--variants")
const pairsAt = process.argv.indexOf("--pairs")
const PAIRS = pairsAt >= 0 ? Number(process.argv[pairsAt + 1]) : 31
// With a GC in each round, rounds long enough that the two gc() calls' fixed cost (marking what
// lives, the same for both sides) is a small part of either side's time.
const LINES = GC ? 10_000 : VARIANTS ? 1_000 : 2_000
const TARGET = 0.8
// Issue 34: a format whose limit is itself below 0.85 passes within 0.05 of it.
const NEAR_BELOW = 0.85
const NEAR = 0.05
const passes = (ratio: number, limit: number) => ratio >= TARGET || (limit < NEAR_BELOW && ratio >= limit - NEAR)

const all = templates(process.cwd())

const time = timeWith(collect)
const measure = (parse: () => void, normalize: () => void) => pairedRounds(parse, normalize, { pairs: PAIRS, collect })

/** JSON.parse against normalize over these lines; throws on a record normalize rejects. */
const compare = (name: string, lines: ReadonlyArray<string>) => againstParse(lines, normalizeOrThrow(name), { pairs: PAIRS, collect })
/**
 * The body of a function that builds, field by field, an object of `sample`'s shape out of one of
 * the same shape (two samples of one shape give the same body): the least a normalizer must do
 * to return a canonical scan (allocate it and fill it in), without reading the input's fields,
 * checking or converting anything.
 */
const copierSource = (sample: unknown): string => {
  const build = (v: unknown, at: string): string => {
    if (Array.isArray(v)) return `[${v.map((x, i) => build(x, `${at}[${i}]`)).join(", ")}]`
    if (v !== null && typeof v === "object") {
      return `({ ${Object.entries(v)
        .map(([k, x]) => `${JSON.stringify(k)}: ${build(x, `${at}[${JSON.stringify(k)}]`)}`)
        .join(", ")} })`
    }
    return at
  }
  return `return ${build(sample, "o")}`
}

/**
 * The limit of the ratio for these lines: JSON.parse against JSON.parse plus building each line's
 * canonical scan (made by normalize beforehand, outside the timing) with `copierSource`'s functions. A normalizer
 * can do no less, so its ratio cannot pass this one.
 */
const limitOf = (lines: ReadonlyArray<string>) => {
  const scans = lines.map((l) => Either.getOrThrow(defaultNormalizer.normalize(JSON.parse(l))) as unknown)
  // One function per shape: its body is the shape.
  const copiers = new Map<string, (value: unknown) => unknown>()
  const copy = scans.map((scan) => {
    const source = copierSource(scan)
    const known = copiers.get(source)
    if (known !== undefined) return known
    const made = new Function("o", source) as (value: unknown) => unknown
    copiers.set(source, made)
    return made
  })
  let kept: unknown
  const m = measure(
    () => {
      for (const l of lines) JSON.parse(l)
    },
    () => {
      for (let i = 0; i < lines.length; i++) {
        JSON.parse(lines[i]!)
        kept = copy[i]!(scans[i])
      }
    }
  )
  if (kept === undefined) throw new Error("no scan built")
  return m.ratio
}

/**
 * What the target would take, in JSON.parse's time per record: normalize spends `1 / ratio - 1`
 * beyond parsing, of which building the scan is at least `1 / limit - 1`; the rest (reading,
 * checking, converting) must shrink until the whole fits in `1 / TARGET - 1`.
 */
const wouldTake = (ratio: number, limit: number): string => {
  if (passes(ratio, limit)) return "-"
  const beyond = 1 / ratio - 1
  const building = 1 / limit - 1
  const restBudget = 1 / (limit < NEAR_BELOW ? Math.min(TARGET, limit - NEAR) : TARGET) - 1 - building
  return restBudget <= 0 ? "cannot pass: the limit is below the target" : `the rest of the work ${((beyond - building) / restBudget).toFixed(1)} x faster`
}

if (VARIANTS) {
  // Which of a format's variants costs what: one that leaves the fast path shows here.
  console.log(
    `## normalize against JSON.parse per variant, generated code, no forced GC (median of ${PAIRS} paired rounds, ${LINES.toLocaleString("en")} records each)\n`
  )
  console.log("| format | variant | record bytes | ratio | middle half of the pairs |")
  console.log("|---|---|---|---|---|")
  for (const key of Object.keys(FORMATS) as Array<keyof typeof FORMATS>) {
    for (const variant of all[key]) {
      const lines = recordsOf([variant], LINES)
      const m = compare(`${FORMATS[key]}, ${variant.variant}`, lines)
      console.log(`| ${FORMATS[key]} | ${variant.variant} | ${meanBytes(lines)} | ${m.ratio.toFixed(2)} x | ${middleHalf(m)} |`)
    }
  }
} else {
  const mode = `${JITLESS ? "jitless (closures only)" : "generated code"}, ${GC ? "GC inside each timed round" : "no forced GC"}`
  console.log(`## normalize against JSON.parse, ${mode} (median of ${PAIRS} paired rounds, ${LINES.toLocaleString("en")} records each)\n`)
  if (GC) {
    // What both sides pay in each round whatever their garbage: marking what lives (the records' text, the modules).
    const empty = quantile(
      Array.from({ length: 11 }, () => time(() => {})),
      0.5
    )
    console.log(`A round with nothing to collect (its two gc() calls alone) takes ${empty.toFixed(2)} ms; each side's rounds include it.\n`)
  }
  console.log(
    "| format | variants | mean record bytes | JSON.parse records/s | normalize records/s | ratio | middle half of the pairs | limit | target | what passing would take |"
  )
  console.log("|---|---|---|---|---|---|---|---|---|---|")
  for (const key of Object.keys(FORMATS) as Array<keyof typeof FORMATS>) {
    const variants = all[key]
    // Every variant of the format in turn, each record with its own id, as in the bench's inputs.
    const lines = recordsOf(variants, LINES)
    const m = compare(FORMATS[key], lines)
    const perSecond = (ms: number) => Math.round((LINES / ms) * 1000).toLocaleString("en")
    // Jitless is the fallback for runtimes without `new Function`: measured, with no target of its own.
    const limit = JITLESS ? undefined : limitOf(lines)
    const target =
      limit === undefined
        ? "none"
        : `${TARGET} x${limit < NEAR_BELOW ? ` or ≥ ${(limit - NEAR).toFixed(2)} x` : ""}: ${passes(m.ratio, limit) ? "PASS" : "MISS"}`
    console.log(
      `| ${FORMATS[key]} | ${variants.length} | ${meanBytes(lines)} | ${perSecond(m.base)} | ${perSecond(m.other)} | ${m.ratio.toFixed(2)} x | ${middleHalf(m)} | ${limit === undefined ? "-" : `${limit.toFixed(2)} x`} | ${target} | ${limit === undefined ? "-" : wouldTake(m.ratio, limit)} |`
    )
  }
}
