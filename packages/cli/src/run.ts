/** The command line run in the main thread: the commands, with what the process gives them. */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { ValidationError } from "@effect/cli"
import { Cause, Effect, Layer } from "effect"
import { cli } from "./commands.js"
import { workerPlatform } from "./workers.js"

// Select Graphic Rendition: the colours and bold of @effect/cli's help and errors.
const SGR = /\u001b\[[0-9;]*m/g

/** Whether a stream gets colours: a terminal, unless NO_COLOR (https://no-color.org) is set. */
const coloured = (stream: NodeJS.WriteStream) => stream.isTTY === true && (process.env["NO_COLOR"] ?? "") === ""

const plain = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? a.replace(SGR, "") : a))

/**
 * @effect/cli renders help and errors with ANSI styles whatever the output (HelpDoc.toAnsiText,
 * printed through the Console service); without a terminal to read them they are noise.
 */
const withPlainConsole = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.consoleWith((console) => {
    const out = coloured(process.stdout)
    const err = coloured(process.stderr)
    if (out && err) return effect
    return Effect.withConsole(effect, {
      ...console,
      log: (...args) => console.log(...(out ? args : plain(args))),
      error: (...args) => console.error(...(err ? args : plain(args)))
    })
  })

/** Runs the command line; `entry` is the executable's module, which migrate's workers run. */
export const run = (entry: URL): void =>
  cli(process.argv).pipe(
    withPlainConsole,
    // A failure is one line on stderr, not a stack. A bad flag has been reported already (by
    // @effect/cli, or by the unknown-flag check in commands.ts).
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
    Effect.provide(Layer.mergeAll(NodeContext.layer, workerPlatform(entry))),
    NodeRuntime.runMain({ disableErrorReporting: true })
  )
