import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Catalogue } from "@scanbridge/model"
import { FITTING_POINTS, FIT_UNITS, fitDialect, fittingPointDisplayName } from "../src/index.js"

// Spec 03's estimation types, units and fitting points, transcribed in vendor/fit-dialect.json: a
// spelling that drifts from them fails.
const SPEC: {
  readonly estimationTypes: ReadonlyArray<string>
  readonly unitOf: Readonly<Record<string, string>>
  readonly unitOfOthers: string
  readonly units: ReadonlyArray<string>
  readonly fittingPoints: ReadonlyArray<{ readonly name: string; readonly displayName: string }>
} = JSON.parse(readFileSync(new URL("vendor/fit-dialect.json", import.meta.url), "utf8"))

// The document gives a unit to a few types and one to all the others.
const unitOf = (type: string) => (Object.hasOwn(SPEC.unitOf, type) ? SPEC.unitOf[type] : SPEC.unitOfOthers)

describe("the fit dialect, pinned to spec 03", () => {
  it("spells every measurement and stat as an estimationType; bellyWaistWidth and bellyWaistDepth have none", () => {
    const spelled = [...fitDialect.statList, ...fitDialect.measurementList].map((m) => m.spelling.name)
    expect(SPEC.estimationTypes).toHaveLength(37)
    expect(spelled.sort()).toEqual([...SPEC.estimationTypes].sort())
    expect(Catalogue.measurements.filter((e) => fitDialect.measurements[e.name] === null).map((e) => e.name)).toEqual(["bellyWaistDepth", "bellyWaistWidth"])
  })

  it("gives each stat the unit the document gives it, lengths included", () => {
    for (const { spelling } of fitDialect.statList) expect(spelling.unit).toBe(unitOf(spelling.name))
    for (const { spelling } of fitDialect.measurementList) expect(unitOf(spelling.name)).toBe(FIT_UNITS.length)
    expect(Object.values(FIT_UNITS).sort()).toEqual([...SPEC.units].sort())
  })

  it("lists the fitting points with their display names", () => {
    expect(FITTING_POINTS.map((p) => ({ name: p.name, displayName: p.displayName }))).toEqual(SPEC.fittingPoints)
    for (const p of SPEC.fittingPoints) expect(fittingPointDisplayName(p.name)).toBe(p.displayName)
    expect(fittingPointDisplayName("toString")).toBeUndefined()
  })
})
