/**
 * The migration's worker threads. The built executable spawns `dist/worker.js` beside it (the
 * engine alone). Otherwise the executable is its own worker entry: `main.ts` spawns itself with a
 * marker in `workerData`, and a thread started that way serves chunks instead of running a
 * command. So the source run (tsx), the built `dist/main.js` and a single-file bundle each find
 * their worker without knowing where the others put it.
 */
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import { existsSync } from "node:fs"
import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import { MARKER } from "./is-worker.js"

/**
 * Inputs from this size up are migrated on worker threads by default. A worker takes time to
 * start (it loads the migration engine again, dist/worker.js) and has a heap of its own, so on
 * two cores the main thread alone is as fast below this size; beyond, the main thread and one
 * worker win (measured: docs/migrate.md, bench/results.md).
 */
export const WORKERS_FROM_BYTES = 64 * 1024 * 1024

/**
 * The default `--workers` for a large input: one per core but the main thread's, which migrates
 * what the workers have no room for besides reading and writing; none on one core.
 */
export const defaultWorkers = (inputBytes: number, cores: number = availableParallelism()): number =>
  inputBytes >= WORKERS_FROM_BYTES && cores > 1 ? cores - 1 : 0

/**
 * A worker's heap. V8 would let each one grow to hundreds of megabytes, where a chunk (at most
 * 1 MiB of NDJSON; a larger one stays on the main thread) needs a few tens. The young generation
 * is where a chunk's records live and die: a small one scavenges several times per chunk and
 * promotes what a chunk still held, so it is sized above a chunk's needs, for a few MB more RSS.
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 24, maxOldGenerationSizeMb: 96 } as const

/**
 * The module a worker runs: the built worker entry (worker.js, beside the executable's dist/main.js),
 * which loads only the migration engine; else the executable itself (a single-file bundle, the
 * sources), which serves chunks when spawned with the marker.
 */
const workerEntry = (entry: URL): URL => {
  if (entry.protocol !== "file:" || entry.pathname.endsWith(".ts")) return entry
  const lean = new URL("worker.js", entry)
  return existsSync(lean) ? lean : entry
}

const spawner = (executable: URL) => {
  const entry = workerEntry(executable)
  return (_id: number): Worker => {
    if (!entry.pathname.endsWith(".ts")) return new Worker(entry, { workerData: MARKER, resourceLimits: WORKER_HEAP })
    // Run from sources: on Node 20 tsx registers its loader in the main thread only, so a worker
    // given main.ts would not load it. The worker registers tsx itself, then loads the entry.
    const tsx = import.meta.resolve("tsx/esm/api")
    return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`, {
      eval: true,
      workerData: MARKER,
      resourceLimits: WORKER_HEAP
    })
  }
}

/** What `makeMigratePool` needs on Node, spawning `entry` (the executable's own module URL). */
export const workerPlatform = (entry: URL) => NodeWorker.layerPlatform(spawner(entry))
