/**
 * The session API's dialect (spec 02, part A): its MeasurementType names and numbers for the
 * catalogue's measurements and stats, its UnitType and AngleUnitType names, its posture names.
 */
import { type Dialect, type PostureSpellings, makeDialect } from "@scanbridge/model"

/** UnitType names (spec 02). Only UNIT_TYPE_UNSPECIFIED has a documented number (0). */
export const SESSION_UNITS = {
  length: "MILLIMETERS",
  mass: "GRAMS",
  percentE4: "PERCENTAGE_E4",
  years: "YEARS",
  gender: "GENDER",
  unspecified: { name: "UNIT_TYPE_UNSPECIFIED", number: 0 }
} as const

/** A UnitType a quantity is measured in. */
export type SessionUnit = Exclude<(typeof SESSION_UNITS)[keyof typeof SESSION_UNITS], object>

/** AngleUnitType, with the numbers spec 02 gives. */
export const SESSION_ANGLE_UNITS = [
  { name: "ANGLE_UNIT_TYPE_NOT_SPECIFIED", number: 0, unit: null },
  { name: "ANGLE_UNIT_TYPE_DEGREES", number: 1, unit: "deg" },
  { name: "ANGLE_UNIT_TYPE_RADIANS", number: 2, unit: "rad" }
] as const

/** The MeasurementType enum's zero value, which names no measurement. */
export const SESSION_MEASUREMENT_UNSPECIFIED = { name: "MEASUREMENT_TYPE_UNSPECIFIED", number: 0 } as const

/** A MeasurementType value: its name and number. */
export interface SessionSpelling {
  readonly name: string
  readonly number: number
}

/** A stat's MeasurementType value, with the UnitType spec 02 gives it. */
export interface SessionStatSpelling extends SessionSpelling {
  readonly unit: SessionUnit
}

/** The posture parts' names (FrontPostureName, RightPostureName). */
export const SESSION_POSTURE: PostureSpellings = {
  front: { ear: "EAR", shoulder: "SHOULDER", topHip: "TOP_HIP", foot: "FOOT" },
  right: { bodyLine: "BODY_LINE", backWaistLine: "BACK_WAIST_LINE" }
}

export const sessionDialect: Dialect<SessionSpelling, SessionStatSpelling> = makeDialect<SessionSpelling, SessionStatSpelling>({
  api: "session",
  measurements: {
    acrossBackShoulderWidth: { name: "ACROSS_BACK_SHOULDER_WIDTH", number: 6 },
    backNeckHeight: { name: "BACK_NECK_HEIGHT", number: 33 },
    backNeckPointToGroundContoured: { name: "BACK_NECK_POINT_TO_GROUND_CONTOURED", number: 27 },
    backNeckPointToWaist: { name: "BACK_NECK_POINT_TO_WAIST", number: 15 },
    backNeckPointToWristLengthR: { name: "BACK_NECK_POINT_TO_WRIST_R", number: 8 },
    bellyWaistDepth: { name: "BELLY_WAIST_DEPTH", number: 38 },
    bellyWaistGirth: { name: "BELLY_WAIST_GIRTH", number: 13 },
    bellyWaistHeight: { name: "BELLY_WAIST_HEIGHT", number: 36 },
    bellyWaistWidth: { name: "BELLY_WAIST_WIDTH", number: 37 },
    bustGirth: { name: "BUST_GIRTH", number: 10 },
    bustHeight: { name: "BUST_HEIGHT", number: 29 },
    calfGirthR: { name: "CALF_GIRTH_R", number: 21 },
    forearmGirthR: { name: "FOREARM_GIRTH_R", number: 34 },
    hipGirth: { name: "HIP_GIRTH", number: 17 },
    hipHeight: { name: "HIP_HEIGHT", number: 30 },
    insideLegHeight: { name: "INSIDE_LEG_HEIGHT", number: 23 },
    insideLegLengthR: { name: "INSIDE_LEG_LENGTH_R", number: 24 },
    kneeGirthR: { name: "KNEE_GIRTH_R", number: 20 },
    kneeHeightR: { name: "KNEE_HEIGHT_R", number: 28 },
    midThighGirthR: { name: "MID_THIGH_GIRTH_R", number: 19 },
    neckBaseGirth: { name: "NECK_BASE_GIRTH", number: 5 },
    neckGirth: { name: "NECK_GIRTH", number: 4 },
    outerAnkleHeightR: { name: "OUTER_ANKLE_HEIGHT_R", number: 26 },
    outerArmLengthR: { name: "OUTER_ARM_LENGTH_R", number: 9 },
    outseamR: { name: "OUTSEAM_R", number: 25 },
    outsideLegLengthR: { name: "OUTSIDE_LEG_LENGTH_R", number: 22 },
    shoulderToElbowR: { name: "SHOULDER_TO_ELBOW_R", number: 35 },
    thighGirthR: { name: "THIGH_GIRTH_R", number: 18 },
    topHipGirth: { name: "TOP_HIP_GIRTH", number: 16 },
    topHipHeight: { name: "TOP_HIP_HEIGHT", number: 32 },
    underBustGirth: { name: "UNDER_BUST_GIRTH", number: 11 },
    upperArmGirthR: { name: "UPPER_ARM_GIRTH_R", number: 7 },
    waistGirth: { name: "WAIST_GIRTH", number: 12 },
    waistHeight: { name: "WAIST_HEIGHT", number: 31 },
    wristGirthR: { name: "WRIST_GIRTH_R", number: 14 }
  },
  stats: {
    "composition.skeletalMuscleMassG": { name: "SKELETAL_MUSCLE_MASS", number: 1, unit: SESSION_UNITS.mass },
    "composition.bodyFatPercent": { name: "BODY_FAT_PERCENTAGE", number: 2, unit: SESSION_UNITS.percentE4 },
    "subject.weightG": { name: "WEIGHT", number: 3, unit: SESSION_UNITS.mass },
    "subject.age": { name: "AGE", number: 39, unit: SESSION_UNITS.years },
    "subject.gender": { name: "GENDER", number: 40, unit: SESSION_UNITS.gender },
    "subject.heightMm": { name: "HEIGHT", number: 41, unit: SESSION_UNITS.length }
  },
  posture: SESSION_POSTURE
})
