/**
 * The scanning widget's options, against document 2's "Widget" (transcribed in vendor/widget.json):
 * the options and their defaults,
 * `userStats` in the chosen system only, the human ranges and unit-mistake hints, and the
 * callbacks' payloads read by the session adapter.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import { type Scan, type Stats, fromDisplayStats } from "@scanbridge/model"
import { humanStats } from "@scanbridge/model/internal"
import { type SessionWidgetError, type WidgetOptions, checkWidgetOptions, widgetOptions } from "../src/index.js"

const VENDOR: {
  readonly options: ReadonlyArray<string>
  readonly required: ReadonlyArray<string>
  readonly systemsOfMeasurement: { readonly default: string; readonly values: ReadonlyArray<string> }
  readonly userStats: { readonly metric: ReadonlyArray<string>; readonly imperial: ReadonlyArray<string> }
  readonly genders: ReadonlyArray<string>
} = JSON.parse(readFileSync(new URL("vendor/widget.json", import.meta.url), "utf8"))
const EXPORT = new URL("../../../examples/export/session/results.json", import.meta.url)
const SUBJECT: Stats = { age: 41, gender: "female", heightMm: 1634, weightG: 58_200 }

const built = (options: Parameters<typeof widgetOptions>[0]): WidgetOptions => Either.getOrThrow(widgetOptions(options))
const refusal = (options: unknown) => {
  const checked = checkWidgetOptions(options)
  if (Either.isRight(checked)) throw new Error("expected a refusal")
  return checked.left
}

describe("widgetOptions", () => {
  it("sets the options the document lists, and nothing else", () => {
    const all = built({
      ssid: "s-1",
      systemOfMeasurement: "imperial",
      os: "ios",
      version: "17",
      subject: SUBJECT,
      onLoad: () => {},
      onResult: () => {},
      onError: () => {}
    })
    expect(new Set(Object.keys(all))).toEqual(new Set(VENDOR.options))
    expect(Object.keys(all)).toHaveLength(VENDOR.options.length)
    for (const name of VENDOR.required) expect(refusal({ ...all, [name]: undefined }).path).toEqual([name])
  })

  it("fills userStats with the document's fields of each system, and defaults to its default system", () => {
    expect(built({ ssid: "s-1" }).systemOfMeasurement).toBe(VENDOR.systemsOfMeasurement.default)
    for (const system of ["metric", "imperial"] as const) {
      expect(VENDOR.systemsOfMeasurement.values).toContain(system)
      expect(new Set(Object.keys(built({ ssid: "s-1", subject: SUBJECT, systemOfMeasurement: system }).userStats!))).toEqual(new Set(VENDOR.userStats[system]))
    }
    for (const gender of VENDOR.genders)
      expect(Either.isRight(checkWidgetOptions({ ssid: "s", userStats: { heightCm: 163, weightKg: 58, age: 41, gender } }))).toBe(true)
  })

  it("defaults to metric, and fills userStats in whole centimetres and kilograms, or feet, inches and pounds", () => {
    expect(built({ ssid: "s-1" })).toEqual({ ssid: "s-1", systemOfMeasurement: "metric" })
    expect(built({ ssid: "s-1", subject: SUBJECT }).userStats).toEqual({ heightCm: 163, weightKg: 58, age: 41, gender: "female" })
    // 1634 mm is 64.3 in: 5 ft 4 in, not 5 ft 4.3 in; 58.2 kg is 128.3 lb.
    expect(built({ ssid: "s-1", subject: SUBJECT, systemOfMeasurement: "imperial" }).userStats).toEqual({
      heightFt: 5,
      heightIn: 4,
      weightLbs: 128,
      age: 41,
      gender: "female"
    })
  })

  it("gives every human subject's stats in the chosen system, back within half a display unit", () => {
    fc.assert(
      fc.property(humanStats(fc), fc.constantFrom("metric" as const, "imperial" as const), (subject, system) => {
        const options = built({ ssid: "s", subject, systemOfMeasurement: system })
        // What it built passes its own check, and reads back as the subject.
        expect(Either.isRight(checkWidgetOptions(options))).toBe(true)
        const back = fromDisplayStats(options.userStats!)
        const [mm, g] = system === "metric" ? [5, 500] : [12.7 + 0.5, 226.8 + 0.5]
        expect(Math.abs(back.heightMm - subject.heightMm)).toBeLessThanOrEqual(mm)
        expect(Math.abs(back.weightG - subject.weightG)).toBeLessThanOrEqual(g)
      })
    )
  })

  it("refuses a subject outside the human ranges, naming the unit it was probably in", () => {
    const refused = widgetOptions({ ssid: "s", subject: { ...SUBJECT, weightG: 58 } })
    expect(Either.isLeft(refused)).toBe(true)
    if (Either.isRight(refused)) throw new Error("expected a refusal")
    const error = refused.left
    expect(error.path).toEqual(["subject", "weightG"])
    expect(error.message).toBe("subject.weightG: 58 is outside the human range 10000-200000 g; 58 looks like kilograms (send 58000) or pounds (send 26308)")
  })

  it("hands onResult the widget's result as a canonical scan, and onError a typed error", () => {
    const results: Array<Either.Either<Scan, unknown>> = []
    const errors: Array<SessionWidgetError> = []
    const options = built({ ssid: "s", onResult: (r) => void results.push(r), onError: (e) => void errors.push(e) })
    const stored = (JSON.parse(readFileSync(EXPORT, "utf8")) as ReadonlyArray<unknown>)[0]
    options.onResult!(stored)
    options.onResult!({ measurements: "not a list" })
    expect(Either.isRight(results[0]!)).toBe(true)
    expect(Either.getOrThrow(results[0]!).source.api).toBe("session")
    expect(Either.isLeft(results[1]!)).toBe(true)
    options.onError!({ message: "camera denied", code: 7 })
    options.onError!("timeout")
    expect(errors.map((e) => e.message)).toEqual(["camera denied", 'the scanning widget reported "timeout"'])
    expect(errors[0]!.error).toEqual({ message: "camera denied", code: 7 })
  })
})

describe("checkWidgetOptions", () => {
  it("requires ssid, and takes only metric or imperial", () => {
    expect(refusal({}).message).toBe("ssid: required: the session id from create-session")
    expect(refusal({ ssid: "  " }).path).toEqual(["ssid"])
    expect(refusal({ ssid: "s", systemOfMeasurement: "METRIC" }).message).toBe('systemOfMeasurement: expected metric or imperial, not "METRIC"')
    expect(refusal({ ssid: "s", onResult: "callback" }).message).toBe('onResult: expected a function, not "callback"')
    expect(refusal([]).path).toEqual(["options"])
  })

  it("takes userStats in the chosen system only", () => {
    const imperialInMetric = refusal({ ssid: "s", userStats: { heightFt: 5, heightIn: 4, weightLbs: 128, age: 41, gender: "female" } })
    expect(imperialInMetric.message).toBe(
      "userStats.heightFt: not a metric stat, which is imperial: the stats must be in the system of measurement (metric); expected heightCm, weightKg, age, gender"
    )
    const metricInImperial = refusal({ ssid: "s", systemOfMeasurement: "imperial", userStats: { heightCm: 163, weightKg: 58, age: 41, gender: "female" } })
    expect(metricInImperial.path).toEqual(["userStats", "heightCm"])
    expect(refusal({ ssid: "s", userStats: { heightCm: 163, weightKg: 58, age: 41 } }).message).toBe("userStats.gender: expected male or female, not undefined")
    // A hostile key is named by its start, whatever its size.
    const long = refusal({ ssid: "s", userStats: { ["k".repeat(1_000_000)]: 1 } })
    expect(long.message.length).toBeLessThan(300)
  })

  it("names the unit a userStats figure was probably in, and the whole number to send", () => {
    const stats = (s: object) => ({ ssid: "s", userStats: { heightCm: 163, weightKg: 58, age: 41, gender: "female", ...s } })
    expect(refusal(stats({ heightCm: 1.63 })).message).toBe("userStats.heightCm: 1.63 is outside the human range 50-250 cm; 1.63 looks like metres (send 163)")
    expect(refusal(stats({ heightCm: 1630 })).message).toBe(
      "userStats.heightCm: 1630 is outside the human range 50-250 cm; 1630 looks like millimetres (send 163)"
    )
    expect(refusal(stats({ weightKg: 58_000 })).message).toContain("58000 looks like grams (send 58)")
    expect(refusal(stats({ heightCm: 163.4 })).message).toBe("userStats.heightCm: expected a whole number of cm; send 163")
    const imperial = (s: object) => ({
      ssid: "s",
      systemOfMeasurement: "imperial",
      userStats: { heightFt: 5, heightIn: 4, weightLbs: 128, age: 41, gender: "female", ...s }
    })
    expect(refusal(imperial({ weightLbs: 58_000 })).message).toContain("58000 looks like grams (send 128)")
    expect(refusal(imperial({ heightIn: 12 })).message).toBe("userStats.heightIn: expected 0 to 11: the inches beyond heightFt")
    expect(refusal(imperial({ heightFt: 0, heightIn: 10 })).message).toBe("userStats.heightFt: 0 ft 10 in (10 in) is outside the human range 20-98 in")
    expect(Either.isRight(checkWidgetOptions(imperial({})))).toBe(true)
  })
})
