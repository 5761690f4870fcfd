/**
 * What can go wrong talking to the fit service. CreateSession and GetRecommendedSize answer
 * each documented errorType with its own tagged error; the two endpoints' enums share most
 * names, and a shared name is one error class. CreatePurchase errors never reach the caller
 * of `recordPurchase` (spec 03: they must not change the checkout); they are logged.
 */
import { Either, Schema } from "effect"
import { type Path, formatPath } from "@scanbridge/model"
import { inputErrorFields } from "@scanbridge/model/adapter"

const rejectionFields = {
  /** The endpoint: CreateSession or GetRecommendedSize. */
  endpoint: Schema.String,
  /** The errorType the server sent: a name (documented numbers read as names) or an unknown number. */
  wireValue: Schema.Union(Schema.String, Schema.Number),
  status: Schema.Number,
  /** The server's message: "for debugging only and not part of the interface". */
  message: Schema.String
}

export class FitInternalError extends Schema.TaggedError<FitInternalError>("@scanbridge/fit/FitInternalError")("FitInternalError", rejectionFields) {}
export class FitInvalidClientKeyError extends Schema.TaggedError<FitInvalidClientKeyError>("@scanbridge/fit/FitInvalidClientKeyError")(
  "FitInvalidClientKeyError",
  rejectionFields
) {}
export class FitInvalidProductIdError extends Schema.TaggedError<FitInvalidProductIdError>("@scanbridge/fit/FitInvalidProductIdError")(
  "FitInvalidProductIdError",
  rejectionFields
) {}
export class FitInvalidEstimationTokenError extends Schema.TaggedError<FitInvalidEstimationTokenError>(
  "@scanbridge/fit/FitInvalidEstimationTokenError"
)("FitInvalidEstimationTokenError", rejectionFields) {}
export class FitProductNotFoundError extends Schema.TaggedError<FitProductNotFoundError>("@scanbridge/fit/FitProductNotFoundError")(
  "FitProductNotFoundError",
  rejectionFields
) {}
export class FitMalformedRequestError extends Schema.TaggedError<FitMalformedRequestError>("@scanbridge/fit/FitMalformedRequestError")(
  "FitMalformedRequestError",
  rejectionFields
) {}
/** ERROR_TYPE_UNSPECIFIED, or an errorType the spec does not list (see `wireValue`). */
export class FitUnspecifiedError extends Schema.TaggedError<FitUnspecifiedError>("@scanbridge/fit/FitUnspecifiedError")(
  "FitUnspecifiedError",
  rejectionFields
) {}

export type FitRejection =
  | FitInternalError
  | FitInvalidClientKeyError
  | FitInvalidProductIdError
  | FitInvalidEstimationTokenError
  | FitProductNotFoundError
  | FitMalformedRequestError
  | FitUnspecifiedError

type RejectionFields = { readonly endpoint: string; readonly wireValue: string | number; readonly status: number; readonly message: string }

const REJECTIONS: Readonly<Record<string, new (fields: RejectionFields) => FitRejection>> = {
  INTERNAL_ERROR: FitInternalError,
  INVALID_CLIENT_KEY: FitInvalidClientKeyError,
  INVALID_PRODUCT_ID: FitInvalidProductIdError,
  INVALID_ESTIMATION_TOKEN: FitInvalidEstimationTokenError,
  PRODUCT_NOT_FOUND: FitProductNotFoundError,
  MALFORMED_REQUEST: FitMalformedRequestError
}

/** The tagged error of an errorType name; anything else is FitUnspecifiedError. */
export const rejection = (errorType: string | number, fields: RejectionFields): FitRejection => {
  const ctor = typeof errorType === "string" && Object.hasOwn(REJECTIONS, errorType) ? REJECTIONS[errorType]! : FitUnspecifiedError
  return new ctor(fields)
}

/** Refused locally, before a request: a field out of its documented range or format. */
export class FitInputError extends Schema.TaggedError<FitInputError>("@scanbridge/fit/FitInputError")("FitInputError", inputErrorFields) {}

/** A FitInputError at `path`, its message prefixed with the path: what every local check refuses with. */
export const refuse = (path: Path, value: unknown, message: string): Either.Either<never, FitInputError> =>
  Either.left(new FitInputError({ path, value, message: `${formatPath(path)}: ${message}` }))
