import { FastCheck as fc } from "effect"
import { describe, expect, it } from "@effect/vitest"
import {
  Catalogue,
  MEASUREMENTS,
  MEASUREMENT_NAMES,
  POSTURE_FRONT,
  POSTURE_RIGHT,
  SESSION_ANGLE_UNITS,
  STATS,
  WIRE_UNITS
} from "../src/index.js"

// The lists below are written out as the vendor's documents give them (../shared/spec), so a
// typo on either side fails. They are the only copies outside the catalogue, on purpose.

// Spec 01, "Measurement names".
const PLATFORM_NAMES = `acrossBackShoulderWidth, backNeckHeight, backNeckPointToGroundContoured, backNeckPointToWaist,
backNeckPointToWristLengthR, bellyWaistDepth, bellyWaistGirth, bellyWaistHeight, bellyWaistWidth, bustGirth, bustHeight,
calfGirthR, forearmGirthR, hipGirth, hipHeight, insideLegHeight, insideLegLengthR, kneeGirthR, kneeHeightR, midThighGirthR,
neckBaseGirth, neckGirth, outerAnkleHeightR, outerArmLengthR, outseamR, outsideLegLengthR, shoulderToElbowR, thighGirthR,
topHipGirth, topHipHeight, underBustGirth, upperArmGirthR, waistGirth, waistHeight, wristGirthR`.split(/,\s*/)

// Spec 02, "MeasurementType (enum numbers)".
const SESSION_ENUM = `1 SKELETAL_MUSCLE_MASS, 2 BODY_FAT_PERCENTAGE, 3 WEIGHT, 4 NECK_GIRTH, 5 NECK_BASE_GIRTH,
6 ACROSS_BACK_SHOULDER_WIDTH, 7 UPPER_ARM_GIRTH_R, 8 BACK_NECK_POINT_TO_WRIST_R, 9 OUTER_ARM_LENGTH_R, 10 BUST_GIRTH,
11 UNDER_BUST_GIRTH, 12 WAIST_GIRTH, 13 BELLY_WAIST_GIRTH, 14 WRIST_GIRTH_R, 15 BACK_NECK_POINT_TO_WAIST, 16 TOP_HIP_GIRTH,
17 HIP_GIRTH, 18 THIGH_GIRTH_R, 19 MID_THIGH_GIRTH_R, 20 KNEE_GIRTH_R, 21 CALF_GIRTH_R, 22 OUTSIDE_LEG_LENGTH_R,
23 INSIDE_LEG_HEIGHT, 24 INSIDE_LEG_LENGTH_R, 25 OUTSEAM_R, 26 OUTER_ANKLE_HEIGHT_R, 27 BACK_NECK_POINT_TO_GROUND_CONTOURED,
28 KNEE_HEIGHT_R, 29 BUST_HEIGHT, 30 HIP_HEIGHT, 31 WAIST_HEIGHT, 32 TOP_HIP_HEIGHT, 33 BACK_NECK_HEIGHT, 34 FOREARM_GIRTH_R,
35 SHOULDER_TO_ELBOW_R, 36 BELLY_WAIST_HEIGHT, 37 BELLY_WAIST_WIDTH, 38 BELLY_WAIST_DEPTH, 39 AGE, 40 GENDER, 41 HEIGHT`
  .split(/,\s*/)
  .map((s) => {
    const [n, name] = s.split(" ")
    return { number: Number(n), name: name! }
  })

// Spec 02, "measurement keys (all integers)".
const ESTIMATION_KEYS = `across_back_shoulder_width, back_neck_height, back_neck_point_to_ground_contoured,
back_neck_point_to_waist, back_neck_point_to_wrist_length_r, belly_waist_girth, belly_waist_height, bust_girth, bust_height,
calf_girth_r, forearm_girth_r, hip_girth, hip_height, inside_leg_height, inside_leg_length_r, knee_girth_r, knee_height_r,
mid_thigh_girth_r, neck_base_girth, neck_girth, outer_ankle_height_r, outer_arm_length_r, outseam_r, outside_leg_length_r,
shoulder_to_elbow_r, thigh_girth_r, top_hip_girth, top_hip_height, under_bust_girth, upper_arm_girth_r, waist_girth,
waist_height, wrist_girth_r`.split(/,\s*/)

