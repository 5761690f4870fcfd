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

/**
 * A worker's heap. V8 would let each one grow to hundreds of megabytes, where a chunk (at most
 * 1 MiB of NDJSON; a larger one stays on the calling thread) needs a few tens. The young
 * generation is where a chunk's records live and die: a larger one scavenges less often, for
 * more memory. At 8 MB a worker spent a fifth of its time in GC; at 24 MB, 1M mixed records
 * cost each worker 0.91-1.00 s of GC and the run 279-293 MB peak RSS; at 12 MB, 1.02-1.09 s
 * and 249-263 MB (bench/results.md, stop 45).
 */
export const WORKER_HEAP = { maxYoungGenerationSizeMb: 12, maxOldGenerationSizeMb: 96 } as const
