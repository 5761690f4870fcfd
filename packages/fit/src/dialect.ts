/**
 * The fit dialect (spec 03): the client library's `estimationType` values for the catalogue's
 * measurements and stats, its units, and the fit service's fitting points.
 */
import { type Dialect, type Spelling, makeDialect } from "@scanbridge/model"

/** The `unit` values of an estimation item (spec 03). */
export const FIT_UNITS = { length: "MILLIMETERS", mass: "GRAMS", years: "YEARS", gender: "GENDER" } as const
export type FitUnit = (typeof FIT_UNITS)[keyof typeof FIT_UNITS]

/** A stat's estimationType, with the unit spec 03 gives it. */
export interface FitStatSpelling extends Spelling {
  readonly unit: FitUnit
}

export const fitDialect: Dialect<Spelling, FitStatSpelling> = makeDialect<Spelling, FitStatSpelling>({
  api: "fit",
  measurements: {
    acrossBackShoulderWidth: { name: "ACROSS_BACK_SHOULDER_WIDTH" },
    backNeckHeight: { name: "BACK_NECK_HEIGHT" },
    backNeckPointToGroundContoured: { name: "BACK_NECK_POINT_TO_GROUND_CONTOURED" },
    backNeckPointToWaist: { name: "BACK_NECK_POINT_TO_WAIST" },
    backNeckPointToWristLengthR: { name: "BACK_NECK_POINT_TO_WRIST_R" },
    bellyWaistDepth: null,
    bellyWaistGirth: { name: "BELLY_WAIST_GIRTH" },
    bellyWaistHeight: { name: "BELLY_WAIST_HEIGHT" },
    bellyWaistWidth: null,
    bustGirth: { name: "BUST_GIRTH" },
    bustHeight: { name: "BUST_HEIGHT" },
    calfGirthR: { name: "CALF_GIRTH_R" },
    forearmGirthR: { name: "FOREARM_GIRTH_R" },
    hipGirth: { name: "HIP_GIRTH" },
    hipHeight: { name: "HIP_HEIGHT" },
    insideLegHeight: { name: "INSIDE_LEG_HEIGHT" },
    insideLegLengthR: { name: "INSIDE_LEG_LENGTH_R" },
    kneeGirthR: { name: "KNEE_GIRTH_R" },
    kneeHeightR: { name: "KNEE_HEIGHT_R" },
    midThighGirthR: { name: "MID_THIGH_GIRTH_R" },
    neckBaseGirth: { name: "NECK_BASE_GIRTH" },
    neckGirth: { name: "NECK_GIRTH" },
    outerAnkleHeightR: { name: "OUTER_ANKLE_HEIGHT_R" },
    outerArmLengthR: { name: "OUTER_ARM_LENGTH_R" },
    outseamR: { name: "OUTSEAM_R" },
    outsideLegLengthR: { name: "OUTSIDE_LEG_LENGTH_R" },
    shoulderToElbowR: { name: "SHOULDER_TO_ELBOW_R" },
    thighGirthR: { name: "THIGH_GIRTH_R" },
    topHipGirth: { name: "TOP_HIP_GIRTH" },
    topHipHeight: { name: "TOP_HIP_HEIGHT" },
    underBustGirth: { name: "UNDER_BUST_GIRTH" },
    upperArmGirthR: { name: "UPPER_ARM_GIRTH_R" },
    waistGirth: { name: "WAIST_GIRTH" },
    waistHeight: { name: "WAIST_HEIGHT" },
    wristGirthR: { name: "WRIST_GIRTH_R" }
  },
  stats: {
    "composition.skeletalMuscleMassG": null,
    "composition.bodyFatPercent": null,
    "subject.weightG": { name: "WEIGHT", unit: FIT_UNITS.mass },
    "subject.age": { name: "AGE", unit: FIT_UNITS.years },
    "subject.gender": { name: "GENDER", unit: FIT_UNITS.gender },
    "subject.heightMm": { name: "HEIGHT", unit: FIT_UNITS.length }
  }
})

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

const displayNames = new Map<string, string>(FITTING_POINTS.map((p) => [p.name, p.displayName]))

/** The display name of a fitting point, or undefined for one spec 03 does not list. */
export const fittingPointDisplayName = (name: string): string | undefined => displayNames.get(name)
