/**
 * A resumable run's checkpoint, beside its outputs' temporary files: which inputs (names, sizes,
 * modification times, and their bytes read so far hashed), which target and adapters, which
 * outputs (by real path) and how many bytes of each were written, the last record they hold and
 * the report then. Written whole after each chunk (to a temporary name, renamed over the last), so
 * a crash leaves the last one or the one before, never half of one; the outputs may hold more
 * than it says, and a resumed run cuts them back to it first.
 *
 * A run resumes from it only as the run that wrote it would have gone on: the same inputs, target,
 * adapters and outputs, or it is refused (ResumeError). An output cut back to the checkpoint and
 * written after is the uninterrupted run's only if it is the same file, and an output the checkpoint
 * does not count (a --rejects given only now) would lack what the first run left out.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { Effect, Option, Schema } from "effect"
import type { DecodeOptions } from "@scanbridge/model"
import { giveBytes } from "./internal/buffers.js"
import { digestOf } from "./internal/digest.js"
import { inputContent } from "./internal/read.js"
import type { ListedInputs, MigrateInputError } from "./inputs.js"
import type { ResumePoint } from "./migrate.js"
import { MigrateOutputError } from "./output.js"
import type { Report } from "./report.js"

/**
 * A run cannot resume from a checkpoint: other inputs, target, adapters or outputs than the run
 * that wrote it, an input whose bytes have changed (`--verify`), or a checkpoint of another
 * version. `file`: the checkpoint, or the input that changed.
 */
export class ResumeError extends Schema.TaggedError<ResumeError>("@scanbridge/migrate/ResumeError")("ResumeError", {
  file: Schema.String,
  message: Schema.String
}) {}

const Counts = Schema.Record({ key: Schema.String, value: Schema.Number })

const ReportSchema = Schema.Struct({
  records: Schema.Number,
  migrated: Schema.Number,
  rejected: Schema.Number,
  scans: Schema.Number,
  target: Schema.String,
  byFormat: Counts,
  byStatus: Counts,
  byNoteKind: Counts,
  byRejectReason: Counts,
  repeatedScans: Schema.optionalWith(Schema.Number, { exact: true })
})

const InputIdentity = Schema.Struct({ file: Schema.String, size: Schema.NullOr(Schema.Number), modified: Schema.NullOr(Schema.Number) })
export type InputIdentity = typeof InputIdentity.Type

const InputDigest = Schema.Struct({ file: Schema.String, bytes: Schema.Number, sha256: Schema.String })

/** An output of a resumable run: the name it is given by (`--out`, `--rejects`) and its real path (`outputPath`). */
const ResumableOutput = Schema.Struct({ name: Schema.String, file: Schema.String })
export type ResumableOutput = typeof ResumableOutput.Type

/**
 * The units every decode was told (DecodeOptions), each `auto` when not given: a resumed run that
 * read lengths in another unit would write other scans after the checkpoint than before it.
 */
const DecodeUnits = Schema.Struct({ lengthUnit: Schema.String, bodyFatScale: Schema.String, muscleMassUnit: Schema.String })

/** The format this version writes and reads: v1 (no hashes, outputs by the names as given) is refused. */
export const CHECKPOINT_FORMAT = "scanbridge.checkpoint/v2"

export const Checkpoint = Schema.Struct({
  format: Schema.Literal(CHECKPOINT_FORMAT),
  inputs: Schema.Array(InputIdentity),
  /** What is written: the target and the unit of its lengths. */
  target: Schema.String,
  /** The modules of the adapters the run added to the built-in ones, as URLs. */
  adapters: Schema.Array(Schema.String),
  /** The units the decodes were told; absent: every one auto. */
  decode: Schema.optionalWith(DecodeUnits, { exact: true }),
  /** Each output, and the bytes of it written when the checkpoint was. */
  outputs: Schema.Array(Schema.extend(ResumableOutput, Schema.Struct({ bytes: Schema.Number }))),
  /** The last record written; `key`, its key in a database source, is where that source resumes. */
  position: Schema.Struct({ file: Schema.String, line: Schema.Number, key: Schema.optionalWith(Schema.String, { exact: true }) }),
  report: ReportSchema,
  /** The inputs read, each one's content hashed up to the last record written (`MigrateProgress.digests`). */
  digests: Schema.Array(InputDigest)
})
export type Checkpoint = typeof Checkpoint.Type

const CHECKPOINT_JSON = Schema.parseJson(Checkpoint)
const FORMAT_JSON = Schema.parseJson(Schema.Struct({ format: Schema.String }))

/** Where the checkpoint of a run writing `file` is kept: beside it, hidden. */
export const checkpointFile = (path: Path.Path, file: string): string => path.join(path.dirname(file), `.${path.basename(file)}.resumable.checkpoint`)

