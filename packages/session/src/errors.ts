/**
 * What can go wrong talking to the session API. create-session answers each of its documented
 * error types with its own tagged error, so callers `catchTag` the ones they handle. A results
 * error (SESSION_EXPIRED, USER_INPUT_NOT_SUBMITTED, ...) is not here: it is a failed scan.
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

/** INVALID_CLIENT_ID: the client id is missing or wrong. */
export class SessionInvalidClientIdError extends Schema.TaggedError<SessionInvalidClientIdError>(
  "@scanbridge/session/SessionInvalidClientIdError"
)("SessionInvalidClientIdError", rejection) {}

/** INVALID_REDIRECT_URL. */
export class SessionInvalidRedirectUrlError extends Schema.TaggedError<SessionInvalidRedirectUrlError>(
  "@scanbridge/session/SessionInvalidRedirectUrlError"
)("SessionInvalidRedirectUrlError", rejection) {}

/** MALFORMED_REQUEST_BODY (also sent as MALFORMED_REQUEST). */
export class SessionMalformedRequestError extends Schema.TaggedError<SessionMalformedRequestError>(
  "@scanbridge/session/SessionMalformedRequestError"
)("SessionMalformedRequestError", rejection) {}

/** INTERNAL_ERROR. */
export class SessionInternalError extends Schema.TaggedError<SessionInternalError>("@scanbridge/session/SessionInternalError")(
  "SessionInternalError",
  rejection
) {}

/** ERROR_TYPE_UNSPECIFIED, or an errorType the spec does not list (see `wireValue`). */
export class SessionUnspecifiedError extends Schema.TaggedError<SessionUnspecifiedError>(
  "@scanbridge/session/SessionUnspecifiedError"
)("SessionUnspecifiedError", rejection) {}

export type SessionCreateError =
  | SessionInvalidClientIdError
  | SessionInvalidRedirectUrlError
  | SessionMalformedRequestError
  | SessionInternalError
  | SessionUnspecifiedError

type RejectionFields = { readonly wireValue: string | number; readonly status: number; readonly message: string }

const CREATE_ERRORS: Record<Wire.CreateErrorType, new (fields: RejectionFields) => SessionCreateError> = {
  ERROR_TYPE_UNSPECIFIED: SessionUnspecifiedError,
  INVALID_CLIENT_ID: SessionInvalidClientIdError,
  INVALID_REDIRECT_URL: SessionInvalidRedirectUrlError,
  MALFORMED_REQUEST_BODY: SessionMalformedRequestError,
  INTERNAL_ERROR: SessionInternalError
}

/** The tagged error of a create-session error type. */
export const createError = (errorType: Wire.CreateErrorType, fields: RejectionFields): SessionCreateError =>
  new CREATE_ERRORS[errorType](fields)

/** awaitResults gave up: the session was still pending when it expired (or at `maxWait`). */
export class SessionTimeoutError extends Schema.TaggedError<SessionTimeoutError>("@scanbridge/session/SessionTimeoutError")(
  "SessionTimeoutError",
  {
    scanningSessionId: Schema.String,
    /** The session's expiry, canonical ISO form; null when the server gave none. */
    expiresAt: Schema.NullOr(Schema.String),
    message: Schema.String
  }
) {}

/** Refused locally, before a request. */
export class SessionInputError extends Schema.TaggedError<SessionInputError>("@scanbridge/session/SessionInputError")(
  "SessionInputError",
  inputErrorFields
) {}
