/**
 * Whether a record's body lengths are plausible in the unit they were read in, judged against
 * the body they belong to: the subject's stature when the record has a human one, else the
 * stature the lengths themselves imply (every length must agree on one human stature). The
 * ranges are the catalogue's: PROPORTIONS of stature, LENGTH_SPREAD either way.
 *
 * Lengths read in one unit but plausible only in another are the mistake integrators make most
 * (inches stored under `mm`); the verdict names that unit and a length that shows it.
 */
import { HUMAN_RANGES, LENGTH_SPREAD, MEASUREMENT_NAMES, type MeasurementName, PROPORTIONS } from "./catalogue.js"
import { compiled } from "./codegen.js"
import { LENGTH_UNITS, type LengthUnit, MM_PER_UNIT, round } from "./units.js"

type Lengths = Readonly<Partial<Record<MeasurementName, number>>>

/** One length that shows the verdict, and the millimetres that would have been plausible for it. */
export interface LengthEvidence {
  readonly name: MeasurementName
  /** As read, in millimetres. */
  readonly mm: number
  /** "1110-6929 mm: 0.338-2.113 x stature 1640 mm". */
  readonly plausible: string
}

export type LengthVerdict =
  /** Plausible as read, or too few lengths to say (none). */
  | { readonly _tag: "Plausible" }
  /** Plausible only if the raw values are in one of `units` instead (most often one). */
  | { readonly _tag: "OtherUnit"; readonly units: ReadonlyArray<LengthUnit>; readonly evidence: LengthEvidence }
  /** Plausible in no unit: some length is no part of the same human body as the others. */
  | { readonly _tag: "Implausible"; readonly evidence: LengthEvidence }

const PLAUSIBLE: LengthVerdict = { _tag: "Plausible" }
const HUMAN = HUMAN_RANGES.heightMm
const round3 = (n: number) => round(n, 3)

const NAMES = MEASUREMENT_NAMES
// Each measurement's band as shares of stature, by catalogue position.
const LOW = MEASUREMENT_NAMES.map((n) => PROPORTIONS[n] / LENGTH_SPREAD)
const HIGH = MEASUREMENT_NAMES.map((n) => PROPORTIONS[n] * LENGTH_SPREAD)

/** Whether a subject's stature is a human one, and so evidence for the lengths. */
const isHuman = (heightMm: number | null): heightMm is number => heightMm !== null && heightMm >= HUMAN.min && heightMm <= HUMAN.max

type FirstImplausible = (lengths: Lengths, scale: number, stature: number | null) => number

/**
 * The first length (catalogue order) that is not plausible at `scale` times its millimetres, or
 * -1 when all are: against `stature` when given, else against the stature the others imply.
 * Reads the record's object in place: this runs for every record of a bulk migration.
 */
const looped: FirstImplausible = (lengths, scale, stature) => {
  // Each length allows the statures from v / HIGH to v / LOW; all of them must share one human one.
  let lo: number = HUMAN.min
  let hi: number = HUMAN.max
  for (let i = 0; i < NAMES.length; i++) {
    const v = lengths[NAMES[i]!]
    if (v === undefined) continue
    if (stature !== null) {
      if (v * scale < LOW[i]! * stature || v * scale > HIGH[i]! * stature) return i
      continue
    }
    lo = Math.max(lo, (v * scale) / HIGH[i]!)
    hi = Math.min(hi, (v * scale) / LOW[i]!)
    if (lo > hi) return i
  }
  return -1
}

// The same as straight-line code, one named load per measurement and its band as literals: the
// loop's one keyed load by a name that changes is a hash lookup per measurement, every record.
const generate = (): FirstImplausible =>
  compiled(
    {
      kind: "plausibility",
      name: `${NAMES.length}-lengths`,
      params: ["lengths", "scale", "stature"],
      body: `let lo = ${HUMAN.min}, hi = ${HUMAN.max}, v;\n${NAMES.map(
        (name, i) =>
          `v = lengths[${JSON.stringify(name)}];\nif (v !== undefined) {\nif (stature !== null) {\nif (v * scale < ${LOW[i]} * stature || v * scale > ${HIGH[i]} * stature) return ${i};\n} else {\nlo = Math.max(lo, (v * scale) / ${HIGH[i]});\nhi = Math.min(hi, (v * scale) / ${LOW[i]});\nif (lo > hi) return ${i};\n}\n}\n`
      ).join("")}return -1;`
    },
    () => looped
  )

let generated: FirstImplausible | undefined

// Generated on the first record, not on import.
const firstImplausible: FirstImplausible = (lengths, scale, stature) => (generated ??= generate())(lengths, scale, stature)

const evidenceOf = (lengths: Lengths, i: number, stature: number | null): LengthEvidence => {
  const name = MEASUREMENT_NAMES[i]!
  const band = `${round3(LOW[i]!)}-${round3(HIGH[i]!)} x stature`
  const plausible =
    stature !== null
      ? `${Math.round(LOW[i]! * stature)}-${Math.round(HIGH[i]! * stature)} mm: ${band} ${stature} mm`
      : `${Math.round(LOW[i]! * HUMAN.min)}-${Math.round(HIGH[i]! * HUMAN.max)} mm: ${band}, a stature of ${HUMAN.min}-${HUMAN.max} mm that the other lengths agree on`
  return { name, mm: lengths[name]!, plausible }
}

const UNITS = Object.keys(LENGTH_UNITS) as ReadonlyArray<LengthUnit>

/**
 * The verdict on a record's lengths (millimetres as read, `read` being the unit their raw values
 * were taken to be in), against the subject's stature in millimetres (null when unknown).
 */
export const judgeLengths = (measurementsMm: Lengths, heightMm: number | null, read: LengthUnit): LengthVerdict => {
  const stature = isHuman(heightMm) ? heightMm : null
  const wrong = firstImplausible(measurementsMm, 1, stature)
  if (wrong < 0) return PLAUSIBLE
  const evidence = evidenceOf(measurementsMm, wrong, stature)
  const others = UNITS.filter((u) => u !== read && firstImplausible(measurementsMm, MM_PER_UNIT[u] / MM_PER_UNIT[read], stature) < 0)
  return others.length > 0 ? { _tag: "OtherUnit", units: others, evidence } : { _tag: "Implausible", evidence }
}