// Spec 03, "estimationType values".
const FIT_TYPES = `AGE, GENDER, WEIGHT, HEIGHT, ACROSS_BACK_SHOULDER_WIDTH, BACK_NECK_HEIGHT, BACK_NECK_POINT_TO_GROUND_CONTOURED,
BACK_NECK_POINT_TO_WAIST, BACK_NECK_POINT_TO_WRIST_R, BELLY_WAIST_GIRTH, BELLY_WAIST_HEIGHT, BUST_GIRTH, BUST_HEIGHT,
CALF_GIRTH_R, FOREARM_GIRTH_R, HIP_GIRTH, HIP_HEIGHT, INSIDE_LEG_HEIGHT, INSIDE_LEG_LENGTH_R, KNEE_GIRTH_R, KNEE_HEIGHT_R,
MID_THIGH_GIRTH_R, NECK_BASE_GIRTH, NECK_GIRTH, OUTER_ANKLE_HEIGHT_R, OUTER_ARM_LENGTH_R, OUTSEAM_R, OUTSIDE_LEG_LENGTH_R,
SHOULDER_TO_ELBOW_R, THIGH_GIRTH_R, TOP_HIP_GIRTH, TOP_HIP_HEIGHT, UNDER_BUST_GIRTH, UPPER_ARM_GIRTH_R, WAIST_GIRTH,
WAIST_HEIGHT, WRIST_GIRTH_R`.split(/,\s*/)

describe("catalogue pinned to the spec", () => {
  it("has the platform's 35 names, in the platform's order", () => {
    expect(PLATFORM_NAMES).toHaveLength(35)
    expect(MEASUREMENT_NAMES).toEqual(PLATFORM_NAMES)
  })

  it("has every session MeasurementType name and number", () => {
    const fromCatalogue = [
      ...MEASUREMENTS.map((e) => e.session),
      ...STATS.map((s) => ({ name: s.session.name, number: s.session.number }))
    ].sort((a, b) => a.number - b.number)
    expect(fromCatalogue).toEqual(SESSION_ENUM)
  })

  it("has the 33 estimation keys; bellyWaistWidth and bellyWaistDepth have none", () => {
    expect(MEASUREMENTS.flatMap((e) => (e.estimation === null ? [] : [e.estimation])).sort()).toEqual([...ESTIMATION_KEYS].sort())
    expect(MEASUREMENTS.filter((e) => e.estimation === null).map((e) => e.name)).toEqual(["bellyWaistDepth", "bellyWaistWidth"])
  })

  it("has every fit estimationType; the same two measurements are missing", () => {
    const fromCatalogue = [
      ...STATS.flatMap((s) => (s.fit ? [s.fit.name] : [])),
      ...MEASUREMENTS.flatMap((e) => (e.fit === null ? [] : [e.fit]))
    ]
    expect(fromCatalogue.sort()).toEqual([...FIT_TYPES].sort())
    expect(MEASUREMENTS.filter((e) => e.fit === null).map((e) => e.name)).toEqual(["bellyWaistDepth", "bellyWaistWidth"])
  })

  it("gives the stats their units and canonical places (spec 02 and 03)", () => {
    const units = Object.fromEntries(STATS.map((s) => [s.name, [s.session.unit, s.fit?.unit ?? null, s.target]]))
    expect(units).toEqual({
      SKELETAL_MUSCLE_MASS: ["GRAMS", null, "composition.skeletalMuscleMassG"],
      BODY_FAT_PERCENTAGE: ["PERCENTAGE_E4", null, "composition.bodyFatPercent"],
      WEIGHT: ["GRAMS", "GRAMS", "subject.weightG"],
      AGE: ["YEARS", "YEARS", "subject.age"],
      GENDER: ["GENDER", "GENDER", "subject.gender"],
      HEIGHT: ["MILLIMETERS", "MILLIMETERS", "subject.heightMm"]
    })
    expect(STATS.map((s) => [s.estimation, s.platform])).toEqual([
      ["skeletal_muscle_mass", "skeletalMuscleMass"],
      ["body_fat_percentage", "bodyFatPercentage"],
      ["weight", "weight"],
      ["age", "age"],
      ["gender", "gender"],
      ["height", "height"]
    ])
  })

  it("marks right-side measurements by the trailing R and kinds by the name", () => {
    for (const e of MEASUREMENTS) {
      expect(e.side).toBe(e.name.endsWith("R") ? "right" : "none")
      if (/Girth/.test(e.name)) expect(e.kind).toBe("girth")
      if (/Height/.test(e.name)) expect(e.kind).toBe("height")
    }
    const kinds = MEASUREMENTS.reduce<Record<string, number>>((acc, e) => ({ ...acc, [e.kind]: (acc[e.kind] ?? 0) + 1 }), {})
    expect(kinds).toEqual({ girth: 15, height: 9, length: 8, width: 2, depth: 1 })
  })

  it("keeps the ISO 8559-1 references the documents give", () => {
    const refs = Object.fromEntries(MEASUREMENTS.filter((e) => e.iso8559 !== null).map((e) => [e.name, e.iso8559]))
    expect(refs).toEqual({ kneeGirthR: "5.3.22", topHipGirth: "5.3.13", waistGirth: "5.3.10", underBustGirth: "5.3.8" })
  })

  it("spells units as each API does", () => {
    // Spec 01 units table and posture text; spec 02 UnitType and AngleUnitType; spec 03 units.
    expect(WIRE_UNITS.platform).toEqual({ length: "mm", percent: "percent", mass: "g", angle: "degrees", angleAliases: ["degree"] })
    expect(WIRE_UNITS.session).toEqual({
      length: "MILLIMETERS",
      mass: "GRAMS",
      percentE4: "PERCENTAGE_E4",
      years: "YEARS",
      gender: "GENDER",
      unspecified: { name: "UNIT_TYPE_UNSPECIFIED", number: 0 }
    })
    expect(WIRE_UNITS.fit).toEqual({ length: "MILLIMETERS", mass: "GRAMS", years: "YEARS", gender: "GENDER" })
    expect(SESSION_ANGLE_UNITS.map((u) => [u.name, u.number])).toEqual([
      ["ANGLE_UNIT_TYPE_NOT_SPECIFIED", 0],
      ["ANGLE_UNIT_TYPE_DEGREES", 1],
      ["ANGLE_UNIT_TYPE_RADIANS", 2]
    ])
  })

  it("names the posture parts as both APIs do", () => {
    expect(POSTURE_FRONT.map((p) => [p.name, p.session])).toEqual([
      ["ear", "EAR"],
      ["shoulder", "SHOULDER"],
      ["topHip", "TOP_HIP"],
      ["foot", "FOOT"]
    ])
    expect(POSTURE_RIGHT.map((p) => [p.name, p.session, p.points])).toEqual([
      ["bodyLine", "BODY_LINE", 5],
      ["backWaistLine", "BACK_WAIST_LINE", 4]
    ])
  })
})

