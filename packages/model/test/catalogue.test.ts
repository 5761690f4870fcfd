import { FastCheck as fc } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Catalogue, MEASUREMENTS, MEASUREMENT_NAMES, POSTURE_FRONT, POSTURE_RIGHT, STATS } from "../src/index.js"

// The platform's list, written out as spec 01 gives it: its names are the canonical ones. Each
// API's own spellings are pinned to its document by the test of its adapter's dialect.

// Spec 01, "Measurement names".
const PLATFORM_NAMES = `acrossBackShoulderWidth, backNeckHeight, backNeckPointToGroundContoured, backNeckPointToWaist,
backNeckPointToWristLengthR, bellyWaistDepth, bellyWaistGirth, bellyWaistHeight, bellyWaistWidth, bustGirth, bustHeight,
calfGirthR, forearmGirthR, hipGirth, hipHeight, insideLegHeight, insideLegLengthR, kneeGirthR, kneeHeightR, midThighGirthR,
neckBaseGirth, neckGirth, outerAnkleHeightR, outerArmLengthR, outseamR, outsideLegLengthR, shoulderToElbowR, thighGirthR,
topHipGirth, topHipHeight, underBustGirth, upperArmGirthR, waistGirth, waistHeight, wristGirthR`.split(/,\s*/)

describe("catalogue pinned to the spec", () => {
  it("has the platform's 35 names, in the platform's order", () => {
    expect(PLATFORM_NAMES).toHaveLength(35)
    expect(MEASUREMENT_NAMES).toEqual(PLATFORM_NAMES)
  })

  it("has the six stats and composition quantities, each once", () => {
    expect(STATS.map((s) => [s.target, s.quantity])).toEqual([
      ["composition.skeletalMuscleMassG", "mass"],
      ["composition.bodyFatPercent", "percent"],
      ["subject.weightG", "mass"],
      ["subject.age", "years"],
      ["subject.gender", "gender"],
      ["subject.heightMm", "length"]
    ])
    for (const s of STATS) expect(Catalogue.stat(s.target)).toBe(s)
  })

  it("marks right-side measurements by the trailing R and kinds by the name", () => {
    for (const e of MEASUREMENTS) {
      expect(e.side).toBe(e.name.endsWith("R") ? "right" : "none")
      if (/Girth/.test(e.name)) expect(e.kind).toBe("girth")
      if (/Height/.test(e.name)) expect(e.kind).toBe("height")
    }
    const kinds: Record<string, number> = {}
    for (const e of MEASUREMENTS) kinds[e.kind] = (kinds[e.kind] ?? 0) + 1
    expect(kinds).toEqual({ girth: 15, height: 9, length: 8, width: 2, depth: 1 })
  })

  it("keeps the ISO 8559-1 references the documents give", () => {
    const refs = Object.fromEntries(MEASUREMENTS.filter((e) => e.iso8559 !== null).map((e) => [e.name, e.iso8559]))
    expect(refs).toEqual({ kneeGirthR: "5.3.22", topHipGirth: "5.3.13", waistGirth: "5.3.10", underBustGirth: "5.3.8" })
  })

  it("names the posture parts and the points of each right line", () => {
    expect(POSTURE_FRONT.map((p) => [p.name, p.iso8559])).toEqual([
      ["ear", "3.1.3"],
      ["shoulder", "3.1.1"],
      ["topHip", "3.1.16"],
      ["foot", null]
    ])
    expect(POSTURE_RIGHT.map((p) => [p.name, p.points])).toEqual([
      ["bodyLine", 5],
      ["backWaistLine", 4]
    ])
  })
})

describe("catalogue lookups", () => {
  const entry = fc.constantFrom(...MEASUREMENTS)

  it.prop("canonical name <-> entry", [entry], ([e]) => {
    expect(Catalogue.byName(e.name)).toBe(e)
    expect(Catalogue.entry(e.name)).toBe(e)
    expect(Catalogue.isMeasurementName(e.name)).toBe(true)
  })

  it.prop("names outside the catalogue are not found", [fc.string()], ([s]) => {
    fc.pre(!PLATFORM_NAMES.includes(s))
    expect(Catalogue.byName(s)).toBeUndefined()
    expect(Catalogue.isMeasurementName(s)).toBe(false)
  })

  it.prop("suggest finds a measurement whatever its case and separators", [entry], ([e]) => {
    const snake = e.name.replace(/[A-Z]/g, (c) => `_${c}`).toLowerCase()
    for (const spelling of [e.name, e.name.toUpperCase(), snake, snake.toUpperCase()]) expect(Catalogue.suggest(spelling)).toBe(e)
  })
})
