import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { Catalogue } from "../src/index.js"
import { MeasurementsBuilder, measurementIndex } from "../src/adapter-kit.js"

const NAMES = Catalogue.measurements.map((e) => e.name)

describe("MeasurementsBuilder", () => {
  // Random sets of measurements, set in random order: well past the 512 constructors it keeps,
  // so both the compiled constructors and the generic one are checked.
  const entries = fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), fc.double({ min: 0, max: 3000, noNaN: true })), { selector: ([name]) => name })

  it("builds exactly the measurements set, in catalogue order, whatever the set and order", () => {
    fc.assert(
      fc.property(entries, fc.boolean(), (set, byIndex) => {
        const b = new MeasurementsBuilder()
        for (const [name, value] of set) {
          if (byIndex) b.setAt(measurementIndex(name), value)
          else b.set(name, value)
        }
        const built = b.build()
        expect(Object.keys(built)).toEqual(NAMES.filter((n) => set.some(([m]) => m === n)))
        for (const [name, value] of set) expect(built[name]).toBe(value)
        for (const name of NAMES) expect(b.has(name)).toBe(set.some(([m]) => m === name))
      }),
      { numRuns: 2_000 }
    )
  })

  it("keeps the last value set for a measurement", () => {
    const b = new MeasurementsBuilder()
    b.set("waistGirth", 700)
    b.set("waistGirth", 701)
    expect(b.build()).toEqual({ waistGirth: 701 })
  })
})
