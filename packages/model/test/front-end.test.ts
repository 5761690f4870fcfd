/**
 * What front ends share: the vendor's locale codes (pinned to document 1's list, transcribed in
 * vendor/locales.json) with the near misses they name, and stats in display units, whose rounding
 * is the documented one.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import { LOCALES, type Stats, checkLocale, fromDisplayStats, isLocale, nearLocales, systemOf, toDisplayStats } from "../src/index.js"
import { humanStats } from "../src/internal/index.js"

const VENDOR: { readonly locales: ReadonlyArray<string> } = JSON.parse(readFileSync(new URL("vendor/locales.json", import.meta.url), "utf8"))

const stats = humanStats(fc)

describe("locales", () => {
  it("are the document's thirteen codes, spelled as it spells them", () => {
    expect([...LOCALES]).toEqual(VENDOR.locales)
    expect(LOCALES).toHaveLength(13)
  })

  it("name what a near miss meant: another case or separator, or the codes of its language", () => {
    expect(nearLocales("pt")).toEqual(["pt-BR"])
    expect(nearLocales("zh")).toEqual(["zh-CN", "zh-HK", "zh-TW"])
    expect(nearLocales("pt_br")).toEqual(["pt-BR"])
    expect(nearLocales("ZH-tw")).toEqual(["zh-TW"])
    expect(nearLocales("en-US")).toEqual(["en"])
    expect(nearLocales("es-MX")).toEqual(["es", "es-419"])
    expect(nearLocales("hi")).toEqual(["hi-IN"])
    expect(nearLocales("de")).toEqual([])
    expect(nearLocales("")).toEqual([])
  })

  it("pass the check exactly when they are one of the thirteen, and a refusal names the value and the near codes", () => {
    for (const locale of LOCALES) expect(checkLocale(locale)).toEqual(Either.right(locale))
    fc.assert(
      fc.property(fc.string(), (code) => {
        const checked = checkLocale(code)
        expect(Either.isRight(checked)).toBe(isLocale(code))
        if (Either.isLeft(checked)) expect(checked.left).toContain(JSON.stringify(code.slice(0, 40)))
      })
    )
    expect(checkLocale("pt", "options.locale")).toEqual(Either.left('options.locale: "pt" is not a locale the vendor accepts; did you mean pt-BR?'))
    expect(Either.getLeft(checkLocale(42))._tag).toBe("Some")
  })
})

describe("display stats", () => {
  it("are whole numbers: 1720 mm is 5 ft 8 in (67.7 in rounded), not 5 ft 7.7 in", () => {
    const subject: Stats = { age: 30, gender: "female", heightMm: 1720, weightG: 61_500 }
    expect(toDisplayStats(subject, "imperial")).toEqual({ heightFt: 5, heightIn: 8, weightLbs: 136, age: 30, gender: "female" })
    expect(toDisplayStats(subject, "metric")).toEqual({ heightCm: 172, weightKg: 62, age: 30, gender: "female" })
    // 71.65 in rounds up to 72: six feet, not 5 ft 12 in.
    expect(toDisplayStats({ ...subject, heightMm: 1820 }, "imperial")).toMatchObject({ heightFt: 6, heightIn: 0 })
  })

  it("come back within half a display unit: 5 mm and 500 g metric, 12.7 mm and 226.8 g imperial (each plus the half mm or g of whole numbers)", () => {
    fc.assert(
      fc.property(stats, (s) => {
        const metric = toDisplayStats(s, "metric")
        const imperial = toDisplayStats(s, "imperial")
        expect(systemOf(metric)).toBe("metric")
        expect(systemOf(imperial)).toBe("imperial")
        for (const v of [metric.heightCm, metric.weightKg, imperial.heightFt, imperial.heightIn, imperial.weightLbs]) expect(Number.isInteger(v)).toBe(true)
        expect(imperial.heightIn).toBeGreaterThanOrEqual(0)
        expect(imperial.heightIn).toBeLessThanOrEqual(11)
        const fromMetric = fromDisplayStats(metric)
        const fromImperial = fromDisplayStats(imperial)
        expect(Math.abs(fromMetric.heightMm - s.heightMm)).toBeLessThanOrEqual(5)
        expect(Math.abs(fromMetric.weightG - s.weightG)).toBeLessThanOrEqual(500)
        expect(Math.abs(fromImperial.heightMm - s.heightMm)).toBeLessThanOrEqual(12.7 + 0.5)
        expect(Math.abs(fromImperial.weightG - s.weightG)).toBeLessThanOrEqual(226.8 + 0.5)
        expect([fromMetric.age, fromMetric.gender, fromImperial.age, fromImperial.gender]).toEqual([s.age, s.gender, s.age, s.gender])
        // Display stats are a fixed point: shown again, they are the same figures.
        expect(toDisplayStats(fromImperial, "imperial")).toEqual(imperial)
        expect(toDisplayStats(fromMetric, "metric")).toEqual(metric)
      })
    )
  })
})
