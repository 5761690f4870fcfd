/**
 * The measurement catalogue: what is the body's, once. Every measurement with its canonical
 * (platform camelCase) name, kind, side and ISO 8559-1 reference; the stats and composition
 * quantities; the posture parts. How each API spells them is that API's own: its adapter's
 * `dialect.ts` (see dialect.ts here for the shape) maps its spellings onto these names.
 *
 * Sources: the platform name list (spec 01, whose names are the canonical ones); ISO 8559-1
 * references are the ones the documents themselves give (in the posture landmark tables).
 */

export type MeasurementKind = "girth" | "length" | "height" | "width" | "depth"
export type Side = "right" | "none"

/** One body length or girth. All 35 are millimetres on every API that states a unit. */
export interface MeasurementEntry<Name extends string = string> {
  /** The canonical name, the key in `measurementsMm`. */
  readonly name: Name
  readonly kind: MeasurementKind
  readonly side: Side
  /** ISO 8559-1:2017 clause, where the vendor's documents give one. */
  readonly iso8559: string | null
}

const m = <const N extends string>(name: N, kind: MeasurementKind, iso8559: string | null = null): MeasurementEntry<N> => ({
  name,
  kind,
  // Spec 01: "names ending in R are right-side measurements".
  side: name.endsWith("R") ? "right" : "none",
  iso8559
})

/** The 35 measurements, in the order of the platform's name list. */
export const MEASUREMENTS = [
  m("acrossBackShoulderWidth", "width"),
  m("backNeckHeight", "height"),
  m("backNeckPointToGroundContoured", "length"),
  m("backNeckPointToWaist", "length"),
  m("backNeckPointToWristLengthR", "length"),
  m("bellyWaistDepth", "depth"),
  m("bellyWaistGirth", "girth"),
  m("bellyWaistHeight", "height"),
  m("bellyWaistWidth", "width"),
  m("bustGirth", "girth"),
  m("bustHeight", "height"),
  m("calfGirthR", "girth"),
  m("forearmGirthR", "girth"),
  m("hipGirth", "girth"),
  m("hipHeight", "height"),
  m("insideLegHeight", "height"),
  m("insideLegLengthR", "length"),
  m("kneeGirthR", "girth", "5.3.22"),
  m("kneeHeightR", "height"),
  m("midThighGirthR", "girth"),
  m("neckBaseGirth", "girth"),
  m("neckGirth", "girth"),
  m("outerAnkleHeightR", "height"),
  m("outerArmLengthR", "length"),
  m("outseamR", "length"),
  m("outsideLegLengthR", "length"),
  m("shoulderToElbowR", "length"),
  m("thighGirthR", "girth"),
  m("topHipGirth", "girth", "5.3.13"),
  m("topHipHeight", "height"),
  m("underBustGirth", "girth", "5.3.8"),
  m("upperArmGirthR", "girth"),
  m("waistGirth", "girth", "5.3.10"),
  m("waistHeight", "height"),
  m("wristGirthR", "girth")
] as const

export type MeasurementName = (typeof MEASUREMENTS)[number]["name"]

/**
 * Each measurement as a fraction of stature, for an average adult male build (BMI 22). Not
 * anthropometry to measure by: the simulator's body model starts from it, and the estimation
 * adapter uses it as evidence when it infers an unstated unit (a girth near 0.45 of stature
 * is millimetres, near 0.045 centimetres).
 */
export const PROPORTIONS: Readonly<Record<MeasurementName, number>> = {
  acrossBackShoulderWidth: 0.255,
  backNeckHeight: 0.845,
  backNeckPointToGroundContoured: 0.87,
  backNeckPointToWaist: 0.26,
  backNeckPointToWristLengthR: 0.47,
  bellyWaistDepth: 0.13,
  bellyWaistGirth: 0.48,
  bellyWaistHeight: 0.58,
  bellyWaistWidth: 0.17,
  bustGirth: 0.55,
  bustHeight: 0.72,
  calfGirthR: 0.21,
  forearmGirthR: 0.155,
  hipGirth: 0.55,
  hipHeight: 0.5,
  insideLegHeight: 0.45,
  insideLegLengthR: 0.44,
  kneeGirthR: 0.21,
  kneeHeightR: 0.28,
  midThighGirthR: 0.29,
  neckBaseGirth: 0.235,
  neckGirth: 0.215,
  outerAnkleHeightR: 0.04,
  outerArmLengthR: 0.345,
  outseamR: 0.6,
  outsideLegLengthR: 0.59,
  shoulderToElbowR: 0.2,
  thighGirthR: 0.32,
  topHipGirth: 0.5,
  topHipHeight: 0.56,
  underBustGirth: 0.46,
  upperArmGirthR: 0.175,
  waistGirth: 0.45,
  waistHeight: 0.62,
  wristGirthR: 0.095
}

