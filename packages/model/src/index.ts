/**
 * @scanbridge/model: the canonical body-measurement model every adapter decodes into.
 * For code that does not use Effect, see `@scanbridge/model/plain`.
 */
export * from "./catalogue.js"
export * from "./dialect.js"
export * from "./internal/codec.js"
export * from "./units.js"
export * from "./errors.js"
export * from "./scan.js"
export * from "./canonical.js"
export * from "./walk.js"
export * from "./keys.js"
export * from "./retry.js"
export * as Proto3 from "./proto3.js"
export * from "./stats.js"
export * from "./size.js"
export * from "./adapter.js"
export * from "./fast.js"
export * from "./measurements.js"