describe("catalogue lookups are bijections on their domains", () => {
  const entry = fc.constantFrom(...MEASUREMENTS)

  it.prop("canonical name <-> every dialect", [entry], ([e]) => {
    expect(Catalogue.byName(e.name)).toBe(e)
    expect(Catalogue.entry(e.name)).toBe(e)
    expect(Catalogue.bySessionName(e.session.name)).toBe(e)
    expect(Catalogue.bySessionNumber(e.session.number)).toBe(e)
    if (e.estimation !== null) expect(Catalogue.byEstimationKey(e.estimation)).toBe(e)
    if (e.fit !== null) expect(Catalogue.byFitType(e.fit)).toBe(e)
  })

  it.prop("every dialect name <-> canonical name", [fc.constantFrom(...SESSION_ENUM)], ([s]) => {
    const measurement = Catalogue.bySessionNumber(s.number)
    const stat = Catalogue.statBySessionNumber(s.number)
    // Each enum value is exactly one of a measurement or a stat, and the name agrees.
    expect((measurement === undefined) !== (stat === undefined)).toBe(true)
    expect(measurement?.session.name ?? stat?.session.name).toBe(s.name)
    expect(Catalogue.bySessionName(s.name) ?? Catalogue.statBySessionName(s.name)).toBe(measurement ?? stat)
  })

  it.prop("estimation key -> entry -> estimation key", [fc.constantFrom(...ESTIMATION_KEYS)], ([key]) => {
    expect(Catalogue.byEstimationKey(key)?.estimation).toBe(key)
  })

  it.prop("fit type -> entry -> fit type", [fc.constantFrom(...FIT_TYPES)], ([type]) => {
    const found = Catalogue.byFitType(type)?.fit ?? Catalogue.statByFitType(type)?.fit?.name
    expect(found).toBe(type)
  })

  it.prop("each stat's canonical target leads back to it", [fc.constantFrom(...STATS)], ([s]) => {
    expect(Catalogue.statByTarget(s.target)).toBe(s)
    expect(Catalogue.statBySessionName(s.session.name)).toBe(s)
  })

  it.prop("names outside a dialect are not found", [fc.string()], ([s]) => {
    fc.pre(!PLATFORM_NAMES.includes(s))
    expect(Catalogue.byName(s)).toBeUndefined()
    expect(Catalogue.isMeasurementName(s)).toBe(false)
    if (!SESSION_ENUM.some((e) => e.name === s)) {
      expect(Catalogue.bySessionName(s) ?? Catalogue.statBySessionName(s)).toBeUndefined()
    }
    if (!ESTIMATION_KEYS.includes(s)) expect(Catalogue.byEstimationKey(s)).toBeUndefined()
  })

  it.prop("suggest finds a measurement from any dialect's spelling", [fc.constantFrom(...MEASUREMENTS)], ([e]) => {
    for (const spelling of [e.name, e.session.name, e.estimation, e.fit, e.name.toUpperCase()]) {
      if (spelling !== null) expect(Catalogue.suggest(spelling)).toBe(e)
    }
  })

  it.prop("enum numbers outside 1..41 are not found", [fc.integer()], ([n]) => {
    fc.pre(n < 1 || n > 41)
    expect(Catalogue.bySessionNumber(n) ?? Catalogue.statBySessionNumber(n)).toBeUndefined()
  })
})
