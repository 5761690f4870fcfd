/**
 * A migration run as one value: a plan (where the records come from, where they go, whether the
 * run can be resumed, on how many threads) carried out whole. The command line's `migrate`, the
 * plain API's `migrate` and an integrator's Effect code all run this, so each rule (a target and
 * its units, outputs that would feed their inputs, what a resumable run needs) is checked in one
 * place, and a resumed run writes what a run that never stopped writes, whoever started it.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import type * as Worker from "@effect/platform/Worker"
import { Effect, Fiber, type Layer, Option, Queue, type Redacted, type Scope, Stream } from "effect"
import type { Adapter, DecodeOptions, LengthUnit } from "@scanbridge/model"
import { type AdapterError, importAdapters } from "./adapters.js"
import type { PostgresError } from "./postgres/errors.js"
import {
  CHECKPOINT_FORMAT,
  type InputIdentity,
  type ResumableOutput,
  ResumeError,
  cannotResume,
  checkpointFile,
  decodeUnitsOf,
  inputIdentities,
  readCheckpoint,
  readWith,
  resumePointOf,
  verifyInputs,
  writeCheckpoint
} from "./checkpoint.js"
import { type ListedInputs, type MigrateInputError, type StdinBytes, listInputs } from "./inputs.js"
import { type ChunkSink, type MigrateProgress, type MigrateSource, type RecordPosition, type ResumePoint, migrate } from "./migrate.js"
import { Normalizer, type NormalizerService, type UnknownTargetError, defaultNormalizer } from "./normalizer.js"
import { type MigrateOutputError, type OutputFile, type TextWriter, outputFile, outputPath, refuseOverlaps } from "./output.js"
import type { Report } from "./report.js"
import { MigratePlanError, type OptionNames, type PlanOption, checkTarget, optionSaid, targetName } from "./target.js"
import { writtenWhole } from "./internal/targets.js"
import { type MigrateWorkerError, makeMigratePool } from "./workers.js"
import { defaultWorkers } from "./internal/default-workers.js"

/** A file by its path, or a writer of text (standard output, memory, a socket). */
export type TextDestination = string | TextWriter

/** Where a run's records come from. */
export type MigrationSource<E = never> =
  /** Files, folders and `-` (standard input, read from `stdin`). */
  | { readonly _tag: "Files"; readonly inputs: ReadonlyArray<string>; readonly stdin?: StdinBytes }
  /** A PostgreSQL query of two columns: a key that orders and names the rows, then the record. */
  | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted<string>; readonly query: string }
  /**
   * An integrator's own source. `identity` names it in a checkpoint: a resume of another identity
   * is refused. `after` is where a resumed run starts: the last record the run being resumed wrote.
   */
  | { readonly _tag: "Records"; readonly identity: string; readonly records: (after: RecordPosition | undefined) => MigrateSource<E> }

/** Where a run's scans and rejects go. */
export type MigrationSink<E = never> =
  /**
   * Text: one JSON per line in `to`'s shape (`canonical` by default, an API's, `fhir`, or an
   * adapter's target), or a table (`csv`, `parquet`); `units` and `patientSystem` for a target
   * that takes them (TextOutputs). A file appears whole when the run succeeds and is left as it
   * was when it fails. Without `rejects`, rejects are counted.
   */
  | {
      readonly _tag: "Text"
      readonly to?: string
      readonly units?: LengthUnit
      readonly patientSystem?: string
      readonly out: TextDestination
      readonly rejects?: TextDestination
    }
  /** A PostgreSQL table of canonical scans (created when missing) and its `<table>_rejects`. */
  | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted<string>; readonly table?: string }
  /**
   * An integrator's own sink, made for the run's input (`input.identity` tells one input from
   * another, for a sink that keeps its own checkpoint), with `resumePoint` where its last run of
   * that input stopped.
   */
  | {
      readonly _tag: "Chunks"
      readonly make: (input: {
        readonly name: string
        readonly identity: string
      }) => Effect.Effect<ChunkSink<E> & { readonly resumePoint?: Effect.Effect<ResumePoint | undefined, E> }, E, Scope.Scope>
    }

/**
 * `off`: outputs appear whole or not at all. `resumable`: a checkpoint is kept (beside a text
 * sink's `out` file, or in the database), and what was written is kept when the run stops, so
 * that a run with `resume` goes on from there. `resume`: go on from the last checkpoint of the
 * same plan, or from the first record when there is none.
 */
