/**
 * What can go wrong talking to the platform. One tagged error per HTTP status class, so callers
 * `catchTag` what they handle; each carries the request (method and URL, never the credential)
 * and the message of the response body. A scan that failed is not here: it is data.
 */
import { Schema } from "effect"
import { inputErrorFields } from "@scanbridge/model/adapter"
import { type ApiEncodeError, type ApiRedirectError, type ApiResponseTooLargeError, type ApiTimeoutError, type ApiTransportError, statusFields } from "@scanbridge/http"

// The request URL carries org and scan ids, which are not secret; the API key never appears.
const response = statusFields

/** 400: wrong shape, missing field, bad units. No scan created, no quota used. */
export class PlatformBadRequestError extends Schema.TaggedError<PlatformBadRequestError>(
  "@scanbridge/platform/PlatformBadRequestError"
)("PlatformBadRequestError", response) {}

/** 401: bad or missing API key, or an expired or invalid scan token. */
export class PlatformUnauthorizedError extends Schema.TaggedError<PlatformUnauthorizedError>(
  "@scanbridge/platform/PlatformUnauthorizedError"
)("PlatformUnauthorizedError", response) {}

/** 403: the credential is valid but not for this organization or action (scope). */
export class PlatformForbiddenError extends Schema.TaggedError<PlatformForbiddenError>(
  "@scanbridge/platform/PlatformForbiddenError"
)("PlatformForbiddenError", response) {}

/** 404: unknown organization or scan. */
export class PlatformNotFoundError extends Schema.TaggedError<PlatformNotFoundError>(
  "@scanbridge/platform/PlatformNotFoundError"
)("PlatformNotFoundError", response) {}

/** 404 on DELETE: delete is not idempotent, so a second delete lands here. */
export class PlatformAlreadyDeletedError extends Schema.TaggedError<PlatformAlreadyDeletedError>(
  "@scanbridge/platform/PlatformAlreadyDeletedError"
)("PlatformAlreadyDeletedError", { ...response, scanId: Schema.String }) {}

/** 429: rate limit or quota exhausted. */
export class PlatformRateLimitedError extends Schema.TaggedError<PlatformRateLimitedError>(
  "@scanbridge/platform/PlatformRateLimitedError"
)("PlatformRateLimitedError", response) {}

/** 5xx, or any status the API does not document. */
export class PlatformServerError extends Schema.TaggedError<PlatformServerError>(
  "@scanbridge/platform/PlatformServerError"
)("PlatformServerError", response) {}

/** Refused locally, before a request could spend quota. */
export class PlatformInputError extends Schema.TaggedError<PlatformInputError>("@scanbridge/platform/PlatformInputError")(
  "PlatformInputError",
  inputErrorFields
) {}

export type PlatformStatusError =
  | PlatformBadRequestError
  | PlatformUnauthorizedError
  | PlatformForbiddenError
  | PlatformNotFoundError
  | PlatformRateLimitedError
  | PlatformServerError

export type PlatformHttpError = PlatformStatusError | ApiTransportError | ApiTimeoutError | ApiRedirectError | ApiResponseTooLargeError | ApiEncodeError
