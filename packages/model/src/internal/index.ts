/**
 * @scanbridge/model/internal: what Scanbridge's own packages (the migration engine, the
 * simulator, the tests) share with the model beyond the adapter kit: the slow-path counters,
 * the stats a simulated body has, the bounded notes of a migration's summary and the error
 * helpers of the engine.
 *
 * For Scanbridge's own packages only, versioned in lockstep with them: no semver promise. Any
 * release may change or remove what is here. An adapter, Scanbridge's own or one's own, uses
 * `@scanbridge/model` and `@scanbridge/model/adapter` only.
 */
export { collectIssues, previewKey, previewValue, unreadableReason } from "../errors.js"
export { isBase64 } from "../scan.js"
export { expectedBodyFatPercent, humanStats } from "../stats.js"
export { countSlowPaths, decodeCounted, slowPaths } from "./slow.js"
export { setSchemaPathOnly } from "./fast.js"
export { OMITTED_PATH, boundNotes } from "./notes.js"
export { unknownFields, unknownNames } from "./refusals.js"
