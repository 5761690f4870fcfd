import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc, Logger, LogLevel } from "effect"
import { HUMAN_RANGES } from "@scanbridge/model"
import { FitInputError } from "../src/errors.js"
import {
  ESTIMATION_RANGES,
  JPEG_DATA_URL_PREFIX,
  type PhotoEstimationParams,
  type SelfieEstimationParams,
  type StatsEstimationParams,
  validatePhotoEstimation,
  validateSelfieEstimation,
  validateStatsEstimation
} from "../src/validators.js"

// The first bytes of a JPEG (FF D8 FF E0 ...), base64.
const JPEG = "/9j/4AAQSkZJRgABAQ=="
const STATS: StatsEstimationParams = { age: 29, gender: "female", height: 1640, weight: 54_000 }
const PHOTO: PhotoEstimationParams = { ...STATS, front: `${JPEG_DATA_URL_PREFIX}${JPEG}`, side: JPEG }
const SELFIE: SelfieEstimationParams = { selfie: `${JPEG_DATA_URL_PREFIX}${JPEG}`, height: 1640 }

/** The error of a refused validation; throws when it succeeds. */
const refusal = <A>(effect: Effect.Effect<A, FitInputError>): FitInputError => {
  const exit = Effect.runSyncExit(effect)
  if (Exit.isSuccess(exit)) throw new Error(`expected a refusal, got ${JSON.stringify(exit.value)}`)
  const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (!(error instanceof FitInputError)) throw new Error(`expected a FitInputError, got ${String(exit.cause)}`)
  return error
}
const photo = (patch: Record<string, unknown>) => ({ ...PHOTO, ...patch }) as unknown as PhotoEstimationParams
const stats = (patch: Record<string, unknown>) => ({ ...STATS, ...patch }) as unknown as StatsEstimationParams
const selfie = (patch: Record<string, unknown>) => ({ ...SELFIE, ...patch }) as unknown as SelfieEstimationParams

interface Logged {
  readonly level: LogLevel.LogLevel
  readonly text: string
}

/** Runs `effect` with a logger that records every message, and returns both. */
const withLogs = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<{ readonly value: A; readonly logs: ReadonlyArray<Logged> }, E> => {
  const logs: Array<Logged> = []
  const logger = Logger.make(({ logLevel, message }) => {
    logs.push({ level: logLevel, text: (Array.isArray(message) ? message : [message]).map(String).join(" ") })
  })
  return effect.pipe(
    Effect.map((value) => ({ value, logs })),
    Effect.provide(Logger.replace(Logger.defaultLogger, logger))
  )
}

describe("ESTIMATION_RANGES", () => {
  it("is HUMAN_RANGES plus the selfie's age range", () => {
    expect(ESTIMATION_RANGES).toEqual({ ...HUMAN_RANGES, selfieAge: { min: 0, max: 100 } })
    expect(ESTIMATION_RANGES.heightMm).toEqual({ min: 500, max: 2500 })
    expect(ESTIMATION_RANGES.weightG).toEqual({ min: 10_000, max: 200_000 })
    expect(ESTIMATION_RANGES.age.min).toBe(1)
  })
})

