/** The worker side of `scanbridge migrate`: loaded only in the threads the command spawns. */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeWorkerRunner from "@effect/platform-node/NodeWorkerRunner"
import { Effect, Layer } from "effect"
import { Normalizer, runMigrateWorker } from "@scanbridge/migrate"

/** Migrates chunks over the built-in adapters until the main thread closes the pool. */
export const serveMigrateWorker = (): void =>
  runMigrateWorker.pipe(
    Effect.provide(Layer.mergeAll(Normalizer.default, NodeWorkerRunner.layer)),
    NodeRuntime.runMain
  )
