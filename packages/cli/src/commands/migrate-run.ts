/**
 * The run of `scanbridge migrate` (see migrate.ts for its flags), loaded only when the command
 * runs. The flags become a plan of @scanbridge/migrate (`Migration.run`), which checks it, runs
 * it and commits its outputs; this module draws the progress line and says the summary.
 */
import type * as Worker from "@effect/platform/Worker"
import { Clock, Effect, Fiber, Layer, Option, Redacted } from "effect"
import { type MigrateProgress, Migration, MigrateOutputError, type MigrationPlan, type PlanOption, type TextWriter, renderReport } from "@scanbridge/migrate"
import { adapterModuleUrl } from "../adapters.js"
import { ExitCode, exitWith } from "../exit.js"
import { GivenAdapters } from "../given-adapters.js"
import { progressLine } from "../progress.js"
import { BrokenPipe, Stdio } from "../stdio.js"
import { track, untrack } from "../temporaries.js"
import { UsageError } from "./errors.js"
import { type DecodeFlags, STDIN_ARGUMENT, decodeOptionsOf } from "./flags.js"

/** The command line of `scanbridge migrate`, as its flags read it. */
export interface MigrateArgs extends DecodeFlags {
  readonly inputs: ReadonlyArray<string>
  readonly from: Option.Option<Redacted.Redacted<string>>
  readonly query: Option.Option<string>
  readonly into: Option.Option<Redacted.Redacted<string>>
  readonly table: string
  readonly resumable: boolean
  readonly resume: boolean
  readonly verify: boolean
  readonly to: string
  readonly units: Option.Option<"mm" | "cm" | "in">
  readonly fhirPatientSystem: Option.Option<string>
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
 * The process's own standard output by its device names. It may be a socket (a parent process's
 * pipes often are), which cannot be opened again by name, so it is written as the stream it is.
 */
