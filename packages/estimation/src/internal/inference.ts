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
 * between mm and cm), so no value is both. Inches are never inferred (2.54 from centimetres is
 * well inside that factor): a caller states them (DecodeOptions.lengthUnit). Without a stature the band is the whole human
 * range (a factor of 31), a value may fit both, and a record of such values is undecided.
 */
import { Codegen, HUMAN_RANGES, LENGTH_SPREAD, type MeasurementName, PROPORTIONS, type Path, type Range, formatPath } from "@scanbridge/model"
import { measurementBit, measurementIndex } from "@scanbridge/model/adapter"
import type { BodyFatScale, LengthUnit, MuscleMassUnit } from "../dialect.js"

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
  /** The range and where it comes from, for messages: "167-1046 mm: 0.102-0.638 x stature 1640 mm". */
  readonly plausible: string
}

export type Inference<U extends string> =
  | { readonly _tag: "Decided"; readonly unit: U; readonly evidence: string }
  | { readonly _tag: "Contradiction"; readonly clue: Clue; readonly explanation: string }
  | { readonly _tag: "Undecided"; readonly explanation: string; readonly values: ReadonlyArray<number> }

const fits = (c: Candidate<string>, clue: Pick<Clue, "raw" | "range">) => {
  const v = clue.raw * c.factor
  return v >= clue.range.min && v <= clue.range.max
}

/**
 * Whether `clue`'s value is plausible in `unit`: what the reader asks of every value it infers
 * a unit from, and so what the encoder asks of every value it writes, for it to read back.
 */
export const plausibleIn = <U extends string>(candidates: ReadonlyArray<Candidate<U>>, unit: U, clue: Pick<Clue, "raw" | "range">): boolean =>
  fits(candidates.find((c) => c.unit === unit)!, clue)

const plausibleText = (range: Range, unit: string, basis: string) => `${Math.round(range.min)}-${Math.round(range.max)} ${unit}: ${basis}`
const describe = (clue: Clue) => `${clue.label} ${clue.raw} (plausible ${clue.plausible})`

/** The one candidate every clue allows, or why there is none. `clues` must not be empty. */
export const infer = <U extends string>(candidates: ReadonlyArray<Candidate<U>>, clues: ReadonlyArray<Clue>): Inference<U> => {
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
  const decisive = clues.filter((clue) => candidates.every((c) => c === decided || !fits(c, clue)))
  const share = decisive.length === clues.length ? `all ${clues.length}` : `${decisive.length} of ${clues.length}`
  const example = decisive[0] ?? clues[0]!
  return { _tag: "Decided", unit: decided.unit, evidence: evidence(head(share, decided, candidates), decided, example) }
}

// "value(s) are plausible in millimetres and not in centimetres; e.g. ": the same few texts for
// every record of a bulk migration, so each is written once per decided candidate of a list.
const verdicts = new Map<Candidate<string>, { readonly candidates: ReadonlyArray<Candidate<string>>; readonly text: string }>()
const verdict = (decided: Candidate<string>, candidates: ReadonlyArray<Candidate<string>>): string => {
  const known = verdicts.get(decided)
  if (known !== undefined && known.candidates === candidates) return known.text
  const others = candidates.filter((c) => c !== decided).map((c) => c.label)
  const text = `value(s) are plausible in ${decided.label} and not in ${others.join(" or ")}; e.g. `
  if (known === undefined) verdicts.set(decided, { candidates, text })
  return text
}

/** "all 33 value(s) are plausible in millimetres and not in centimetres; e.g. ": a share of the values and the verdict. */
const head = (share: string, decided: Candidate<string>, candidates: ReadonlyArray<Candidate<string>>): string => `${share} ${verdict(decided, candidates)}`

/** "139 = 1390 mm": a value and its canonical reading, or "373 mm" where the two are the same. */
const reading = (raw: number, factor: number, unit: string): string => (factor === 1 ? `${raw} ${unit}` : `${raw} = ${round3(raw * factor)} ${unit}`)

/** The evidence of a decision: its head, then one value as the example ("waist_girth 701 mm, plausible ..."). */
const evidence = (lead: string, decided: Candidate<string>, e: Pick<Clue, "label" | "raw" | "unit" | "plausible">): string =>
  `${lead}${e.label} ${reading(e.raw, decided.factor, e.unit)}, plausible ${e.plausible}`

// --- The three quantities -----------------------------------------------------------------

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

// A measurement is within LENGTH_SPREAD (2.5) of its typical share of stature, either way, as
// the model judges every format's lengths: wide enough for small children, very tall adults and
// any build, and narrow enough (2.5^2 = 6.25 < 10) that millimetres and centimetres never both
// fit against a stature. Inches are no candidate: centimetres and inches are 2.54 apart, well
// inside that band, so the body alone cannot tell them apart; a caller states inches instead.
const SPREAD = LENGTH_SPREAD

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

interface Band {
  readonly low: number
  readonly high: number
  readonly text: string
}

