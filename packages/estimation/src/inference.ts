/**
 * The estimation API states no unit for its measurements and no scale for its body
 * composition (spec 02: "not shown"). This module decides them per record, from evidence in
 * the same record, and never silently: each candidate unit must make every value plausible.
 *
 * A clue is one value and the range its canonical reading must fall in. A candidate survives
 * a clue when the value, read in that candidate, is inside the range. The decision is the one
 * candidate that survives every clue; none is a contradiction, more than one is undecided, and
 * both are errors that name the evidence, so a caller can state the unit instead.
 *
 * Ranges are chosen so that one value fits at most one candidate where the record allows it:
 * against the subject's stature a length clue spans a factor of 6.25 (less than the 10
 * between mm and cm), so no value is both. Without a stature the band is the whole human
 * range (a factor of 31), a value may fit both, and a record of such values is undecided.
 */
import { HUMAN_RANGES, type MeasurementName, PROPORTIONS, type Path, type Range, formatPath } from "@scanbridge/model"

export interface Candidate<U extends string> {
  readonly unit: U
  /** Canonical value = raw value x factor. */
  readonly factor: number
  readonly label: string
}

export interface Clue {
  readonly path: Path
  readonly label: string
  readonly raw: number
  /** Where the canonical reading must fall, in `unit`. */
  readonly range: Range
  /** The canonical unit: mm, %, g. */
  readonly unit: string
  /** Where the range comes from, for messages: "0.2-1.3 x stature 1680 mm". Built only for one. */
  readonly basis: () => string
}

export type Inference<U extends string> =
  | { readonly _tag: "Decided"; readonly unit: U; readonly evidence: string }
  | { readonly _tag: "Contradiction"; readonly clue: Clue; readonly explanation: string }
  | { readonly _tag: "Undecided"; readonly explanation: string; readonly values: ReadonlyArray<number> }

const fits = <U extends string>(c: Candidate<U>, clue: Clue) => {
  const v = clue.raw * c.factor
  return v >= clue.range.min && v <= clue.range.max
}

const plausible = (clue: Clue) => `${Math.round(clue.range.min)}-${Math.round(clue.range.max)} ${clue.unit}: ${clue.basis()}`
const describe = (clue: Clue) => `${clue.label} ${clue.raw} (plausible ${plausible(clue)})`

/** The one candidate every clue allows, or why there is none. `clues` must not be empty. */
export const infer = <U extends string>(candidates: ReadonlyArray<Candidate<U>>, clues: ReadonlyArray<Clue>): Inference<U> => {
  // One clue that one candidate fits, as body composition always is: decided, nothing to trace.
  if (clues.length === 1) {
    const clue = clues[0]!
    let fitting: Candidate<U> | undefined
    let count = 0
    for (const c of candidates) if (fits(c, clue)) (fitting = c), count++
    if (count === 1) {
      const others = candidates.filter((c) => c !== fitting)
      return { _tag: "Decided", unit: fitting!.unit, evidence: evidenceOf("all 1", fitting!, others, clue) }
    }
  }
  let alive = candidates
  // The first clue that ruled each candidate out, to explain a contradiction.
  const ruledOutBy = new Map<U, Clue>()
  for (const clue of clues) {
    // The common case, one survivor that this clue allows too, costs one comparison.
    if (alive.length === 1 && fits(alive[0]!, clue)) continue
    const allowed = candidates.filter((c) => fits(c, clue))
    if (allowed.length === 0) {
      return {
        _tag: "Contradiction",
        clue,
        explanation: `${describe(clue)} is plausible in none of ${candidates.map((c) => c.label).join(", ")}`
      }
    }
    for (const c of alive) if (!allowed.includes(c) && !ruledOutBy.has(c.unit)) ruledOutBy.set(c.unit, clue)
    const next = alive.filter((c) => allowed.includes(c))
    if (next.length === 0) {
      const other = ruledOutBy.get(allowed[0]!.unit)!
      return {
        _tag: "Contradiction",
        clue,
        explanation: `the evidence contradicts itself: ${describe(clue)} fits only ${allowed.map((c) => c.label).join(" or ")}, but ${describe(other)} does not`
      }
    }
    alive = next
  }
  if (alive.length > 1) {
    return { _tag: "Undecided", explanation: `every value fits ${alive.map((c) => c.label).join(" and ")} alike`, values: clues.map((c) => c.raw) }
  }
  const decided = alive[0]!
  const others = candidates.filter((c) => c !== decided)
  const decisive = clues.filter((clue) => others.every((c) => !fits(c, clue)))
  const share = decisive.length === clues.length ? `all ${clues.length}` : `${decisive.length} of ${clues.length}`
  return { _tag: "Decided", unit: decided.unit, evidence: evidenceOf(share, decided, others, decisive[0] ?? clues[0]!) }
}

