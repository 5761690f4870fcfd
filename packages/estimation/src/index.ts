/**
 * @scanbridge/estimation: the vendor's deprecated estimation API (snake_case, anonymous token,
 * polling). Wire schemas (`Wire`), its dialect, the codec between its JSON and the canonical
 * scan (which infers the units the API does not state; the inference itself lives in
 * `internal/`), photo checks from the JPEG header, the adapter the migration engine reads it
 * with, and `EstimationClient`, an Effect service over HttpClient.
 */
export * as Wire from "./wire.js"
export { type BodyFatScale, type LengthUnit, type MuscleMassUnit, estimationDialect } from "./dialect.js"
export {
  type EncodeOptions,
  FORMATS,
  type UnitOptions,
  decodeReadItemEither,
  decodeReadResponseEither,
  encodeReadResponseEither
} from "./codec.js"
export { type JpegInfo, type PhotoProblem, type PhotoRule, checkPhoto, makeJpeg, readJpegInfo } from "./jpeg.js"
export {
  type EstimationHttpFailure,
  EstimationInputError,
  EstimationNotFoundError,
  EstimationPhotoError,
  EstimationTimeoutError,
  EstimationUnauthorizedError
} from "./errors.js"
export {
  type AccessToken,
  type AwaitOptions,
  type CreatedEstimation,
  EstimationClient,
  type EstimationClientOptions,
  type EstimationClientService,
  type Photos,
  type UploadedPhoto
} from "./client.js"
export { estimationAdapter, estimationAdapterWith } from "./adapter.js"
