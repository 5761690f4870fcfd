/**
 * The migration's inputs: files, folders of them, `.gz` files, named pipes and devices, and
 * standard input, each listed once (a folder walk follows each real path at most once) before
 * anything is read.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Option, Schema, type Stream } from "effect"

/** The name standard input (`-`) has in rejects and errors. */
export const STDIN = "<stdin>"

/** The input could not be read at all (a missing file, a corrupt `.gz`, a file that changed while it was read). */
export class MigrateInputError extends Schema.TaggedError<MigrateInputError>("@scanbridge/migrate/MigrateInputError")("MigrateInputError", {
  file: Schema.String,
  message: Schema.String
}) {
  /** An input `-`, and no standard input given to read. */
  static noStdin(): MigrateInputError {
    return new MigrateInputError({ file: STDIN, message: "- reads standard input, and this migration was given none (MigrateOptions.stdin)" })
  }
}

// --- Inputs -------------------------------------------------------------------------------

/** One input as listed: a file to read, and how. */
export interface InputFile {
  /** The path as given or as found in a folder; `<stdin>` for standard input. */
  readonly file: string
  /** `file`: a regular file, of `size` bytes (compressed, for a `.gz`). `stream`: a named pipe or a device, read in order, size unknown. `stdin`: `MigrateOptions.stdin`. */
  readonly kind: "file" | "stream" | "stdin"
  readonly size: number | null
}

/** The inputs of a migration, walked once: `migrate` takes them as they are. */
export interface ListedInputs {
  readonly files: ReadonlyArray<InputFile>
  /** The files' total size in bytes; null when one has no size known (stdin, a pipe). */
  readonly bytesTotal: number | null
}

const INPUT_NAME = /\.(?:ndjson|jsonl|json)(?:\.gz)?$/

/**
 * The inputs' files: files as given, folders walked in name order (the same order on every run)
 * for their `.ndjson`, `.jsonl` and `.json` files, `.gz` or not. `-` is standard input. Each real
 * path is taken once: a file given twice or reached through a link is read once, and a link back
 * into a folder being walked (`ln -s . self`) is not followed.
 */
export const listInputs = (inputs: ReadonlyArray<string>): Effect.Effect<ListedInputs, MigrateInputError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const files: Array<InputFile> = []
    const seen = new Set<string>()
    // A pipe's path may have no real path (/dev/stdin on a pipe): its name then stands for it.
    const firstTime = (entry: string) =>
      Effect.map(
        Effect.orElseSucceed(fs.realPath(entry), () => entry),
        (real) => {
          const first = !seen.has(real)
          seen.add(real)
          return first
        }
      )
    const visit = (entry: string, info: FileSystem.File.Info): Effect.Effect<void, MigrateInputError> =>
      Effect.gen(function* () {
        if (!(yield* firstTime(entry))) return
        if (info.type === "File") return void files.push({ file: entry, kind: "file", size: Number(info.size) })
        if (info.type !== "Directory") return void files.push({ file: entry, kind: "stream", size: null })
        const names = yield* Effect.mapError(fs.readDirectory(entry), (e) => new MigrateInputError({ file: entry, message: `${entry}: ${e.message}` }))
        for (const name of [...names].sort()) {
          const child = path.join(entry, name)
          const childInfo = yield* Effect.option(fs.stat(child))
          if (Option.isSome(childInfo) && (childInfo.value.type === "Directory" || INPUT_NAME.test(name))) yield* visit(child, childInfo.value)
        }
      })
    for (const input of inputs) {
      if (input === "-") {
        if (!seen.has(STDIN)) files.push({ file: STDIN, kind: "stdin", size: null })
        seen.add(STDIN)
        continue
      }
      const info = yield* Effect.mapError(
        fs.stat(input),
        () => new MigrateInputError({ file: input, message: `${input}: no such file or folder, or not readable` })
      )
      yield* visit(input, info)
    }
    const bytesTotal = files.every((f) => f.size !== null) ? files.reduce((total, f) => total + f.size!, 0) : null
    return { files, bytesTotal }
  })

/** Standard input's bytes, for `-`; the Node side is `NodeStream.fromReadable(() => process.stdin)`. */
export type StdinBytes = Stream.Stream<Uint8Array, unknown>
