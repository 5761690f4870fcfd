/**
 * Runs `scanbridge` in-process, as the executable does (runCli over Stdio), with standard streams
 * held in memory. One process for the whole suite instead of one per command: the command line,
 * what is printed and the exit code are the same contract.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer, Stream } from "effect"
import { fileURLToPath } from "node:url"
import type { Adapter } from "@scanbridge/model"
import { textOf } from "@scanbridge/migrate"
import { runCli } from "../src/commands.js"
import { Stdio, type StdioShape } from "../src/stdio.js"
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import { Worker } from "node:worker_threads"
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"

export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))
const WORKER = new URL("./worker-entry.mjs", import.meta.url)

/** Migration workers that serve chunks as the executable's own do (serve-worker.ts), loaded through tsx. */
const workers = NodeWorker.layerPlatform(() => new Worker(WORKER))

export interface Printed {
  out: string
  err: string
}

export interface RunOptions {
  /** Standard input's bytes (default: none; reading it then fails). */
  readonly stdin?: Stream.Stream<Uint8Array, Error>
  /** Whether stdout and stderr are terminals. */
  readonly terminal?: boolean
  /** Where what is printed goes, to be read while the command runs. */
  readonly printed?: Printed
  /** What writing to stdout does instead of collecting (a closed pipe, say), given the text as a string. */
  readonly out?: (text: string) => ReturnType<StdioShape["out"]>
  /** What writing to stderr does besides collecting it (a server's line, waited for). */
  readonly err?: (text: string) => Effect.Effect<void>
  /** Adapters given to runCli as values (RunCliOptions). */
  readonly adapters?: ReadonlyArray<Adapter>
}

export interface Result {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** The streams of an in-process run. */
export const stdioLayer = (options: RunOptions, printed: Printed) =>
  Layer.succeed(Stdio, {
    out: (text) => (options.out === undefined ? Effect.sync(() => void (printed.out += textOf(text))) : options.out(textOf(text))),
    err: (text) =>
      Effect.zipRight(
        Effect.sync(() => void (printed.err += text)),
        options.err?.(text) ?? Effect.void
      ),
    stdin: options.stdin ?? Stream.fail(new Error("no standard input in this test")),
    outIsTerminal: options.terminal ?? false,
    errIsTerminal: options.terminal ?? false,
    colour: true
  })

/** `scanbridge ...args` as an Effect, from the repository's root (as the files in the tests are named). */
export const command = (args: ReadonlyArray<string>, options: RunOptions = {}): Effect.Effect<Result> => {
  const printed = options.printed ?? { out: "", err: "" }
  return runCli(["node", "scanbridge", ...args], options.adapters === undefined ? {} : { adapters: options.adapters }).pipe(
    Effect.map((code) => ({ code, stdout: printed.out, stderr: printed.err })),
    Effect.provide(Layer.mergeAll(NodeContext.layer, workers, stdioLayer(options, printed)))
  )
}

/** `scanbridge ...args` run to its end. */
export const run = (...args: ReadonlyArray<string>): Promise<Result> => Effect.runPromise(command(args))

/**
 * `scanbridge ...args` as a process of its own, from the sources, as a user runs it (to be killed,
 * say); with `stderr` or `stdout`, what it prints there is kept for the test to read (`child.stderr`, `child.stdout`).
 */
export const spawnCli = (args: ReadonlyArray<string>, options: { readonly stderr?: boolean; readonly stdout?: boolean } = {}): ChildProcess =>
  spawn(process.execPath, ["--conditions=@scanbridge/source", "--import", "tsx", join(repoRoot, "packages/cli/src/main.ts"), ...args], {
    cwd: repoRoot,
    stdio: ["ignore", options.stdout === true ? "pipe" : "ignore", options.stderr === true ? "pipe" : "ignore"]
  })

/** The exit code of a spawned command, once it has exited (null when a signal ended it). */
export const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
