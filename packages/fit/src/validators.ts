/**
 * The documented parameter ranges of the client library's estimation operations (spec 03:
 * getFitPhotoEstimation, getFitStatsEstimation, getFitSelfieEstimation), checked before a
 * request. The library "throws when a required parameter is missing or out of range"; here the
 * refusal is a FitInputError naming the parameter, the value and, for a height or weight, the
 * unit the caller probably used (168 looks like centimetres: send 1680).
 */
import { Effect, Either } from "effect"
import { HUMAN_RANGES, type Path, type Range, SYSTEMS_OF_MEASUREMENT, type SystemOfMeasurement } from "@scanbridge/model"
import { isBase64, likelyUnitMistake, previewValue, startsAsJpeg } from "@scanbridge/model/adapter"
import { type FitInputError, refuse } from "./errors.js"

/**
 * The ranges the validators use: HUMAN_RANGES (height 500-2500 mm, weight 10000-200000 g,
 * age 1-130 whole years: "greater than 0", with model's upper bound) and the selfie
 * operation's own age range, 0-100 (spec 03, Limits).
 */
export const ESTIMATION_RANGES = {
  ...HUMAN_RANGES,
  selfieAge: { min: 0, max: 100 }
} as const satisfies Record<string, Range>

export type Gender = "male" | "female"
/** The model's (`metric` or `imperial`), named here too as this package has always exported it. */
export type { SystemOfMeasurement }
export type AvatarType = "NO_AVATAR" | "GLB" | "HIGH_RESOLUTION_VERTICES"
export type BodyType = "SLIM" | "AVERAGE" | "CURVY"

/** The options every estimation operation takes. */
export interface EstimationOptions {
  /** Any finite number; no range is documented. */
  readonly tightness?: number
  /** `metric` by default. */
  readonly systemOfMeasurement?: SystemOfMeasurement
  /** `NO_AVATAR` by default. */
  readonly avatarType?: AvatarType
}

/** getFitStatsEstimation's parameters. */
export interface StatsEstimationParams extends EstimationOptions {
  /** Whole years, above 0. */
  readonly age: number
  readonly gender: Gender
  /** Millimetres, 500 to 2500. */
  readonly height: number
  /** Grams, 10000 to 200000. */
  readonly weight: number
}

/** getFitPhotoEstimation's parameters: the stats and the two photos. */
export interface PhotoEstimationParams extends StatsEstimationParams {
  /** Base64 JPEG, bare or as a `data:image/jpeg;base64,` data URL (what `scan` returns). */
  readonly front: string
  readonly side: string
}

/** getFitSelfieEstimation's parameters. */
export interface SelfieEstimationParams extends EstimationOptions {
  /** A JPEG data URL: `data:image/jpeg;base64,` and the base64. */
  readonly selfie: string
  /** Millimetres, 500 to 2500. */
  readonly height: number
  /** Whole years, 0 to 100. */
  readonly age?: number
  readonly gender?: Gender
  /** Grams, 10000 to 200000; predicted when absent. */
  readonly weight?: number
  /** Only used to predict a missing weight: ignored when weight is given. */
  readonly bodyType?: BodyType
}

/** The data URL prefix of a JPEG, as spec 03 writes it. */
export const JPEG_DATA_URL_PREFIX = "data:image/jpeg;base64,"

type Check = Either.Either<void, FitInputError>

const ok: Check = Either.void
const inRange = (v: number, r: Range) => v >= r.min && v <= r.max

const base64 = (path: Path, value: string, shown: string): Check => {
  if (value === "") return refuse(path, shown, "no image data: the base64 is empty")
  if (/\s/.test(value)) return refuse(path, shown, "base64 with whitespace or line breaks: send it unwrapped (RFC 4648)")
  if (!isBase64(value)) return refuse(path, shown, "not base64 (RFC 4648, padded)")
  return ok
}

/** A photo: bare base64, or base64 after the JPEG data URL prefix. */
const photo = (field: string, value: unknown): Check => {
  const path = [field]
  if (value === undefined) return refuse(path, value, "required: a base64 JPEG")
  if (typeof value !== "string") return refuse(path, value, `expected a base64 JPEG string, got ${previewValue(value)}`)
  const shown = previewValue(value, 40)
  if (value.startsWith(JPEG_DATA_URL_PREFIX)) return base64(path, value.slice(JPEG_DATA_URL_PREFIX.length), shown)
  const other = /^data:([^;,]*)[;,]/i.exec(value)
  if (other) return refuse(path, shown, `a ${other[1] || "data"} data URL: expected base64 JPEG, bare or after ${JPEG_DATA_URL_PREFIX}`)
  return base64(path, value, shown)
}

/**
 * A JPEG data URL at `path`: the prefix required, then base64; with `jpeg`, whose bytes must
 * start as a JPEG's (the client library's results, which Scanbridge passes on to other APIs).
 */
export const jpegDataUrl = (path: Path, value: unknown, jpeg = false): Check => {
  const expected = `a JPEG data URL: ${JPEG_DATA_URL_PREFIX} followed by the base64`
  if (value === undefined) return refuse(path, value, `required: ${expected}`)
  if (typeof value !== "string") return refuse(path, value, `expected ${expected}, got ${previewValue(value)}`)
  const shown = previewValue(value, 40)
  if (!value.startsWith(JPEG_DATA_URL_PREFIX)) {
    const hint = isBase64(value) && value !== "" ? `: prefix the base64 with ${JPEG_DATA_URL_PREFIX}` : ""
    return refuse(path, shown, `expected ${expected}${hint}`)
  }
  const data = value.slice(JPEG_DATA_URL_PREFIX.length)
  const checked = base64(path, data, shown)
  if (Either.isLeft(checked) || !jpeg || startsAsJpeg(data)) return checked
  return refuse(path, shown, "not a JPEG: its bytes do not start with FF D8 FF")
}

