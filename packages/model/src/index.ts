/**
 * @scanbridge/model: the canonical body-measurement model every adapter decodes into.
 * For code that does not use Effect, see `@scanbridge/model/plain`.
 */
export * from "./catalogue.js"
export * from "./units.js"
export * from "./errors.js"
export * from "./scan.js"
export * from "./canonical.js"