/** The inputs as a resumed run compares them: each one's name, size and modification time. */
export const inputIdentities = (listed: ListedInputs) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    return yield* Effect.forEach(listed.files, (input) =>
      Effect.map(
        Effect.option(fs.stat(input.file)),
        (info): InputIdentity => ({
          file: input.file,
          size: input.size,
          modified: Option.isSome(info) ? Option.getOrNull(Option.map(info.value.mtime, (d) => d.getTime())) : null
        })
      )
    )
  })

/** Writes `checkpoint` to `file` whole: to a temporary name first, renamed over the last one. */
export const writeCheckpoint = (file: string, checkpoint: Checkpoint) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const next = `${file}.next`
    yield* fs.writeFileString(next, JSON.stringify(checkpoint))
    yield* fs.rename(next, file)
  }).pipe(Effect.mapError((e) => new MigrateOutputError({ file, message: `${file}: ${e.message}` })))

/**
 * The checkpoint in `file`, or none when there is no such file; one that does not read is an
 * error, and one of another format a ResumeError.
 */
export const readCheckpoint = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    if (!(yield* Effect.orElseSucceed(fs.exists(file), () => false))) return Option.none<Checkpoint>()
    const text = yield* Effect.mapError(fs.readFileString(file), (e) => new MigrateOutputError({ file, message: `${file}: ${e.message}` }))
    const format = Option.map(Schema.decodeUnknownOption(FORMAT_JSON)(text), (c) => c.format)
    if (Option.isSome(format) && format.value !== CHECKPOINT_FORMAT && format.value.startsWith("scanbridge.checkpoint/")) {
      return yield* new ResumeError({
        file,
        message: `cannot resume: ${file} is a checkpoint of another version of Scanbridge (${format.value}; this one reads ${CHECKPOINT_FORMAT}); run without --resume to start again`
      })
    }
    return Option.some(
      yield* Effect.mapError(
        Schema.decodeUnknown(CHECKPOINT_JSON)(text),
        () => new MigrateOutputError({ file, message: `${file}: not a Scanbridge checkpoint; delete it to start again` })
      )
    )
  })

/** What a run that would resume from a checkpoint reads and writes, as the checkpoint records it. */
export interface ResumingRun {
  readonly inputs: ReadonlyArray<InputIdentity>
  /** The target and the unit of its lengths. */
  readonly target: string
  /** The modules of the adapters added to the built-in ones, as URLs. */
  readonly adapters: ReadonlyArray<string>
  /** What every decode is told (absent: every unit auto). */
  readonly decode?: DecodeOptions
  /** The outputs a checkpoint counts the bytes of, each by its real path (`outputPath`). */
  readonly outputs: ReadonlyArray<ResumableOutput>
}

/** Outputs as a message names them: `--out /x and no --rejects`. */
const describeOutputs = (outputs: ReadonlyArray<ResumableOutput>, names: ReadonlyArray<string>) =>
  names
    .map((name) => outputs.find((o) => o.name === name))
    .map((o, i) => (o === undefined ? `no ${names[i]}` : `${o.name} ${o.file}`))
    .join(" and ")

const describeAdapters = (adapters: ReadonlyArray<string>) => (adapters.length === 0 ? "the built-in adapters only" : `the adapters of ${adapters.join(", ")}`)

/** Each unit the decodes are told, `auto` when not given, by the flag that gives it. */
export const decodeUnitsOf = (options: DecodeOptions = {}): typeof DecodeUnits.Type => ({
  lengthUnit: options.lengthUnit ?? "auto",
  bodyFatScale: options.bodyFatScale ?? "auto",
  muscleMassUnit: options.muscleMassUnit ?? "auto"
})

const DECODE_FLAGS = { lengthUnit: "--length-unit", bodyFatScale: "--body-fat-scale", muscleMassUnit: "--muscle-mass-unit" } as const

/**
 * A database checkpoint's input (`sinkInput`), its identity told apart by the decode units that
 * are not auto: a resume told other units would write scans read otherwise after the checkpoint
 * than before it, so the sink refuses it as a changed input. With every unit auto the input is as
 * it was, so a checkpoint of a run before these options resumes as before.
 */
export const readWith = <I extends { readonly name: string; readonly identity: string }>(input: I, decode: DecodeOptions | undefined): I => {
  const units = decodeUnitsOf(decode)
  const given = (Object.keys(DECODE_FLAGS) as ReadonlyArray<keyof typeof DECODE_FLAGS>).filter((k) => units[k] !== "auto")
  return given.length === 0
    ? input
    : { ...input, identity: `${input.identity}; read with ${given.map((k) => `${DECODE_FLAGS[k]} ${units[k]} (${k}: "${units[k]}")`).join(", ")}` }
}

const sameList = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((x, i) => x === b[i])

/**
 * Why `checkpoint` cannot resume `run`, or undefined if it can: the inputs must be the same files,
 * of the same sizes and times, and the target, the adapters, the decode units and the outputs the same (an output by
 * its real path, however it is spelled). Said with what the checkpoint has and how to go on with it.
 */
