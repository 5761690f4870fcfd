import { existsSync, readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Catalogue } from "@scanbridge/model"
import { Wire, estimationDialect } from "../src/index.js"

// Spec 02's lines, quoted as they are, and parsed below: a spelling that drifts from them fails.
// Where the document itself is at hand (beside the repository), the quotes are checked against it.
const SPEC = {
  measurement:
    "`measurement` keys (all integers): across_back_shoulder_width, back_neck_height, back_neck_point_to_ground_contoured, back_neck_point_to_waist, back_neck_point_to_wrist_length_r, belly_waist_girth, belly_waist_height, bust_girth, bust_height, calf_girth_r, forearm_girth_r, hip_girth, hip_height, inside_leg_height, inside_leg_length_r, knee_girth_r, knee_height_r, mid_thigh_girth_r, neck_base_girth, neck_girth, outer_ankle_height_r, outer_arm_length_r, outseam_r, outside_leg_length_r, shoulder_to_elbow_r, thigh_girth_r, top_hip_girth, top_hip_height, under_bust_girth, upper_arm_girth_r, waist_girth, waist_height, wrist_girth_r. Units and scale of these values and of body composition values: not shown.",
  composition: "`body_composition`: body_fat_percentage (integer), skeletal_muscle_mass (integer).",
  input:
    "`estimation` fields: code (integer; 101 is shown on a completed success), input `{age, gender, height, weight}`, result (on success only), status, version, work_id. On success `result` = `{body_composition, measurement, status: success, version, work_id}`. On failure the estimation has status `fail` and a numeric code (306 is shown) and no `result`."
}

const DOCUMENT = new URL("../../../../shared/spec/02-legacy-session-and-estimation-api.md", import.meta.url)
const document = existsSync(DOCUMENT) ? readFileSync(DOCUMENT, "utf8").split("\n") : null

const KEYS = /: ([a-z_, ]+)\./.exec(SPEC.measurement)![1]!.split(", ")
const COMPOSITION = [...SPEC.composition.matchAll(/([a-z_]+) \(integer\)/g)].map(([, key]) => key)
const INPUT = /input `\{([a-z, ]+)\}`/.exec(SPEC.input)![1]!.split(", ")

describe("the estimation dialect, pinned to spec 02", () => {
  it.skipIf(document === null)("quotes the document as it is", () => {
    for (const line of Object.values(SPEC)) expect(document).toContain(line)
  })

  it("spells the measurements as the measurement keys; bellyWaistWidth and bellyWaistDepth have none", () => {
    expect(KEYS).toHaveLength(33)
    expect(estimationDialect.measurementList.map((m) => m.spelling.name).sort()).toEqual([...KEYS].sort())
    expect(Catalogue.measurements.filter((e) => estimationDialect.measurements[e.name] === null).map((e) => e.name)).toEqual(["bellyWaistDepth", "bellyWaistWidth"])
    expect([...Wire.MEASUREMENT_KEYS.keys()].sort()).toEqual([...KEYS].sort())
  })

  it("spells the stats as estimation.input and the composition as result.body_composition", () => {
    const stats = Object.fromEntries(estimationDialect.statList.map((s) => [s.target, s.spelling.name]))
    expect(Object.entries(stats).filter(([t]) => t.startsWith("subject.")).map(([, key]) => key).sort()).toEqual([...INPUT].sort())
    expect(Object.entries(stats).filter(([t]) => t.startsWith("composition.")).map(([, key]) => key).sort()).toEqual([...COMPOSITION].sort())
    expect(stats).toEqual({
      "composition.skeletalMuscleMassG": "skeletal_muscle_mass",
      "composition.bodyFatPercent": "body_fat_percentage",
      "subject.weightG": "weight",
      "subject.age": "age",
      "subject.gender": "gender",
      "subject.heightMm": "height"
    })
  })
})
