/**
 * What can go wrong talking to the platform. One tagged error per HTTP status class, so callers
 * `catchTag` what they handle; each carries the request (method and URL, never the credential)
 * and the message of the response body. A scan that failed is not here: it is data.
 */
import { Schema } from "effect"
import { inputErrorFields, requestErrorFields } from "@scanbridge/model"

// The request URL carries org and scan ids, which are not secret; the API key never appears.
const request = requestErrorFields
const response = { ...request, status: Schema.Number }

const describe = (method: string, url: string, status: number, body: string | null, meaning: string) =>
  `${method} ${url} -> ${status} (${meaning})${body === null ? "" : `: ${body}`}`

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

/** No response: connection refused or reset, DNS, timeout. */
export class PlatformTransportError extends Schema.TaggedError<PlatformTransportError>(
  "@scanbridge/platform/PlatformTransportError"
)("PlatformTransportError", request) {}

/** Refused locally, before a request could spend quota. */
export class PlatformInputError extends Schema.TaggedError<PlatformInputError>("@scanbridge/platform/PlatformInputError")(
  "PlatformInputError",
  inputErrorFields
) {}

export type PlatformHttpError =
  | PlatformBadRequestError
  | PlatformUnauthorizedError
  | PlatformForbiddenError
  | PlatformNotFoundError
  | PlatformRateLimitedError
  | PlatformServerError
  | PlatformTransportError

/** The error for a non-2xx response, by status. */
export const statusError = (method: string, url: string, status: number, body: string | null): PlatformHttpError => {
  const make = <A>(ctor: new (args: { method: string; url: string; status: number; message: string }) => A, meaning: string) =>
    new ctor({ method, url, status, message: describe(method, url, status, body, meaning) })
  switch (status) {
    case 400:
      return make(PlatformBadRequestError, "bad request")
    case 401:
      return make(PlatformUnauthorizedError, "bad or missing credential")
    case 403:
      return make(PlatformForbiddenError, "not permitted")
    case 404:
      return make(PlatformNotFoundError, "not found")
    case 429:
      return make(PlatformRateLimitedError, "rate limit or quota exhausted")
    default:
      return make(PlatformServerError, status >= 500 ? "server error" : "undocumented status")
  }
}

export const transportError = (method: string, url: string, cause: string): PlatformTransportError =>
  new PlatformTransportError({ method, url, message: `${method} ${url}: no response (${cause})` })

/** Worth retrying for a request that is safe to repeat. */
export const isTransient = (e: { readonly _tag: string }): boolean =>
  e._tag === "PlatformServerError" || e._tag === "PlatformRateLimitedError" || e._tag === "PlatformTransportError"