const STDOUT_NAMES = new Set(["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])

const isStdout = (name: Option.Option<string>) => Option.isSome(name) && STDOUT_NAMES.has(name.value)

/** The plan's options by the flags that give them. */
const FLAGS: Readonly<Record<PlanOption, string>> = {
  inputs: "the inputs",
  to: "--to",
  units: "--units",
  patientSystem: "--fhir-patient-system",
  out: "--out",
  rejects: "--rejects",
  report: "--report",
  resumable: "--resumable",
  resume: "--resume",
  verify: "--verify",
  workers: "--workers",
  from: "--from",
  into: "--into"
}

/** What the flags say that a plan cannot: which flags go together, and which one output is standard output. */
const checkFlags = (args: MigrateArgs): string | undefined => {
  if (Option.isSome(args.from) && args.inputs.length > 0) return "--from reads the records from a database: give no input files with it"
  if (Option.isNone(args.from) && args.inputs.length === 0) return "give the inputs to migrate (files, folders, -), or --from URL --query SQL"
  if (Option.isSome(args.from) !== Option.isSome(args.query)) return "--from and --query go together: the database, and the query whose rows are the records"
  if (Option.isSome(args.into)) {
    const dropped = (["out", "rejects"] as const).filter((flag) => Option.isSome(args[flag]))
    if (dropped.length > 0) return `--into writes scans and rejects to the database: drop ${dropped.map((f) => `--${f}`).join(" and ")}`
    const targetFlags = (
      [
        ["--to", args.to !== "canonical"],
        // Millimetres are what the canonical form holds: saying so is no contradiction.
        ["--units", Option.exists(args.units, (u) => u !== "mm")],
        ["--fhir-patient-system", Option.isSome(args.fhirPatientSystem)]
      ] as const
    ).flatMap(([f, given]) => (given ? [f] : []))
    if (targetFlags.length > 0) {
      const last = targetFlags.length - 1
      const said = last === 0 ? targetFlags[0] : `${targetFlags.slice(0, last).join(", ")} and ${targetFlags[last]}`
      return `--into writes canonical scans in millimetres: drop ${said}`
    }
  }
  for (const [flag, url] of [
    ["--from", args.from],
    ["--into", args.into]
  ] as const) {
    // Only the scheme is named: the rest of a URL may hold a password.
    if (Option.isSome(url) && !/^postgres(ql)?:\/\//.test(Redacted.value(url.value))) return `${flag}: expected a postgres:// or postgresql:// URL`
  }
  // Records go to standard output when no --out is given, unless they go to a database.
  const onStdout = (
    [
      ["--out", Option.isNone(args.into) && (Option.isNone(args.out) || isStdout(args.out))],
      ["--rejects", isStdout(args.rejects)],
      ["--report", isStdout(args.report)]
    ] as const
  ).filter(([, yes]) => yes)
  if (onStdout.length > 1) return `${onStdout.map(([f]) => f).join(" and ")} both write to standard output; give one of them a file`
  return undefined
}

export const runMigrate = (args: MigrateArgs) => {
  // The pipe's reader going away ends the run as a signal would: nothing is committed.
  let closed = false
  return Effect.gen(function* () {
    const wrong = checkFlags(args)
    if (wrong !== undefined) return yield* new UsageError({ message: wrong })
    const stdio = yield* Stdio
    const given = yield* GivenAdapters
    const toStdout: TextWriter = (text) =>
      Effect.catchTag(stdio.out(text), "BrokenPipe", () => {
        closed = true
        return new MigrateOutputError({ file: "-", message: "standard output was closed" })
      })
    const destination = (value: Option.Option<string>) => (isStdout(value) ? toStdout : Option.getOrUndefined(value))

    const started = yield* Clock.currentTimeMillis
    let latest: MigrateProgress | undefined
    const showProgress = !args.quiet && (args.progress === "always" || (args.progress === "auto" && stdio.errIsTerminal))
    const keeps = args.resumable || args.resume
    const report = destination(args.report)
    const plan: MigrationPlan<never, never> = {
      source: Option.isSome(args.from)
        ? { _tag: "Postgres", url: args.from.value, query: Option.getOrThrow(args.query) }
        : { _tag: "Files", inputs: args.inputs.map((input) => (input === STDIN_ARGUMENT ? "-" : input)), stdin: stdio.stdin },
      sink: Option.isSome(args.into)
        ? { _tag: "Postgres", url: args.into.value, table: args.table }
        : {
            _tag: "Text",
            to: args.to,
            ...(Option.isSome(args.units) ? { units: args.units.value } : {}),
            ...(Option.isSome(args.fhirPatientSystem) ? { patientSystem: args.fhirPatientSystem.value } : {}),
            out: destination(args.out) ?? toStdout,
            ...(Option.isNone(args.rejects) ? {} : { rejects: destination(args.rejects)! })
          },
      ...(report === undefined ? {} : { report }),
      resume: args.resume ? "resume" : args.resumable ? "resumable" : "off",
      verify: args.verify,
      workers: Option.getOrElse(args.workers, () => "auto" as const),
      // The executable's own worker entry (run.ts), which a thread of the plan's platform would not know.
      workerPlatform: Layer.succeedContext(yield* Effect.context<Worker.PlatformWorker | Worker.Spawner>()),
      adapters: { modules: args.adapter.map((s) => adapterModuleUrl(s)), values: given },
      decode: decodeOptionsOf(args),
      names: FLAGS,
      onOutput: (output) =>
        Effect.acquireRelease(
          Effect.sync(() => track(output)),
          () => Effect.sync(() => untrack(output))
        ),
      onResume: (from) =>
        from === undefined && !args.quiet ? stdio.err("nothing to resume: no checkpoint of this run was found; starting from the first record\n") : Effect.void,
      ...(showProgress || keeps ? { onProgress: (progress: MigrateProgress) => Effect.sync(() => void (latest = progress)) } : {})
    }

    const ticker = showProgress
      ? yield* Effect.forkScoped(
          progressLine(stdio, started, () => latest ?? { report: nothingReadYet(args.to), bytesRead: 0, bytesTotal: null, position: undefined })
        )
      : undefined
    const done = yield* Migration.run(plan).pipe(
      // A plan the flags make that cannot run is a mistake of the command line: exit 2, nothing written.
      Effect.catchTags({
        MigratePlanError: (e) => new UsageError({ message: e.message }),
        UnknownTargetError: (e) => new UsageError({ message: e.message })
      }),
      // A resumable run that stops says where what it wrote is, and how to go on.
      Effect.onError(() =>
        keeps && Option.isNone(args.into) && latest?.position !== undefined
          ? Effect.ignore(
              stdio.err(`the outputs written so far are kept beside ${Option.getOrElse(args.out, () => "")}: run the same command with --resume to go on\n`)
            )
          : Effect.void
      )
    )
    if (ticker !== undefined) {
      yield* Fiber.interrupt(ticker)
      if (stdio.errIsTerminal) yield* stdio.err("\r\u001b[K")
    }

    if (!args.quiet) {
      const seconds = ((yield* Clock.currentTimeMillis) - started) / 1000
      yield* stdio.err(`${renderReport(done, seconds)}\n`)
      // An empty input only warns (in the summary above and in the report), and exits 0: nothing was lost.
      if (done.rejected > 0 && Option.isSome(args.into)) {
        const { REJECTS_SUFFIX } = yield* Effect.promise(() => import("@scanbridge/migrate/postgres"))
        yield* stdio.err(`${done.rejected} rejected record(s) kept in the table ${args.table}${REJECTS_SUFFIX}\n`)
      } else if (done.rejected > 0 && Option.isNone(args.rejects))
        yield* stdio.err(`${done.rejected} rejected record(s) not kept: pass --rejects FILE to keep them\n`)
    }
    if (args.strict && done.rejected > 0) yield* exitWith(ExitCode.rejected)
  }).pipe(
    Effect.scoped,
    Effect.catchIf(
      () => closed,
      () => new BrokenPipe()
    )
  )
}

/** The progress before the first chunk is written. */
const nothingReadYet = (target: string) => ({
  records: 0,
  migrated: 0,
  rejected: 0,
  scans: 0,
  target,
  byFormat: {},
  byStatus: {},
  byNoteKind: {},
  byRejectReason: {}
})
