/**
 * Where a migration writes, so that a run never loses what was there before it: a regular file is
 * written under a temporary name beside it and renamed over it only when the run has succeeded;
 * a run that fails or is interrupted removes the temporary file and leaves the destination as it
 * was. An output that is an input, or lies in an input folder, is refused before anything is
 * opened.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Option, Schema, type Scope } from "effect"

/**
 * Writes text somewhere: a file, stdout, memory. The text comes as a string, or as its UTF-8 bytes
 * (what a migration worker thread sends back, so the writing thread need not encode it again),
 * which the writer may keep: a migration reuses the buffer only of bytes an `outputFile`'s writer
 * has written.
 */
export type TextWriter = (text: string | Uint8Array) => Effect.Effect<void, MigrateOutputError>

// Writers done with the bytes they are given once their effect completes (a file's, whose write
// has returned): a migration gives those bytes' buffer back for the next chunk. Other writers (a
// stream may hold bytes it has queued, a caller's may keep them) get bytes nothing reuses.
const settled = new WeakSet<TextWriter>()

/** Whether `writer` is done with the bytes it was given once it has written them. */
export const isSettled = (writer: TextWriter): boolean => settled.has(writer)

/**
 * A file a migration's threads may write into themselves, at offsets (internal/placement.ts): an
 * `outputFile`'s temporary file. `end` is where the writer's next bytes go; `advance` counts
 * bytes written there by others, as if the writer had written them.
 */
export interface PlacedFile {
  readonly path: string
  /** The name the user knows the output by, for errors. */
  readonly file: string
  readonly end: () => number
  readonly advance: (bytes: number) => void
}

const placedFiles = new WeakMap<TextWriter, PlacedFile>()

/** The file `writer` writes, when other threads may write into it at offsets. */
export const placedFileOf = (writer: TextWriter): PlacedFile | undefined => placedFiles.get(writer)

/** The text a `TextWriter` was given, as a string. */
export const textOf = (text: string | Uint8Array): string => (typeof text === "string" ? text : utf8.decode(text))

const utf8 = new TextDecoder()

/** An output could not be written, or would overwrite an input. */
export class MigrateOutputError extends Schema.TaggedError<MigrateOutputError>("@scanbridge/migrate/MigrateOutputError")("MigrateOutputError", {
  file: Schema.String,
  message: Schema.String
}) {}

/** An output being written: its text reaches the destination only through `commit`. */
export interface OutputFile {
  readonly write: TextWriter
  /**
   * Puts what was written in place: renames the temporary file over the destination. Until then
   * (and for ever, if the scope closes first) the destination is as it was.
   */
  readonly commit: Effect.Effect<void, MigrateOutputError>
  /** The temporary file, while there is one (none for a pipe or a terminal, written as the run goes). */
  readonly temporary: string | undefined
  /** Whether the temporary file is kept when the run stops before `commit`, for a resumed run. */
  readonly resumable: boolean
  /** The bytes written so far (after those a resumed run kept). */
  readonly bytesWritten: number
}

export interface OutputFileOptions {
  /**
   * Writes under a name a later run finds (`.NAME.resumable.partial`) and keeps that file when the
   * run stops before `commit`, so that the run can be resumed. `from`: the bytes of an earlier
   * run's file to keep (the rest is cut off) and write after; without it, any earlier file is
   * replaced.
   */
  readonly resumable?: { readonly from?: number }
}

const failure = (file: string) => (e: PlatformError) => new MigrateOutputError({ file, message: `${file}: ${e.message}` })

/**
 * An output file written under a temporary name beside `file` (`.NAME.<random>.partial`, in the
 * same folder so the rename cannot cross file systems) and renamed over it by `commit`; removed
 * when the scope closes uncommitted. An existing destination that is not a regular file (a FIFO,
 * `/dev/stdout`, a terminal) cannot be replaced: it is written as the run goes, appended to,
 * since a pipe cannot seek. A link to a file is followed, so the link stays a link; a link to
 * nothing, or a destination that cannot be looked at, is an error rather than a guess.
 */
