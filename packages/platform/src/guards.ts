/**
 * Checks that run before a create request, because a mistake the platform accepts still spends
 * quota: it "does not reject wrong units", and a photo it cannot read comes back as a failed
 * scan (spec 01). Each refusal is a PlatformInputError naming the field and the likely mistake.
 */
import { Either, Schema } from "effect"
import { Base64, GRAMS_PER_POUND, HUMAN_RANGES, MM_PER_INCH, type Path, type Range, previewValue, round } from "@scanbridge/model"
import { PlatformInputError } from "./errors.js"

export interface Stats {
  readonly age: number
  readonly gender: "male" | "female"
  readonly heightMm: number
  readonly weightG: number
}

const refuse = (path: Path, value: unknown, message: string) =>
  Either.left(new PlatformInputError({ path, value, message: `${path.join(".")}: ${message}` }))

interface Mistake {
  readonly unit: string
  readonly factor: number
}

// Units people send instead of the canonical one, tried in this order.
const LENGTH_MISTAKES: ReadonlyArray<Mistake> = [
  { unit: "centimetres", factor: 10 },
  { unit: "inches", factor: MM_PER_INCH },
  { unit: "metres", factor: 1000 }
]
const MASS_MISTAKES: ReadonlyArray<Mistake> = [
  { unit: "kilograms", factor: 1000 },
  { unit: "pounds", factor: GRAMS_PER_POUND }
]

const inRange = (v: number, r: Range) => v >= r.min && v <= r.max

const checkQuantity = (field: string, value: number, unit: string, range: Range, mistakes: ReadonlyArray<Mistake>) => {
  if (!Number.isFinite(value)) return refuse([field], value, `expected a number of ${unit}`)
  if (inRange(value, range) && Number.isInteger(value)) return Either.right(value)
  if (inRange(value, range)) return refuse([field], value, `expected a whole number of ${unit}; send ${round(value)}`)
  const likely = mistakes
    .filter((m) => inRange(value * m.factor, range))
    .map((m) => `${m.unit} (send ${round(value * m.factor)})`)
  const hint = likely.length > 0 ? `; ${value} looks like ${likely.join(" or ")}` : ""
  return refuse([field], value, `${value} is outside the human range ${range.min}-${range.max} ${unit}${hint}`)
}

/** Refuses stats outside human ranges, naming the unit the caller probably used. */
export const checkStats = (stats: Stats): Either.Either<Stats, PlatformInputError> => {
  const { age, gender, heightMm, weightG } = stats
  if (gender !== "male" && gender !== "female") return refuse(["gender"], gender, "expected male or female")
  if (!Number.isInteger(age) || !inRange(age, HUMAN_RANGES.age)) {
    return refuse(["age"], age, `expected whole years, ${HUMAN_RANGES.age.min}-${HUMAN_RANGES.age.max}`)
  }
  return Either.all([
    checkQuantity("heightMm", heightMm, "mm", HUMAN_RANGES.heightMm, LENGTH_MISTAKES),
    checkQuantity("weightG", weightG, "g", HUMAN_RANGES.weightG, MASS_MISTAKES)
  ]).pipe(Either.map(() => stats))
}

const JPEG_DATA_URL = /^data:image\/jpe?g;base64,/i
const OTHER_DATA_URL = /^data:([^;,]*)[;,]/i
// FF D8 FF, the start of every JPEG, is "/9j/" in base64.
const JPEG_MAGIC_BASE64 = "/9j/"
const isBase64 = Schema.is(Base64)

/**
 * The raw base64 the platform wants: a `data:image/jpeg;base64,` prefix is stripped (spec 01,
 * rule 1); anything that is not base64 JPEG is refused.
 */
export const preparePhoto = (path: Path, photo: string): Either.Either<string, PlatformInputError> => {
  if (typeof photo !== "string") return refuse(path, photo, "expected a base64 JPEG string")
  const raw = photo.replace(JPEG_DATA_URL, "")
  const other = OTHER_DATA_URL.exec(raw)
  if (other) return refuse(path, previewValue(raw, 40), `a ${other[1] || "data"} data URL: the platform takes JPEG only`)
  if (/\s/.test(raw)) return refuse(path, previewValue(raw, 40), "base64 with whitespace or line breaks: send it unwrapped (RFC 4648)")
  if (!isBase64(raw)) return refuse(path, previewValue(raw, 40), "not base64 (RFC 4648, padded)")
  if (!raw.startsWith(JPEG_MAGIC_BASE64)) return refuse(path, previewValue(raw, 40), "not a JPEG: its bytes do not start with FF D8 FF")
  return Either.right(raw)
}
