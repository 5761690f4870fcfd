/**
 * @scanbridge/estimation: the vendor's deprecated estimation API (snake_case, anonymous token,
 * polling). Wire schemas (`Wire`), its dialect, the codec between its JSON and the canonical
 * scan (which infers the units the API does not state; the inference itself lives in
 * `internal/`), photo checks from the JPEG header, the adapter the migration engine reads it
 * with, and `EstimationClient`, an Effect service over HttpClient.
 */
// The adapter, codec, dialect and Wire, also exported alone by @scanbridge/estimation/adapter (no client).
export * from "./adapter-entry.js"
export { type JpegInfo, type PhotoProblem, type PhotoRule, checkPhoto, makeJpeg, readJpegInfo } from "./jpeg.js"
export {
  type EstimationHttpFailure,
  EstimationInputError,
  EstimationPhotoError,
  EstimationStatusError,
  EstimationStatusReason,
  EstimationTimeoutError
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