export type ResumeMode = "off" | "resumable" | "resume"

export interface MigrationPlan<SE = never, KE = never> {
  readonly source: MigrationSource<SE>
  readonly sink: MigrationSink<KE>
  /** Where the report goes as JSON, written whole at the end; it is also the run's result. */
  readonly report?: TextDestination
  /** Default `off`. */
  readonly resume?: ResumeMode
  /**
   * With `resume`, read again the bytes of the input files the run being resumed had read, and
   * refuse to resume if they are not those its checkpoint hashed. Files into a text sink only.
   */
  readonly verify?: boolean
  /**
   * Worker threads besides the calling thread; the output is the same bytes either way. `auto`
   * (the default): one per core from 64 MiB of input files or from a database, else none.
   */
  readonly workers?: number | "auto"
  /**
   * The threads' platform (`@effect/platform`'s Worker, spawning a module that runs
   * `runMigrateWorker`). Default: Node's worker threads running this package's worker entry
   * (`@scanbridge/migrate/node`).
   */
  readonly workerPlatform?: Layer.Layer<Worker.PlatformWorker | Worker.Spawner>
  /**
   * Adapters besides the built-in ones: modules (URLs or package names) that export adapters,
   * which worker threads import too, and values, which stay on the calling thread (a run given
   * any migrates there only).
   */
  readonly adapters?: { readonly modules?: ReadonlyArray<string>; readonly values?: ReadonlyArray<Adapter> }
  /** What every decode is told of the units records leave unstated. */
  readonly decode?: DecodeOptions
  /** After every chunk written: the figures a progress line shows. */
  readonly onProgress?: (progress: MigrateProgress) => Effect.Effect<void>
  /** With `resume`, once the checkpoint is read: where the run goes on from, or undefined when it starts from the first record. */
  readonly onResume?: (from: ResumePoint | undefined) => Effect.Effect<void>
  /** Each output file opened, until its scope closes (so that a process exiting at once can remove temporary files). */
  readonly onOutput?: (output: OutputFile) => Effect.Effect<void, never, Scope.Scope>
  /** What messages call the plan's options (`{ out: "--out" }` for a command line); by default their names. */
  readonly names?: OptionNames
}

/** What a run may fail with, besides its source's `SE` and its sink's `KE`. */
export type MigrationError =
  | PostgresError
  | MigratePlanError
  | UnknownTargetError
  | MigrateInputError
  | MigrateOutputError
  | MigrateWorkerError
  | ResumeError
  | AdapterError

/** A run started in the background (`start`): its progress as it goes, and its report. */
export interface RunningMigration<E> {
  /** The progress after each chunk written; ends when the run does. Only the latest is kept for a slow reader. */
  readonly progress: Stream.Stream<MigrateProgress>
  /** The report, once the run has succeeded; its failure otherwise. */
  readonly report: Effect.Effect<Report, E>
}

/** Records from files, folders and `-`. */
export { MigratePlanError, type OptionNames, type PlanOption, checkTarget }

export const files = (inputs: ReadonlyArray<string>, stdin?: StdinBytes): MigrationSource => ({
  _tag: "Files",
  inputs,
  ...(stdin === undefined ? {} : { stdin })
})

/** The process's own standard streams by their device names: not files a run could open by name. */
const STDIN_NAMES = new Set(["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"])

/** The normalizer of a plan: the built-in adapters, its modules' and its values', telling every decode its units. */
const normalizerOf = (plan: MigrationPlan<unknown, unknown>): Effect.Effect<NormalizerService, AdapterError> =>
  Effect.gen(function* () {
    const imported = yield* importAdapters(plan.adapters?.modules ?? [])
    return yield* Normalizer.extend(Normalizer.withOptions(defaultNormalizer, plan.decode ?? {}), [...(plan.adapters?.values ?? []), ...imported])
  })

/** Node's worker threads running this package's worker entry, loaded only for a run on workers. */
const nodeWorkers = Effect.promise(() => import("./node/index.js")).pipe(Effect.map((node) => node.migrateWorkerPlatform))

/**
 * Runs a plan: every record to the sink or its rejects, the report written and returned.
 * Interrupting it stops it as Ctrl-C stops the command line: every destination is left as it
 * was, or, for a resumable run, what was written is kept for `resume`.
 */