/**
 * How far a measurement may be from its share of stature (PROPORTIONS), either way: wide enough
 * for small children, very tall adults and any build, and narrow enough (2.5^2 < 10) that
 * millimetres and centimetres, let alone inches, never both fit one value against one stature.
 */
export const LENGTH_SPREAD = 2.5

/** Canonical measurement names, in catalogue order. */
export const MEASUREMENT_NAMES: ReadonlyArray<MeasurementName> = MEASUREMENTS.map((e) => e.name)

// --- Stats and body composition -------------------------------------------------------------

/** A stat's canonical name: where it lands in the canonical Scan, in the unit the model stores it in. */
export type CanonicalTarget =
  | "subject.age"
  | "subject.gender"
  | "subject.heightMm"
  | "subject.weightG"
  | "composition.bodyFatPercent"
  | "composition.skeletalMuscleMassG"

/** What a stat measures; a dialect gives each quantity its unit. */
export type StatQuantity = "years" | "gender" | "length" | "mass" | "percent"

/** A stat or body composition quantity: its canonical name and what it measures. */
export interface StatEntry {
  readonly target: CanonicalTarget
  readonly quantity: StatQuantity
}

/** The six stats and composition quantities some API reports beside the measurements. */
export const STATS: ReadonlyArray<StatEntry> = [
  { target: "composition.skeletalMuscleMassG", quantity: "mass" },
  { target: "composition.bodyFatPercent", quantity: "percent" },
  { target: "subject.weightG", quantity: "mass" },
  { target: "subject.age", quantity: "years" },
  { target: "subject.gender", quantity: "gender" },
  { target: "subject.heightMm", quantity: "length" }
]

/** A closed range of plausible values, in the canonical unit. */
export interface Range {
  readonly min: number
  readonly max: number
}

/**
 * The ranges of a human subject, from the client library's documented limits (spec 03: height
 * 500-2500 mm, weight 10000-200000 g, age above 0). No document gives an upper age; 130 is ours.
 * Guards refuse stats outside them before a request spends quota.
 */
export const HUMAN_RANGES = {
  heightMm: { min: 500, max: 2500 },
  weightG: { min: 10_000, max: 200_000 },
  age: { min: 1, max: 130 }
} as const satisfies Record<string, Range>

// --- Posture --------------------------------------------------------------------------------

/** Front-view angles and lines: canonical (platform) name, landmark and its ISO 8559-1 clause. */
export const POSTURE_FRONT = [
  { name: "ear", landmark: "tragion", iso8559: "3.1.3" },
  { name: "shoulder", landmark: "shoulder point", iso8559: "3.1.1" },
  { name: "topHip", landmark: "highest point of the hip bone", iso8559: "3.1.16" },
  { name: "foot", landmark: "ground level (horizontal reference)", iso8559: null }
] as const
export type FrontPostureName = (typeof POSTURE_FRONT)[number]["name"]

/** Right-view polylines: a line of n points has n - 1 segment angles. */
export const POSTURE_RIGHT = [
  { name: "bodyLine", points: 5 },
  { name: "backWaistLine", points: 4 }
] as const
export type RightPostureName = (typeof POSTURE_RIGHT)[number]["name"]

// --- Lookups: built once, total on their domain, constant time -----------------------------

/**
 * The entries by a key, each key once: a second entry with a key throws `duplicate(key)` at
 * module load. An entry whose key is undefined is left out. The catalogue's and each dialect's.
 */
export const uniqueIndex = <K, V>(entries: ReadonlyArray<V>, key: (v: V) => K | undefined, duplicate: (k: K) => string): ReadonlyMap<K, V> => {
  const map = new Map<K, V>()
  for (const entry of entries) {
    const k = key(entry)
    if (k === undefined) continue
    if (map.has(k)) throw new Error(duplicate(k))
    map.set(k, entry)
  }
  return map
}

const index = <K, V>(entries: ReadonlyArray<V>, key: (v: V) => K): ReadonlyMap<K, V> =>
  uniqueIndex(entries, key, (k) => `catalogue: duplicate key ${String(k)}`)

type Measurement = (typeof MEASUREMENTS)[number]

const byName = index<string, Measurement>(MEASUREMENTS, (e) => e.name)
const statByTarget = index<CanonicalTarget, StatEntry>(STATS, (e) => e.target)
const rightPoints = new Map<string, number>(POSTURE_RIGHT.map((p) => [p.name, p.points]))
const nullsOf = (table: ReadonlyArray<{ readonly name: string }>): Readonly<Record<string, null>> =>
  Object.freeze(Object.fromEntries(table.map((p) => [p.name, null])))

