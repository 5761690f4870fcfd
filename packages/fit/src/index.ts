/**
 * @scanbridge/fit: the vendor's garment-fit service and the client library's result shapes.
 * Wire schemas (`Wire`), its dialect, the codec (estimation result <-> canonical scan; size
 * results -> `scanbridge.size/v1`), the CreatePurchase builder and the client library's
 * validators, the adapter the migration engine reads it with, and `FitClient`, an Effect
 * service over HttpClient.
 */
// The adapter, codec, dialect and Wire, also exported alone by @scanbridge/fit/adapter (no client).
export * from "./adapter-entry.js"
export { type CreatePurchaseRequest, type PurchaseItem, type PurchaseOrder, buildPurchase } from "./purchase.js"
export {
  type AvatarType,
  type BodyType,
  type EstimationOptions,
  type Gender,
  type PhotoEstimationParams,
  type SelfieEstimationParams,
  type StatsEstimationParams,
  type SystemOfMeasurement,
  checkPhotoEstimation,
  validatePhotoEstimation,
  validateSelfieEstimation,
  validateStatsEstimation
} from "./validators.js"
export {
  FitInputError,
  FitRejectionError,
  FitRejectionReason
} from "./errors.js"
export {
  CLIENT_LIBRARY_REJECTIONS,
  type ClientLibraryOptions,
  ClientLibraryRejection,
  type ScanCapture,
  type ScanConfig,
  type ScanRejectionCode,
  type SelfieCapture,
  type SelfieConfig,
  type SelfieRejectionCode,
  checkClientLibraryOptions,
  checkEstimationToken,
  checkIsProductSupportedParams,
  checkProductInfo,
  checkScanCapture,
  checkScanConfig,
  checkSelfieCapture,
  checkSelfieConfig,
  checkSizeParams,
  fitPhotoEstimationOf,
  readRejection
} from "./client-library.js"
export { FitClient, type FitClientOptions, type FitClientService, type ProductSupport } from "./client.js"
