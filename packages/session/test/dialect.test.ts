import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { MEASUREMENT_NAMES } from "@scanbridge/model"
import { SESSION_ANGLE_UNITS, SESSION_MEASUREMENT_UNSPECIFIED, SESSION_POSTURE, SESSION_UNITS, sessionDialect } from "../src/index.js"

// Spec 02's enums, transcribed in vendor/session-api.json: a spelling or number that drifts from them fails.
interface Enumerated {
  readonly name: string
  readonly number: number
}
const SPEC: {
  readonly unitType: { readonly unspecified: Enumerated; readonly names: ReadonlyArray<string> }
  readonly measurementType: { readonly unspecified: Enumerated; readonly values: ReadonlyArray<Enumerated & { readonly unit: string }> }
  readonly angleUnitType: ReadonlyArray<Enumerated>
  readonly posture: { readonly front: ReadonlyArray<string>; readonly right: ReadonlyArray<string> }
} = JSON.parse(readFileSync(new URL("vendor/session-api.json", import.meta.url), "utf8"))

describe("the session dialect, pinned to spec 02", () => {
  it("spells every measurement and stat as MeasurementType does, with its number", () => {
    const fromDialect = [...sessionDialect.measurementList, ...sessionDialect.statList].map((m) => ({ number: m.spelling.number, name: m.spelling.name }))
    const documented = SPEC.measurementType.values.map(({ number, name }) => ({ number, name }))
    expect(documented).toHaveLength(41)
    expect(fromDialect.sort((a, b) => a.number - b.number)).toEqual(documented)
    expect(sessionDialect.measurementList).toHaveLength(MEASUREMENT_NAMES.length)
    expect(SESSION_MEASUREMENT_UNSPECIFIED).toEqual(SPEC.measurementType.unspecified)
  })

  it("gives each stat the UnitType the document gives it, and lengths MILLIMETERS", () => {
    const unitOf = new Map(SPEC.measurementType.values.map((e) => [e.name, e.unit]))
    for (const { spelling } of sessionDialect.statList) expect(spelling.unit).toBe(unitOf.get(spelling.name))
    for (const { spelling } of sessionDialect.measurementList) expect(unitOf.get(spelling.name)).toBe(SESSION_UNITS.length)
  })

  it("spells the units as UnitType and AngleUnitType do", () => {
    const { unspecified, ...named } = SESSION_UNITS
    expect(Object.values(named).sort()).toEqual([...SPEC.unitType.names].sort())
    expect(unspecified).toEqual(SPEC.unitType.unspecified)
    expect(SESSION_ANGLE_UNITS.map((u) => ({ name: u.name, number: u.number }))).toEqual(SPEC.angleUnitType)
  })

  it("names the posture parts as the posture table does", () => {
    expect(Object.values(SESSION_POSTURE.front)).toEqual(SPEC.posture.front)
    expect(Object.values(SESSION_POSTURE.right)).toEqual(SPEC.posture.right)
  })
})