describe("validatePhotoEstimation", () => {
  it.effect("passes valid parameters through unchanged, options included", () =>
    Effect.gen(function* () {
      expect(yield* validatePhotoEstimation(PHOTO)).toBe(PHOTO)
      const full = photo({ tightness: -1.5, systemOfMeasurement: "imperial", avatarType: "HIGH_RESOLUTION_VERTICES" })
      expect(yield* validatePhotoEstimation(full)).toBe(full)
      // The range ends are in range.
      for (const p of [photo({ age: 1, height: 500, weight: 10_000 }), photo({ age: 130, height: 2500, weight: 200_000, gender: "male" })]) {
        expect(yield* validatePhotoEstimation(p)).toBe(p)
      }
    })
  )

  it("refuses a front or side that is missing, empty, not base64, wrapped or another data URL", () => {
    for (const field of ["front", "side"]) {
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [undefined, "required: a base64 JPEG"],
        [42, "expected a base64 JPEG string, got 42"],
        ["", "no image data: the base64 is empty"],
        [JPEG_DATA_URL_PREFIX, "no image data: the base64 is empty"],
        ["not-base64!", "not base64 (RFC 4648, padded)"],
        ["/9j/4AAQSkZJRgABAQ", "not base64 (RFC 4648, padded)"],
        [`${JPEG_DATA_URL_PREFIX}/9j/4AAQ*kZJ`, "not base64 (RFC 4648, padded)"],
        ["/9j/4AAQ\nSkZJRgABAQ==", "base64 with whitespace or line breaks: send it unwrapped (RFC 4648)"],
        [`data:image/png;base64,${JPEG}`, `a image/png data URL: expected base64 JPEG, bare or after ${JPEG_DATA_URL_PREFIX}`]
      ]
      for (const [value, message] of cases) {
        const error = refusal(validatePhotoEstimation(photo({ [field]: value })))
        expect(error.path).toEqual([field])
        expect(error.message).toBe(`${field}: ${message}`)
      }
    }
  })

  it("puts a short preview of a long photo in the error, not the photo", () => {
    const long = `${"A".repeat(10_000)}!`
    const error = refusal(validatePhotoEstimation(photo({ side: long })))
    expect(error.value).toBe(`"${"A".repeat(38)}…`)
  })

  it("refuses an age that is not a whole number above 0", () => {
    for (const age of [0, -3, 29.5, 131, Number.NaN, "29", undefined]) {
      const error = refusal(validatePhotoEstimation(photo({ age })))
      expect(error.path).toEqual(["age"])
      expect(error.value).toBe(age)
    }
    expect(refusal(validatePhotoEstimation(photo({ age: 0 }))).message).toBe("age: 0 is outside 1 to 130 years")
    expect(refusal(validatePhotoEstimation(photo({ age: undefined }))).message).toBe("age: required: whole years, 1 to 130")
  })

  it("refuses a gender other than male or female", () => {
    for (const gender of ["Male", "other", "", 1, undefined]) {
      const error = refusal(validatePhotoEstimation(photo({ gender })))
      expect(error.path).toEqual(["gender"])
      expect(error.value).toBe(gender)
    }
    expect(refusal(validatePhotoEstimation(photo({ gender: "f" }))).message).toBe('gender: expected one of male, female, got "f"')
  })

  it("refuses a height outside 500-2500 mm, naming the unit it looks like", () => {
    expect(refusal(validatePhotoEstimation(photo({ height: 164 })))).toMatchObject({
      path: ["height"],
      value: 164,
      message: "height: 164 is outside 500 to 2500 mm; 164 looks like centimetres (send 1640)"
    })
    expect(refusal(validatePhotoEstimation(photo({ height: 1.64 }))).message).toBe("height: 1.64 is outside 500 to 2500 mm; 1.64 looks like metres (send 1640)")
    expect(refusal(validatePhotoEstimation(photo({ height: 65 }))).message).toContain("65 looks like centimetres (send 650) or inches (send 1651)")
    expect(refusal(validatePhotoEstimation(photo({ height: 499 }))).message).toBe("height: 499 is outside 500 to 2500 mm")
    expect(refusal(validatePhotoEstimation(photo({ height: 2501 }))).message).toBe("height: 2501 is outside 500 to 2500 mm")
    expect(refusal(validatePhotoEstimation(photo({ height: 1640.4 }))).message).toBe("height: expected whole mm, 500 to 2500; send 1640")
    for (const height of [Number.NaN, Number.POSITIVE_INFINITY, "1640", undefined]) {
      expect(refusal(validatePhotoEstimation(photo({ height }))).path).toEqual(["height"])
    }
  })

  it("refuses a weight outside 10000-200000 g, naming the unit it looks like", () => {
    expect(refusal(validatePhotoEstimation(photo({ weight: 54 })))).toMatchObject({
      path: ["weight"],
      value: 54,
      message: "weight: 54 is outside 10000 to 200000 g; 54 looks like kilograms (send 54000) or pounds (send 24494)"
    })
    expect(refusal(validatePhotoEstimation(photo({ weight: 9_999 }))).message).toBe("weight: 9999 is outside 10000 to 200000 g")
    expect(refusal(validatePhotoEstimation(photo({ weight: 200_001 }))).message).toBe("weight: 200001 is outside 10000 to 200000 g")
    expect(refusal(validatePhotoEstimation(photo({ weight: 54_000.5 }))).message).toBe("weight: expected whole g, 10000 to 200000; send 54001")
    expect(refusal(validatePhotoEstimation(photo({ weight: undefined }))).path).toEqual(["weight"])
  })

  it("refuses a tightness that is not a finite number, and unknown option values", () => {
    for (const tightness of [Number.NaN, Number.NEGATIVE_INFINITY, "0", null]) {
      const error = refusal(validatePhotoEstimation(photo({ tightness })))
      expect(error.path).toEqual(["tightness"])
      expect(error.value).toBe(tightness)
    }
    expect(refusal(validatePhotoEstimation(photo({ systemOfMeasurement: "METRIC" })))).toMatchObject({
      path: ["systemOfMeasurement"],
      message: 'systemOfMeasurement: expected one of metric, imperial, got "METRIC"'
    })
    expect(refusal(validatePhotoEstimation(photo({ avatarType: "glb" }))).path).toEqual(["avatarType"])
  })

  it("reports the first problem in the operation's parameter order", () => {
    const all = { front: "", side: "", age: 0, gender: "x", height: 1, weight: 1, tightness: Number.NaN, avatarType: "x" }
    const order = ["front", "side", "age", "gender", "height", "weight", "tightness", "avatarType"]
    const fixed: Record<string, unknown> = { front: JPEG, side: JPEG, age: 29, gender: "male", height: 1640, weight: 54_000, tightness: 0, avatarType: "GLB" }
    let p: Record<string, unknown> = { ...all }
    for (const field of order) {
      expect(refusal(validatePhotoEstimation(p as unknown as PhotoEstimationParams)).path).toEqual([field])
      p = { ...p, [field]: fixed[field] }
    }
    expect(Exit.isSuccess(Effect.runSyncExit(validatePhotoEstimation(p as unknown as PhotoEstimationParams)))).toBe(true)
  })
})