/** The plausible millimetres of a measurement (a band of BANDS): against the stature when the record has it. */
const lengthRange = (band: Band, statureMm: number | null): Range => {
  const { min, max } = HUMAN_RANGES.heightMm
  return { min: band.low * (statureMm ?? min), max: band.high * (statureMm ?? max) }
}

const ANY_STATURE = `any stature ${HUMAN_RANGES.heightMm.min}-${HUMAN_RANGES.heightMm.max} mm`

const lengthPlausible = (band: Band, range: Range, statureMm: number | null): string =>
  plausibleText(range, "mm", statureMm === null ? ANY_STATURE : `${band.text} x stature ${statureMm} mm`)

export const lengthClue = (path: Path, key: string, name: MeasurementName, raw: number, statureMm: number | null): Clue => {
  const band = BANDS.get(name)!
  const range = lengthRange(band, statureMm)
  return { path, label: key, raw, range, unit: "mm", plausible: lengthPlausible(band, range, statureMm) }
}

/** A `result.measurement` key and what inference needs of it: its band's factors and catalogue position. */
export interface LengthTarget {
  readonly key: string
  readonly name: MeasurementName
  readonly index: number
  /** The band: shares of stature, and as text ("0.102-0.638"). */
  readonly low: number
  readonly high: number
  readonly text: string
}

export const lengthTarget = (key: string, name: MeasurementName): LengthTarget => ({ key, name, index: measurementIndex(name), ...BANDS.get(name)! })

/** What one pass over a record's lengths found: enough to decide the unit in the common case. */
export interface LengthSurvey {
  /** How many of the targets the record has. */
  readonly count: number
  /** Whether every value is plausible in millimetres; in centimetres. */
  readonly mm: boolean
  readonly cm: boolean
  /** Whether some value is plausible in both. */
  readonly inBoth: boolean
  /** The first target whose value is plausible in exactly one unit; -1 when none is. */
  readonly decisive: number
  /** The values' positions, as `measurementsFrom` takes them. */
  readonly set: number
}

/**
 * Reads the targets' values of a `result.measurement` object into `values` (by catalogue
 * position, as `measurementsFrom` takes them; untouched where absent) and weighs each against
 * both units' bands, between `lowStature` and `highStature` (the stature twice when the record
 * has one). Generated as one pass with each key's band factors inlined: this runs for every
 * record of a bulk migration, on the first call (so a module that makes one at load generates
 * nothing). `generate: false` gives the same function as a loop (as where code is not generated,
 * see `Codegen`).
 */
