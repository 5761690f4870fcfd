/**
 * @scanbridge/migrate: everything stored from any generation of the vendor's APIs, as
 * canonical scans. Format detection, `normalize`, and the streaming migration, in the calling
 * thread or on worker threads, over the built-in adapters or any collection that adds an
 * integrator's own.
 */
export {
  type ChunkSink,
  type InputDigest,
  type MigrateOptions,
  type MigrateProgress,
  type MigrateSource,
  type RecordPosition,
  type ResumePoint,
  type SinkChunk,
  type SinkWritten,
  type SinkOutput,
  type SourceRecord,
  type TextOutputs,
  migrate
} from "./migrate.js"
// Detection and normalize, also exported alone by the light entry @scanbridge/migrate/normalizer.
export * from "./normalizer-entry.js"
export { type InputFile, type ListedInputs, MigrateInputError, type StdinBytes, listInputs } from "./inputs.js"
export {
  MigrateOutputError,
  type NamedOutput,
  type OutputFile,
  type OutputFileOptions,
  type TextWriter,
  outputFile,
  outputPath,
  refuseOverlaps,
  textOf
} from "./output.js"
export { type Reject, type Report, renderReport, table } from "./report.js"
export { MigrateWorkerError, type MigratePool, type MigratePoolOptions, makeMigratePool, runMigrateWorker } from "./workers.js"
export { type Cell, type Column, type ColumnType, SCAN_COLUMNS, TABLE_TARGETS, type TableTarget, scanColumns, scanRow, snakeCase } from "./table.js"
/** A migration run as one value: `Migration.run(plan)`, `Migration.start(plan)` (run.ts). */
export * as Migration from "./run.js"
export type { MigrationError, MigrationPlan, MigrationSink, MigrationSource, ResumeMode, RunningMigration, TextDestination } from "./run.js"
export { WORKERS_FROM_BYTES, defaultWorkers } from "./internal/default-workers.js"
export {
  CHECKPOINT_FORMAT,
  type Checkpoint,
  type InputIdentity,
  type ResumableOutput,
  ResumeError,
  type ResumingRun,
  cannotResume,
  checkpointFile,
  inputIdentities,
  readCheckpoint,
  readWith,
  resumePointOf,
  verifyInputs,
  writeCheckpoint
} from "./checkpoint.js"
