/**
 * An estimation's read response, written from its platform scan in the legacy estimation shape
 * by @scanbridge/estimation's encoder, as the legacy API would have answered it.
 *
 * The item is the estimation's, not the scan's: `estimation_id` is the estimation id and
 * `created_at` the time the estimation was created. Lengths are written in the gateway's
 * `estimationLengthUnit`, body fat in whole percent. What the platform's scan holds and the
 * estimation shape has no place for (its posture, avatar, body fat mass, lean mass, ids) is
 * left out; what the shape has and the platform does not give (skeletal muscle mass, the job's
 * `version` and `work_id`) is absent.
 *
 * A failed scan reads as `fail` with a numeric code. The platform's codes are strings and the
 * legacy codes' meanings are not shown, so the mapping is Scanbridge's choice:
 *
 * | platform error code                                  | estimation code | why                                   |
 * |------------------------------------------------------|-----------------|---------------------------------------|
 * | frontPhotoNotJpeg, rightPhotoNotJpeg                 | 301             | the photo is not a JPEG               |
 * | frontPhotoHasDataUrlPrefix, rightPhotoHasDataUrlPrefix | 301           | the photo did not arrive as a JPEG    |
 * | any other (posing, person, face, quality, unknown)   | 306             | spec 02's example of a failed job     |
 *
 * 301 is the code the legacy simulator gives a photo that is not a JPEG. Its 302 (over 3 MB),
 * 303 (under 720 x 1280) and 304 (not 9:16) never arise: the gateway refuses such photos at
 * upload, before the platform sees them. The response's message names the platform's code, so
 * that a developer can still tell one failure from another.
 */
import { Either } from "effect"
import type { EncodeError, Scan } from "@scanbridge/model"
import { type Wire, encodeReadResponseEither } from "@scanbridge/estimation"
import type { EstimationRecord } from "../store.js"

/** The estimation code of a platform error code, where it is not OTHER_FAILURE_CODE. */
export const FAILURE_CODES: ReadonlyMap<string, number> = new Map([
  ["frontPhotoNotJpeg", 301],
  ["rightPhotoNotJpeg", 301],
  ["frontPhotoHasDataUrlPrefix", 301],
  ["rightPhotoHasDataUrlPrefix", 301]
])

/** The code of every other failure: the one spec 02 shows. */
export const OTHER_FAILURE_CODE = 306

export const estimationFailureCode = (platformCode: string): number => FAILURE_CODES.get(platformCode) ?? OTHER_FAILURE_CODE

const iso = (ms: number) => new Date(ms).toISOString()

/** The response while the estimation has no scan yet. */
export const inProgressResponse = (estimation: EstimationRecord): Wire.ReadResponseJson => ({
  measurements: [{ created_at: iso(estimation.createdAt), estimation_id: estimation.id, status: "in-progress", estimation: {} }],
  message: "success",
  result: true
})

// Body fat percentage and skeletal muscle mass are the composition the shape has.
const compositionOf = ({ composition: c }: Scan): Scan["composition"] =>
  c === null || (c.bodyFatPercent === null && c.skeletalMuscleMassG === null) ? null : { ...c, bodyFatMassG: null, leanMassG: null }

/** The response of an estimation whose platform scan is `scan`. */
export const scanResponse = (estimation: EstimationRecord, scan: Scan, lengthUnit: "mm" | "cm"): Either.Either<Wire.ReadResponseJson, EncodeError> => {
  const failure =
    scan.failure === null
      ? null
      : (() => {
          const code = estimationFailureCode(scan.failure.code)
          return {
            code: String(code),
            category: "estimation" as const,
            message: `the estimation failed with code ${code} (the platform's code: ${scan.failure.code})`
          }
        })()
  const asEstimation: Scan = {
    ...scan,
    source: { api: "estimation", id: estimation.id },
    createdAt: iso(estimation.createdAt),
    expiresAt: null,
    externalId: null,
    method: "photo",
    composition: compositionOf(scan),
    posture: null,
    avatar: null,
    adjustment: null,
    failure,
    notes: []
  }
  return Either.map(encodeReadResponseEither(asEstimation, { lengthUnit }), (encoded) => encoded.value)
}
