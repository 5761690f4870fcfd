/**
 * The run of `scanbridge migrate` (see migrate.ts for its flags), loaded only when the command
 * runs: the migration engine is no part of `--help` or of the other commands.
 */
import { Clock, Effect, Fiber, Option } from "effect"
import {
  type MigrateProgress,
  MigrateOutputError,
  type OutputFile,
  type TextWriter,
  listInputs,
  makeMigratePool,
  migrate,
  outputFile,
  refuseOverlaps,
  renderReport,
  TABLE_TARGETS
} from "@scanbridge/migrate"
import { ExitCode, exitWith } from "../exit.js"
import { progressLine } from "../progress.js"
import { BrokenPipe, Stdio } from "../stdio.js"
import { track, untrack } from "../temporaries.js"
import { defaultWorkers } from "../workers.js"
import { withAdapters } from "../adapters.js"
import { CliError, UsageError } from "./errors.js"
import { STDIN_ARGUMENT } from "./flags.js"

/** The command line of `scanbridge migrate`, as its flags read it. */
export interface MigrateArgs {
  readonly inputs: ReadonlyArray<string>
  readonly to: string
  readonly units: "mm" | "cm" | "in"
  readonly out: Option.Option<string>
  readonly rejects: Option.Option<string>
  readonly report: Option.Option<string>
  readonly strict: boolean
  readonly workers: Option.Option<number>
  readonly progress: "auto" | "always" | "never"
  readonly quiet: boolean
  readonly adapter: ReadonlyArray<string>
}

/**
 * The process's own standard streams by their device names. They may be sockets (a parent
 * process's pipes often are), which cannot be opened again by name, so they are used as the
 * streams they are.
 */
const STDOUT_NAMES = new Set(["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
const STDIN_NAMES = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"])

const isStdout = (name: Option.Option<string>) => Option.isSome(name) && STDOUT_NAMES.has(name.value)

export const runMigrate = (args: MigrateArgs) => {
  // The pipe's reader going away ends the run as a signal would: nothing is committed.
  let closed = false
  return withAdapters(args.adapter, ({ modules, normalizer, onWorkers }) => Effect.scoped(
    Effect.gen(function* () {
      const targets = [...normalizer.encoders.keys(), ...TABLE_TARGETS]
      if (!targets.includes(args.to)) return yield* new UsageError({ message: `--to ${args.to}: expected one of ${targets.join(", ")}` })
      if (args.units !== "mm" && !(TABLE_TARGETS as ReadonlyArray<string>).includes(args.to)) {
        return yield* new UsageError({ message: `--units ${args.units}: only --to ${TABLE_TARGETS.join(" or ")} writes lengths in a chosen unit; ${args.to} has its own` })
      }
      const stdio = yield* Stdio
      const given = args.inputs.map((input) => (input === STDIN_ARGUMENT || STDIN_NAMES.has(input) ? "-" : input))
      const named = [
        ["--out", args.out],
        ["--rejects", args.rejects],
        ["--report", args.report]
      ] as const
      const onStdout = named.filter(([flag, value]) => (flag === "--out" ? Option.isNone(value) || isStdout(value) : isStdout(value)))
      if (onStdout.length > 1) {
        return yield* new CliError({ message: `${onStdout.map(([f]) => f).join(" and ")} both write to standard output; give one of them a file` })
      }
      yield* refuseOverlaps(
        given,
        named.flatMap(([name, value]) => (Option.isSome(value) && !isStdout(value) ? [{ name, file: value.value }] : []))
      )

      // The inputs are listed before any output is opened: a missing input touches nothing.
      const inputs = yield* listInputs(given)
      const toStdout: TextWriter = (text) =>
        Effect.catchTag(stdio.out(text), "BrokenPipe", () => {
          closed = true
          return new MigrateOutputError({ file: "-", message: "standard output was closed" })
        })
      const open = (value: Option.Option<string>) =>
        Option.isSome(value) && !isStdout(value)
          ? Effect.acquireRelease(Effect.map(outputFile(value.value), track), (output) => Effect.sync(() => untrack(output)))
          : Effect.succeed(undefined)
      const out = yield* open(args.out)
      const rejects = yield* open(args.rejects)
      const reportFile = yield* open(args.report)
      const writerOf = (output: OutputFile | undefined, value: Option.Option<string>) => (output !== undefined ? output.write : isStdout(value) ? toStdout : undefined)
      // Without --rejects, rejects are counted in the report, not formatted.
      const rejectsWriter = writerOf(rejects, args.rejects)

      const total = inputs.bytesTotal
      const workers = Option.isSome(args.workers) ? args.workers.value : defaultWorkers(total ?? 0)
      // Adapters given to runCli as values have no module a worker could import: they migrate here.
      const pool = workers > 0 && onWorkers ? yield* makeMigratePool({ size: workers, adapterModules: modules }) : undefined

      const started = yield* Clock.currentTimeMillis
      const nothingYet = { records: 0, migrated: 0, rejected: 0, scans: 0, target: args.to, byFormat: {}, byStatus: {}, byNoteKind: {}, byRejectReason: {} }
      let latest: MigrateProgress = { report: nothingYet, bytesRead: 0, bytesTotal: total }
      const showProgress = !args.quiet && (args.progress === "always" || (args.progress === "auto" && stdio.errIsTerminal))
      const ticker = showProgress ? yield* Effect.forkScoped(progressLine(stdio, started, () => latest)) : undefined

      const report = yield* migrate({
        inputs,
        stdin: stdio.stdin,
        to: args.to,
        units: args.units,
        output: writerOf(out, args.out) ?? toStdout,
        ...(rejectsWriter === undefined ? {} : { rejects: rejectsWriter }),
        ...(pool === undefined ? {} : { pool }),
        // Only a progress line reads the progress: without one, no chunk pays for a report.
        ...(ticker === undefined ? {} : { onProgress: (progress: MigrateProgress) => Effect.sync(() => void (latest = progress)) })
      })
      if (ticker !== undefined) {
        yield* Fiber.interrupt(ticker)
        if (stdio.errIsTerminal) yield* stdio.err("\r\u001b[K")
      }

      const json = `${JSON.stringify(report, null, 2)}\n`
      if (reportFile !== undefined) yield* reportFile.write(json)
      else if (isStdout(args.report)) yield* toStdout(json)
      // The run is complete: now, and only now, the outputs take their destinations' place.
      for (const output of [out, rejects, reportFile]) if (output !== undefined) yield* output.commit

      if (!args.quiet) {
        const seconds = ((yield* Clock.currentTimeMillis) - started) / 1000
        yield* stdio.err(`${renderReport(report, seconds)}\n`)
        if (report.rejected > 0 && Option.isNone(args.rejects)) yield* stdio.err(`${report.rejected} rejected record(s) not kept: pass --rejects FILE to keep them\n`)
      }
      if (args.strict && report.rejected > 0) yield* exitWith(ExitCode.rejected)
    })
  ).pipe(
    Effect.catchIf(
      () => closed,
      () => new BrokenPipe()
    )
  ))
}
