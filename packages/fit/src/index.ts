/**
 * @scanbridge/fit: the vendor's garment-fit service and the client library's result shapes.
 * Wire schemas (`Wire`), the codec (estimation result <-> canonical scan; size results ->
 * `scanbridge.size/v1`), the CreatePurchase builder and the client library's validators, and
 * `FitClient`, an Effect service over HttpClient.
 */
export * as Wire from "./wire.js"
export * from "./dialect.js"
export * from "./codec.js"
export * from "./purchase.js"
export * from "./validators.js"
export * from "./iso.js"
export * from "./errors.js"
export * from "./client.js"
export * from "./adapter.js"
