/**
 * `@scanbridge/fit/adapter`: what reading and writing the fit service's JSON takes (the adapter,
 * the codec, the dialect and the wire schemas) without `FitClient`, so that the migration engine
 * and code that only normalizes load no HTTP client.
 */
export * as Wire from "./wire.js"
export { FITTING_POINTS, FIT_UNITS, type FitStatSpelling, type FitUnit, type FittingPointName, fitDialect, fittingPointDisplayName } from "./dialect.js"
export {
  FORMATS,
  type Recommended,
  type Rejected,
  type SizeContext,
  type Supported,
  decodeCreateSessionResponseEither,
  decodeEstimationResultEither,
  decodeRecommendedSizeResponseEither,
  decodeSizeFittingEither,
  decodeSizeRecommendationsEither,
  encodeEstimationResultEither
} from "./codec.js"
export { fitAdapter } from "./adapter.js"
