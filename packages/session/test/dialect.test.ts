import { existsSync, readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { MEASUREMENT_NAMES } from "@scanbridge/model"
import { SESSION_ANGLE_UNITS, SESSION_MEASUREMENT_UNSPECIFIED, SESSION_POSTURE, SESSION_UNITS, sessionDialect } from "../src/index.js"

// Spec 02's lines, quoted as they are, and parsed below: a spelling that drifts from them fails.
// Where the document itself is at hand (beside the repository), the quotes are checked against it.
const SPEC = {
  unitType:
    "UnitType: MILLIMETERS (length; 123456 = 123456 mm), GRAMS (weight), PERCENTAGE_E4 (percentage times 10^4; 123456 = 12.3456%), YEARS (duration), GENDER (1 = male, 2 = female); UNIT_TYPE_UNSPECIFIED = 0.",
  measurementType:
    "MeasurementType (enum numbers): 1 SKELETAL_MUSCLE_MASS (grams), 2 BODY_FAT_PERCENTAGE (PERCENTAGE_E4), 3 WEIGHT (grams), 4 NECK_GIRTH, 5 NECK_BASE_GIRTH, 6 ACROSS_BACK_SHOULDER_WIDTH, 7 UPPER_ARM_GIRTH_R, 8 BACK_NECK_POINT_TO_WRIST_R, 9 OUTER_ARM_LENGTH_R, 10 BUST_GIRTH, 11 UNDER_BUST_GIRTH, 12 WAIST_GIRTH, 13 BELLY_WAIST_GIRTH, 14 WRIST_GIRTH_R, 15 BACK_NECK_POINT_TO_WAIST, 16 TOP_HIP_GIRTH, 17 HIP_GIRTH, 18 THIGH_GIRTH_R, 19 MID_THIGH_GIRTH_R, 20 KNEE_GIRTH_R, 21 CALF_GIRTH_R, 22 OUTSIDE_LEG_LENGTH_R, 23 INSIDE_LEG_HEIGHT, 24 INSIDE_LEG_LENGTH_R, 25 OUTSEAM_R, 26 OUTER_ANKLE_HEIGHT_R, 27 BACK_NECK_POINT_TO_GROUND_CONTOURED, 28 KNEE_HEIGHT_R, 29 BUST_HEIGHT, 30 HIP_HEIGHT, 31 WAIST_HEIGHT, 32 TOP_HIP_HEIGHT, 33 BACK_NECK_HEIGHT, 34 FOREARM_GIRTH_R, 35 SHOULDER_TO_ELBOW_R, 36 BELLY_WAIST_HEIGHT, 37 BELLY_WAIST_WIDTH, 38 BELLY_WAIST_DEPTH, 39 AGE (YEARS), 40 GENDER (GENDER), 41 HEIGHT (MILLIMETERS); 0 MEASUREMENT_TYPE_UNSPECIFIED. All other types are lengths or girths in MILLIMETERS.",
  angleUnitType: "AngleUnitType: ANGLE_UNIT_TYPE_NOT_SPECIFIED = 0, ANGLE_UNIT_TYPE_DEGREES = 1, ANGLE_UNIT_TYPE_RADIANS = 2.",
  front:
    "| front | angles[] | `{name, value (double), unit}`; name in EAR, SHOULDER, TOP_HIP, FOOT (MEASUREMENT_NAME_NOT_SPECIFIED = 0). Counterclockwise angle of each landmark pair (left to right in the image, right to left on the body) from horizontal. |",
  right: "| right | angles[] | `{name, angles: [double], unit}`; name in BODY_LINE, BACK_WAIST_LINE. Clockwise angle of two connected landmarks (lower to higher) from vertical. |"
}

const DOCUMENT = new URL("../../../../shared/spec/02-legacy-session-and-estimation-api.md", import.meta.url)
const document = existsSync(DOCUMENT) ? readFileSync(DOCUMENT, "utf8").split("\n") : null

// "1 SKELETAL_MUSCLE_MASS (grams)" -> its number, name and the unit it states (MILLIMETERS otherwise).
const ENUM = [...SPEC.measurementType.matchAll(/(\d+) ([A-Z0-9_]+)(?: \((\w+)\))?/g)].map(([, n, name, unit]) => ({
  number: Number(n),
  name: name!,
  unit: (unit ?? "MILLIMETERS").toUpperCase()
}))
const namesIn = (line: string) => /name in ([A-Z_]+(?:, [A-Z_]+)*)/.exec(line)![1]!.split(", ")

describe("the session dialect, pinned to spec 02", () => {
  it.skipIf(document === null)("quotes the document as it is", () => {
    for (const line of Object.values(SPEC)) expect(document).toContain(line)
  })

  it("spells every measurement and stat as MeasurementType does, with its number", () => {
    const fromDialect = [...sessionDialect.measurementList, ...sessionDialect.statList].map((m) => ({ number: m.spelling.number, name: m.spelling.name }))
    const documented = ENUM.filter((e) => e.number !== 0).map(({ number, name }) => ({ number, name }))
    expect(documented).toHaveLength(41)
    expect(fromDialect.sort((a, b) => a.number - b.number)).toEqual(documented)
    expect(sessionDialect.measurementList).toHaveLength(MEASUREMENT_NAMES.length)
    expect(ENUM.find((e) => e.number === 0)!.name).toBe(SESSION_MEASUREMENT_UNSPECIFIED.name)
  })

  it("gives each stat the UnitType the document gives it, and lengths MILLIMETERS", () => {
    const unitOf = new Map(ENUM.map((e) => [e.name, e.unit]))
    for (const { spelling } of sessionDialect.statList) expect(spelling.unit).toBe(unitOf.get(spelling.name))
    for (const { spelling } of sessionDialect.measurementList) expect(unitOf.get(spelling.name)).toBe(SESSION_UNITS.length)
  })

  it("spells the units as UnitType and AngleUnitType do", () => {
    const { unspecified, ...named } = SESSION_UNITS
    const unitNames = [...SPEC.unitType.matchAll(/([A-Z0-9_]+) \(/g)].map(([, name]) => name)
    expect(Object.values(named).sort()).toEqual(unitNames.sort())
    expect(SPEC.unitType).toContain(`${unspecified.name} = ${unspecified.number}.`)
    const angleUnits = [...SPEC.angleUnitType.matchAll(/([A-Z_]+) = (\d+)/g)].map(([, name, n]) => [name, Number(n)])
    expect(SESSION_ANGLE_UNITS.map((u) => [u.name, u.number])).toEqual(angleUnits)
  })

  it("names the posture parts as the posture table does", () => {
    expect(Object.values(SESSION_POSTURE.front)).toEqual(namesIn(SPEC.front))
    expect(Object.values(SESSION_POSTURE.right)).toEqual(namesIn(SPEC.right))
  })
})