// "plausible in millimetres and not in centimetres", written once per pair of candidates (every
// quantity here has two).
const verdicts = new WeakMap<Candidate<string>, WeakMap<Candidate<string>, string>>()
const verdict = (decided: Candidate<string>, others: ReadonlyArray<Candidate<string>>): string => {
  const write = () => `plausible in ${decided.label} and not in ${others.map((c) => c.label).join(" or ")}`
  if (others.length !== 1) return write()
  let byOther = verdicts.get(decided)
  if (byOther === undefined) verdicts.set(decided, (byOther = new WeakMap()))
  let text = byOther.get(others[0]!)
  if (text === undefined) byOther.set(others[0]!, (text = write()))
  return text
}

const evidenceOf = <U extends string>(share: string, decided: Candidate<U>, others: ReadonlyArray<Candidate<U>>, e: Clue): string =>
  `${share} value(s) are ${verdict(decided, others)}; e.g. ${e.label} ${e.raw} = ${round3(e.raw * decided.factor)} ${e.unit}, plausible ${plausible(e)}`

// --- The three quantities -----------------------------------------------------------------

export type LengthUnit = "mm" | "cm"
export type BodyFatScale = "percent" | "e4"
export type MuscleMassUnit = "g" | "kg"

export const LENGTH_CANDIDATES: ReadonlyArray<Candidate<LengthUnit>> = [
  { unit: "mm", factor: 1, label: "millimetres" },
  { unit: "cm", factor: 10, label: "centimetres" }
]

/**
 * Body fat as percent (the platform's scale) or percent x 10^4 (the session API's
 * PERCENTAGE_E4): the two scales the vendor uses elsewhere.
 */
export const BODY_FAT_CANDIDATES: ReadonlyArray<Candidate<BodyFatScale>> = [
  { unit: "percent", factor: 1, label: "percent" },
  { unit: "e4", factor: 1e-4, label: "percent x 10^4" }
]

export const MUSCLE_CANDIDATES: ReadonlyArray<Candidate<MuscleMassUnit>> = [
  { unit: "g", factor: 1, label: "grams" },
  { unit: "kg", factor: 1000, label: "kilograms" }
]

// A measurement is within this factor of its typical share of stature, either way: wide
// enough for small children, very tall adults and any build, and narrow enough (2.5^2 < 10)
// that millimetres and centimetres never both fit.
const SPREAD = 2.5

const round3 = (n: number) => Math.round(n * 1000) / 1000

/**
 * Each measurement's band as shares of stature, computed once: the factors, and their text
 * ("0.102-0.638"; decimals are the slow numbers to print).
 */
const BANDS = new Map(
  Object.entries(PROPORTIONS).map(([name, p]) => {
    const low = p / SPREAD
    const high = p * SPREAD
    return [name, { low, high, text: `${round3(low)}-${round3(high)}` }] as const
  })
)

/** The plausible millimetres of a measurement: against the stature when the record has it. */
const lengthBand = (name: MeasurementName, statureMm: number | null): Range => {
  const band = BANDS.get(name)!
  const { min, max } = HUMAN_RANGES.heightMm
  return { min: band.low * (statureMm ?? min), max: band.high * (statureMm ?? max) }
}

export const lengthClue = (path: Path, key: string, name: MeasurementName, raw: number, statureMm: number | null): Clue => {
  const { min, max } = HUMAN_RANGES.heightMm
  return {
    path,
    label: key,
    raw,
    range: lengthBand(name, statureMm),
    unit: "mm",
    basis: () => (statureMm !== null ? `${BANDS.get(name)!.text} x stature ${statureMm} mm` : `any stature ${min}-${max} mm`)
  }
}

