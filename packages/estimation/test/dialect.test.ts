import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Catalogue } from "@scanbridge/model"
import { Wire, estimationDialect } from "../src/index.js"

// Spec 02's keys of the estimation read response, transcribed in vendor/estimation-api.json: a
// spelling that drifts from them fails.
const SPEC: {
  readonly input: ReadonlyArray<string>
  readonly bodyComposition: ReadonlyArray<string>
  readonly measurement: ReadonlyArray<string>
} = JSON.parse(readFileSync(new URL("vendor/estimation-api.json", import.meta.url), "utf8"))

describe("the estimation dialect, pinned to spec 02", () => {
  it("spells the measurements as the measurement keys; bellyWaistWidth and bellyWaistDepth have none", () => {
    expect(SPEC.measurement).toHaveLength(33)
    expect(estimationDialect.measurementList.map((m) => m.spelling.name).sort()).toEqual([...SPEC.measurement].sort())
    expect(Catalogue.measurements.filter((e) => estimationDialect.measurements[e.name] === null).map((e) => e.name)).toEqual([
      "bellyWaistDepth",
      "bellyWaistWidth"
    ])
    expect([...Wire.MEASUREMENT_KEYS.keys()].sort()).toEqual([...SPEC.measurement].sort())
  })

  it("spells the stats as estimation.input and the composition as result.body_composition", () => {
    const stats = Object.fromEntries(estimationDialect.statList.map((s) => [s.target, s.spelling.name]))
    expect(
      Object.entries(stats)
        .filter(([t]) => t.startsWith("subject."))
        .map(([, key]) => key)
        .sort()
    ).toEqual([...SPEC.input].sort())
    expect(
      Object.entries(stats)
        .filter(([t]) => t.startsWith("composition."))
        .map(([, key]) => key)
        .sort()
    ).toEqual([...SPEC.bodyComposition].sort())
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
