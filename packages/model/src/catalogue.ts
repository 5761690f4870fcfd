/**
 * The measurement catalogue: every measurement and stat the vendor's APIs know, once, with its
 * name in every dialect. Codecs, docs, arbitraries and the simulator derive from this table;
 * nothing else in Scanbridge lists measurement names.
 *
 * Sources: platform name list and units (spec 01), session MeasurementType enum and estimation
 * `measurement` keys (spec 02), fit `estimationType` values (spec 03). ISO 8559-1 references
 * are the ones the documents themselves give (in the posture landmark tables).
 */

export type MeasurementKind = "girth" | "length" | "height" | "width" | "depth"
export type Side = "right" | "none"

/** One body length or girth. All 35 are millimetres on every API that states a unit. */
export interface MeasurementEntry<Name extends string = string> {
  /** The platform's camelCase name; the canonical name in `measurementsMm`. */
  readonly name: Name
  /** Session API MeasurementType enum name and number. */
  readonly session: { readonly name: string; readonly number: number }
  /** Estimation API `result.measurement` key, or null where that API lacks the measurement. */
  readonly estimation: string | null
  /** Fit / client-library `estimationType`, or null where that API lacks the measurement. */
  readonly fit: string | null
  readonly kind: MeasurementKind
  readonly side: Side
  /** ISO 8559-1:2017 clause, where the vendor's documents give one. */
  readonly iso8559: string | null
}

const m = <const N extends string>(
  name: N,
  sessionName: string,
  sessionNumber: number,
  estimation: string | null,
  fit: string | null,
  kind: MeasurementKind,
  iso8559: string | null = null
): MeasurementEntry<N> => ({
  name,
  session: { name: sessionName, number: sessionNumber },
  estimation,
  fit,
  kind,
  // Spec 01: "names ending in R are right-side measurements".
  side: name.endsWith("R") ? "right" : "none",
  iso8559
})