export const cannotResume = (checkpoint: Checkpoint, run: ResumingRun): string | undefined => {
  if (checkpoint.target !== run.target) return `the run being resumed wrote ${checkpoint.target}, not ${run.target}`
  if (!sameList(checkpoint.adapters, run.adapters)) {
    return `the run being resumed migrated with ${describeAdapters(checkpoint.adapters)}, this run with ${describeAdapters(run.adapters)}: resume with the same --adapter modules`
  }
  const [was, now] = [checkpoint.decode ?? decodeUnitsOf(), decodeUnitsOf(run.decode)]
  const differing = (Object.keys(DECODE_FLAGS) as ReadonlyArray<keyof typeof DECODE_FLAGS>).filter((k) => was[k] !== now[k])
  if (differing.length > 0) {
    const described = (units: typeof DecodeUnits.Type) => differing.map((k) => `${DECODE_FLAGS[k]} ${units[k]}`).join(" ")
    return `the run being resumed read its records with ${described(was)}, this run with ${described(now)}: resume with ${described(was)}`
  }
  const names = [...new Set([...checkpoint.outputs, ...run.outputs].map((o) => o.name))]
  const differ = names.some((name) => checkpoint.outputs.find((o) => o.name === name)?.file !== run.outputs.find((o) => o.name === name)?.file)
  if (differ) {
    const unkept = names.filter((name) => checkpoint.outputs.every((o) => o.name !== name))
    const why = unkept.length === 0 ? "" : ` (what belongs in ${unkept.join(" and ")} before the checkpoint was not kept)`
    return `the run being resumed writes ${describeOutputs(checkpoint.outputs, names)}, this run ${describeOutputs(run.outputs, names)}${why}: resume with ${describeOutputs(checkpoint.outputs, names)}`
  }
  if (checkpoint.inputs.length !== run.inputs.length) return `the run being resumed read ${checkpoint.inputs.length} input(s), not ${run.inputs.length}`
  for (const [i, was] of checkpoint.inputs.entries()) {
    const now = run.inputs[i]!
    if (was.file !== now.file) return `the run being resumed read ${was.file} where ${now.file} is now`
    if (was.size !== now.size || was.modified !== now.modified) {
      return `${now.file} has changed since the run being resumed (${was.size} bytes then, ${now.size} now${was.modified !== now.modified ? "; modified since" : ""})`
    }
  }
  return undefined
}

/**
 * Checks that the inputs' bytes a checkpoint stands on are still those it hashed, reading each
 * input it began (up to its position) again as far as it read it: an input edited to the same size
 * and modification time is otherwise taken for the same. A ResumeError names the input that
 * differs, or one the checkpoint has no hash of; a pipe or a device cannot be read twice, so it
 * cannot be checked (refused). `checkpointAt`: where the checkpoint is, for errors.
 */
export const verifyInputs = (
  checkpointAt: string,
  checkpoint: Checkpoint,
  listed: ListedInputs
): Effect.Effect<void, ResumeError | MigrateInputError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const upTo = listed.files.findIndex((f) => f.file === checkpoint.position.file)
    const begun = new Set(listed.files.slice(0, upTo + 1).map((f) => f.file))
    for (const file of begun) {
      if (!checkpoint.digests.some((d) => d.file === file)) {
        return yield* new ResumeError({
          file: checkpointAt,
          message: `cannot verify: ${checkpointAt} holds no hash of ${file}; resume without --verify, or run without --resume to start again`
        })
      }
    }
    for (const was of checkpoint.digests) {
      const input = listed.files.find((f) => f.file === was.file)
      if (input === undefined)
        return yield* new ResumeError({
          file: was.file,
          message: `cannot resume: the run being resumed read ${was.file}, which is not among the inputs now; run without --resume to start again`
        })
      if (input.kind !== "file") {
        return yield* new ResumeError({
          file: was.file,
          message: `cannot verify: ${was.file} is not a regular file (a pipe or a device), so it cannot be read again; resume without --verify`
        })
      }
      // A .gz's reads go through the decompressor; only a plain file's are buffers to give back.
      const now = yield* digestOf(was.file, inputContent(input), was.bytes, input.file.endsWith(".gz") ? () => {} : giveBytes)
      if (now.bytes !== was.bytes || now.sha256 !== was.sha256) {
        const read = now.bytes === was.bytes ? `SHA-256 ${was.sha256} then, ${now.sha256} now` : `it holds ${now.bytes} bytes now`
        return yield* new ResumeError({
          file: was.file,
          message: `cannot resume: ${was.file} has changed since the run being resumed read its first ${was.bytes} bytes (${read}); run without --resume to start again`
        })
      }
    }
  })

/** The point a checkpoint resumes from, with the digests of what it read. */
export const resumePointOf = (checkpoint: Checkpoint): ResumePoint => ({
  position: checkpoint.position,
  report: checkpoint.report as Report,
  digests: checkpoint.digests
})
