/**
 * The command line run in the main thread: `runCli` over the process's streams, with signals
 * turned into interruption. SIGINT or SIGTERM interrupts the command, whose scope then removes
 * the temporary files of its outputs (so every destination stays as it was), and the process
 * exits with 128 + the signal's number after one line on stderr, which says what the stop means
 * for the command interrupted. A second signal, or a command
 * still not stopped after a second, exits at once.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Exit, Fiber, Layer } from "effect"
import { readCommandLine, runCli } from "./commands.js"
import { ExitCode } from "./exit.js"
import { processStdio } from "./process-stdio.js"
import { removeTemporaries } from "./temporaries.js"
import { workerPlatform } from "./workers.js"

const SIGNALS = { SIGINT: ExitCode.sigint, SIGTERM: ExitCode.sigterm } as const
type Signal = keyof typeof SIGNALS

/**
 * What a stop means, by command: only migrate writes files; the simulator's state lives in its
 * memory. The others write nothing but what they printed.
 */
const STOPPED: Readonly<Record<string, string>> = {
  migrate: "no file was left half-written: every output is as it was before the run",
  simulate: "the simulator no longer listens, and what it held (scans, sessions, jobs) is gone with it",
  gateway: "it no longer listens; what it held (sessions, tokens, estimations, photos awaiting their pair) is in its store, for the next gateway on that store"
}

/**
 * Commands that serve until they are stopped: a signal is how they end, as a service manager
 * stops them, so one that has closed what it holds in time exits 0. They get longer to close,
 * for the requests in flight.
 */
const SERVES: ReadonlyMap<string, number> = new Map([["gateway", 10_000]])

/** The line a stop by `signal` prints for `command`. */
export const stoppedMessage = (command: string | undefined, signal: Signal): string => {
  const what = command === undefined ? undefined : STOPPED[command]
  return `scanbridge${command === undefined || what === undefined ? "" : ` ${command}`}: stopped by ${signal}${what === undefined ? "" : `; ${what}`}\n`
}

/** How long an interrupted command may take to clean up before the process exits regardless. */
const GRACE_MS = 1_000

/** Runs the command line; `entry` is the executable's module, which migrate's workers run. */
export const run = (entry: URL): void => {
  // What @effect/cli and the commands use of Node, rather than all of NodeContext (which also
  // holds a process spawner): each one the executable loads is start-up time.
  const node = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)
  const fiber = Effect.runFork(runCli(process.argv).pipe(Effect.provide(Layer.mergeAll(node, workerPlatform(entry), processStdio))))
  let received: Signal | undefined
  const command = readCommandLine(process.argv.slice(2)).command
  const serves = command === undefined ? undefined : SERVES.get(command)
  // `closed`: the command has finished cleaning up, rather than run out of time or been signalled twice.
  const stop = (signal: Signal, closed = false) => {
    removeTemporaries()
    // A progress line may stand on the terminal: the message takes its place.
    process.stderr.write(`${process.stderr.isTTY === true ? "\r\u001b[K" : ""}${stoppedMessage(command, signal)}`)
    process.exit(closed && serves !== undefined ? ExitCode.ok : SIGNALS[signal])
  }
  const onSignal = (signal: Signal) => () => {
    if (received !== undefined) return stop(received)
    received = signal
    Effect.runFork(Fiber.interrupt(fiber))
    setTimeout(() => stop(signal), serves ?? GRACE_MS).unref()
  }
  const listeners = { SIGINT: onSignal("SIGINT"), SIGTERM: onSignal("SIGTERM") }
  process.on("SIGINT", listeners.SIGINT)
  process.on("SIGTERM", listeners.SIGTERM)
  // Node exits 0 once nothing is left to wait for: a command waiting on a promise that never
  // settles (a driver's, on a dead connection) would end the process as a success having written
  // nothing. Exit 0 is for a command that finished.
  const stalled = () => {
    removeTemporaries()
    process.stderr.write(
      `${process.stderr.isTTY === true ? "\r\u001b[K" : ""}scanbridge: internal error: the command stopped waiting on something that will never answer, before it finished\n`
    )
    process.exit(ExitCode.failure)
  }
  process.once("beforeExit", stalled)
  fiber.addObserver((exit) => {
    process.off("beforeExit", stalled)
    if (received !== undefined) return stop(received, true)
    process.off("SIGINT", listeners.SIGINT)
    process.off("SIGTERM", listeners.SIGTERM)
    process.exitCode = Exit.isSuccess(exit) ? exit.value : ExitCode.failure
    // The command is done and its outputs are in place: the process ends as soon as what it
    // printed is out, rather than when nothing is left to wait for. That could be standard input
    // (once listened to) or V8 finishing its background work (compiling, sweeping) for a heap
    // about to go: tens of milliseconds on a busy machine, a tenth of a short run.
    void Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() => process.exit())
  })
}

/** Resolves once everything written to `stream` has been handed to the system (at once on Linux, where they are synchronous). */
const flushed = (stream: NodeJS.WriteStream): Promise<void> =>
  new Promise((resolve) => (stream.writableLength === 0 || stream.destroyed ? resolve() : stream.write("", () => resolve())))