/** The 35 measurements, in the order of the platform's name list. */
export const MEASUREMENTS = [
  m("acrossBackShoulderWidth", "ACROSS_BACK_SHOULDER_WIDTH", 6, "across_back_shoulder_width", "ACROSS_BACK_SHOULDER_WIDTH", "width"),
  m("backNeckHeight", "BACK_NECK_HEIGHT", 33, "back_neck_height", "BACK_NECK_HEIGHT", "height"),
  m("backNeckPointToGroundContoured", "BACK_NECK_POINT_TO_GROUND_CONTOURED", 27, "back_neck_point_to_ground_contoured", "BACK_NECK_POINT_TO_GROUND_CONTOURED", "length"),
  m("backNeckPointToWaist", "BACK_NECK_POINT_TO_WAIST", 15, "back_neck_point_to_waist", "BACK_NECK_POINT_TO_WAIST", "length"),
  m("backNeckPointToWristLengthR", "BACK_NECK_POINT_TO_WRIST_R", 8, "back_neck_point_to_wrist_length_r", "BACK_NECK_POINT_TO_WRIST_R", "length"),
  m("bellyWaistDepth", "BELLY_WAIST_DEPTH", 38, null, null, "depth"),
  m("bellyWaistGirth", "BELLY_WAIST_GIRTH", 13, "belly_waist_girth", "BELLY_WAIST_GIRTH", "girth"),
  m("bellyWaistHeight", "BELLY_WAIST_HEIGHT", 36, "belly_waist_height", "BELLY_WAIST_HEIGHT", "height"),
  m("bellyWaistWidth", "BELLY_WAIST_WIDTH", 37, null, null, "width"),
  m("bustGirth", "BUST_GIRTH", 10, "bust_girth", "BUST_GIRTH", "girth"),
  m("bustHeight", "BUST_HEIGHT", 29, "bust_height", "BUST_HEIGHT", "height"),
  m("calfGirthR", "CALF_GIRTH_R", 21, "calf_girth_r", "CALF_GIRTH_R", "girth"),
  m("forearmGirthR", "FOREARM_GIRTH_R", 34, "forearm_girth_r", "FOREARM_GIRTH_R", "girth"),
  m("hipGirth", "HIP_GIRTH", 17, "hip_girth", "HIP_GIRTH", "girth"),
  m("hipHeight", "HIP_HEIGHT", 30, "hip_height", "HIP_HEIGHT", "height"),
  m("insideLegHeight", "INSIDE_LEG_HEIGHT", 23, "inside_leg_height", "INSIDE_LEG_HEIGHT", "height"),
  m("insideLegLengthR", "INSIDE_LEG_LENGTH_R", 24, "inside_leg_length_r", "INSIDE_LEG_LENGTH_R", "length"),
  m("kneeGirthR", "KNEE_GIRTH_R", 20, "knee_girth_r", "KNEE_GIRTH_R", "girth", "5.3.22"),
  m("kneeHeightR", "KNEE_HEIGHT_R", 28, "knee_height_r", "KNEE_HEIGHT_R", "height"),
  m("midThighGirthR", "MID_THIGH_GIRTH_R", 19, "mid_thigh_girth_r", "MID_THIGH_GIRTH_R", "girth"),
  m("neckBaseGirth", "NECK_BASE_GIRTH", 5, "neck_base_girth", "NECK_BASE_GIRTH", "girth"),
  m("neckGirth", "NECK_GIRTH", 4, "neck_girth", "NECK_GIRTH", "girth"),
  m("outerAnkleHeightR", "OUTER_ANKLE_HEIGHT_R", 26, "outer_ankle_height_r", "OUTER_ANKLE_HEIGHT_R", "height"),
  m("outerArmLengthR", "OUTER_ARM_LENGTH_R", 9, "outer_arm_length_r", "OUTER_ARM_LENGTH_R", "length"),
  m("outseamR", "OUTSEAM_R", 25, "outseam_r", "OUTSEAM_R", "length"),
  m("outsideLegLengthR", "OUTSIDE_LEG_LENGTH_R", 22, "outside_leg_length_r", "OUTSIDE_LEG_LENGTH_R", "length"),
  m("shoulderToElbowR", "SHOULDER_TO_ELBOW_R", 35, "shoulder_to_elbow_r", "SHOULDER_TO_ELBOW_R", "length"),
  m("thighGirthR", "THIGH_GIRTH_R", 18, "thigh_girth_r", "THIGH_GIRTH_R", "girth"),
  m("topHipGirth", "TOP_HIP_GIRTH", 16, "top_hip_girth", "TOP_HIP_GIRTH", "girth", "5.3.13"),
  m("topHipHeight", "TOP_HIP_HEIGHT", 32, "top_hip_height", "TOP_HIP_HEIGHT", "height"),
  m("underBustGirth", "UNDER_BUST_GIRTH", 11, "under_bust_girth", "UNDER_BUST_GIRTH", "girth", "5.3.8"),
  m("upperArmGirthR", "UPPER_ARM_GIRTH_R", 7, "upper_arm_girth_r", "UPPER_ARM_GIRTH_R", "girth"),
  m("waistGirth", "WAIST_GIRTH", 12, "waist_girth", "WAIST_GIRTH", "girth", "5.3.10"),
  m("waistHeight", "WAIST_HEIGHT", 31, "waist_height", "WAIST_HEIGHT", "height"),
  m("wristGirthR", "WRIST_GIRTH_R", 14, "wrist_girth_r", "WRIST_GIRTH_R", "girth")
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

/** Canonical measurement names, in catalogue order. */
export const MEASUREMENT_NAMES: ReadonlyArray<MeasurementName> = MEASUREMENTS.map((e) => e.name)

// --- Stats and body composition -------------------------------------------------------------

/** Where a stat lands in the canonical Scan, with the unit the canonical model stores it in. */
export type CanonicalTarget =
  | "subject.age"
  | "subject.gender"
  | "subject.heightMm"
  | "subject.weightG"
  | "composition.bodyFatPercent"
  | "composition.skeletalMuscleMassG"

/** Session UnitType names (spec 02), from WIRE_UNITS. Only UNIT_TYPE_UNSPECIFIED has a number (0). */
export type SessionUnit = Exclude<(typeof WIRE_UNITS.session)[keyof typeof WIRE_UNITS.session], object>

// --- Units as each dialect spells them ------------------------------------------------------

/** The unit strings on the wire. The estimation API states no units (inferred per record). */
export const WIRE_UNITS = {
  platform: {
    length: "mm",
    percent: "percent",
    mass: "g",
    /** Spec 01 writes `degrees`; its endpoint conventions table writes `degree`. Both are read. */
    angle: "degrees",
    angleAliases: ["degree"]
  },
  session: {
    length: "MILLIMETERS",
    mass: "GRAMS",
    percentE4: "PERCENTAGE_E4",
    years: "YEARS",
    gender: "GENDER",
    unspecified: { name: "UNIT_TYPE_UNSPECIFIED", number: 0 }
  },
  fit: { length: "MILLIMETERS", mass: "GRAMS", years: "YEARS", gender: "GENDER" }
} as const

/** Session AngleUnitType, with the numbers spec 02 gives. */
export const SESSION_ANGLE_UNITS = [
  { name: "ANGLE_UNIT_TYPE_NOT_SPECIFIED", number: 0, unit: null },
  { name: "ANGLE_UNIT_TYPE_DEGREES", number: 1, unit: "deg" },
  { name: "ANGLE_UNIT_TYPE_RADIANS", number: 2, unit: "rad" }
] as const

/** A non-length entry of the session MeasurementType and fit estimationType enums. */
export interface StatEntry {
  /** The enum name shared by the session and fit dialects. */
  readonly name: string
  readonly session: { readonly name: string; readonly number: number; readonly unit: SessionUnit }
  /** Fit estimationType and its unit, or null where the fit dialect lacks it. */
  readonly fit: { readonly name: string; readonly unit: SessionUnit } | null
  /** Estimation API key: `estimation.input.*` or `result.body_composition.*`. */
  readonly estimation: string
  /** Platform key: `input.*` or `bodyComposition.*`. */
  readonly platform: string
  readonly target: CanonicalTarget
}

const stat = (
  name: string,
  sessionNumber: number,
  unit: SessionUnit,
  inFit: boolean,
  estimation: string,
  platform: string,
  target: CanonicalTarget
): StatEntry => ({
  name,
  session: { name, number: sessionNumber, unit },
  // Where the fit dialect has a stat, it spells and measures it as the session enum does.
  fit: inFit ? { name, unit } : null,
  estimation,
  platform,
  target
})

export const STATS: ReadonlyArray<StatEntry> = [
  stat("SKELETAL_MUSCLE_MASS", 1, "GRAMS", false, "skeletal_muscle_mass", "skeletalMuscleMass", "composition.skeletalMuscleMassG"),
  stat("BODY_FAT_PERCENTAGE", 2, "PERCENTAGE_E4", false, "body_fat_percentage", "bodyFatPercentage", "composition.bodyFatPercent"),
  stat("WEIGHT", 3, "GRAMS", true, "weight", "weight", "subject.weightG"),
  stat("AGE", 39, "YEARS", true, "age", "age", "subject.age"),
  stat("GENDER", 40, "GENDER", true, "gender", "gender", "subject.gender"),
  stat("HEIGHT", 41, "MILLIMETERS", true, "height", "height", "subject.heightMm")
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

/** The session enum's zero value, which names no measurement. */
export const SESSION_MEASUREMENT_UNSPECIFIED = { name: "MEASUREMENT_TYPE_UNSPECIFIED", number: 0 } as const

/** GENDER unit codes shared by the session and fit dialects: 1 male, 2 female. */
export const GENDER_CODES = { male: 1, female: 2 } as const
export type Gender = keyof typeof GENDER_CODES

// --- Posture --------------------------------------------------------------------------------

/** Front-view angles and lines: canonical (platform) name and session enum name. */
export const POSTURE_FRONT = [
  { name: "ear", session: "EAR", landmark: "tragion", iso8559: "3.1.3" },
  { name: "shoulder", session: "SHOULDER", landmark: "shoulder point", iso8559: "3.1.1" },
  { name: "topHip", session: "TOP_HIP", landmark: "highest point of the hip bone", iso8559: "3.1.16" },
  { name: "foot", session: "FOOT", landmark: "ground level (horizontal reference)", iso8559: null }
] as const
export type FrontPostureName = (typeof POSTURE_FRONT)[number]["name"]

/** Right-view polylines: a line of n points has n - 1 segment angles. */
export const POSTURE_RIGHT = [
  { name: "bodyLine", session: "BODY_LINE", points: 5 },
  { name: "backWaistLine", session: "BACK_WAIST_LINE", points: 4 }
] as const
export type RightPostureName = (typeof POSTURE_RIGHT)[number]["name"]

// --- Fit ----------------------------------------------------------------------------------

/** The fit service's fitting points and the display name spec 03 gives each. */
export const FITTING_POINTS = [
  { name: "NECK_GIRTH", displayName: "Neck" },
  { name: "SHOULDER_WIDTH", displayName: "Shoulders" },
  { name: "SLEEVE_LENGTH_CENTER_BACK", displayName: "Sleeve" },
  { name: "SLEEVE_LENGTH", displayName: "Sleeve" },
  { name: "CHEST", displayName: "Chest Width" },
  { name: "BODY_WIDTH", displayName: "Chest Width" },
  { name: "WAIST", displayName: "Waist" },
  { name: "HIP", displayName: "Hips" },
  { name: "INSEAM", displayName: "Inseam" },
  { name: "THIGH_GIRTH", displayName: "Thigh" },
  { name: "DRESS_LENGTH", displayName: "Length" },
  { name: "SKIRT_LENGTH", displayName: "Length" },
  { name: "MINISKIRT_LENGTH", displayName: "Length" },
  { name: "HALF_CALF_SKIRT_LENGTH", displayName: "Length" },
  { name: "ANKLE_SKIRT_LENGTH", displayName: "Length" },
  { name: "ANKLE_DRESS_LENGTH", displayName: "Length" },
  { name: "BODY_LENGTH", displayName: "Length" },
  { name: "UNDERBUST", displayName: "Underbust" }
] as const
export type FittingPointName = (typeof FITTING_POINTS)[number]["name"]

// --- Lookups: built once, total on their domain, constant time -----------------------------

const index = <K, V>(entries: ReadonlyArray<V>, key: (v: V) => K | null): ReadonlyMap<K, V> => {
  const map = new Map<K, V>()
  for (const entry of entries) {
    const k = key(entry)
    if (k === null) continue
    if (map.has(k)) throw new Error(`catalogue: duplicate key ${String(k)}`)
    map.set(k, entry)
  }
  return map
}

type Measurement = (typeof MEASUREMENTS)[number]

const byName = index<string, Measurement>(MEASUREMENTS, (e) => e.name)
const bySessionName = index<string, Measurement>(MEASUREMENTS, (e) => e.session.name)
const bySessionNumber = index<number, Measurement>(MEASUREMENTS, (e) => e.session.number)
const byEstimation = index<string, Measurement>(MEASUREMENTS, (e) => e.estimation)
const byFit = index<string, Measurement>(MEASUREMENTS, (e) => e.fit)
const statBySessionName = index<string, StatEntry>(STATS, (e) => e.session.name)
const statBySessionNumber = index<number, StatEntry>(STATS, (e) => e.session.number)
const statByFit = index<string, StatEntry>(STATS, (e) => e.fit?.name ?? null)
const statByTarget = index<CanonicalTarget, StatEntry>(STATS, (e) => e.target)
const frontBySession = new Map<string, FrontPostureName>(POSTURE_FRONT.map((p) => [p.session, p.name]))
const rightBySession = new Map<string, RightPostureName>(POSTURE_RIGHT.map((p) => [p.session, p.name]))
const rightPoints = new Map<string, number>(POSTURE_RIGHT.map((p) => [p.name, p.points]))
const nullsOf = (table: ReadonlyArray<{ readonly name: string }>): Readonly<Record<string, null>> => Object.freeze(Object.fromEntries(table.map((p) => [p.name, null])))
const fittingPoints = index<string, (typeof FITTING_POINTS)[number]>(FITTING_POINTS, (e) => e.name)

// Every spelling in every dialect, folded to lower case letters and digits, for suggestions.
const fold = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, "")
const byFolded = new Map<string, Measurement>()
for (const e of MEASUREMENTS) {
  for (const spelling of [e.name, e.session.name, e.estimation, e.fit]) if (spelling !== null) byFolded.set(fold(spelling), e)
}

/**
 * Lookups in every direction. Each returns `undefined` for a name the dialect does not have,
 * so callers decide whether that is an error (strict) or a `dropped` note (tolerant).
 */
export const Catalogue = {
  measurements: MEASUREMENTS,
  stats: STATS,
  isMeasurementName: (name: string): name is MeasurementName => byName.has(name),
  /** Total on canonical names: the type rules out a miss. */
  entry: (name: MeasurementName): MeasurementEntry<MeasurementName> => byName.get(name)!,
  byName: (name: string): MeasurementEntry<MeasurementName> | undefined => byName.get(name),
  bySessionName: (name: string): MeasurementEntry<MeasurementName> | undefined => bySessionName.get(name),
  bySessionNumber: (n: number): MeasurementEntry<MeasurementName> | undefined => bySessionNumber.get(n),
  byEstimationKey: (key: string): MeasurementEntry<MeasurementName> | undefined => byEstimation.get(key),
  byFitType: (type: string): MeasurementEntry<MeasurementName> | undefined => byFit.get(type),
  statBySessionName: (name: string): StatEntry | undefined => statBySessionName.get(name),
  statBySessionNumber: (n: number): StatEntry | undefined => statBySessionNumber.get(n),
  statByFitType: (type: string): StatEntry | undefined => statByFit.get(type),
  statByTarget: (target: CanonicalTarget): StatEntry => statByTarget.get(target)!,
  /** A front posture name by its session enum name. */
  frontPostureBySession: (name: string): FrontPostureName | undefined => frontBySession.get(name),
  /** A right posture name by its session enum name. */
  rightPostureBySession: (name: string): RightPostureName | undefined => rightBySession.get(name),
  /** The points of a right-view line (its segment angles are one fewer), or undefined for an unknown name. */
  rightPosturePoints: (name: string): number | undefined => rightPoints.get(name),
  /**
   * One key per posture name of a side, each null: what a decoder copies and fills in, so
   * every name is present whatever the source gave.
   */
  postureNulls: { front: nullsOf(POSTURE_FRONT), right: nullsOf(POSTURE_RIGHT) },
  /** The display name of a fit fitting point, or undefined for one spec 03 does not list. */
  fittingPointDisplayName: (name: string): string | undefined => fittingPoints.get(name)?.displayName,
  /**
   * The measurement a name probably means, whatever its dialect or case: `waist_girth`,
   * `WAIST_GIRTH` and `WaistGirth` all give waistGirth. For messages, never for decoding.
   */
  suggest: (name: string): MeasurementEntry<MeasurementName> | undefined => byFolded.get(fold(name))
} as const
