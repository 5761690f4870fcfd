/**
 * `scanbridge migrate`: stored records of any API to canonical scans or another API's shape.
 * Outputs appear whole or not at all (written beside their destination, renamed into place at the
 * end); an interrupted or failed run leaves every destination as it was. Records go to stdout when
 * no `--out` is given, so the command composes in a pipe; progress and the summary go to stderr.
 */
import { Args, Command } from "@effect/cli"
import { Clock, Effect, Fiber, Option } from "effect"
import {
  type MigrateProgress,
  MigrateOutputError,
  type OutputFile,
  type TextWriter,
  listInputs,
  makeCounter,
  makeMigratePool,
  migrate,
  outputFile,
  refuseOverlaps,
  renderReport
} from "@scanbridge/migrate"
import { BUILT_IN_TARGETS, adapterOption, withAdapters } from "../adapters.js"
import { ExitCode, exitWith } from "../exit.js"
import { progressLine } from "../progress.js"
import { BrokenPipe, Stdio } from "../stdio.js"
import { track, untrack } from "../temporaries.js"
import { WORKERS_FROM_BYTES, defaultWorkers } from "../workers.js"
import { CliError, UsageError } from "./errors.js"
import { choice, count, file, flag, text } from "./flags.js"

/**
 * The process's own standard streams by their device names. They may be sockets (a parent
 * process's pipes often are), which cannot be opened again by name, so they are used as the
 * streams they are.
 */
const STDOUT_NAMES = new Set(["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
const STDIN_NAMES = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"])

const isStdout = (name: Option.Option<string>) => Option.isSome(name) && STDOUT_NAMES.has(name.value)

/** `-` as an argument, as runCli hands it on (see readCommandLine): no argument can hold a NUL. */
export const STDIN_ARGUMENT = "\u0000-"

/** What `scanbridge migrate --help` shows after the flags (see help.ts). */
export const migrateHelp = {
  usage: "scanbridge migrate <inputs>... [--to TARGET] [--adapter MODULE]... [--out FILE] [--rejects FILE] [--report FILE] [--strict] [--workers N] [--progress WHEN] [--quiet]",
  exitCodes: [
    [ExitCode.ok, "every record was migrated or rejected, and the outputs are in place"],
    [ExitCode.failure, "the run failed (an unreadable input, an output that cannot be written); every destination is as it was"],
    [ExitCode.usage, "a bad command line (an unknown flag, a bad value)"],
    [ExitCode.rejected, "--strict, and some records were rejected (the outputs are in place)"],
    [ExitCode.sigint, "interrupted by SIGINT (Ctrl-C); every destination is as it was"],
    [ExitCode.sigterm, "stopped by SIGTERM; every destination is as it was"],
    [ExitCode.brokenPipe, "standard output was closed by its reader (| head); nothing more is written"]
  ],
  examples: [
    "scanbridge migrate export/ --out scans.ndjson --rejects rejects.ndjson --report report.json",
    "gunzip -c results.ndjson.gz | scanbridge migrate - --to platform --strict --quiet > entries.ndjson",
    "scanbridge migrate acme-export/ --adapter ./acme-adapter.js --out scans.ndjson"
  ]
} as const

export const migrateCommand = Command.make(
  "migrate",
  {
    inputs: Args.text({ name: "inputs" }).pipe(
      Args.withDescription("NDJSON files, JSON files (an object or an array), .gz of either, or folders of them; - reads standard input"),
      Args.atLeast(1)
    ),
    to: text("to", BUILT_IN_TARGETS.join("|"), "canonical", "the shape to write, or an --adapter's target"),
    adapter: adapterOption,
    out: file("out", "where to write the records; - for standard output", "standard output"),
    rejects: file("rejects", "where to write {file, line, error, raw} per rejected record", "counted, not kept"),
    report: file("report", "where to write the report as JSON", "none; the summary goes to standard error"),
    strict: flag("strict", `exit with code ${ExitCode.rejected} when any record was rejected (default: off)`),
    workers: count(
      "workers",
      0,
      "worker threads to migrate on besides the main thread, 0 for none; the output is the same either way",
      `one per core but one when the inputs hold ${WORKERS_FROM_BYTES / 1024 / 1024} MiB or more, else 0`
    ),
    progress: choice("progress", ["auto", "always", "never"] as const, "auto", "a progress line on standard error; auto shows it on a terminal"),
    quiet: flag("quiet", "nothing on standard error but errors: no progress line, no summary (default: off)")
  },
  (args) => {
    // The pipe's reader going away ends the run as a signal would: nothing is committed.
    let closed = false
    return withAdapters(args.adapter, ({ modules, normalizer, onWorkers }) =>
      Effect.scoped(
        Effect.gen(function* () {
          if (!normalizer.encoders.has(args.to)) return yield* new UsageError({ message: `--to ${args.to}: expected one of ${[...normalizer.encoders.keys()].join(", ")}` })
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
          const discard: TextWriter = () => Effect.void
          const writerOf = (output: OutputFile | undefined, value: Option.Option<string>, otherwise: TextWriter) =>
            output !== undefined ? output.write : isStdout(value) ? toStdout : otherwise

          const total = inputs.bytesTotal
          const workers = Option.isSome(args.workers) ? args.workers.value : defaultWorkers(total ?? 0)
          // Adapters given to runCli as values have no module a worker could import: they migrate here.
          const pool = workers > 0 && onWorkers ? yield* makeMigratePool({ size: workers, adapterModules: modules }) : undefined

          const started = yield* Clock.currentTimeMillis
          let latest: MigrateProgress = { report: makeCounter(args.to).report(), bytesRead: 0, bytesTotal: total }
          const showProgress = !args.quiet && (args.progress === "always" || (args.progress === "auto" && stdio.errIsTerminal))
          const ticker = showProgress ? yield* Effect.forkScoped(progressLine(stdio, started, () => latest)) : undefined

          const report = yield* migrate({
            inputs,
            stdin: stdio.stdin,
            to: args.to,
            output: writerOf(out, args.out, toStdout),
            rejects: writerOf(rejects, args.rejects, discard),
            ...(pool === undefined ? {} : { pool }),
            onProgress: (progress) => Effect.sync(() => void (latest = progress))
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
      )
    )
  }
).pipe(
  Command.withDescription(
    "Migrate stored records of any API to canonical scans or another API's shape. Outputs are written beside their destination and renamed into place when the run succeeds; a failed or interrupted run leaves them as they were."
  )
)
