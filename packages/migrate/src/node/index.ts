/**
 * @scanbridge/migrate/node: a migration's worker threads on Node. Apart from the engine, so that
 * code that only normalizes, or migrates on one thread, never loads @effect/platform-node.
 */
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import type * as PlatformWorker from "@effect/platform/Worker"
import type { Layer } from "effect"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import { WORKER_HEAP } from "../internal/default-workers.js"

export { WORKERS_FROM_BYTES, defaultWorkers } from "../internal/default-workers.js"

/** tsx's ESM `register`, as `entry` finds it: its package's own export of it (a CommonJS resolve would find the CommonJS build). */
const tsxRegister = (entry: URL): string => {
  const manifest = createRequire(entry).resolve("tsx/package.json")
  const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as { readonly exports: Record<string, { readonly import: { readonly default: string } }> }
  return pathToFileURL(join(dirname(manifest), exports["./esm/api"]!.import.default)).href
}

/**
 * The platform of a migration pool whose threads run `entry`, a module that serves chunks
 * (`serveMigrateWorker`), given `workerData`. An entry in TypeScript (a run from sources) is
 * loaded through tsx, which on Node 20 registers its loader in the calling thread only.
 */
export const nodeWorkerPlatform = (entry: URL, workerData?: unknown): Layer.Layer<PlatformWorker.PlatformWorker | PlatformWorker.Spawner> =>
  NodeWorker.layerPlatform((_id: number): Worker => {
    if (!entry.pathname.endsWith(".ts")) return new Worker(entry, { workerData, resourceLimits: WORKER_HEAP })
    const tsx = tsxRegister(entry)
    return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`, {
      eval: true,
      workerData,
      resourceLimits: WORKER_HEAP
    })
  })

/**
 * Migrates chunks over the built-in adapters (and those the pool's first message names) until the
 * calling thread closes the pool. The engine is loaded here, in the worker, not by a thread that
 * only spawns workers (a command line's start).
 */
export const serveMigrateWorker = (): Promise<void> => import("./serve.js").then((serve) => serve.serve())

/** This package's own worker entry, beside this module: built (worker.js) or, run from sources, worker.ts. */
const ownEntry = (): URL => new URL(import.meta.url.endsWith(".ts") ? "./worker.ts" : "./worker.js", import.meta.url)

/** The worker threads a plan runs on by default (`MigrationPlan.workerPlatform`): this package's worker entry on Node's threads. */
export const migrateWorkerPlatform = nodeWorkerPlatform(ownEntry())
