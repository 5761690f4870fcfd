import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { MEASUREMENT_NAMES } from "@scanbridge/model"
import { PLATFORM_POSTURE, PLATFORM_UNITS, platformDialect } from "../src/index.js"

// Spec 01's spellings (and spec 03's for the client library's composition), transcribed in
// vendor/dialect.json: a spelling that drifts from them fails.
const SPEC: {
  readonly measurementNames: ReadonlyArray<string>
  readonly units: {
    readonly measurementItem: string
    readonly bodyFatPercentage: string
    readonly bodyFatMass: string
    readonly leanMass: string
    readonly postureAngles: string
    readonly postureAnglesInTheConventionsTable: string
  }
  readonly statsEstimations: ReadonlyArray<{ readonly field: string; readonly unit?: string }>
  readonly posture: { readonly front: ReadonlyArray<string>; readonly right: ReadonlyArray<string> }
  readonly clientLibraryEntryBodyComposition: ReadonlyArray<string>
} = JSON.parse(readFileSync(new URL("vendor/dialect.json", import.meta.url), "utf8"))

// The canonical field a stat's documented unit belongs in ends with that unit's name.
const CANONICAL_SUFFIX: Readonly<Record<string, string>> = { years: "age", mm: "Mm", g: "G" }

describe("the platform dialect, pinned to spec 01 and 03", () => {
  it("spells the measurements by the catalogue's names, which are the name list's", () => {
    expect(SPEC.measurementNames).toHaveLength(35)
    expect(MEASUREMENT_NAMES).toEqual(SPEC.measurementNames)
    expect(platformDialect.measurementList.map((m) => m.spelling.name)).toEqual(SPEC.measurementNames)
  })

  it("spells the stats as the input fields and the composition as the entry's keys", () => {
    const inputs = SPEC.statsEstimations.map((row) => row.field)
    const stats = Object.fromEntries(platformDialect.statList.map((s) => [s.target, s.spelling.name]))
    expect(["subject.age", "subject.gender", "subject.heightMm", "subject.weightG"].map((t) => stats[t])).toEqual(inputs)
    const [fat, muscle] = SPEC.clientLibraryEntryBodyComposition
    expect([stats["composition.bodyFatPercent"], stats["composition.skeletalMuscleMassG"]]).toEqual([fat, muscle])
  })

  it("spells the units as the documents do", () => {
    expect(PLATFORM_UNITS.length).toBe(SPEC.units.measurementItem)
    expect(PLATFORM_UNITS.percent).toBe(SPEC.units.bodyFatPercentage)
    expect(PLATFORM_UNITS.mass).toBe(SPEC.units.bodyFatMass)
    expect(PLATFORM_UNITS.mass).toBe(SPEC.units.leanMass)
    expect([PLATFORM_UNITS.angle, ...PLATFORM_UNITS.angleAliases]).toEqual([SPEC.units.postureAngles, SPEC.units.postureAnglesInTheConventionsTable])
    // Each stat with a unit is read into the canonical field of that unit.
    const targetOf = new Map(platformDialect.statList.map((s) => [s.spelling.name, s.target]))
    const withUnit = SPEC.statsEstimations.flatMap((row) => (row.unit === undefined ? [] : [row]))
    expect(withUnit.map((row) => row.unit)).toEqual(["years", "mm", "g"])
    for (const row of withUnit) expect(targetOf.get(row.field)).toMatch(new RegExp(`^subject\\.\\w*${CANONICAL_SUFFIX[row.unit!]}$`))
  })

  it("names the posture parts as the posture tables do", () => {
    expect(Object.values(PLATFORM_POSTURE.front)).toEqual(SPEC.posture.front)
    expect(Object.values(PLATFORM_POSTURE.right)).toEqual(SPEC.posture.right)
  })
})