describe("validateStatsEstimation", () => {
  it.effect("passes valid stats through unchanged and needs no photos", () =>
    Effect.gen(function* () {
      expect(yield* validateStatsEstimation(STATS)).toBe(STATS)
      const withOptions = stats({ tightness: 2, systemOfMeasurement: "metric", avatarType: "NO_AVATAR" })
      expect(yield* validateStatsEstimation(withOptions)).toBe(withOptions)
    })
  )

  it("refuses stats out of range with the same paths and hints as the photo operation", () => {
    expect(refusal(validateStatsEstimation(stats({ age: 0 }))).path).toEqual(["age"])
    expect(refusal(validateStatsEstimation(stats({ gender: "n" }))).path).toEqual(["gender"])
    expect(refusal(validateStatsEstimation(stats({ height: 170 }))).message).toBe(
      "height: 170 is outside 500 to 2500 mm; 170 looks like centimetres (send 1700)"
    )
    expect(refusal(validateStatsEstimation(stats({ weight: 70 }))).message).toContain("70 looks like kilograms (send 70000)")
    expect(refusal(validateStatsEstimation(stats({ tightness: Number.NaN }))).path).toEqual(["tightness"])
  })

  it("accepts every whole age, height and weight in range, and refuses every whole height outside it", () => {
    const gender = fc.constantFrom("male" as const, "female" as const)
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 130 }),
        gender,
        fc.integer({ min: 500, max: 2500 }),
        fc.integer({ min: 10_000, max: 200_000 }),
        (age, g, height, weight) => {
          const p = { age, gender: g, height, weight }
          expect(Effect.runSync(validateStatsEstimation(p))).toBe(p)
        }
      ),
      { numRuns: 300 }
    )
    fc.assert(
      fc.property(fc.oneof(fc.integer({ max: 499 }), fc.integer({ min: 2501 })), (height) => {
        const error = refusal(validateStatsEstimation(stats({ height })))
        expect(error.path).toEqual(["height"])
        expect(error.value).toBe(height)
        expect(error.message).toContain(`${height} is outside 500 to 2500 mm`)
      }),
      { numRuns: 300 }
    )
  })
})

