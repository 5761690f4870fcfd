/**
 * What can go wrong talking to the platform. A status the platform answers with is one tagged
 * error, PlatformStatusError, whose `reason` names the status class (as HttpClientError's
 * ResponseError does), so callers `catchTag` it and switch on `reason`; it carries the request
 * (method and URL, never the credential) and the message of the response body. A scan that
 * failed is not here: it is data.
 */
import { Schema } from "effect"
import { inputErrorFields } from "@scanbridge/model/adapter"
import {
  type ApiEncodeError,
  type ApiRedirectError,
  type ApiResponseTooLargeError,
  type ApiTimeoutError,
  type ApiTransportError,
  statusFields
} from "@scanbridge/http"

// The request URL carries org and scan ids, which are not secret; the API key never appears.
const response = statusFields

/**
 * What a status outside 2xx means:
 * - `BadRequest` (400): wrong shape, missing field, bad units. No scan created, no quota used.
 * - `Unauthorized` (401): bad or missing API key, or an expired or invalid scan token.
 * - `Forbidden` (403): the credential is valid but not for this organization or action (scope).
 * - `NotFound` (404): unknown organization or scan.
 * - `RateLimited` (429): rate limit or quota exhausted.
 * - `Server` (5xx, or any status the API does not document).
 */
export const PlatformStatusReason = Schema.Literal("BadRequest", "Unauthorized", "Forbidden", "NotFound", "RateLimited", "Server")
export type PlatformStatusReason = typeof PlatformStatusReason.Type

/** A response outside 2xx: its `status`, and the `reason` that status means. */
export class PlatformStatusError extends Schema.TaggedError<PlatformStatusError>("@scanbridge/platform/PlatformStatusError")("PlatformStatusError", {
  ...response,
  reason: PlatformStatusReason
}) {}

/** 404 on DELETE: delete is not idempotent, so a second delete lands here. */
export class PlatformAlreadyDeletedError extends Schema.TaggedError<PlatformAlreadyDeletedError>("@scanbridge/platform/PlatformAlreadyDeletedError")(
  "PlatformAlreadyDeletedError",
  { ...response, scanId: Schema.String }
) {}

/** Refused locally, before a request could spend quota. */
export class PlatformInputError extends Schema.TaggedError<PlatformInputError>("@scanbridge/platform/PlatformInputError")(
  "PlatformInputError",
  inputErrorFields
) {}

export type PlatformHttpError = PlatformStatusError | ApiTransportError | ApiTimeoutError | ApiRedirectError | ApiResponseTooLargeError | ApiEncodeError
