/**
 * @scanbridge/migrate: everything stored from any generation of the vendor's APIs, as
 * canonical scans. Format detection, `normalize`, and (next) the streaming migration.
 */
export * from "./normalizer.js"
export * from "./pipeline.js"
export * from "./report.js"
