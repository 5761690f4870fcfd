/** A worker that starts like a migration worker (it answers the pool's first message), then stops on the first chunk it is sent. */
import * as WorkerRunner from "@effect/platform/WorkerRunner"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeWorkerRunner from "@effect/platform-node/NodeWorkerRunner"
import { Effect } from "effect"

WorkerRunner.launch(
  WorkerRunner.layer((request: { readonly _tag: string }) =>
    Effect.sync(() => (request._tag === "Setup" ? { out: "", rejected: "", tally: {} } : process.exit(3)))
  )
).pipe(Effect.provide(NodeWorkerRunner.layer), NodeRuntime.runMain)
