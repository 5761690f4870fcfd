/**
 * @scanbridge/session: the vendor's deprecated session API (protobuf JSON). Wire schemas
 * (`Wire`), its dialect, the codec between its JSON and the canonical scan, the adapter the
 * migration engine reads it with, and `SessionClient`, an Effect service over HttpClient.
 */
// The adapter, codec, dialect and Wire, also exported alone by @scanbridge/session/adapter (no client).
export * from "./adapter-entry.js"
export {
  SessionCreateError,
  SessionCreateReason,
  SessionInputError,
  SessionTimeoutError
} from "./errors.js"
export {
  type AwaitOptions,
  type CreateSessionInput,
  type CreatedSession,
  SessionClient,
  type SessionClientOptions,
  type SessionClientService
} from "./client.js"
export {
  SESSION_ERROR_MESSAGES,
  SESSION_ERROR_STATUS,
  type SessionErrorType,
  type SessionLanguage,
  sessionErrorMessage,
  sessionLanguage
} from "./messages.js"
export { SessionWidgetError, type WidgetOptions, type WidgetSettings, checkWidgetOptions, widgetOptions } from "./widget.js"
