/**
 * The errors every API client shares: no response, a response that took too long, a status the
 * API does not answer with a message, a redirect not followed, a response body beyond the limit,
 * a body that could not be encoded. Each names the API, the method and the URL with its secret
 * query values redacted; none holds a credential.
 */
import { Schema } from "effect"

/** The fields of an error about one request. `url` has every secret query value redacted. */
export const requestFields = {
  /** The API's name: `platform`, `session`, `estimation`, `fit`, or an integrator's own. */
  api: Schema.String,
  method: Schema.String,
  url: Schema.String,
  message: Schema.String
}

/** The fields of an error about a response: the request's, its status, and its Retry-After. */
export const statusFields = {
  ...requestFields,
  status: Schema.Number,
  /** The wait a 429 or 503 asked for, in milliseconds, when it gave one. */
  retryAfterMs: Schema.optionalWith(Schema.Number, { exact: true })
}

/** No response: connection refused or reset, DNS, a body cut short. `cause` is the socket's error. */
export class ApiTransportError extends Schema.TaggedError<ApiTransportError>("@scanbridge/http/ApiTransportError")("ApiTransportError", {
  ...requestFields,
  cause: Schema.optionalWith(Schema.Defect, { exact: true })
}) {}

/** No complete response within the client's timeout. A create that timed out may have created. */
export class ApiTimeoutError extends Schema.TaggedError<ApiTimeoutError>("@scanbridge/http/ApiTimeoutError")("ApiTimeoutError", {
  ...requestFields,
  timeoutMs: Schema.Number
}) {}

/** A status outside 2xx that the API's own classification does not name. */
export class ApiStatusError extends Schema.TaggedError<ApiStatusError>("@scanbridge/http/ApiStatusError")("ApiStatusError", {
  ...statusFields,
  cause: Schema.optionalWith(Schema.Defect, { exact: true })
}) {}

/**
 * A redirect the client does not follow: any of a call other than GET (a POST's body and
 * credential would go where the API did not say), any to another origin (the credential would go
 * with it), more than the client follows in a row, or a 3xx that points nowhere to go (300,
 * 304). Never retried: the same request would meet the same answer. `location` is where it
 * pointed, its secret query values redacted, absent when the response gave none or the runtime
 * hid it (`status` 0: a browser's fetch shows no redirect it does not follow).
 */
export class ApiRedirectError extends Schema.TaggedError<ApiRedirectError>("@scanbridge/http/ApiRedirectError")("ApiRedirectError", {
  ...requestFields,
  status: Schema.Number,
  location: Schema.optionalWith(Schema.String, { exact: true })
}) {}

/**
 * A response body longer than the client's `maxResponseBytes`: reading stopped there, whatever
 * Content-Length said, so that no response holds more of the process's memory than that.
 */
export class ApiResponseTooLargeError extends Schema.TaggedError<ApiResponseTooLargeError>("@scanbridge/http/ApiResponseTooLargeError")(
  "ApiResponseTooLargeError",
  { ...requestFields, status: Schema.Number, maxBytes: Schema.Number }
) {}

/** A request body its wire schema refuses: nothing was sent. */
export class ApiEncodeError extends Schema.TaggedError<ApiEncodeError>("@scanbridge/http/ApiEncodeError")("ApiEncodeError", requestFields) {}

/** What any call of an ApiClient can fail with, besides its API's classification and decoding. */
export type ApiError = ApiTransportError | ApiTimeoutError | ApiStatusError | ApiRedirectError | ApiResponseTooLargeError | ApiEncodeError
