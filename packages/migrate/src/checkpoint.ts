/**
 * A resumable run's checkpoint, beside its outputs' temporary files: which inputs (names, sizes,
 * modification times), which target, how many bytes of each output were written, the last record
 * they hold and the report then. Written whole after each chunk (to a temporary name, renamed over
 * the last), so a crash leaves the last one or the one before, never half of one; the outputs may
 * hold more than it says, and a resumed run cuts them back to it first.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Option, Schema } from "effect"
import type { ListedInputs } from "./inputs.js"
import type { ResumePoint } from "./migrate.js"
import { MigrateOutputError } from "./output.js"
import type { Report } from "./report.js"

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
  byRejectReason: Counts
})

const InputIdentity = Schema.Struct({ file: Schema.String, size: Schema.NullOr(Schema.Number), modified: Schema.NullOr(Schema.Number) })
export type InputIdentity = typeof InputIdentity.Type

export const Checkpoint = Schema.Struct({
  format: Schema.Literal("scanbridge.checkpoint/v1"),
  inputs: Schema.Array(InputIdentity),
  /** What is written: the target and the unit of its lengths. */
  target: Schema.String,
  /** Each output's destination and the bytes of it written when the checkpoint was. */
  outputs: Schema.Array(Schema.Struct({ file: Schema.String, bytes: Schema.Number })),
  position: Schema.Struct({ file: Schema.String, line: Schema.Number }),
  report: ReportSchema
})
export type Checkpoint = typeof Checkpoint.Type

const CHECKPOINT_JSON = Schema.parseJson(Checkpoint)

/** Where the checkpoint of a run writing `file` is kept: beside it, hidden. */
export const checkpointFile = (path: Path.Path, file: string): string => path.join(path.dirname(file), `.${path.basename(file)}.resumable.checkpoint`)

/** The inputs as a resumed run compares them: each one's name, size and modification time. */
export const inputIdentities = (listed: ListedInputs) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    return yield* Effect.forEach(listed.files, (input) =>
      Effect.map(Effect.option(fs.stat(input.file)), (info): InputIdentity => ({
        file: input.file,
        size: input.size,
        modified: Option.isSome(info) ? Option.getOrNull(Option.map(info.value.mtime, (d) => d.getTime())) : null
      }))
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

/** The checkpoint in `file`, or none when there is no such file; one that does not read is an error. */
export const readCheckpoint = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    if (!(yield* Effect.orElseSucceed(fs.exists(file), () => false))) return Option.none<Checkpoint>()
    const text = yield* Effect.mapError(fs.readFileString(file), (e) => new MigrateOutputError({ file, message: `${file}: ${e.message}` }))
    return Option.some(
      yield* Effect.mapError(Schema.decodeUnknown(CHECKPOINT_JSON)(text), () => new MigrateOutputError({ file, message: `${file}: not a Scanbridge checkpoint; delete it to start again` }))
    )
  })

/**
 * Why `checkpoint` cannot resume a run of `inputs` to `target`, or undefined if it can: the
 * inputs must be the same files, of the same sizes and times, and the target the same.
 */
export const cannotResume = (checkpoint: Checkpoint, inputs: ReadonlyArray<InputIdentity>, target: string): string | undefined => {
  if (checkpoint.target !== target) return `the run being resumed wrote ${checkpoint.target}, not ${target}`
  if (checkpoint.inputs.length !== inputs.length) return `the run being resumed read ${checkpoint.inputs.length} input(s), not ${inputs.length}`
  for (const [i, was] of checkpoint.inputs.entries()) {
    const now = inputs[i]!
    if (was.file !== now.file) return `the run being resumed read ${was.file} where ${now.file} is now`
    if (was.size !== now.size || was.modified !== now.modified) {
      return `${now.file} has changed since the run being resumed (${was.size} bytes then, ${now.size} now${was.modified !== now.modified ? "; modified since" : ""})`
    }
  }
  return undefined
}

/** The point a checkpoint resumes from. */
export const resumePointOf = (checkpoint: Checkpoint): ResumePoint => ({ position: checkpoint.position, report: checkpoint.report as Report })
