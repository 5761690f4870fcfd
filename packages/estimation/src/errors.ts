/**
 * What can go wrong talking to the estimation API. A failed estimation (status `fail` with a
 * code) is not here: it is data, a failed scan. The spec shows no error bodies or statuses;
 * the statuses it implies are one tagged error, EstimationStatusError, whose `reason` names
 * what the status means (as HttpClientError's ResponseError does), with the status and
 * whatever message the body had; any other status is @scanbridge/http's ApiStatusError.
 */
import { Schema } from "effect"
import { inputErrorFields } from "@scanbridge/model/adapter"
import {
  type ApiEncodeError,
  type ApiRedirectError,
  type ApiResponseTooLargeError,
  type ApiStatusError,
  type ApiTimeoutError,
  type ApiTransportError,
  statusFields
} from "@scanbridge/http"

// The request URL shows its query with the client id redacted: it is a secret.
const response = statusFields

/**
 * What a status means:
 * - `Unauthorized` (401 or 403): an unknown client id, or an access token that is missing, wrong
 *   or expired. The client renews the token and asks again before it fails with this.
 * - `NotFound` (404, or a 200 whose read response lacks the estimation asked for).
 */
export const EstimationStatusReason = Schema.Literal("Unauthorized", "NotFound")
export type EstimationStatusReason = typeof EstimationStatusReason.Type

/** A response the API refused, or one without what was asked for: its `status` and `reason`. */
export class EstimationStatusError extends Schema.TaggedError<EstimationStatusError>("@scanbridge/estimation/EstimationStatusError")("EstimationStatusError", {
  ...response,
  reason: EstimationStatusReason
}) {}

/** The estimation was still in progress when the wait ran out. */
export class EstimationTimeoutError extends Schema.TaggedError<EstimationTimeoutError>("@scanbridge/estimation/EstimationTimeoutError")(
  "EstimationTimeoutError",
  { estimationId: Schema.String, message: Schema.String }
) {}

/** A photo that breaks one of the spec's limits, refused before upload. */
export class EstimationPhotoError extends Schema.TaggedError<EstimationPhotoError>("@scanbridge/estimation/EstimationPhotoError")("EstimationPhotoError", {
  pattern: Schema.Literal("front", "right"),
  /** The limit it breaks: JPEG, at most 3 MB, at least 720 x 1280, 9:16. */
  rule: Schema.Literal("jpeg", "size", "resolution", "aspect"),
  value: Schema.Unknown,
  message: Schema.String
}) {}

/** Stats or options refused locally, before a request. */
export class EstimationInputError extends Schema.TaggedError<EstimationInputError>("@scanbridge/estimation/EstimationInputError")(
  "EstimationInputError",
  inputErrorFields
) {}

export type EstimationHttpFailure =
  | EstimationStatusError
  | ApiStatusError
  | ApiTransportError
  | ApiTimeoutError
  | ApiRedirectError
  | ApiResponseTooLargeError
  | ApiEncodeError