/** A `result.measurement` key and what inference needs of it: its band's factors, from `lengthTarget`. */
export interface LengthTarget {
  readonly key: string
  readonly name: MeasurementName
  readonly low: number
  readonly high: number
}

export const lengthTarget = (key: string, name: MeasurementName): LengthTarget => {
  const { low, high } = BANDS.get(name)!
  return { key, name, low, high }
}

/**
 * `infer` over the lengths of a record (`raws[i]` the value of `targets[i]`, undefined where
 * absent), without building a clue per value when every value agrees (the common case of a
 * bulk migration): the same bands, one pass of arithmetic. Clues are built only to explain a
 * decision or a failure.
 */
export const inferLength = (
  targets: ReadonlyArray<LengthTarget>,
  raws: ReadonlyArray<number | undefined>,
  statureMm: number | null,
  pathOf: (key: string) => Path,
  /** The record's keys in its own order: a contradiction is explained in that order. */
  recordOrder: () => ReadonlyArray<string> = () => targets.map((t) => t.key)
): Inference<LengthUnit> => {
  let mm = true
  let cm = true
  let inBoth = false
  let count = 0
  let decisive = -1
  // lengthBand's bands without its object: this loop runs once per value of a bulk migration.
  const lowStature = statureMm ?? HUMAN_RANGES.heightMm.min
  const highStature = statureMm ?? HUMAN_RANGES.heightMm.max
  for (let i = 0; i < targets.length; i++) {
    const raw = raws[i]
    if (raw === undefined) continue
    count++
    const min = targets[i]!.low * lowStature
    const max = targets[i]!.high * highStature
    const inMm = raw >= min && raw <= max
    const inCm = raw * 10 >= min && raw * 10 <= max
    mm &&= inMm
    cm &&= inCm
    if (inMm !== inCm) {
      if (decisive < 0) decisive = i
    } else if (inMm) inBoth = true
  }
  const clue = (i: number) => lengthClue(pathOf(targets[i]!.key), targets[i]!.key, targets[i]!.name, raws[i]!, statureMm)
  if (mm === cm || decisive < 0) {
    const position = new Map(targets.map((t, i) => [t.key, i]))
    const inOrder = recordOrder().flatMap((key) => {
      const i = position.get(key)
      return i === undefined || raws[i] === undefined ? [] : [i]
    })
    return infer(LENGTH_CANDIDATES, inOrder.map(clue))
  }
  const unit = mm ? LENGTH_CANDIDATES[0]! : LENGTH_CANDIDATES[1]!
  const other = mm ? LENGTH_CANDIDATES[1]! : LENGTH_CANDIDATES[0]!
  // Every value fits the decided unit; `inBoth` says whether some fit the other as well.
  return {
    _tag: "Decided",
    unit: unit.unit,
    evidence: evidenceOf(inBoth ? `some of ${count}` : `all ${count}`, unit, [other], clue(decisive))
  }
}

/** Body fat is 2-70 % in people; the scales are 10^4 apart, so a value fits at most one. */
export const BODY_FAT_RANGE: Range = { min: 2, max: 70 }

export const bodyFatClue = (path: Path, raw: number): Clue => ({ path, label: "body_fat_percentage", raw, range: BODY_FAT_RANGE, unit: "%", basis: () => "people" })

// Skeletal muscle is 10-65 % of body weight; without a weight, 2-100 kg.
export const muscleClue = (path: Path, raw: number, weightG: number | null): Clue =>
  weightG !== null
    ? { path, label: "skeletal_muscle_mass", raw, range: { min: 0.1 * weightG, max: 0.65 * weightG }, unit: "g", basis: () => `10-65 % of weight ${weightG} g` }
    : { path, label: "skeletal_muscle_mass", raw, range: { min: 2000, max: 100_000 }, unit: "g", basis: () => "people, weight unknown" }

export const where = (clue: Clue): string => formatPath(clue.path)