export const run = <SE = never, KE = never>(plan: MigrationPlan<SE, KE>): Effect.Effect<Report, MigrationError | SE | KE, FileSystem.FileSystem | Path.Path> =>
  Effect.scoped(
    Effect.gen(function* () {
      const say = (option: PlanOption) => plan.names?.[option] ?? option
      const refuse = (option: PlanOption, message: string) => new MigratePlanError({ option, message })
      const { source, sink } = plan
      const mode = plan.resume ?? "off"
      if (!["off", "resumable", "resume"].includes(mode))
        return yield* refuse("resume", `${optionSaid(plan.names, "resume", mode)}: expected "off", "resumable" or "resume"`)
      const keeps = mode !== "off"
      const workersAsked = plan.workers ?? "auto"
      if (workersAsked !== "auto" && !(Number.isInteger(workersAsked) && workersAsked >= 0)) {
        return yield* refuse("workers", `${optionSaid(plan.names, "workers", workersAsked)}: expected a whole number from 0, or "auto"`)
      }
      const normalizer = yield* normalizerOf(plan)
      const decode = normalizer.options

      const text = sink._tag === "Text" ? sink : undefined
      const to = text?.to ?? "canonical"
      // The units said (a target's default too): a checkpoint names them, and a resume with others is refused.
      const textTarget =
        text === undefined
          ? undefined
          : yield* checkTarget(
              normalizer,
              {
                to,
                ...(text.units === undefined ? {} : { units: text.units }),
                ...(text.patientSystem === undefined ? {} : { patientSystem: text.patientSystem })
              },
              plan.names
            )
      if (plan.verify === true && mode !== "resume")
        return yield* refuse("verify", `${say("verify")} checks the inputs of the run being resumed: give it with ${say("resume")}`)
      if (plan.verify === true && (source._tag !== "Files" || text === undefined)) {
        return yield* refuse(
          "verify",
          `${say("verify")} checks input files against the hashes a checkpoint beside ${say("out")} keeps: not with ${say("from")} or ${say("into")}`
        )
      }
      const outFile = text !== undefined && typeof text.out === "string" ? text.out : undefined
      if (keeps && text !== undefined) {
        const why = say(mode === "resume" ? "resume" : "resumable")
        if (writtenWhole(to))
          return yield* refuse(
            mode === "resume" ? "resume" : "resumable",
            `${why}: a Parquet file is written whole (its footer last), so it cannot be resumed; write csv or NDJSON to resume`
          )
        if (outFile === undefined) return yield* refuse("out", `${why} keeps a checkpoint beside the output: give ${say("out")} a file`)
        // What went to a writer cannot be cut back to a checkpoint: a resumed run would repeat some.
        if (text.rejects !== undefined && typeof text.rejects !== "string") {
          return yield* refuse(
            "rejects",
            `${why}: rejects written to a stream cannot be taken back to the checkpoint when the run is resumed; give ${say("rejects")} a file`
          )
        }
        if (source._tag === "Files" && source.inputs.some((i) => STDIN_NAMES.has(i)))
          return yield* refuse("inputs", `${why}: standard input cannot be read again; give the input as a file`)
      }

      const given = source._tag === "Files" ? source.inputs.map((i) => (STDIN_NAMES.has(i) ? "-" : i)) : []
      const named = (
        [
          ["out", text?.out],
          ["rejects", text?.rejects],
          ["report", plan.report]
        ] as const
      ).flatMap(([option, value]) => (typeof value === "string" ? [{ option, name: say(option), file: value }] : []))
      // An output that is an input, or in an input folder, is a mistake of the plan.
      yield* Effect.mapError(refuseOverlaps(given, named), (e) => refuse(named.find((n) => n.file === e.file)?.option ?? "out", e.message))

      // The inputs are listed (or the query checked) before any output is opened: a missing input touches nothing.
      const postgres = source._tag === "Postgres" || sink._tag === "Postgres" ? yield* Effect.promise(() => import("./postgres/index.js")) : undefined
      const database = source._tag === "Postgres" ? yield* postgres!.postgresSource({ url: source.url, query: source.query, name: say("from") }) : undefined
      const listed: ListedInputs | undefined = source._tag === "Files" ? yield* listInputs(given) : undefined
      // A query or an integrator's source is its own identity: a resume of another is refused.
      const identities: ReadonlyArray<InputIdentity> =
        listed !== undefined
          ? yield* inputIdentities(listed)
          : [{ file: source._tag === "Postgres" ? source.query : (source as { readonly identity: string }).identity, size: null, modified: null }]
      const sinkInput = readWith(
        postgres !== undefined ? postgres.sinkInput(source._tag === "Postgres" ? { query: source.query } : identities) : sinkInputOf(identities),
        decode
      )
      const chunkSink =
        sink._tag === "Postgres"
          ? yield* postgres!.postgresSink({ url: sink.url, name: say("into"), table: sink.table ?? "scans", input: sinkInput })
          : sink._tag === "Chunks"
            ? yield* sink.make(sinkInput)
            : undefined

      // A resumable run's checkpoint, beside the text sink's out file; a chunk sink keeps its own.
      const path = yield* Path.Path
      const fileSystem = yield* FileSystem.FileSystem
      const checkpointAt = keeps && outFile !== undefined ? Option.some(checkpointFile(path, outFile)) : Option.none<string>()
      const checkpoint = Option.isSome(checkpointAt) && mode === "resume" ? yield* readCheckpoint(checkpointAt.value) : Option.none()
      // What a file checkpoint names the run's output by.
      const target = targetName(textTarget ?? { to })
      const modules = plan.adapters?.modules ?? []
      // The outputs a checkpoint counts, by real path: a resumed run finds them however they are spelled.
      const resumableOutputs: ReadonlyArray<ResumableOutput & { readonly option: "out" | "rejects" }> = Option.isNone(checkpointAt)
        ? []
        : yield* Effect.forEach(
            (
              [
                ["out", text?.out],
                ["rejects", text?.rejects]
              ] as const
            ).flatMap(([option, value]) => (typeof value === "string" ? [[option, value] as const] : [])),
            ([option, file]) => Effect.map(outputPath(file), (real) => ({ option, name: say(option), file: real }))
          )
      if (Option.isSome(checkpointAt) && Option.isSome(checkpoint)) {
        const why = cannotResume(checkpoint.value, {
          inputs: identities,
          target,
          adapters: modules,
          decode,
          outputs: resumableOutputs.map(({ name, file }) => ({ name, file }))
        })
        if (why !== undefined) {
          return yield* new ResumeError({ file: checkpointAt.value, message: `cannot resume: ${why}; run without ${say("resume")} to start again` })
        }
        if (plan.verify === true && listed !== undefined) yield* verifyInputs(checkpointAt.value, checkpoint.value, listed)
      }
      const sinkResume =
        chunkSink !== undefined && mode === "resume" && "resumePoint" in chunkSink && chunkSink.resumePoint !== undefined
          ? yield* chunkSink.resumePoint
          : undefined
      const after = Option.isSome(checkpoint) ? resumePointOf(checkpoint.value) : sinkResume
      if (mode === "resume" && plan.onResume !== undefined) yield* plan.onResume(after)
      const inputs: ListedInputs | MigrateSource<SE | PostgresError> =
        database !== undefined ? database.after(after?.position) : source._tag === "Records" ? source.records(after?.position) : (listed as ListedInputs)

      // A checkpoint resumed has the same outputs as this run (cannotResume): each is cut back to its bytes.
      const resumedBytes = (name: string) =>
        Option.getOrUndefined(Option.flatMap(checkpoint, (c) => Option.fromNullable(c.outputs.find((o) => o.name === name)?.bytes)))
      // A resumable run writes each file under the name its resumed run finds. The report too: it is
      // written anew (not appended to), but a random name, left behind by a process killed outright
      // (SIGKILL: no finalizer runs), would stay for ever.
      const open = (value: TextDestination | undefined, option: "out" | "rejects" | "report") =>
        Effect.gen(function* () {
          if (typeof value !== "string") return undefined
          const from = option === "report" ? undefined : resumedBytes(say(option))
          const output = yield* outputFile(value, Option.isSome(checkpointAt) ? { resumable: from === undefined ? {} : { from } } : {})
          if (plan.onOutput !== undefined) yield* plan.onOutput(output)
          return output
        })
      const out = yield* open(text?.out, "out")
      const rejects = yield* open(text?.rejects, "rejects")
      // The report is written whole at the end, from the report the checkpoint goes on from: nothing
      // of it to resume, and the same bytes whether or not the run being resumed wrote one.
      const reportFile = yield* open(plan.report, "report")
      const writerOf = (output: OutputFile | undefined, value: TextDestination | undefined) =>
        output?.write ?? (typeof value === "function" ? value : undefined)
      const written = { out, rejects }
      // A checkpoint that cannot be written leaves the last one: a resumed run redoes more, and writes the same.
      const saveCheckpoint = (progress: MigrateProgress): Effect.Effect<void> =>
        Option.isNone(checkpointAt) || progress.position === undefined
          ? Effect.void
          : Effect.ignore(
              Effect.provideService(
                writeCheckpoint(checkpointAt.value, {
                  format: CHECKPOINT_FORMAT,
                  inputs: identities,
                  target,
                  adapters: modules,
                  decode: decodeUnitsOf(decode),
                  outputs: resumableOutputs.map(({ option, name, file }) => ({ name, file, bytes: written[option]?.bytesWritten ?? 0 })),
                  position: progress.position,
                  report: progress.report,
                  digests: progress.digests ?? []
                }),
                FileSystem.FileSystem,
                fileSystem
              )
            )

      // Adapters given as values have no module a worker could import: they migrate here.
      const workers =
        (plan.adapters?.values ?? []).length > 0
          ? 0
          : workersAsked === "auto"
            ? defaultWorkers(listed === undefined ? Number.POSITIVE_INFINITY : (listed.bytesTotal ?? 0))
            : workersAsked
      // Not `plan.workerPlatform ?? (yield* nodeWorkers)`: a CommonJS build wraps the right side of
      // `??` in an arrow function, where `yield` is no keyword.
      const workerPlatform = workers === 0 ? undefined : plan.workerPlatform !== undefined ? plan.workerPlatform : yield* nodeWorkers
      const pool =
        workerPlatform === undefined
          ? undefined
          : yield* makeMigratePool({ size: workers, adapterModules: modules, decodeOptions: decode }).pipe(Effect.provide(workerPlatform))

      const onProgress = plan.onProgress
      const report = yield* migrate<SE | PostgresError, KE | PostgresError>({
        inputs,
        ...(source._tag === "Files" && source.stdin !== undefined ? { stdin: source.stdin } : {}),
        ...(chunkSink !== undefined
          ? { into: chunkSink }
          : {
              ...textTarget,
              output: writerOf(out, text?.out)!,
              ...(writerOf(rejects, text?.rejects) === undefined ? {} : { rejects: writerOf(rejects, text?.rejects)! })
            }),
        ...(pool === undefined ? {} : { pool }),
        ...(after === undefined ? {} : { after }),
        // A checkpoint keeps what the run has read hashed, for a `verify` of the run that resumes it.
        ...(Option.isSome(checkpointAt) ? { hashInputs: true } : {}),
        // Only a reader of progress or a checkpoint reads it: without one, no chunk pays for a report.
        ...(onProgress === undefined && Option.isNone(checkpointAt)
          ? {}
          : // The checkpoint first: a reader of progress that stops the run stops it after a chunk that can be resumed from.
            {
              onProgress: (progress: MigrateProgress) =>
                Effect.zipRight(saveCheckpoint(progress), onProgress === undefined ? Effect.void : onProgress(progress))
            })
      }).pipe(Effect.provideService(Normalizer, normalizer))

      const json = `${JSON.stringify(report, null, 2)}\n`
      if (reportFile !== undefined) yield* reportFile.write(json)
      else if (typeof plan.report === "function") yield* plan.report(json)
      // The run is complete: now, and only now, the outputs take their destinations' place.
      for (const output of [out, rejects, reportFile]) if (output !== undefined) yield* output.commit
      if (Option.isSome(checkpointAt)) yield* Effect.ignore(fileSystem.remove(checkpointAt.value, { force: true }))
      return report
    })
  )

/** A checkpoint's input, for an integrator's chunk sink: the same as a database sink is given. */
const sinkInputOf = (identities: ReadonlyArray<InputIdentity>) => ({
  name: JSON.stringify(identities.map((i) => i.file)),
  identity: JSON.stringify(identities)
})

/**
 * Starts a plan in the background, within the scope: its progress as a stream and its report.
 * Closing the scope before the run ends interrupts it (see `run`).
 */
export const start = <SE = never, KE = never>(
  plan: MigrationPlan<SE, KE>
): Effect.Effect<RunningMigration<MigrationError | SE | KE>, never, FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.gen(function* () {
    const latest = yield* Queue.sliding<MigrateProgress>(1)
    const given = plan.onProgress
    const fiber = yield* Effect.forkScoped(
      run({ ...plan, onProgress: (p) => Effect.zipRight(given === undefined ? Effect.void : given(p), Queue.offer(latest, p)) }).pipe(
        Effect.ensuring(Queue.shutdown(latest))
      )
    )
    return { progress: Stream.fromQueue(latest), report: Fiber.join(fiber) }
  })
