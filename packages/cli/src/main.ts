#!/usr/bin/env node
/** The `scanbridge` executable. */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { ValidationError } from "@effect/cli"
import { Cause, Effect } from "effect"
import { cli } from "./commands.js"

cli(process.argv).pipe(
  // A failure is one line on stderr, not a stack: bad flags are reported by @effect/cli itself.
  Effect.catchAllCause((cause) =>
    Effect.sync(() => {
      const failure = Cause.failureOption(cause)
      if (failure._tag === "Some" && ValidationError.isValidationError(failure.value)) {
        process.exitCode = 2
        return
      }
      const error = failure._tag === "Some" ? failure.value : Cause.squash(cause)
      process.stderr.write(`scanbridge: ${error instanceof Error || (typeof error === "object" && error !== null && "message" in error) ? (error as { message: string }).message : String(error)}\n`)
      process.exitCode = 1
    })
  ),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