/** A name folded to lower case letters and digits: `waist_girth`, `WAIST_GIRTH` and `waistGirth` are one. */
export const foldName = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, "")
const byFolded = index<string, Measurement>(MEASUREMENTS, (e) => foldName(e.name))

/**
 * Other spellings of canonical names that integrators' records hold: the vendor's public
 * measurement lists name the right-side measurements without their R (`kneeHeight` for
 * kneeHeightR). Each dialect reads its own counterparts (`knee_height`, `KNEE_HEIGHT`) too; see
 * `makeDialect`.
 */
export const OTHER_SPELLINGS: Readonly<Record<string, MeasurementName>> = Object.fromEntries(
  MEASUREMENTS.filter((e) => e.side === "right").map((e) => [e.name.slice(0, -1), e.name])
)

/**
 * Edit distance counting a swap of two neighbouring letters as one edit (optimal string
 * alignment), for "did you mean": names are short, and this runs only on a name no lookup knows.
 */
export const editDistance = (a: string, b: string): number => {
  const d: Array<Array<number>> = Array.from({ length: a.length + 1 }, (_, i) => [i])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
    }
  }
  return d[a.length]![b.length]!
}

/**
 * The value whose folded key is nearest to `name`'s fold: equal, or within a typo's distance (one
 * edit in six letters, at least one). Undefined when none is that close, when two are equally
 * so, or when the name is one of `known` that the map lacks on purpose (a dialect's measurement
 * that its API does not have is no typo for another).
 */
export const nearest = <V>(folded: ReadonlyMap<string, V>, name: string, known?: ReadonlySet<string>): V | undefined => {
  const f = foldName(name)
  const exact = folded.get(f)
  if (exact !== undefined || f.length === 0 || known?.has(f) === true) return exact
  const limit = Math.max(1, Math.floor(f.length / 6))
  let best: V | undefined
  let bestDistance = limit + 1
  let tied = false
  for (const [key, value] of folded) {
    if (Math.abs(key.length - f.length) > limit) continue
    const d = editDistance(f, key)
    if (d < bestDistance) (best = value), (bestDistance = d), (tied = false)
    else if (d === bestDistance && value !== best) tied = true
  }
  return tied ? undefined : best
}
/** Every canonical name and other spelling, folded: names no dialect may take for a typo. */
export const FOLDED_NAMES: ReadonlySet<string> = new Set([...MEASUREMENTS.map((e) => foldName(e.name)), ...Object.keys(OTHER_SPELLINGS).map(foldName)])
const byFoldedOrOther = new Map<string, Measurement>([
  ...Object.entries(OTHER_SPELLINGS).map(([other, name]) => [foldName(other), byName.get(name)!] as const),
  ...byFolded
])

/**
 * Lookups on canonical names. Each returns `undefined` for a name the catalogue does not have,
 * so callers decide whether that is an error (strict) or a `dropped` note (tolerant). A
 * dialect's own lookups are its adapter's (see `makeDialect`).
 */
export const Catalogue = {
  measurements: MEASUREMENTS,
  stats: STATS,
  isMeasurementName: (name: string): name is MeasurementName => byName.has(name),
  /** Total on canonical names: the type rules out a miss. */
  entry: (name: MeasurementName): MeasurementEntry<MeasurementName> => byName.get(name)!,
  byName: (name: string): MeasurementEntry<MeasurementName> | undefined => byName.get(name),
  /** Total on canonical targets. */
  stat: (target: CanonicalTarget): StatEntry => statByTarget.get(target)!,
  /** The points of a right-view line (its segment angles are one fewer), or undefined for an unknown name. */
  rightPosturePoints: (name: string): number | undefined => rightPoints.get(name),
  /**
   * One key per posture name of a side, each null: what a decoder copies and fills in, so
   * every name is present whatever the source gave.
   */
  postureNulls: { front: nullsOf(POSTURE_FRONT), right: nullsOf(POSTURE_RIGHT) },
  /** The measurement an other spelling (OTHER_SPELLINGS: `kneeHeight`) stands for, or undefined. */
  byOtherSpelling: (name: string): MeasurementEntry<MeasurementName> | undefined =>
    Object.hasOwn(OTHER_SPELLINGS, name) ? byName.get(OTHER_SPELLINGS[name]!) : undefined,
  /**
   * The measurement a name probably means, whatever its case or separators (`waist_girth`,
   * `WAIST_GIRTH` and `WaistGirth` all give waistGirth), or within a typo of it (`waistGrith`).
   * For messages, never for decoding; a dialect's `suggest` also knows its own spellings.
   */
  suggest: (name: string): MeasurementEntry<MeasurementName> | undefined => nearest(byFoldedOrOther, name)
} as const
