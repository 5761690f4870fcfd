/**
 * @scanbridge/migrate: everything stored from any generation of the vendor's APIs, as
 * canonical scans. Format detection, `normalize`, and the streaming migration, in the calling
 * thread or on worker threads, over the built-in adapters or any collection that adds an
 * integrator's own.
 */
export * from "./migrate.js"
export * from "./adapters.js"
export * from "./normalizer.js"
export * from "./output.js"
export * from "./pipeline.js"
export * from "./read.js"
export * from "./report.js"
export * from "./workers.js"