export const compileLengthSurvey = (
  targets: ReadonlyArray<LengthTarget>,
  options: { readonly generate?: boolean } = {}
): ((o: object, lowStature: number, highStature: number, values: Array<number | undefined>) => LengthSurvey) => {
  const loop = (o: object, lowStature: number, highStature: number, values: Array<number | undefined>): LengthSurvey => {
    let count = 0
    let mm = true
    let cm = true
    let inBoth = false
    let decisive = -1
    let set = 0
    for (let i = 0; i < targets.length; i++) {
      const raw = (o as Record<string, number | undefined>)[targets[i]!.key]
      if (raw === undefined) continue
      values[targets[i]!.index] = raw
      set += measurementBit(targets[i]!.index)
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
    return { count, mm, cm, inBoth, decisive, set }
  }
  if (options.generate === false) return loop
  let survey: typeof loop | undefined
  const generate = (): typeof loop => {
    const each = targets.map(
      (t, i) => `v = o[${JSON.stringify(t.key)}];
if (v !== undefined) {
  values[${t.index}] = v; count++; set += ${measurementBit(t.index)};
  min = ${t.low} * lowStature; max = ${t.high} * highStature;
  inMm = v >= min && v <= max; inCm = v * 10 >= min && v * 10 <= max;
  mm = mm && inMm; cm = cm && inCm;
  if (inMm !== inCm) { if (decisive < 0) decisive = ${i}; } else if (inMm) inBoth = true;
}
`
    )
    return Codegen.compiled(
      {
        kind: "length-survey",
        name: `${targets.length}-keys`,
        params: ["o", "lowStature", "highStature", "values"],
        body: `let count = 0, mm = true, cm = true, inBoth = false, decisive = -1, set = 0, v, min, max, inMm, inCm;\n${each.join("")}return { count, mm, cm, inBoth, decisive, set };`
      },
      () => loop
    )
  }
  return (o, lowStature, highStature, values) => (survey ??= generate())(o, lowStature, highStature, values)
}

// The rare case, apart so that the common one stays small: a clue per value, in the record's order.
const inferFromClues = (
  targets: ReadonlyArray<LengthTarget>,
  values: ReadonlyArray<number | undefined>,
  statureMm: number | null,
  path: Path,
  record: object
) => {
  const position = new Map(targets.map((t, i) => [t.key, i]))
  const clues = Object.keys(record).flatMap((key) => {
    const i = position.get(key)
    const raw = i === undefined ? undefined : values[targets[i]!.index]
    return raw === undefined ? [] : [lengthClue([...path, key], key, targets[i!]!.name, raw, statureMm)]
  })
  return infer(LENGTH_CANDIDATES, clues)
}

/**
 * `infer` over the lengths of a record (`values` by catalogue position, undefined where absent)
 * from their survey, without building a clue per value when every value agrees (the common case
 * of a bulk migration). Clues are built only to explain a failure.
 */
export const inferLength = (
  targets: ReadonlyArray<LengthTarget>,
  values: ReadonlyArray<number | undefined>,
  survey: LengthSurvey,
  statureMm: number | null,
  /** The path of the record's `result.measurement`, and the record: a contradiction is explained in its key order. */
  path: Path,
  record: object
): Inference<LengthUnit> => {
  const { count, mm, cm, inBoth, decisive } = survey
  if (mm === cm || decisive < 0) return inferFromClues(targets, values, statureMm, path, record)
  const u = mm ? 0 : 1
  const unit = LENGTH_CANDIDATES[u]!
  // Every value fits the decided unit; `inBoth` says whether some fit the other as well. The
  // example needs no clue: its path is not in the text.
  const target = targets[decisive]!
  const plausible = lengthPlausible(target, lengthRange(target, statureMm), statureMm)
  return {
    _tag: "Decided",
    unit: unit.unit,
    evidence: evidence(lengthHead(u, inBoth, count), unit, { label: target.key, raw: values[target.index]!, unit: "mm", plausible })
  }
}

// The evidence's head, by decided unit, whether some value fits both, and count: written once each.
const lengthHeads: ReadonlyArray<Array<string | undefined>> = [[], [], [], []]
const lengthHead = (u: number, inBoth: boolean, count: number): string =>
  (lengthHeads[u * 2 + (inBoth ? 1 : 0)]![count] ??= head(inBoth ? `some of ${count}` : `all ${count}`, LENGTH_CANDIDATES[u]!, LENGTH_CANDIDATES))

/**
 * `infer` over one value (each body-composition quantity, once per record), its evidence's head
 * for each candidate written once (`oneValueHeads`).
 */
const inferOne = <U extends string>(candidates: ReadonlyArray<Candidate<U>>, heads: ReadonlyArray<string>, clue: Clue): Inference<U> => {
  let fitting = -1
  let count = 0
  for (let i = 0; i < candidates.length; i++) if (fits(candidates[i]!, clue)) (fitting = i), count++
  if (count !== 1) return infer(candidates, [clue])
  const c = candidates[fitting]!
  return { _tag: "Decided", unit: c.unit, evidence: evidence(heads[fitting]!, c, clue) }
}

const oneValueHeads = (candidates: ReadonlyArray<Candidate<string>>): ReadonlyArray<string> => candidates.map((c) => head("all 1", c, candidates))

/** Body fat is 2-70 % in people; the scales are 10^4 apart, so a value fits at most one. */
export const BODY_FAT_RANGE: Range = { min: 2, max: 70 }
const FAT_PLAUSIBLE = plausibleText(BODY_FAT_RANGE, "%", "people")

export const bodyFatClue = (path: Path, raw: number): Clue => ({
  path,
  label: "body_fat_percentage",
  raw,
  range: BODY_FAT_RANGE,
  unit: "%",
  plausible: FAT_PLAUSIBLE
})

const FAT_HEADS = oneValueHeads(BODY_FAT_CANDIDATES)

/** `infer(BODY_FAT_CANDIDATES, [bodyFatClue(path, raw)])`, with its texts written once. */
export const inferBodyFat = (path: Path, raw: number): Inference<BodyFatScale> => inferOne(BODY_FAT_CANDIDATES, FAT_HEADS, bodyFatClue(path, raw))

// Skeletal muscle is 10-65 % of body weight; without a weight, 2-100 kg.
const MUSCLE_UNKNOWN_WEIGHT: Range = { min: 2000, max: 100_000 }
const MUSCLE_UNKNOWN_PLAUSIBLE = plausibleText(MUSCLE_UNKNOWN_WEIGHT, "g", "people, weight unknown")
export const muscleClue = (path: Path, raw: number, weightG: number | null): Clue => {
  if (weightG === null) return { path, label: "skeletal_muscle_mass", raw, range: MUSCLE_UNKNOWN_WEIGHT, unit: "g", plausible: MUSCLE_UNKNOWN_PLAUSIBLE }
  const range = { min: 0.1 * weightG, max: 0.65 * weightG }
  return { path, label: "skeletal_muscle_mass", raw, range, unit: "g", plausible: plausibleText(range, "g", `10-65 % of weight ${weightG} g`) }
}

const MUSCLE_HEADS = oneValueHeads(MUSCLE_CANDIDATES)

/** `infer(MUSCLE_CANDIDATES, [muscleClue(path, raw, weightG)])`, with its texts written once. */
export const inferMuscleMass = (path: Path, raw: number, weightG: number | null): Inference<MuscleMassUnit> =>
  inferOne(MUSCLE_CANDIDATES, MUSCLE_HEADS, muscleClue(path, raw, weightG))

export const where = (clue: Clue): string => formatPath(clue.path)
