/**
 * `@scanbridge/platform/adapter`: what reading and writing the platform's JSON takes (the
 * adapter, the codec, the dialect and the wire schemas) without `PlatformClient`, so that the
 * migration engine and code that only normalizes load no HTTP client.
 */
export * as Wire from "./wire.js"
export { PLATFORM_POSTURE, PLATFORM_UNITS, platformDialect } from "./dialect.js"
export { FORMATS, decodeEntryEither, decodeListPageEither, decodeSummaryEither, encodeEntryEither } from "./codec.js"
export { platformAdapter } from "./adapter.js"
