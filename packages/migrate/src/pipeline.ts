/**
 * The streaming migration: records in (NDJSON lines, a JSON file's object or array elements,
 * or a folder of such files), scans out in the target shape, and every record that cannot be
 * migrated in the rejects output with its reason. Nothing is held but the current chunk and
 * the report's counters, so memory stays flat whatever the input size; the output keeps the
 * input's order, so two runs write the same bytes.
 */
import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Chunk, Effect, Either, Schema, Stream } from "effect"
import type { Scan } from "@scanbridge/model"
import { Normalizer, type NormalizerService } from "./normalizer.js"

/** One record of the input, with where it came from. */
export interface InputRecord {
  readonly file: string
  /** 1-based: the line of an NDJSON file, the element of a JSON array, 1 for a lone object. */
  readonly line: number
  /** The record's JSON text, exactly as read. */
  readonly raw: string
}

/** A record that could not be migrated, and why: one line of the rejects output. */
export interface Reject {
  readonly file: string
  readonly line: number
  readonly error: { readonly tag: string; readonly message: string; readonly path: ReadonlyArray<string | number> | null }
  readonly raw: string
}

export type Outcome =
  | { readonly _tag: "Migrated"; readonly format: string; readonly scans: ReadonlyArray<Scan>; readonly lines: ReadonlyArray<string> }
  | { readonly _tag: "Rejected"; readonly reject: Reject }

export interface Report {
  /** Records read; `migrated + rejected` always equals it. */
  readonly records: number
  readonly migrated: number
  readonly rejected: number
  /** Scans written (a list page is one record and several scans). */
  readonly scans: number
  readonly target: string
  readonly byFormat: Readonly<Record<string, number>>
  readonly byStatus: Readonly<Record<string, number>>
  readonly byNoteKind: Readonly<Record<string, number>>
  readonly byRejectReason: Readonly<Record<string, number>>
}

/** The input could not be read at all (a missing file, a JSON file that does not parse). */
export class MigrateInputError extends Schema.TaggedError<MigrateInputError>("@scanbridge/migrate/MigrateInputError")("MigrateInputError", {
  file: Schema.String,
  message: Schema.String
}) {}

/** The target names no encoder. */
export class UnknownTargetError extends Schema.TaggedError<UnknownTargetError>("@scanbridge/migrate/UnknownTargetError")("UnknownTargetError", {
  target: Schema.String,
  message: Schema.String
}) {}

// --- One record ---------------------------------------------------------------------------

const reject = (record: InputRecord, tag: string, message: string, path: ReadonlyArray<string | number> | null): Outcome => ({
  _tag: "Rejected",
  reject: { file: record.file, line: record.line, error: { tag, message, path }, raw: record.raw }
})

/** Migrates one record: parse, detect, decode, encode every scan it holds. Never throws. */
export const migrateRecord = (normalizer: NormalizerService, target: string) => {
  const encoder = normalizer.encoders.get(target)
  if (encoder === undefined) throw new Error(`unknown target ${target}`)
  return (record: InputRecord): Outcome => {
    let json: unknown
    try {
      json = JSON.parse(record.raw)
    } catch (e) {
      return reject(record, "InvalidJson", `not JSON: ${(e as Error).message}`, null)
    }
    const detected = normalizer.detect(json)
    if (Either.isLeft(detected)) return reject(record, detected.left._tag, detected.left.message, null)
    const scans = detected.right.format.decode(detected.right.payload)
    if (Either.isLeft(scans)) return reject(record, scans.left._tag, scans.left.message, scans.left.path)
    const lines: Array<string> = []
    for (const scan of scans.right) {
      const encoded = encoder.encode(scan)
      if (Either.isLeft(encoded)) return reject(record, encoded.left._tag, encoded.left.message, encoded.left.path)
      // Notes of the encoding travel with a canonical scan; other shapes have no place for them.
      lines.push(JSON.stringify(encoded.right.value))
    }
    return { _tag: "Migrated", format: detected.right.format.name, scans: scans.right, lines }
  }
}

// --- Counting -----------------------------------------------------------------------------

const bump = (counts: Record<string, number>, key: string, by = 1) => {
  counts[key] = (counts[key] ?? 0) + by
}

/** Counts outcomes as they pass; `report()` reads the totals. */
export const makeCounter = (target: string) => {
  const byFormat: Record<string, number> = {}
  const byStatus: Record<string, number> = {}
  const byNoteKind: Record<string, number> = {}
  const byRejectReason: Record<string, number> = {}
  let records = 0
  let migrated = 0
  let scans = 0
  return {
    add(outcome: Outcome): void {
      records++
      if (outcome._tag === "Rejected") return bump(byRejectReason, outcome.reject.error.tag)
      migrated++
      bump(byFormat, outcome.format)
      for (const scan of outcome.scans) {
        scans++
        bump(byStatus, scan.status)
        for (const note of scan.notes) bump(byNoteKind, note.kind)
      }
    },
    report(): Report {
      return { records, migrated, rejected: records - migrated, scans, target, byFormat, byStatus, byNoteKind, byRejectReason }
    }
  }
}

// --- Reading ------------------------------------------------------------------------------

const EXTENSIONS = [".ndjson", ".jsonl", ".json"]

