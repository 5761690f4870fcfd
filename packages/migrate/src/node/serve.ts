/** The worker side of a migration pool on Node: loaded only in the threads it spawns. */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeWorkerRunner from "@effect/platform-node/NodeWorkerRunner"
import { Effect, Layer } from "effect"
import { Normalizer } from "../normalizer.js"
import { runMigrateWorker } from "../workers.js"

export const serve = (): void =>
  runMigrateWorker.pipe(Effect.provide(Layer.mergeAll(Normalizer.default, NodeFileSystem.layer, NodeWorkerRunner.layer)), NodeRuntime.runMain)
