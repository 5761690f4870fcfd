/**
 * What can go wrong talking to the session API. create-session's documented error types are one
 * tagged error, SessionCreateError, whose `reason` names the type (as HttpClientError's
 * ResponseError does), so callers `catchTag` it and switch on `reason`. A results error
 * (SESSION_EXPIRED, USER_INPUT_NOT_SUBMITTED, ...) is not here: it is a failed scan.
 *
 * The spec shows no HTTP statuses for errors, so the client reads the body whatever the status,
 * and these errors carry the status only as information.
 */
import { Schema } from "effect"
import { inputErrorFields } from "@scanbridge/model/adapter"
import type * as Wire from "./wire.js"

const rejection = {
  /** The errorType the server sent: a name (documented numbers read as names), an unknown number, or the MALFORMED_REQUEST alias. */
  wireValue: Schema.Union(Schema.String, Schema.Number),
  /** HTTP status of the response. */
  status: Schema.Number,
  /** The server's message, localized to the session language, or a description of the error. */
  message: Schema.String
}

/**
 * The create-session error type, by name:
 * - `InvalidClientId`: INVALID_CLIENT_ID, the client id is missing or wrong.
 * - `InvalidRedirectUrl`: INVALID_REDIRECT_URL.
 * - `MalformedRequest`: MALFORMED_REQUEST_BODY (also sent as MALFORMED_REQUEST).
 * - `Internal`: INTERNAL_ERROR.
 * - `Unspecified`: ERROR_TYPE_UNSPECIFIED, or an errorType the spec does not list (see `wireValue`).
 */
export const SessionCreateReason = Schema.Literal("InvalidClientId", "InvalidRedirectUrl", "MalformedRequest", "Internal", "Unspecified")
export type SessionCreateReason = typeof SessionCreateReason.Type

/** create-session refused: the `reason` its error type means, the `wireValue` sent, the `status`. */
export class SessionCreateError extends Schema.TaggedError<SessionCreateError>("@scanbridge/session/SessionCreateError")("SessionCreateError", {
  ...rejection,
  reason: SessionCreateReason
}) {}

type RejectionFields = { readonly wireValue: string | number; readonly status: number; readonly message: string }

const CREATE_REASONS: Record<Wire.CreateErrorType, SessionCreateReason> = {
  ERROR_TYPE_UNSPECIFIED: "Unspecified",
  INVALID_CLIENT_ID: "InvalidClientId",
  INVALID_REDIRECT_URL: "InvalidRedirectUrl",
  MALFORMED_REQUEST_BODY: "MalformedRequest",
  INTERNAL_ERROR: "Internal"
}

/** The SessionCreateError of a create-session error type. */
export const createError = (errorType: Wire.CreateErrorType, fields: RejectionFields): SessionCreateError =>
  new SessionCreateError({ ...fields, reason: CREATE_REASONS[errorType] })

/** awaitResults gave up: the session was still pending when it expired (or at `maxWait`). */
export class SessionTimeoutError extends Schema.TaggedError<SessionTimeoutError>("@scanbridge/session/SessionTimeoutError")("SessionTimeoutError", {
  scanningSessionId: Schema.String,
  /** The session's expiry, canonical ISO form; null when the server gave none. */
  expiresAt: Schema.NullOr(Schema.String),
  message: Schema.String
}) {}

/** Refused locally, before a request. */
export class SessionInputError extends Schema.TaggedError<SessionInputError>("@scanbridge/session/SessionInputError")("SessionInputError", inputErrorFields) {}
