/**
 * The FHIR dialect: how each quantity of a canonical scan is coded in an Observation. Every one
 * has a code in Scanbridge's own CodeSystem (its canonical name, so the code says exactly what
 * the scan holds), and a LOINC code only where LOINC has a *measurement* term for that body site
 * and method (never a protocol or a panel). The CodeSystem published under docs/fhir/ and the
 * mapping table of docs/fhir.md are generated from this table.
 */
import { Catalogue, type FailureCategory, type MeasurementKind, type MeasurementName, type Method } from "@scanbridge/model"
import type { LoincCode } from "./loinc.js"

/** The names Scanbridge's resources are written under: URIs that identify, not addresses to fetch. */
export const SCANBRIDGE_FHIR = "https://scanbridge.dev/fhir"
/** Scanbridge's CodeSystem of a scan's quantities (and the panel's `scan`). */
export const SCAN_CODE_SYSTEM = `${SCANBRIDGE_FHIR}/CodeSystem/scan`
/** The scanning methods, as the Device's type and the panel's method. */
export const METHOD_CODE_SYSTEM = `${SCANBRIDGE_FHIR}/CodeSystem/scan-method`
/** A failed scan's category, beside its code, in the panel's dataAbsentReason. */
export const FAILURE_CATEGORY_SYSTEM = `${SCANBRIDGE_FHIR}/CodeSystem/failure-category`
/** A failed scan's code as its API gave it. */
export const FAILURE_CODE_SYSTEM = `${SCANBRIDGE_FHIR}/failure-code`
export const LOINC_SYSTEM = "http://loinc.org"
export const UCUM_SYSTEM = "http://unitsofmeasure.org"
export const OBSERVATION_CATEGORY_SYSTEM = "http://terminology.hl7.org/CodeSystem/observation-category"
export const DATA_ABSENT_REASON_SYSTEM = "http://terminology.hl7.org/CodeSystem/data-absent-reason"
export const ADMINISTRATIVE_GENDER_SYSTEM = "http://hl7.org/fhir/administrative-gender"
/** The FHIR R4 vital-signs profiles the height, weight and BMI Observations claim. */
export const VITAL_SIGNS_PROFILE = "http://hl7.org/fhir/StructureDefinition/vitalsigns"
export const PROFILES = {
  bodyheight: "http://hl7.org/fhir/StructureDefinition/bodyheight",
  bodyweight: "http://hl7.org/fhir/StructureDefinition/bodyweight",
  bmi: "http://hl7.org/fhir/StructureDefinition/bmi"
} as const
export type VitalSignsProfile = keyof typeof PROFILES

/** The code of the panel Observation that holds one scan. */
export const PANEL_CODE = { code: "scan", display: "Body scan" } as const

/** What a quantity is, which fixes its UCUM unit (FHIR_UNITS). */
export type FhirQuantityKind = "length" | "mass" | "percent" | "bmi" | "years" | "gender"

/** Where in a canonical scan a coded quantity lives; `bmi` is derived from height and weight. */
export type FhirTarget =
  | "subject.age"
  | "subject.gender"
  | "subject.heightMm"
  | "subject.weightG"
  | "bmi"
  | `measurementsMm.${MeasurementName}`
  | "composition.bodyFatPercent"
  | "composition.bodyFatMassG"
  | "composition.leanMassG"
  | "composition.skeletalMuscleMassG"

export interface FhirCode {
  readonly target: FhirTarget
  /** The code in SCAN_CODE_SYSTEM. */
  readonly code: string
  readonly display: string
  /** What the code means, as the published CodeSystem (docs/fhir/CodeSystem-scan.json) states it. */
  readonly definition: string
  readonly kind: FhirQuantityKind
  /** The Observation's category: `vital-signs` for the profiled vitals, `exam` for the body's measurements, none for a stated input. */
  readonly category: "vital-signs" | "exam" | null
  /** The LOINC measurement term for it, or null where none fits. */
  readonly loinc: LoincCode | null
  /** Why no LOINC code, or what the LOINC code assumes: the docs' mapping table says it. */
  readonly why: string
  readonly profile: VitalSignsProfile | null
}