describe("validateSelfieEstimation", () => {
  it.effect("passes a selfie and a height alone, and every optional parameter in range", () =>
    Effect.gen(function* () {
      expect(yield* validateSelfieEstimation(SELFIE)).toBe(SELFIE)
      for (const age of [0, 55, 100]) {
        const p = selfie({ age, gender: "male", weight: 80_000, tightness: 1, systemOfMeasurement: "imperial", avatarType: "GLB" })
        expect(yield* validateSelfieEstimation(p)).toBe(p)
      }
    })
  )

  it("refuses a selfie that is not a JPEG data URL with base64 after the prefix", () => {
    const expected = "a JPEG data URL: data:image/jpeg;base64, followed by the base64"
    expect(refusal(validateSelfieEstimation(selfie({ selfie: JPEG })))).toMatchObject({
      path: ["selfie"],
      value: `"${JPEG}"`,
      message: `selfie: expected ${expected}: prefix the base64 with data:image/jpeg;base64,`
    })
    expect(refusal(validateSelfieEstimation(selfie({ selfie: `data:image/png;base64,${JPEG}` }))).message).toBe(`selfie: expected ${expected}`)
    expect(refusal(validateSelfieEstimation(selfie({ selfie: `data:image/JPEG;base64,${JPEG}` }))).message).toBe(`selfie: expected ${expected}`)
    expect(refusal(validateSelfieEstimation(selfie({ selfie: JPEG_DATA_URL_PREFIX }))).message).toBe("selfie: no image data: the base64 is empty")
    expect(refusal(validateSelfieEstimation(selfie({ selfie: `${JPEG_DATA_URL_PREFIX}%%%` }))).message).toBe("selfie: not base64 (RFC 4648, padded)")
    expect(refusal(validateSelfieEstimation(selfie({ selfie: undefined }))).message).toBe(`selfie: required: ${expected}`)
    expect(refusal(validateSelfieEstimation(selfie({ selfie: 1 }))).path).toEqual(["selfie"])
  })

  it("requires a height in range", () => {
    expect(refusal(validateSelfieEstimation(selfie({ height: undefined }))).message).toBe("height: required: whole mm, 500 to 2500")
    expect(refusal(validateSelfieEstimation(selfie({ height: 175 }))).message).toContain("175 looks like centimetres (send 1750)")
  })

  it("refuses an age outside 0-100 or not whole", () => {
    for (const age of [-1, 101, 130, 12.5, Number.NaN, "30"]) {
      const error = refusal(validateSelfieEstimation(selfie({ age })))
      expect(error.path).toEqual(["age"])
      expect(error.value).toBe(age)
    }
    expect(refusal(validateSelfieEstimation(selfie({ age: 101 }))).message).toBe("age: 101 is outside 0 to 100 years")
  })

  it("refuses a weight out of range and unknown gender or bodyType values", () => {
    expect(refusal(validateSelfieEstimation(selfie({ weight: 80 }))).message).toContain("80 looks like kilograms (send 80000)")
    expect(refusal(validateSelfieEstimation(selfie({ weight: 500_000 }))).path).toEqual(["weight"])
    expect(refusal(validateSelfieEstimation(selfie({ gender: "F" }))).path).toEqual(["gender"])
    expect(refusal(validateSelfieEstimation(selfie({ bodyType: "slim" })))).toMatchObject({
      path: ["bodyType"],
      value: "slim",
      message: 'bodyType: expected one of SLIM, AVERAGE, CURVY, got "slim"'
    })
    expect(refusal(validateSelfieEstimation(selfie({ tightness: Number.POSITIVE_INFINITY }))).path).toEqual(["tightness"])
  })

  it("refuses before warning: a bad bodyType with a weight is an error, not a warning", () => {
    expect(refusal(validateSelfieEstimation(selfie({ weight: 80_000, bodyType: "BULKY" }))).path).toEqual(["bodyType"])
  })

  it.effect("with both weight and bodyType, drops bodyType and logs one warning", () =>
    Effect.gen(function* () {
      const p = selfie({ weight: 80_000, bodyType: "CURVY", age: 40 })
      const { value, logs } = yield* withLogs(validateSelfieEstimation(p))
      expect(value).toEqual({ selfie: SELFIE.selfie, height: 1640, weight: 80_000, age: 40 })
      expect("bodyType" in value).toBe(false)
      expect(p.bodyType).toBe("CURVY")
      expect(logs).toHaveLength(1)
      expect(logs[0]!.level).toBe(LogLevel.Warning)
      expect(logs[0]!.text).toBe("getFitSelfieEstimation: bodyType CURVY is ignored because weight is given (80000 g); it is dropped from the request")
    })
  )

  it.effect("with only weight or only bodyType, logs nothing and keeps the parameters", () =>
    Effect.gen(function* () {
      const onlyWeight = selfie({ weight: 80_000 })
      const a = yield* withLogs(validateSelfieEstimation(onlyWeight))
      expect(a.value).toBe(onlyWeight)
      expect(a.logs).toEqual([])
      const onlyBodyType = selfie({ bodyType: "SLIM" })
      const b = yield* withLogs(validateSelfieEstimation(onlyBodyType))
      expect(b.value).toBe(onlyBodyType)
      expect(b.value.bodyType).toBe("SLIM")
      expect(b.logs).toEqual([])
    })
  )

  it("accepts every whole selfie age in 0-100 and refuses every whole age outside it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), (age) => {
        const p = selfie({ age })
        expect(Effect.runSync(validateSelfieEstimation(p))).toBe(p)
      }),
      { numRuns: 200 }
    )
    fc.assert(
      fc.property(fc.oneof(fc.integer({ max: -1 }), fc.integer({ min: 101 })), (age) => {
        const error = refusal(validateSelfieEstimation(selfie({ age })))
        expect(error.path).toEqual(["age"])
        expect(error.value).toBe(age)
      }),
      { numRuns: 200 }
    )
  })
})
