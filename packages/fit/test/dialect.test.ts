import { existsSync, readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Catalogue } from "@scanbridge/model"
import { FITTING_POINTS, FIT_UNITS, fitDialect, fittingPointDisplayName } from "../src/index.js"

// Spec 03's lines, quoted as they are, and parsed below: a spelling that drifts from them fails.
// Where the document itself is at hand (beside the repository), the quotes are checked against it.
const SPEC = {
  types:
    "`estimationType` values: AGE, GENDER, WEIGHT, HEIGHT, ACROSS_BACK_SHOULDER_WIDTH, BACK_NECK_HEIGHT, BACK_NECK_POINT_TO_GROUND_CONTOURED, BACK_NECK_POINT_TO_WAIST, BACK_NECK_POINT_TO_WRIST_R, BELLY_WAIST_GIRTH, BELLY_WAIST_HEIGHT, BUST_GIRTH, BUST_HEIGHT, CALF_GIRTH_R, FOREARM_GIRTH_R, HIP_GIRTH, HIP_HEIGHT, INSIDE_LEG_HEIGHT, INSIDE_LEG_LENGTH_R, KNEE_GIRTH_R, KNEE_HEIGHT_R, MID_THIGH_GIRTH_R, NECK_BASE_GIRTH, NECK_GIRTH, OUTER_ANKLE_HEIGHT_R, OUTER_ARM_LENGTH_R, OUTSEAM_R, OUTSIDE_LEG_LENGTH_R, SHOULDER_TO_ELBOW_R, THIGH_GIRTH_R, TOP_HIP_GIRTH, TOP_HIP_HEIGHT, UNDER_BUST_GIRTH, UPPER_ARM_GIRTH_R, WAIST_GIRTH, WAIST_HEIGHT, WRIST_GIRTH_R. Units: AGE YEARS, GENDER GENDER, WEIGHT GRAMS, all others MILLIMETERS (HEIGHT included).",
  units: "- `unit` values: MILLIMETERS, GRAMS, YEARS, GENDER (GENDER value is 1 for male, 2 for female).",
  fittingPoints:
    "Fitting points (with display name): NECK_GIRTH Neck; SHOULDER_WIDTH Shoulders; SLEEVE_LENGTH_CENTER_BACK Sleeve; SLEEVE_LENGTH Sleeve; CHEST Chest Width; BODY_WIDTH Chest Width; WAIST Waist; HIP Hips; INSEAM Inseam; THIGH_GIRTH Thigh; DRESS_LENGTH, SKIRT_LENGTH, MINISKIRT_LENGTH, HALF_CALF_SKIRT_LENGTH, ANKLE_SKIRT_LENGTH, ANKLE_DRESS_LENGTH, BODY_LENGTH all Length; UNDERBUST Underbust."
}

const DOCUMENT = new URL("../../../../shared/spec/03-fit-service-and-client-library.md", import.meta.url)
const document = existsSync(DOCUMENT) ? readFileSync(DOCUMENT, "utf8").split("\n") : null

const [typeList, unitList] = SPEC.types.split(". Units: ")
const TYPES = typeList!.slice(typeList!.indexOf(": ") + 2).split(", ")
// "AGE YEARS, GENDER GENDER, WEIGHT GRAMS, all others MILLIMETERS": a type's unit, or the others'.
const UNIT_RULES = unitList!.split(", ").map((rule) => rule.split(" "))
const unitOf = (type: string) => UNIT_RULES.find(([t]) => t === type)?.[1] ?? UNIT_RULES.find(([t]) => t === "all")![2]!
const UNITS = /values: ([A-Z, ]+) \(/.exec(SPEC.units)![1]!.split(", ")
// "NECK_GIRTH Neck; ...; DRESS_LENGTH, SKIRT_LENGTH ... all Length": each point with its display name.
const POINTS = SPEC.fittingPoints
  .slice(SPEC.fittingPoints.indexOf(": ") + 2, -1)
  .split("; ")
  .flatMap((group) => {
    const all = / all (.+)$/.exec(group)
    if (all !== null) return group.slice(0, all.index).split(", ").map((name) => ({ name, displayName: all[1]! }))
    const space = group.indexOf(" ")
    return [{ name: group.slice(0, space), displayName: group.slice(space + 1) }]
  })

describe("the fit dialect, pinned to spec 03", () => {
  it.skipIf(document === null)("quotes the document as it is", () => {
    for (const line of Object.values(SPEC)) expect(document).toContain(line)
  })

  it("spells every measurement and stat as an estimationType; bellyWaistWidth and bellyWaistDepth have none", () => {
    const spelled = [...fitDialect.statList, ...fitDialect.measurementList].map((m) => m.spelling.name)
    expect(TYPES).toHaveLength(37)
    expect(spelled.sort()).toEqual([...TYPES].sort())
    expect(Catalogue.measurements.filter((e) => fitDialect.measurements[e.name] === null).map((e) => e.name)).toEqual(["bellyWaistDepth", "bellyWaistWidth"])
  })

  it("gives each stat the unit the document gives it, lengths included", () => {
    for (const { spelling } of fitDialect.statList) expect(spelling.unit).toBe(unitOf(spelling.name))
    for (const { spelling } of fitDialect.measurementList) expect(unitOf(spelling.name)).toBe(FIT_UNITS.length)
    expect(Object.values(FIT_UNITS).sort()).toEqual([...UNITS].sort())
  })

  it("lists the fitting points with their display names", () => {
    expect(FITTING_POINTS.map((p) => ({ name: p.name, displayName: p.displayName }))).toEqual(POINTS)
    for (const p of POINTS) expect(fittingPointDisplayName(p.name)).toBe(p.displayName)
    expect(fittingPointDisplayName("toString")).toBeUndefined()
  })
})
