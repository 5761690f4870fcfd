/**
 * The run of `scanbridge migrate` (see migrate.ts for its flags), loaded only when the command
 * runs: the migration engine is no part of `--help` or of the other commands.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Clock, Effect, Fiber, Option, Redacted } from "effect"
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
  TABLE_TARGETS,
  CHECKPOINT_FORMAT,
  type ResumableOutput,
  ResumeError,
  cannotResume,
  checkpointFile,
  inputIdentities,
  outputPath,
  readCheckpoint,
  readWith,
  resumePointOf,
  verifyInputs,
  writeCheckpoint
} from "@scanbridge/migrate"
import { ExitCode, exitWith } from "../exit.js"
import { progressLine } from "../progress.js"
import { BrokenPipe, Stdio } from "../stdio.js"
import { track, untrack } from "../temporaries.js"
import { WORKERS_FROM_BYTES, defaultWorkers } from "../workers.js"
import { withAdapters } from "../adapters.js"
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

/** The database flags make sense only together, and never with the file flags they replace. */
const checkDatabaseFlags = (args: MigrateArgs) =>
  Effect.gen(function* () {
    const usage = (message: string) => new UsageError({ message })
    if (Option.isSome(args.from) && args.inputs.length > 0) return yield* usage("--from reads the records from a database: give no input files with it")
    if (Option.isNone(args.from) && args.inputs.length === 0) return yield* usage("give the inputs to migrate (files, folders, -), or --from URL --query SQL")
    if (Option.isSome(args.from) !== Option.isSome(args.query)) return yield* usage("--from and --query go together: the database, and the query whose rows are the records")
    if (Option.isSome(args.into)) {
      const clash = (["out", "rejects"] as const).filter((flag) => Option.isSome(args[flag]))
      if (clash.length > 0) return yield* usage(`--into writes scans and rejects to the database: drop ${clash.map((f) => `--${f}`).join(" and ")}`)
      if (args.to !== "canonical" || args.units !== "mm") return yield* usage("--into writes canonical scans in millimetres: drop --to and --units")
    }
    if (args.verify && !args.resume) return yield* usage("--verify checks the inputs of the run being resumed: give it with --resume")
    if (args.verify && (Option.isSome(args.into) || Option.isSome(args.from))) {
      return yield* usage("--verify checks input files against the hashes a checkpoint beside --out keeps: not with --from or --into")
    }
    if ((args.resumable || args.resume) && Option.isNone(args.into)) {
      const flag = args.resume ? "--resume" : "--resumable"
      if (args.to === "parquet") return yield* usage(`${flag}: a Parquet file is written whole (its footer last), so it cannot be resumed; write csv or NDJSON to resume`)
      if (Option.isNone(args.out) || isStdout(args.out)) return yield* usage(`${flag} keeps a checkpoint beside the output: give --out FILE`)
      // What went to standard output cannot be cut back to a checkpoint: a resumed run would repeat some.
      if (isStdout(args.rejects)) return yield* usage(`${flag}: rejects on standard output cannot be taken back to the checkpoint when the run is resumed; give --rejects FILE`)
      if (args.inputs.some((i) => i === STDIN_ARGUMENT || STDIN_NAMES.has(i))) return yield* usage(`${flag}: standard input cannot be read again; give the input as a file`)
    }
    for (const [flag, url] of [["--from", args.from], ["--into", args.into]] as const) {
      // Only the scheme is named: the rest of a URL may hold a password.
      if (Option.isSome(url) && !/^postgres(ql)?:\/\//.test(Redacted.value(url.value))) {
        return yield* usage(`${flag}: expected a postgres:// or postgresql:// URL`)
      }
    }
  })