/** `waistGirth` as "Waist girth", `calfGirthR` as "Calf girth (right)". */
export const displayOf = (name: string): string => {
  const right = /R$/.test(name)
  const words = (right ? name.slice(0, -1) : name).replace(/([A-Z])/g, " $1").toLowerCase()
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}${right ? " (right)" : ""}`
}

const NO_TERM: Readonly<Record<MeasurementKind, string>> = {
  girth: "LOINC's circumference terms name clinical landmarks measured by tape; none was found for this girth at the landmark the scan measures (ISO 8559-1)",
  length: "LOINC has no measurement term for this body length",
  height: "LOINC has no measurement term for this height of a body landmark above the ground",
  width: "LOINC has no measurement term for this body width",
  depth: "LOINC has no measurement term for this body depth"
}

/** What this table says of a measurement that LOINC is not silent on. */
const MEASUREMENT_CODING: Partial<Record<MeasurementName, { readonly loinc: LoincCode | null; readonly why: string }>> = {
  bellyWaistGirth: {
    loinc: "8280-0",
    why: "the girth at navel level is LOINC's waist circumference at the umbilicus; LOINC names a tape, the scan measures the same girth optically"
  },
  waistGirth: {
    loinc: null,
    why: "LOINC's waist terms each name a landmark and a protocol: the umbilicus by tape (8280-0, bellyWaistGirth's), the uppermost border of the ilium by NHANES (56114-2), midway between the lowest rib and the iliac crest by NCFS (56115-9); the last is ISO 8559-1's waist level too, but NCFS is a children's food survey's protocol, which a scan does not follow"
  },
  hipGirth: {
    loinc: null,
    why: "no LOINC measurement term for the hip girth was found; 62409-8 is a PhenX protocol, not a measurement, and is never written"
  },
  neckGirth: {
    loinc: null,
    why: "56074-8 Circumference Neck is a trial term of the PhenX class; it is not written until LOINC makes it active"
  }
}

/** `The waist girth (ISO 8559-1 5.3.10), as the scan measured it; canonical measurementsMm.waistGirth.` */
const measurementDefinition = (name: MeasurementName): string => {
  const { kind, iso8559 } = Catalogue.entry(name)
  const what = displayOf(name).toLowerCase()
  const iso = iso8559 === null ? "" : ` (ISO 8559-1 ${iso8559})`
  return `The ${what}${iso}, a ${kind} of the body as the scan measured it; canonical measurementsMm.${name}`
}

const measurementCode = (name: MeasurementName): FhirCode => {
  const coding = MEASUREMENT_CODING[name]
  return {
    target: `measurementsMm.${name}`,
    code: name,
    display: displayOf(name),
    definition: measurementDefinition(name),
    kind: "length",
    category: "exam",
    loinc: coding?.loinc ?? null,
    why: coding?.why ?? NO_TERM[Catalogue.entry(name).kind],
    profile: null
  }
}

/** Every coded quantity, in the order a bundle writes them: the stats, the derived BMI, the measurements (catalogue order), the composition. */
export const FHIR_CODES: ReadonlyArray<FhirCode> = [
  {
    target: "subject.age",
    code: "age",
    display: "Age",
    definition: "The age in whole years the scan was taken with, as the user stated it; canonical subject.age",
    kind: "years",
    category: null,
    loinc: null,
    why: "an input of the scan, as the user stated it: Scanbridge's code only",
    profile: null
  },
  {
    target: "subject.gender",
    code: "gender",
    display: "Gender of the body model",
    definition: "The gender the scan's body model was built for, male or female (FHIR administrative-gender); canonical subject.gender",
    kind: "gender",
    category: null,
    loinc: null,
    why: "the gender the scan's body model was built for, not a sex or a gender identity that LOINC's terms record",
    profile: null
  },
  {
    target: "subject.heightMm",
    code: "height",
    display: "Body height",
    definition: "The body height (stature) the scan was taken with; canonical subject.heightMm",
    kind: "length",
    category: "vital-signs",
    loinc: "8302-2",
    why: "the stature the scan was taken with",
    profile: "bodyheight"
  },
  {
    target: "subject.weightG",
    code: "weight",
    display: "Body weight",
    definition: "The body weight the scan was taken with; canonical subject.weightG",
    kind: "mass",
    category: "vital-signs",
    loinc: "29463-7",
    why: "the body weight the scan was taken with",
    profile: "bodyweight"
  },
  {
    target: "bmi",
    code: "bmi",
    display: "Body mass index",
    definition:
      "The body weight in kilograms over the square of the body height in metres, derived from the scan's height and weight; a canonical scan does not hold it",
    kind: "bmi",
    category: "vital-signs",
    loinc: "39156-5",
    why: "derived from the height and weight, written only where both are known",
    profile: "bmi"
  },
  ...Catalogue.measurements.map((m) => measurementCode(m.name)),
  {
    target: "composition.bodyFatPercent",
    code: "bodyFatPercent",
    display: "Body fat percentage",
    definition: "The scan's estimate of the body's fat as a percentage of its mass; canonical composition.bodyFatPercent",
    kind: "percent",
    category: "exam",
    loinc: "41982-0",
    why: "the scan's estimate of the body's fat as a share of its mass",
    profile: null
  },
  {
    target: "composition.bodyFatMassG",
    code: "bodyFatMass",
    display: "Body fat mass",
    definition: "The scan's estimate of the mass of the body's fat; canonical composition.bodyFatMassG",
    kind: "mass",
    category: "exam",
    loinc: "73708-0",
    why: "the fat mass the platform calculates from the weight and the fat percentage",
    profile: null
  },
  {
    target: "composition.leanMassG",
    code: "leanMass",
    display: "Lean body mass",
    definition: "The scan's estimate of the body's lean mass; canonical composition.leanMassG",
    kind: "mass",
    category: "exam",
    loinc: null,
    why: "no LOINC term for lean body mass was verified",
    profile: null
  },
  {
    target: "composition.skeletalMuscleMassG",
    code: "skeletalMuscleMass",
    display: "Skeletal muscle mass",
    definition: "The scan's estimate of the body's skeletal muscle mass; canonical composition.skeletalMuscleMassG",
    kind: "mass",
    category: "exam",
    loinc: null,
    why: "73964-9 Body muscle mass counts all muscle, not skeletal muscle alone",
    profile: null
  }
]

/** The units a bundle writes, by the length unit chosen (`--units cm`, the default, or `in`). */
export const FHIR_UNITS = {
  cm: { length: "cm", mass: "kg" },
  in: { length: "[in_i]", mass: "[lb_av]" }
} as const
export type FhirUnits = keyof typeof FHIR_UNITS

/** The UCUM code of each kind that has one fixed: `%`, `kg/m2` (never `kg/m^2`), years as `a`. */
export const FIXED_UNITS = { percent: "%", bmi: "kg/m2", years: "a" } as const

/** How a UCUM code is shown to a person (`unit`). */
export const UNIT_DISPLAY: Readonly<Record<string, string>> = {
  cm: "cm",
  "[in_i]": "in",
  kg: "kg",
  "[lb_av]": "lb",
  "%": "%",
  "kg/m2": "kg/m2",
  a: "years"
}

/** The display of each method code. */
export const METHOD_DISPLAY = { photo: "Photo scan", stats: "Estimate from stats", adjusted: "Adjusted scan", selfie: "Selfie scan" } as const

/** What each method code means, as the published CodeSystem (docs/fhir/CodeSystem-scan-method.json) states it. */
export const METHOD_DEFINITION: Readonly<Record<Method, string>> = {
  stats: "Measurements estimated from the stated age, gender, height and weight alone, without photos",
  photo: "Measurements estimated from a front and a right photo of the body and the stated stats",
  adjusted: "A platform scan made from a base scan by adjusting its weight or measurements by percentages",
  selfie: "Measurements estimated from one selfie photo and the stated height (the client library's selfie flow)"
}

/**
 * A failed scan's category, as the published CodeSystem (docs/fhir/CodeSystem-failure-category.json)
 * states it. The platform groups its scan-level error codes as format, quality, face, person and
 * posing and defines the groups no further, so neither do these.
 */
export const FAILURE_CATEGORIES: Readonly<Record<FailureCategory, { readonly display: string; readonly definition: string }>> = {
  format: { display: "Format", definition: "A platform scan-level error of the platform's category format" },
  quality: { display: "Quality", definition: "A platform scan-level error of the platform's category quality" },
  face: { display: "Face", definition: "A platform scan-level error of the platform's category face" },
  person: { display: "Person", definition: "A platform scan-level error of the platform's category person" },
  posing: {
    display: "Posing",
    definition: "A platform scan-level error of the platform's category posing, such as rightPhotoFacingWrongDirection"
  },
  session: { display: "Session", definition: "An error of the deprecated session API, its errorType as the code" },
  estimation: { display: "Estimation", definition: "A failed estimation of the deprecated estimation API, its numeric code as the code" },
  unknown: { display: "Unknown", definition: "A failure whose category its source does not state, or a code Scanbridge does not know" }
}

const byCode: ReadonlyMap<string, FhirCode> = new Map(FHIR_CODES.map((c) => [c.code, c]))
const byLoinc: ReadonlyMap<string, FhirCode> = new Map(FHIR_CODES.flatMap((c) => (c.loinc === null ? [] : [[c.loinc, c] as const])))

/** The quantity of a Scanbridge code, or undefined. */
export const codeOf = (code: string): FhirCode | undefined => byCode.get(code)
/** The quantity a LOINC code of this table stands for, or undefined. */
export const loincOf = (code: string): FhirCode | undefined => byLoinc.get(code)
