/**
 * `@scanbridge/estimation/adapter`: what reading and writing the estimation API's JSON takes
 * (the adapter, the codec, the dialect and the wire schemas) without `EstimationClient`, so that
 * the migration engine and code that only normalizes load no HTTP client.
 */
export * as Wire from "./wire.js"
export { type BodyFatScale, type LengthUnit, type MuscleMassUnit, estimationDialect } from "./dialect.js"
export { type EncodeOptions, FORMATS, type UnitOptions, decodeReadItemEither, decodeReadResponseEither, encodeReadResponseEither } from "./codec.js"
export { estimationAdapter, estimationAdapterWith } from "./adapter.js"
