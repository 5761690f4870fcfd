/**
 * @scanbridge/session: the vendor's deprecated session API (protobuf JSON). Wire schemas
 * (`Wire`), the codec between its JSON and the canonical scan, and `SessionClient`, an Effect
 * service over HttpClient.
 */
export * as Wire from "./wire.js"
export * from "./dialect.js"
export * from "./codec.js"
export * from "./errors.js"
export * from "./client.js"
export * from "./adapter.js"
