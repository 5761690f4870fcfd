/**
 * @scanbridge/estimation: the vendor's deprecated estimation API (snake_case, anonymous token,
 * polling). Wire schemas (`Wire`), the codec between its JSON and the canonical scan with the
 * inference of the units the API does not state, photo checks from the JPEG header, and
 * `EstimationClient`, an Effect service over HttpClient.
 */
export * as Wire from "./wire.js"
export * from "./dialect.js"
export * from "./codec.js"
export * from "./inference.js"
export * from "./jpeg.js"
export * from "./errors.js"
export * from "./client.js"
export * from "./adapter.js"
