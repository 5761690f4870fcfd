/**
 * `@scanbridge/session/adapter`: what reading and writing the session API's JSON takes (the
 * adapter, the codec, the dialect and the wire schemas) without `SessionClient`, so that the
 * migration engine and code that only normalizes load no HTTP client.
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
export { type CreateSessionOutcome, type DecodeOptions, FORMATS, decodeCreateSessionResponseEither, decodeResultsEither, encodeResultsEither } from "./codec.js"
export { sessionAdapter } from "./adapter.js"
