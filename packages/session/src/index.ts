/**
 * @scanbridge/session: the vendor's deprecated session API (protobuf JSON). Wire schemas
 * (`Wire`), its dialect, the codec between its JSON and the canonical scan, the adapter the
 * migration engine reads it with, and `SessionClient`, an Effect service over HttpClient.
 */
export * as Wire from "./wire.js"
export {
  SESSION_ANGLE_UNITS,
  SESSION_MEASUREMENT_UNSPECIFIED,
  SESSION_POSTURE,
  SESSION_UNITS,
  type SessionSpelling,
  type SessionStatSpelling,
  type SessionUnit,
  sessionDialect
} from "./dialect.js"
export {
  type CreateSessionOutcome,
  type DecodeOptions,
  FORMATS,
  decodeCreateSessionResponseEither,
  decodeResultsEither,
  encodeResultsEither
} from "./codec.js"
export {
  type SessionCreateError,
  SessionInputError,
  SessionInternalError,
  SessionInvalidClientIdError,
  SessionInvalidRedirectUrlError,
  SessionMalformedRequestError,
  SessionTimeoutError,
  SessionUnspecifiedError
} from "./errors.js"
export {
  type AwaitOptions,
  type CreateSessionInput,
  type CreatedSession,
  SessionClient,
  type SessionClientOptions,
  type SessionClientService
} from "./client.js"
export { sessionAdapter } from "./adapter.js"
export { SessionWidgetError, type WidgetOptions, type WidgetSettings, checkWidgetOptions, widgetOptions } from "./widget.js"
