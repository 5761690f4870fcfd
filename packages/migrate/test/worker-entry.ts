/** A migration worker over the built-in adapters, spawned by migrate.test.ts. */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeWorkerRunner from "@effect/platform-node/NodeWorkerRunner"
import { Effect, Layer } from "effect"
import { Normalizer, runMigrateWorker } from "../src/index.js"

runMigrateWorker.pipe(Effect.provide(Layer.mergeAll(Normalizer.default, NodeFileSystem.layer, NodeWorkerRunner.layer)), NodeRuntime.runMain)