/** The files of the inputs: files as given, folders walked in name order for the same order on every run. */
export const listInputs = (inputs: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const files: Array<string> = []
    const visit = (entry: string): Effect.Effect<void, MigrateInputError> =>
      Effect.gen(function* () {
        const info = yield* Effect.mapError(fs.stat(entry), () => new MigrateInputError({ file: entry, message: `${entry}: no such file or folder, or not readable` }))
        if (info.type === "Directory") {
          const names = yield* Effect.mapError(fs.readDirectory(entry), (e) => new MigrateInputError({ file: entry, message: `${entry}: ${e.message}` }))
          for (const name of [...names].sort()) {
            const child = path.join(entry, name)
            const childInfo = yield* Effect.option(fs.stat(child))
            if (childInfo._tag === "Some" && (childInfo.value.type === "Directory" || EXTENSIONS.includes(path.extname(name)))) yield* visit(child)
          }
        } else files.push(entry)
      })
    for (const input of inputs) yield* visit(input)
    return files
  })

// Records per chunk: large enough to amortise the stream's overhead, small enough that the live
// objects of one chunk stay in the young generation.
const CHUNK_LINES = 512

/** One file's records: every non-empty line of NDJSON, or the elements of a JSON array. */
export const readRecords = (file: string): Stream.Stream<InputRecord, MigrateInputError, FileSystem.FileSystem> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const unreadable = (e: PlatformError) => new MigrateInputError({ file, message: `${file}: ${e.message}` })
      if (file.endsWith(".json")) {
        // A JSON document is read whole: its records only exist once it parses.
        const text = yield* Effect.mapError(fs.readFileString(file), unreadable)
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch (e) {
          // Not one document: maybe one record per line after all.
          return linesOf(file, Stream.make(text))
        }
        const items = Array.isArray(json) ? json : [json]
        return Stream.fromIterable(items.map((item, i): InputRecord => ({ file, line: i + 1, raw: JSON.stringify(item) })))
      }
      return linesOf(file, fs.stream(file).pipe(Stream.decodeText(), Stream.mapError(unreadable)))
    })
  )

const linesOf = <E, R>(file: string, text: Stream.Stream<string, E, R>): Stream.Stream<InputRecord, E, R> =>
  text.pipe(
    Stream.splitLines,
    Stream.zipWithIndex,
    Stream.filter(([line]) => line.trim() !== ""),
    Stream.map(([raw, i]): InputRecord => ({ file, line: i + 1, raw })),
    Stream.rechunk(CHUNK_LINES)
  )

// --- Running ------------------------------------------------------------------------------

/** Writes text somewhere: a file, stdout, memory. */
export type TextWriter = (text: string) => Effect.Effect<void, MigrateOutputError>

/** An output could not be written. */
export class MigrateOutputError extends Schema.TaggedError<MigrateOutputError>("@scanbridge/migrate/MigrateOutputError")("MigrateOutputError", {
  file: Schema.String,
  message: Schema.String
}) {}

/** A writer to a new file (truncated if it exists), closed with the scope. */
export const fileWriter = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const handle = yield* Effect.mapError(fs.open(file, { flag: "w" }), (e) => new MigrateOutputError({ file, message: `${file}: ${e.message}` }))
    const encoder = new TextEncoder()
    const writer: TextWriter = (text) =>
      text === "" ? Effect.void : Effect.mapError(handle.writeAll(encoder.encode(text)), (e) => new MigrateOutputError({ file, message: `${file}: ${e.message}` }))
    return writer
  })

export interface MigrateOptions {
  readonly inputs: ReadonlyArray<string>
  /** `canonical` (default), `platform`, `session`, `estimation`, `fit`, or an added adapter's target. */
  readonly to?: string
  /** Where the migrated records go, one JSON per line. */
  readonly output: TextWriter
  /** Where rejects go, one `{file, line, error, raw}` per line. */
  readonly rejects: TextWriter
  /** Called with the report so far after every chunk (for a progress bar). */
  readonly onProgress?: (report: Report) => Effect.Effect<void>
}

/**
 * Runs a migration: every record of the inputs goes to `output` or `rejects`, in input order,
 * and the report counts them. Fails only on input it cannot read at all.
 */
export const migrate = (options: MigrateOptions) =>
  Effect.gen(function* () {
    const normalizer = yield* Normalizer
    const target = options.to ?? "canonical"
    if (!normalizer.encoders.has(target)) {
      return yield* Effect.fail(
        new UnknownTargetError({ target, message: `unknown target ${JSON.stringify(target)}: expected one of ${[...normalizer.encoders.keys()].join(", ")}` })
      )
    }
    const files = yield* listInputs(options.inputs)
    const run = migrateRecord(normalizer, target)
    const counter = makeCounter(target)
    // One pass: each chunk of records is migrated, counted, and written to each output once.
    yield* Stream.fromIterable(files).pipe(
      Stream.flatMap(readRecords),
      Stream.runForEachChunk((records) => {
        let out = ""
        let rejected = ""
        Chunk.forEach(records, (record) => {
          const o = run(record)
          counter.add(o)
          if (o._tag === "Migrated") for (const line of o.lines) out += `${line}\n`
          else rejected += `${JSON.stringify(o.reject)}\n`
        })
        const written = Effect.zipRight(options.output(out), options.rejects(rejected))
        return options.onProgress ? Effect.zipRight(written, Effect.suspend(() => options.onProgress!(counter.report()))) : written
      })
    )
    return counter.report()
  })
