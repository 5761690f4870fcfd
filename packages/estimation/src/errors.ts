/**
 * What can go wrong talking to the estimation API. A failed estimation (status `fail` with a
 * code) is not here: it is data, a failed scan. The spec shows no error bodies or statuses;
 * these errors carry the status and whatever message the body had.
 */
import { Schema } from "effect"
import { inputErrorFields, requestErrorFields } from "@scanbridge/model"

// The request URL is without its query: the client id in it is a secret.
const request = requestErrorFields
const response = { ...request, status: Schema.Number }

/** 401 or 403: an unknown client id, or an access token that is missing, wrong or expired. */
export class EstimationUnauthorizedError extends Schema.TaggedError<EstimationUnauthorizedError>(
  "@scanbridge/estimation/EstimationUnauthorizedError"
)("EstimationUnauthorizedError", response) {}

/** 404, or a read response without the estimation asked for. */
export class EstimationNotFoundError extends Schema.TaggedError<EstimationNotFoundError>("@scanbridge/estimation/EstimationNotFoundError")(
  "EstimationNotFoundError",
  response
) {}

/** Any other status outside 2xx. */
export class EstimationHttpError extends Schema.TaggedError<EstimationHttpError>("@scanbridge/estimation/EstimationHttpError")(
  "EstimationHttpError",
  response
) {}

/** No response: connection refused or reset, DNS, timeout. */
export class EstimationTransportError extends Schema.TaggedError<EstimationTransportError>(
  "@scanbridge/estimation/EstimationTransportError"
)("EstimationTransportError", request) {}

/** The estimation was still in progress when the wait ran out. */
export class EstimationTimeoutError extends Schema.TaggedError<EstimationTimeoutError>("@scanbridge/estimation/EstimationTimeoutError")(
  "EstimationTimeoutError",
  { estimationId: Schema.String, message: Schema.String }
) {}

/** A photo that breaks one of the spec's limits, refused before upload. */
export class EstimationPhotoError extends Schema.TaggedError<EstimationPhotoError>("@scanbridge/estimation/EstimationPhotoError")(
  "EstimationPhotoError",
  {
    pattern: Schema.Literal("front", "right"),
    /** The limit it breaks: JPEG, at most 3 MB, at least 720 x 1280, 9:16. */
    rule: Schema.Literal("jpeg", "size", "resolution", "aspect"),
    value: Schema.Unknown,
    message: Schema.String
  }
) {}

/** Stats or options refused locally, before a request. */
export class EstimationInputError extends Schema.TaggedError<EstimationInputError>("@scanbridge/estimation/EstimationInputError")(
  "EstimationInputError",
  inputErrorFields
) {}

export type EstimationHttpFailure =
  | EstimationUnauthorizedError
  | EstimationNotFoundError
  | EstimationHttpError
  | EstimationTransportError

/** The error for a non-2xx response, by status. */
export const statusError = (method: string, url: string, status: number, body: string | null): EstimationHttpFailure => {
  const fields = { method, url, status, message: `${method} ${url} -> ${status}${body === null ? "" : `: ${body}`}` }
  if (status === 401 || status === 403) return new EstimationUnauthorizedError(fields)
  if (status === 404) return new EstimationNotFoundError(fields)
  return new EstimationHttpError(fields)
}

/** Worth retrying for a request that is safe to repeat. */
export const isTransient = (e: { readonly _tag: string; readonly status?: number }): boolean =>
  e._tag === "EstimationTransportError" || (e._tag === "EstimationHttpError" && (e.status === 429 || (e.status ?? 0) >= 500))
