/**
 * Checks that run before a create request, because a mistake the platform accepts still spends
 * quota: it "does not reject wrong units", and a photo it cannot read comes back as a failed
 * scan (spec 01). Each refusal is a PlatformInputError naming the field and the likely mistake.
 */
import { Either } from "effect"
import type { Path, Stats } from "@scanbridge/model"
import { checkHumanStats, isBase64, previewValue, startsAsJpeg } from "@scanbridge/model/adapter"
import { PlatformInputError } from "../errors.js"

const refuse = (path: Path, value: unknown, message: string) => Either.left(new PlatformInputError({ path, value, message: `${path.join(".")}: ${message}` }))

/** Refuses stats outside human ranges, naming the unit the caller probably used. */
export const checkStats = (stats: Stats): Either.Either<Stats, PlatformInputError> => Either.mapLeft(checkHumanStats(stats), (p) => new PlatformInputError(p))

const JPEG_DATA_URL = /^data:image\/jpe?g;base64,/i
const OTHER_DATA_URL = /^data:([^;,]*)[;,]/i

/**
 * The raw base64 the platform wants: a `data:image/jpeg;base64,` prefix is stripped (spec 01,
 * rule 1); anything that is not base64 JPEG is refused.
 */
export const preparePhoto = (path: Path, photo: unknown): Either.Either<string, PlatformInputError> => {
  if (typeof photo !== "string") return refuse(path, photo, "expected a base64 JPEG string")
  const raw = photo.replace(JPEG_DATA_URL, "")
  const other = OTHER_DATA_URL.exec(raw)
  if (other) return refuse(path, previewValue(raw, 40), `a ${other[1] || "data"} data URL: the platform takes JPEG only`)
  if (/\s/.test(raw)) return refuse(path, previewValue(raw, 40), "base64 with whitespace or line breaks: send it unwrapped (RFC 4648)")
  if (!isBase64(raw)) return refuse(path, previewValue(raw, 40), "not base64 (RFC 4648, padded)")
  if (!startsAsJpeg(raw)) return refuse(path, previewValue(raw, 40), "not a JPEG: its bytes do not start with FF D8 FF")
  return Either.right(raw)
}