export const runMigrate = (args: MigrateArgs) => {
  // The pipe's reader going away ends the run as a signal would: nothing is committed.
  let closed = false
  // What every decode is told, here and on the workers, and what a checkpoint records of it.
  const decode = decodeOptionsOf(args)
  return withAdapters(args.adapter, ({ modules, normalizer, onWorkers }) => Effect.scoped(
    Effect.gen(function* () {
      const targets = [...normalizer.encoders.keys(), ...TABLE_TARGETS]
      if (!targets.includes(args.to)) return yield* new UsageError({ message: `--to ${args.to}: expected one of ${targets.join(", ")}` })
      if (args.units !== "mm" && !(TABLE_TARGETS as ReadonlyArray<string>).includes(args.to)) {
        return yield* new UsageError({ message: `--units ${args.units}: only --to ${TABLE_TARGETS.join(" or ")} writes lengths in a chosen unit; ${args.to} has its own` })
      }
      yield* checkDatabaseFlags(args)
      const stdio = yield* Stdio
      const given = args.inputs.map((input) => (input === STDIN_ARGUMENT || STDIN_NAMES.has(input) ? "-" : input))
      const named = [
        ["--out", args.out],
        ["--rejects", args.rejects],
        ["--report", args.report]
      ] as const
      // Records go to standard output when no --out is given, unless they go to a database.
      const onStdout = named.filter(([flag, value]) => (flag === "--out" ? Option.isNone(args.into) && (Option.isNone(value) || isStdout(value)) : isStdout(value)))
      if (onStdout.length > 1) {
        return yield* new UsageError({ message: `${onStdout.map(([f]) => f).join(" and ")} both write to standard output; give one of them a file` })
      }
      // An output that is an input, or in an input folder, is a mistake of the command line: exit 2.
      yield* Effect.mapError(
        refuseOverlaps(
          given,
          named.flatMap(([name, value]) => (Option.isSome(value) && !isStdout(value) ? [{ name, file: value.value }] : []))
        ),
        (e) => new UsageError({ message: e.message })
      )

      // The inputs are listed (or the query checked) before any output is opened: a missing input touches nothing.
      const postgres = Option.isSome(args.from) || Option.isSome(args.into) ? yield* Effect.promise(() => import("@scanbridge/migrate/postgres")) : undefined
      const source = postgres !== undefined && Option.isSome(args.from) ? yield* postgres.postgresSource({ url: args.from.value, query: Option.getOrThrow(args.query), name: "--from" }) : undefined
      const listed = source === undefined ? yield* listInputs(given) : undefined
      // A query is its own identity: a resume of another query is refused, not read from the first's key on.
      const identities = listed === undefined ? [{ file: Option.getOrThrow(args.query), size: null, modified: null }] : yield* inputIdentities(listed)
      // What a file checkpoint names the run's output by.
      const target = args.units === "mm" ? args.to : `${args.to} in ${args.units}`
      const sink =
        postgres !== undefined && Option.isSome(args.into)
          ? yield* postgres.postgresSink({
              url: args.into.value,
              name: "--into",
              table: args.table,
              input: readWith(postgres.sinkInput(source !== undefined ? { query: Option.getOrThrow(args.query) } : identities), decode)
            })
          : undefined

      // A resumable run's checkpoint, beside --out; a database keeps its own.
      const path = yield* Path.Path
      const checkpointAt = args.resumable || args.resume ? Option.map(Option.filter(args.out, () => sink === undefined), (out) => checkpointFile(path, out)) : Option.none()
      const checkpoint = Option.isSome(checkpointAt) && args.resume ? yield* readCheckpoint(checkpointAt.value) : Option.none()
      // The outputs a checkpoint counts, by real path: a resumed run finds them however they are spelled.
      const resumableNames = [
        ["--out", args.out],
        ["--rejects", args.rejects]
      ] as const
      const resumableOutputs: ReadonlyArray<ResumableOutput & { readonly name: (typeof resumableNames)[number][0] }> = Option.isNone(checkpointAt)
        ? []
        : yield* Effect.forEach(
            resumableNames.flatMap(([name, value]) => (Option.isSome(value) ? [[name, value.value] as const] : [])),
            ([name, file]) => Effect.map(outputPath(file), (real) => ({ name, file: real }))
          )
      if (Option.isSome(checkpointAt) && Option.isSome(checkpoint)) {
        const why = cannotResume(checkpoint.value, { inputs: identities, target, adapters: modules, decode, outputs: resumableOutputs })
        if (why !== undefined) return yield* new ResumeError({ file: checkpointAt.value, message: `cannot resume: ${why}; run without --resume to start again` })
        if (args.verify && listed !== undefined) yield* verifyInputs(checkpointAt.value, checkpoint.value, listed)
      }
      const sinkResume = sink !== undefined && args.resume ? yield* sink.resumePoint : undefined
      const after = Option.isSome(checkpoint) ? resumePointOf(checkpoint.value) : sinkResume
      if (args.resume && after === undefined && !args.quiet) yield* stdio.err("nothing to resume: no checkpoint of this run was found; starting from the first record\n")
      const inputs = source !== undefined ? source.after(after?.position) : listed!

      const toStdout: TextWriter = (text) =>
        Effect.catchTag(stdio.out(text), "BrokenPipe", () => {
          closed = true
          return new MigrateOutputError({ file: "-", message: "standard output was closed" })
        })
      // A checkpoint resumed has the same outputs as this run (cannotResume): each is cut back to its bytes.
      const resumedBytes = (name: string) => Option.getOrUndefined(Option.flatMap(checkpoint, (c) => Option.fromNullable(c.outputs.find((o) => o.name === name)?.bytes)))
      const open = (value: Option.Option<string>, resumable: string | undefined) => {
        if (Option.isNone(value) || isStdout(value)) return Effect.succeed(undefined)
        const from = resumable === undefined ? undefined : resumedBytes(resumable)
        const options = resumable !== undefined && Option.isSome(checkpointAt) ? { resumable: from === undefined ? {} : { from } } : {}
        return Effect.acquireRelease(Effect.map(outputFile(value.value, options), track), (output) => Effect.sync(() => untrack(output)))
      }
      const out = yield* open(args.out, "--out")
      const rejects = yield* open(args.rejects, "--rejects")
      // The report is written whole at the end, from the report the checkpoint goes on from: nothing
      // of it to resume, and the same bytes whether or not the run being resumed was given --report.
      // A resumable run's is kept under the name its resumed run writes (opened anew, not appended to), as
      // a random one killed with the process (SIGKILL: no finalizer runs) was left behind for ever.
      const reportFile = yield* open(args.report, "--report")
      const writerOf = (output: OutputFile | undefined, value: Option.Option<string>) => (output !== undefined ? output.write : isStdout(value) ? toStdout : undefined)
      // Without --rejects, rejects are counted in the report, not formatted.
      const rejectsWriter = writerOf(rejects, args.rejects)
      // After each chunk, where the outputs stand: a crash leaves the last checkpoint, or the one before.
      const written = { "--out": out, "--rejects": rejects }
      // A checkpoint that cannot be written leaves the last one: a resumed run redoes more, and writes the same.
      const fileSystem = yield* FileSystem.FileSystem
      const saveCheckpoint = (progress: MigrateProgress): Effect.Effect<void> =>
        Option.isNone(checkpointAt) || progress.position === undefined
          ? Effect.void
          : Effect.ignore(Effect.provideService(writeCheckpoint(checkpointAt.value, {
              format: CHECKPOINT_FORMAT,
              inputs: identities,
              target,
              adapters: modules,
              decode,
              outputs: resumableOutputs.map((o) => ({ ...o, bytes: written[o.name]?.bytesWritten ?? 0 })),
              position: progress.position,
              report: progress.report,
              digests: progress.digests ?? []
            }), FileSystem.FileSystem, fileSystem))

      const total = listed?.bytesTotal ?? null
      // A database's rows have no size known beforehand, and a table being migrated is rarely
      // small: measured on 100k stored platform entries into PostgreSQL, a worker took the run
      // from 10.0-10.3 s to 7.9-8.7 s, and the main thread migrates while it starts.
      const workers = Option.isSome(args.workers) ? args.workers.value : defaultWorkers(source !== undefined ? WORKERS_FROM_BYTES : (total ?? 0))
      // Adapters given to runCli as values have no module a worker could import: they migrate here.
      const pool = workers > 0 && onWorkers ? yield* makeMigratePool({ size: workers, adapterModules: modules, decodeOptions: decode }) : undefined

      const started = yield* Clock.currentTimeMillis
      const nothingYet = { records: 0, migrated: 0, rejected: 0, scans: 0, target: args.to, byFormat: {}, byStatus: {}, byNoteKind: {}, byRejectReason: {} }
      let latest: MigrateProgress = { report: nothingYet, bytesRead: 0, bytesTotal: total, position: undefined }
      const showProgress = !args.quiet && (args.progress === "always" || (args.progress === "auto" && stdio.errIsTerminal))
      const ticker = showProgress ? yield* Effect.forkScoped(progressLine(stdio, started, () => latest)) : undefined

      const report = yield* migrate({
        inputs,
        stdin: stdio.stdin,
        ...(sink !== undefined
          ? { into: sink }
          : { to: args.to, units: args.units, output: writerOf(out, args.out) ?? toStdout, ...(rejectsWriter === undefined ? {} : { rejects: rejectsWriter }) }),
        ...(pool === undefined ? {} : { pool }),
        ...(after === undefined ? {} : { after }),
        // A checkpoint keeps what the run has read hashed, for a --verify of the run that resumes it.
        ...(Option.isSome(checkpointAt) ? { hashInputs: true } : {}),
        // Only a progress line or a checkpoint reads the progress: without one, no chunk pays for a report.
        ...(ticker === undefined && Option.isNone(checkpointAt)
          ? {}
          : { onProgress: (progress: MigrateProgress) => Effect.zipRight(Effect.sync(() => void (latest = progress)), saveCheckpoint(progress)) })
      }).pipe(
        // A resumable run that stops says where what it wrote is, and how to go on.
        Effect.onError(() =>
          Option.isSome(checkpointAt) && latest.position !== undefined
            ? Effect.ignore(stdio.err(`the outputs written so far are kept beside ${Option.getOrElse(args.out, () => "")}: run the same command with --resume to go on\n`))
            : Effect.void
        )
      )
      if (ticker !== undefined) {
        yield* Fiber.interrupt(ticker)
        if (stdio.errIsTerminal) yield* stdio.err("\r\u001b[K")
      }

      const json = `${JSON.stringify(report, null, 2)}\n`
      if (reportFile !== undefined) yield* reportFile.write(json)
      else if (isStdout(args.report)) yield* toStdout(json)
      // The run is complete: now, and only now, the outputs take their destinations' place.
      for (const output of [out, rejects, reportFile]) if (output !== undefined) yield* output.commit
      if (Option.isSome(checkpointAt)) yield* Effect.ignore(Effect.flatMap(FileSystem.FileSystem, (fs) => fs.remove(checkpointAt.value, { force: true })))

      if (!args.quiet) {
        const seconds = ((yield* Clock.currentTimeMillis) - started) / 1000
        yield* stdio.err(`${renderReport(report, seconds)}\n`)
        // An empty input only warns (in the summary above and in the report), and exits 0: nothing was lost.
        if (report.rejected > 0 && sink !== undefined) yield* stdio.err(`${report.rejected} rejected record(s) kept in the table ${args.table}${postgres!.REJECTS_SUFFIX}\n`)
        else if (report.rejected > 0 && Option.isNone(args.rejects)) yield* stdio.err(`${report.rejected} rejected record(s) not kept: pass --rejects FILE to keep them\n`)
      }
      if (args.strict && report.rejected > 0) yield* exitWith(ExitCode.rejected)
    })
  ).pipe(
    Effect.catchIf(
      () => closed,
      () => new BrokenPipe()
    )
  ), decode)
}
