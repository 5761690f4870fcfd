/**
 * What can go wrong talking to the fit service. CreateSession's and GetRecommendedSize's
 * documented errorTypes are one tagged error, FitRejectionError, whose `reason` names the type
 * (as HttpClientError's ResponseError does); the two endpoints' enums share most names, and a
 * shared name is one reason. CreatePurchase errors never reach the caller
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

/**
 * The errorType, by name: `Internal` (INTERNAL_ERROR), `InvalidClientKey`, `InvalidProductId`,
 * `InvalidEstimationToken`, `ProductNotFound`, `MalformedRequest`, and `Unspecified`
 * (ERROR_TYPE_UNSPECIFIED, or an errorType the spec does not list: see `wireValue`).
 */
export const FitRejectionReason = Schema.Literal(
  "Internal",
  "InvalidClientKey",
  "InvalidProductId",
  "InvalidEstimationToken",
  "ProductNotFound",
  "MalformedRequest",
  "Unspecified"
)
export type FitRejectionReason = typeof FitRejectionReason.Type

/** The service refused a call: the `reason` its errorType means, the `wireValue` sent, the `status`. */
export class FitRejectionError extends Schema.TaggedError<FitRejectionError>("@scanbridge/fit/FitRejectionError")("FitRejectionError", {
  ...rejectionFields,
  reason: FitRejectionReason
}) {}

type RejectionFields = { readonly endpoint: string; readonly wireValue: string | number; readonly status: number; readonly message: string }

const REASONS: Readonly<Record<string, FitRejectionReason>> = {
  INTERNAL_ERROR: "Internal",
  INVALID_CLIENT_KEY: "InvalidClientKey",
  INVALID_PRODUCT_ID: "InvalidProductId",
  INVALID_ESTIMATION_TOKEN: "InvalidEstimationToken",
  PRODUCT_NOT_FOUND: "ProductNotFound",
  MALFORMED_REQUEST: "MalformedRequest"
}

/** The FitRejectionError of an errorType name; any other value's reason is Unspecified. */
export const rejection = (errorType: string | number, fields: RejectionFields): FitRejectionError =>
  new FitRejectionError({ ...fields, reason: typeof errorType === "string" && Object.hasOwn(REASONS, errorType) ? REASONS[errorType]! : "Unspecified" })

/** Refused locally, before a request: a field out of its documented range or format. */
export class FitInputError extends Schema.TaggedError<FitInputError>("@scanbridge/fit/FitInputError")("FitInputError", inputErrorFields) {}

/** A FitInputError at `path`, its message prefixed with the path: what every local check refuses with. */
export const refuse = (path: Path, value: unknown, message: string): Either.Either<never, FitInputError> =>
  Either.left(new FitInputError({ path, value, message: `${formatPath(path)}: ${message}` }))