export const outputFile = (
  file: string,
  options: OutputFileOptions = {}
): Effect.Effect<OutputFile, MigrateOutputError, FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const fail = failure(file)
    const encoder = new TextEncoder()
    let bytesWritten = 0
    const writerOf = (handle: FileSystem.File, placed?: string): TextWriter => {
      const writer: TextWriter = (text) => {
        if (text.length === 0) return Effect.void
        const bytes = typeof text === "string" ? encoder.encode(text) : text
        // At the end of what was written, by this handle or (placed) by other threads' own.
        const at = placed === undefined ? Effect.void : handle.seek(bytesWritten, "start")
        return Effect.mapError(
          Effect.tap(Effect.zipRight(at, handle.writeAll(bytes)), () => void (bytesWritten += bytes.length)),
          fail
        )
      }
      settled.add(writer)
      if (placed !== undefined) {
        placedFiles.set(writer, { path: placed, file, end: () => bytesWritten, advance: (bytes) => void (bytesWritten += bytes) })
      }
      return writer
    }
    const resumable = options.resumable
    // What is there now, links followed. Only a missing file may be created; anything else that
    // cannot be looked at is an error, never a guess (a guess could rename over a device).
    const existing = yield* fs.stat(file).pipe(
      Effect.map(Option.some),
      Effect.catchIf(
        (e) => e._tag === "SystemError" && e.reason === "NotFound",
        () => Effect.succeed(Option.none<FileSystem.File.Info>())
      ),
      Effect.mapError(fail)
    )
    if (Option.isSome(existing) && existing.value.type === "Directory") {
      return yield* new MigrateOutputError({ file, message: `${file}: is a folder` })
    }
    if (Option.isSome(existing) && existing.value.type !== "File") {
      if (resumable !== undefined)
        return yield* new MigrateOutputError({ file, message: `${file}: is not a regular file, so a run writing it cannot be resumed` })
      const handle = yield* Effect.mapError(fs.open(file, { flag: "a" }), fail)
      return { write: writerOf(handle), commit: Effect.void, temporary: undefined, resumable: false, bytesWritten: 0 }
    }
    if (Option.isNone(existing) && Option.isSome(yield* Effect.option(fs.readLink(file)))) {
      return yield* new MigrateOutputError({ file, message: `${file}: is a link to nothing` })
    }
    // A link to a file is followed: the file it names is replaced, and the link stays a link.
    const target = Option.isSome(existing) ? yield* Effect.mapError(fs.realPath(file), fail) : file
    const temporary =
      resumable === undefined
        ? path.join(path.dirname(target), `.${path.basename(target)}.${Math.random().toString(36).slice(2, 10)}.partial`)
        : path.join(path.dirname(target), `.${path.basename(target)}.resumable.partial`)
    let committed = false
    // Added before the file is opened, so it runs after the file is closed. A resumable output's
    // file is kept for the run that resumes it.
    yield* Effect.addFinalizer(() => (committed || resumable !== undefined ? Effect.void : Effect.ignore(fs.remove(temporary))))
    const from = resumable?.from
    if (from !== undefined) {
      // What the run being resumed wrote after its last checkpoint is written again.
      const kept = yield* Effect.mapError(fs.stat(temporary), fail)
      if (Number(kept.size) < from) {
        return yield* new MigrateOutputError({
          file,
          message: `${file}: ${temporary} holds ${kept.size} bytes, fewer than the ${from} its checkpoint counts: start again without resuming`
        })
      }
      yield* Effect.mapError(fs.truncate(temporary, from), fail)
      bytesWritten = from
    }
    const handle = yield* Effect.mapError(fs.open(temporary, { flag: resumable === undefined ? "wx" : from === undefined ? "w" : "a" }), fail)
    const commit = Effect.suspend(() => {
      if (committed) return Effect.void
      return Effect.zipRight(handle.sync, fs.rename(temporary, target)).pipe(
        Effect.tap(() => void (committed = true)),
        Effect.mapError(fail)
      )
    })
    return {
      write: writerOf(handle, temporary),
      commit,
      get temporary() {
        return committed ? undefined : temporary
      },
      resumable: resumable !== undefined,
      get bytesWritten() {
        return bytesWritten
      }
    }
  })

/** An output of a run, by the name the user knows it by (a flag such as `--out`, or an option's name). */
export interface NamedOutput {
  readonly name: string
  readonly file: string
}

/** A file that may not exist yet by its folder's real path (links resolved) and its name; the folder as given, made absolute, when it has none. */
const inRealFolder = (fs: FileSystem.FileSystem, path: Path.Path, file: string): Effect.Effect<string> =>
  Effect.map(
    Effect.orElseSucceed(fs.realPath(path.dirname(file)), () => path.resolve(path.dirname(file))),
    (dir) => path.join(dir, path.basename(file))
  )

/** The real path of a file that may not exist yet: its own, or its folder's real path and its name. */
const realPathOf = (fs: FileSystem.FileSystem, path: Path.Path, file: string): Effect.Effect<string> =>
  Effect.orElse(fs.realPath(file), () => inRealFolder(fs, path, file))

/**
 * What names an output however it is spelled (`x`, `./x`, `/abs/x`, through a linked folder): its
 * folder's real path and its name. The name itself is not followed, so that an output is the same
 * whether or not its destination exists yet.
 */
export const outputPath = (file: string): Effect.Effect<string, never, FileSystem.FileSystem | Path.Path> =>
  Effect.flatMap(Effect.all([FileSystem.FileSystem, Path.Path]), ([fs, path]) => inRealFolder(fs, path, file))

/**
 * Refuses outputs that would destroy or feed the run's inputs, before anything is opened: an output
 * that is an input file (by real path, so through links too), one inside an input folder (the run
 * would read its own output), and two outputs that are one file. `-` (standard input or output)
 * and devices such as `/dev/stdout` are not files and are let through.
 */
export const refuseOverlaps = (inputs: ReadonlyArray<string>, outputs: ReadonlyArray<NamedOutput>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const sources: Array<{ readonly input: string; readonly real: string; readonly folder: boolean }> = []
    for (const input of inputs) {
      if (input === "-") continue
      const info = yield* Effect.option(fs.stat(input))
      if (Option.isNone(info)) continue // reported as unreadable when the run reads it
      sources.push({ input, real: yield* realPathOf(fs, path, input), folder: info.value.type === "Directory" })
    }
    const seen: Array<{ readonly name: string; readonly real: string }> = []
    for (const { name, file } of outputs) {
      if (file === "-") continue
      const info = yield* Effect.option(fs.stat(file))
      if (Option.isSome(info) && info.value.type !== "File" && info.value.type !== "Directory") continue
      const real = yield* realPathOf(fs, path, file)
      for (const source of sources) {
        if (real === source.real) {
          return yield* new MigrateOutputError({ file, message: `${name} ${file} is the input ${source.input}: it would be overwritten; choose another file` })
        }
        if (source.folder && real.startsWith(source.real.endsWith(path.sep) ? source.real : source.real + path.sep)) {
          return yield* new MigrateOutputError({
            file,
            message: `${name} ${file} is inside the input folder ${source.input}: the run would read its own output; choose a file outside it`
          })
        }
      }
      const twin = seen.find((s) => s.real === real)
      if (twin !== undefined) return yield* new MigrateOutputError({ file, message: `${name} ${file} is also ${twin.name}: give each output its own file` })
      seen.push({ name, real })
    }
  })
