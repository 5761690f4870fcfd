/**
 * The vendor's client library's `scan` result (document 3: `{front, side}`, JPEG data URLs) as
 * the platform's photos: the data-URL prefix stripped and each photo checked as a JPEG by the
 * same rule `PlatformClient.createScan` applies (`side` is the platform's `right`). Plain
 * checks: runs in a browser.
 */
import { Either } from "effect"
import { isRecord } from "@scanbridge/model"
import { previewValue } from "@scanbridge/model/adapter"
import type { CreateScanInput } from "./client.js"
import { PlatformInputError } from "./errors.js"
import { preparePhoto } from "./internal/guards.js"

/** A `scan` result's photos as `CreateScanInput.photos`: raw base64 JPEGs, `side` as `right`. */
export const photosOfScan = (scan: unknown): Either.Either<NonNullable<CreateScanInput["photos"]>, PlatformInputError> => {
  if (!isRecord(scan)) {
    return Either.left(
      new PlatformInputError({ path: ["scan"], value: scan, message: `scan: expected the client library's {front, side}, got ${previewValue(scan)}` })
    )
  }
  return Either.all({ front: preparePhoto(["scan", "front"], scan.front), right: preparePhoto(["scan", "side"], scan.side) })
}