/** The selfie: the JPEG data URL prefix is required. */
const selfie = (value: unknown): Check => jpegDataUrl(["selfie"], value)

const wholeInRange = (field: string, value: unknown, range: Range, unit: string, quantity?: "length" | "mass"): Check => {
  const path = [field]
  const expected = `whole ${unit}, ${range.min} to ${range.max}`
  if (value === undefined) return refuse(path, value, `required: ${expected}`)
  if (typeof value !== "number" || !Number.isFinite(value)) return refuse(path, value, `expected ${expected}, got ${previewValue(value)}`)
  if (inRange(value, range) && Number.isInteger(value)) return ok
  if (inRange(value, range)) return refuse(path, value, `expected ${expected}; send ${Math.round(value)}`)
  const hint = quantity === undefined ? "" : likelyUnitMistake(value, range, quantity)
  return refuse(path, value, `${value} is outside ${range.min} to ${range.max} ${unit}${hint}`)
}

/** One of `allowed` (strings, or a literal such as `false`) at `field` (a name, or a path). */
export const oneOf = (field: string | Path, value: unknown, allowed: ReadonlyArray<string | boolean>, required: boolean): Check => {
  const path = typeof field === "string" ? [field] : field
  if (value === undefined && !required) return ok
  if ((typeof value === "string" || typeof value === "boolean") && allowed.includes(value)) return ok
  const expected = allowed.join(", ")
  if (value === undefined) return refuse(path, value, `required: one of ${expected}`)
  return refuse(path, value, `expected one of ${expected}, got ${previewValue(value)}`)
}

const options = (p: EstimationOptions): Check =>
  Either.gen(function* () {
    if (p.tightness !== undefined && (typeof p.tightness !== "number" || !Number.isFinite(p.tightness))) {
      return yield* refuse(["tightness"], p.tightness, `expected a finite number, got ${previewValue(p.tightness)}`)
    }
    yield* oneOf("systemOfMeasurement", p.systemOfMeasurement, SYSTEMS_OF_MEASUREMENT, false)
    yield* oneOf("avatarType", p.avatarType, ["NO_AVATAR", "GLB", "HIGH_RESOLUTION_VERTICES"], false)
  })

const stats = (p: StatsEstimationParams): Check =>
  Either.gen(function* () {
    yield* wholeInRange("age", p.age, ESTIMATION_RANGES.age, "years")
    yield* oneOf("gender", p.gender, ["male", "female"], true)
    yield* wholeInRange("height", p.height, ESTIMATION_RANGES.heightMm, "mm", "length")
    yield* wholeInRange("weight", p.weight, ESTIMATION_RANGES.weightG, "g", "mass")
  })

const params = (p: unknown, operation: string): Check =>
  typeof p === "object" && p !== null ? ok : refuse([], p, `expected the parameters of ${operation}, got ${previewValue(p)}`)

/**
 * getFitPhotoEstimation's parameters, checked in the spec's order (front, side, age, gender,
 * height, weight, tightness, systemOfMeasurement, avatarType); the first problem fails.
 * Succeeds with the parameters unchanged.
 */
export const validatePhotoEstimation = <P extends PhotoEstimationParams>(p: P): Effect.Effect<P, FitInputError> => Effect.suspend(() => checkPhotoEstimation(p))

/** `validatePhotoEstimation` as an Either, for code that runs no Effect (a page). */
export const checkPhotoEstimation = <P extends PhotoEstimationParams>(p: P): Either.Either<P, FitInputError> =>
  Either.gen(function* () {
    yield* params(p, "getFitPhotoEstimation")
    yield* photo("front", p.front)
    yield* photo("side", p.side)
    yield* stats(p)
    yield* options(p)
    return p
  })

/** getFitStatsEstimation's parameters: as the photo operation's without the photos. */
export const validateStatsEstimation = <P extends StatsEstimationParams>(p: P): Effect.Effect<P, FitInputError> =>
  Effect.gen(function* () {
    yield* params(p, "getFitStatsEstimation")
    yield* stats(p)
    yield* options(p)
    return p
  })

/**
 * getFitSelfieEstimation's parameters, checked in the order selfie, height, age, gender, weight,
 * bodyType, tightness, systemOfMeasurement, avatarType. With both weight and bodyType it
 * succeeds without bodyType and logs a warning (spec 03: "When weight is given, bodyType is
 * ignored (supplying both logs a warning)"); otherwise it succeeds with the parameters unchanged.
 */
export const validateSelfieEstimation = (p: SelfieEstimationParams): Effect.Effect<SelfieEstimationParams, FitInputError> =>
  Effect.gen(function* () {
    yield* params(p, "getFitSelfieEstimation")
    yield* selfie(p.selfie)
    yield* wholeInRange("height", p.height, ESTIMATION_RANGES.heightMm, "mm", "length")
    if (p.age !== undefined) yield* wholeInRange("age", p.age, ESTIMATION_RANGES.selfieAge, "years")
    yield* oneOf("gender", p.gender, ["male", "female"], false)
    if (p.weight !== undefined) yield* wholeInRange("weight", p.weight, ESTIMATION_RANGES.weightG, "g", "mass")
    yield* oneOf("bodyType", p.bodyType, ["SLIM", "AVERAGE", "CURVY"], false)
    yield* options(p)
    if (p.weight !== undefined && p.bodyType !== undefined) {
      yield* Effect.logWarning(
        `getFitSelfieEstimation: bodyType ${p.bodyType} is ignored because weight is given (${p.weight} g); it is dropped from the request`
      )
      const { bodyType: _ignored, ...rest } = p
      return rest
    }
    return p
  })
