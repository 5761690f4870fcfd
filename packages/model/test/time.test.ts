import { FastCheck as fc } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { FOUR_DIGIT_YEARS_MS, daysFromCivil, isCalendarDay, utcTimestampOfMillis } from "../src/internal/time.js"

describe("utcTimestampOfMillis", () => {
  it.prop(
    "prints what Date.prototype.toISOString prints, for integers of years 0000-9999 and beyond",
    [
      fc.oneof(
        fc.integer({ min: FOUR_DIGIT_YEARS_MS.min, max: FOUR_DIGIT_YEARS_MS.max }),
        fc.integer({ min: -8.64e15, max: 8.64e15 }),
        fc.constantFrom(
          FOUR_DIGIT_YEARS_MS.min,
          FOUR_DIGIT_YEARS_MS.max,
          FOUR_DIGIT_YEARS_MS.min - 1,
          FOUR_DIGIT_YEARS_MS.max + 1,
          0,
          -1,
          951_782_400_000,
          8.64e15,
          -8.64e15
        ),
        fc.double({ min: -1e13, max: 1e13, noNaN: true })
      )
    ],
    ([ms]) => {
      expect(utcTimestampOfMillis(ms)).toBe(new Date(ms).toISOString())
    },
    { fastCheck: { numRuns: 5000 } }
  )

  it.prop(
    "prints runs of nearby instants as toISOString does (each may share its minute or day with the one before)",
    [
      fc.integer({ min: FOUR_DIGIT_YEARS_MS.min, max: FOUR_DIGIT_YEARS_MS.max - 1e10 }),
      fc.array(fc.oneof(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 120_000 }), fc.integer({ min: 0, max: 3 * 86_400_000 })), {
        minLength: 1,
        maxLength: 30
      })
    ],
    ([start, steps]) => {
      let ms = start
      for (const step of steps) {
        ms += step
        expect(utcTimestampOfMillis(ms)).toBe(new Date(ms).toISOString())
        // The same instant back and forth across a minute's and a day's edge.
        for (const edge of [ms - (ms % 60_000) - 1, ms - (ms % 86_400_000) - 1, ms]) expect(utcTimestampOfMillis(edge)).toBe(new Date(edge).toISOString())
      }
    },
    { fastCheck: { numRuns: 2000, seed: 34 } }
  )

  it("throws as toISOString does on NaN", () => {
    expect(() => utcTimestampOfMillis(Number.NaN)).toThrow(RangeError)
  })
})

describe("daysFromCivil and isCalendarDay", () => {
  it.prop(
    "agree with Date.UTC over years 0-9999",
    [fc.integer({ min: 0, max: 9999 }), fc.integer({ min: -1, max: 14 }), fc.integer({ min: -1, max: 33 })],
    ([year, month, day]) => {
      const date = new Date(0)
      date.setUTCFullYear(year, month - 1, day)
      const exists = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
      expect(isCalendarDay(year, month, day)).toBe(exists)
      if (exists) expect(daysFromCivil(year, month, day) * 86_400_000).toBe(date.getTime())
    },
    { fastCheck: { numRuns: 5000 } }
  )
})
