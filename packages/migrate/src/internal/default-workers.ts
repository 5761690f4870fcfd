import { availableParallelism } from "node:os"

/**
 * Inputs from this size up are migrated on worker threads by default. A worker takes a fifth to
 * a third of a second to start (it loads the migration engine again) and has a heap of its own,
 * so on two cores the calling thread alone is as fast up to some 64 MiB of NDJSON (docs/migrate.md).
 */
export const WORKERS_FROM_BYTES = 64 * 1024 * 1024

/**
 * The default number of worker threads for an input of `inputBytes`: one per core, since the calling
 * thread, once they are up, only reads, orders and writes (a small share of a core, issue 34); none
 * on one core.
 */
export const defaultWorkers = (inputBytes: number, cores: number = availableParallelism()): number =>
  inputBytes >= WORKERS_FROM_BYTES && cores > 1 ? cores : 0
