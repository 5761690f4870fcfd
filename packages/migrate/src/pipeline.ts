/**
 * The streaming migration: records in (NDJSON lines, a JSON file's object or array elements,
 * or a folder of such files), scans out in the target shape, and every record that cannot be
 * migrated in the rejects output with its reason. Nothing is held but the chunks in hand (one,
 * or a few per worker thread) and the report's counters, so memory stays flat whatever the
 * input size; the output keeps the input's order, so two runs write the same bytes.
 */
import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Either, Schema, Stream } from "effect"
import { DecodeError, EncodeError, type Scan, unreadableReason } from "@scanbridge/model"
import { Normalizer, type NormalizerService } from "./normalizer.js"
import type { MigratePool, MigrateWorkerError } from "./workers.js"

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

/** A migration's counts: `records = migrated + rejected`. */
export interface Report extends Tally {
  readonly rejected: number
  readonly target: string
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
}) {
  /** `target` asked of a normalizer that has no such encoder; `where` says who asked. */
  static of(target: string, normalizer: NormalizerService, where = ""): UnknownTargetError {
    return new UnknownTargetError({ target, message: `unknown target ${JSON.stringify(target)}${where}: expected one of ${[...normalizer.encoders.keys()].join(", ")}` })
  }
}

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
    const { format, payload } = detected.right
    let decoded = false
    // Decoders and encoders answer with typed errors; one that throws instead (a stack
    // overflow on a record nested too deeply, an integrator's adapter's bug) rejects this
    // record alone, and the run goes on.
    try {
      const scans = format.decode(payload)
      if (Either.isLeft(scans)) return reject(record, scans.left._tag, scans.left.message, scans.left.path)
      decoded = true
      const lines: Array<string> = []
      for (const scan of scans.right) {
        const encoded = encoder.encode(scan)
        if (Either.isLeft(encoded)) return reject(record, encoded.left._tag, encoded.left.message, encoded.left.path)
        // Notes of the encoding travel with a canonical scan; other shapes have no place for them.
        lines.push(JSON.stringify(encoded.right.value))
      }
      return { _tag: "Migrated", format: format.name, scans: scans.right, lines }
    } catch (e) {
      const error = decoded ? EncodeError.at(target, [], undefined, unreadableReason(e)) : DecodeError.unreadable(format.name, payload, e)
      return reject(record, error._tag, error.message, error.path)
    }
  }
}

// --- Counting -----------------------------------------------------------------------------

/**
 * The counts of some records, as plain data: a worker thread sends one back with each chunk it
 * migrates, and the report is their sum.
 */
export interface Tally {
  /** Records read. */
  readonly records: number
  readonly migrated: number
  /** Scans written (a list page is one record and several scans). */
  readonly scans: number
  readonly byFormat: Readonly<Record<string, number>>
  readonly byStatus: Readonly<Record<string, number>>
  readonly byNoteKind: Readonly<Record<string, number>>
  readonly byRejectReason: Readonly<Record<string, number>>
}

interface MutableTally {
  records: number
  migrated: number
  scans: number
  readonly byFormat: Record<string, number>
  readonly byStatus: Record<string, number>
  readonly byNoteKind: Record<string, number>
  readonly byRejectReason: Record<string, number>
}

const emptyTally = (): MutableTally => ({ records: 0, migrated: 0, scans: 0, byFormat: {}, byStatus: {}, byNoteKind: {}, byRejectReason: {} })

const bump = (counts: Record<string, number>, key: string, by = 1) => {
  counts[key] = (counts[key] ?? 0) + by
}

const count = (tally: MutableTally, outcome: Outcome): void => {
  tally.records++
  if (outcome._tag === "Rejected") return bump(tally.byRejectReason, outcome.reject.error.tag)
  tally.migrated++
  bump(tally.byFormat, outcome.format)
  for (const scan of outcome.scans) {
    tally.scans++
    bump(tally.byStatus, scan.status)
    for (const note of scan.notes) bump(tally.byNoteKind, note.kind)
  }
}

const addAll = (into: Record<string, number>, from: Readonly<Record<string, number>>) => {
  for (const [key, n] of Object.entries(from)) bump(into, key, n)
}

/**
 * Counts outcomes, or whole chunks' tallies, as they pass; `report()` reads the totals. Tallies
 * merged in input order give the report's keys in the same order as counting each record.
 */
export const makeCounter = (target: string) => {
  const total = emptyTally()
  return {
    add(outcome: Outcome): void {
      count(total, outcome)
    },
    merge(tally: Tally): void {
      total.records += tally.records
      total.migrated += tally.migrated
      total.scans += tally.scans
      addAll(total.byFormat, tally.byFormat)
      addAll(total.byStatus, tally.byStatus)
      addAll(total.byNoteKind, tally.byNoteKind)
      addAll(total.byRejectReason, tally.byRejectReason)
    },
    report(): Report {
      const { records, migrated, scans, byFormat, byStatus, byNoteKind, byRejectReason } = total
      return { records, migrated, rejected: records - migrated, scans, target, byFormat, byStatus, byNoteKind, byRejectReason }
    }
  }
}

// --- One chunk ----------------------------------------------------------------------------

/**
 * A chunk of the input, as plain data a worker thread can take: up to 256 lines (fewer past
 * 2 MiB, one line at least) of an NDJSON file as their bytes (so the reading thread neither
 * decodes nor splits them, and a worker gets them without a copy), or up to 256 records of a
 * JSON document.
 */
export type InputChunk =
  | {
      readonly _tag: "Lines"
      readonly file: string
      /** The 1-based line number of the first line. */
      readonly firstLine: number
      /** Whether these are the file's first bytes (where a byte order mark is skipped). */
      readonly first: boolean
      /** Whole lines, each ended by \n (the file's last one maybe not); UTF-8. */
      readonly bytes: Uint8Array
    }
  | { readonly _tag: "Records"; readonly records: ReadonlyArray<InputRecord> }

/**
 * The records of some text, numbered from `firstLine`. A line ends at \n or \r\n (a lone \r is
 * part of the line); a blank line is counted, not kept.
 */
const recordsOfText = (file: string, text: string, firstLine: number): Array<InputRecord> => {
  const records: Array<InputRecord> = []
  let line = firstLine
  for (let from = 0; from < text.length; line++) {
    const lf = text.indexOf("\n", from)
    const end = lf < 0 ? text.length : lf
    const raw = text.charCodeAt(end - 1) === 13 && end > from ? text.slice(from, end - 1) : text.slice(from, end)
    if (raw.trim() !== "") records.push({ file, line, raw })
    from = end + 1
  }
  return records
}

/** The records of a chunk, in order. */
export const recordsOf = (chunk: InputChunk): ReadonlyArray<InputRecord> => {
  if (chunk._tag === "Records") return chunk.records
  // As a streaming decoder of the whole file would: a byte order mark skipped at the start only,
  // and an incomplete character at the very end dropped, not replaced.
  const text = new TextDecoder("utf-8", { ignoreBOM: !chunk.first }).decode(chunk.bytes, { stream: true })
  return recordsOfText(chunk.file, text, chunk.firstLine)
}

/** A chunk of records migrated: the text for each output, and its counts. Plain data, so it can cross threads. */
export interface MigratedChunk {
  /** One JSON per line, for the output. */
  readonly out: string
  /** One reject per line, for the rejects output. */
  readonly rejected: string
  readonly tally: Tally
}

/**
 * Migrates a chunk of the input, in order. The one code path for a chunk, whether the reading
 * thread or a worker runs it, so both write the same bytes. Never throws but for an unknown target.
 */
export const migrateChunk = (normalizer: NormalizerService, target: string) => {
  const run = migrateRecord(normalizer, target)
  return (chunk: InputChunk): MigratedChunk => {
    const tally = emptyTally()
    let out = ""
    let rejected = ""
    for (const record of recordsOf(chunk)) {
      const o = run(record)
      count(tally, o)
      if (o._tag === "Migrated") for (const line of o.lines) out += `${line}\n`
      else rejected += `${JSON.stringify(o.reject)}\n`
    }
    return { out, rejected, tally }
  }
}

// --- Reading ------------------------------------------------------------------------------

const EXTENSIONS = [".ndjson", ".jsonl", ".json"]

/** The files of the inputs: files as given, folders walked in name order for the same order on every run. */
export const listInputs = (inputs: ReadonlyArray<string>) => Effect.map(walkInputs(inputs), (files) => files.map((f) => f.file))

/** The files of the inputs with their sizes, each file stat-ed once. */
const walkInputs = (inputs: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const files: Array<{ readonly file: string; readonly size: number }> = []
    const visit = (entry: string, info: FileSystem.File.Info): Effect.Effect<void, MigrateInputError> =>
      Effect.gen(function* () {
        if (info.type !== "Directory") return void files.push({ file: entry, size: Number(info.size) })
        const names = yield* Effect.mapError(fs.readDirectory(entry), (e) => new MigrateInputError({ file: entry, message: `${entry}: ${e.message}` }))
        for (const name of [...names].sort()) {
          const child = path.join(entry, name)
          const childInfo = yield* Effect.option(fs.stat(child))
          if (childInfo._tag === "Some" && (childInfo.value.type === "Directory" || EXTENSIONS.includes(path.extname(name)))) yield* visit(child, childInfo.value)
        }
      })
    for (const input of inputs) {
      const info = yield* Effect.mapError(fs.stat(input), () => new MigrateInputError({ file: input, message: `${input}: no such file or folder, or not readable` }))
      yield* visit(input, info)
    }
    return files
  })

/** The inputs' total size in bytes: what decides whether worker threads pay for their start-up. */
export const inputBytes = (inputs: ReadonlyArray<string>) => Effect.map(walkInputs(inputs), (files) => files.reduce((total, f) => total + f.size, 0))

// Lines or records per chunk: large enough to amortise the stream's (and a worker's message's)
// overhead, small enough that the live objects of one chunk stay in the young generation.
const CHUNK_LINES = 256
const CHUNK_BYTES = 2 * 1024 * 1024

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    bytes.set(part, at)
    at += part.length
  }
  return bytes
}

/**
 * An NDJSON file's bytes cut into chunks of CHUNK_LINES lines (fewer past CHUNK_BYTES), at \n
 * bytes (never inside a UTF-8 character). Each chunk owns its bytes, so it can be transferred to
 * a worker.
 */
const linesOf = <E, R>(file: string, bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<InputChunk, E, R> =>
  Stream.suspend(() => {
    let held: Array<Uint8Array> = []
    let heldLines = 0
    let heldBytes = 0
    let firstLine = 1
    let first = true
    const chunk = (): InputChunk => {
      const c: InputChunk = { _tag: "Lines", file, firstLine, first, bytes: concat(held) }
      first = false
      firstLine += heldLines
      held = []
      heldLines = 0
      heldBytes = 0
      return c
    }
    const take = (buffer: Uint8Array): Array<InputChunk> => {
      const chunks: Array<InputChunk> = []
      let start = 0
      for (let lf = buffer.indexOf(10); lf >= 0; lf = buffer.indexOf(10, lf + 1)) {
        // A chunk ends at CHUNK_LINES lines, or sooner at CHUNK_BYTES: large records (avatars)
        // then come a few at a time, and a worker's heap stays small.
        if (++heldLines === CHUNK_LINES || heldBytes + (lf + 1 - start) >= CHUNK_BYTES) {
          held.push(buffer.subarray(start, lf + 1))
          chunks.push(chunk())
          start = lf + 1
        }
      }
      // A copy: the stream may fill its buffer again.
      if (start < buffer.length) {
        held.push(buffer.slice(start))
        heldBytes += buffer.length - start
      }
      return chunks
    }
    return bytes.pipe(
      Stream.mapConcat(take),
      Stream.concat(Stream.suspend(() => (held.length === 0 ? Stream.empty : Stream.make(chunk()))))
    )
  })

/** Records in chunks of CHUNK_LINES, made as they are taken. */
const recordChunks = (count: number, record: (i: number) => InputRecord): Stream.Stream<InputChunk> =>
  Stream.range(0, Math.ceil(count / CHUNK_LINES) - 1).pipe(
    Stream.map((c): InputChunk => {
      const records: Array<InputRecord> = []
      for (let i = c * CHUNK_LINES; i < Math.min(count, (c + 1) * CHUNK_LINES); i++) records.push(record(i))
      return { _tag: "Records", records }
    })
  )

/** One file's chunks: NDJSON lines as bytes, or the elements of a JSON array (or a lone object) as records. */
export const readChunks = (file: string): Stream.Stream<InputChunk, MigrateInputError, FileSystem.FileSystem> =>
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
          const records = recordsOfText(file, text, 1)
          return recordChunks(records.length, (i) => records[i]!)
        }
        const items: ReadonlyArray<unknown> = Array.isArray(json) ? json : [json]
        return recordChunks(items.length, (i) => ({ file, line: i + 1, raw: JSON.stringify(items[i]) }))
      }
      return linesOf(file, Stream.mapError(fs.stream(file), unreadable))
    })
  )

/** One file's records: every non-empty line of NDJSON, or the elements of a JSON array. */
export const readRecords = (file: string): Stream.Stream<InputRecord, MigrateInputError, FileSystem.FileSystem> =>
  Stream.mapConcat(readChunks(file), recordsOf)

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
  /**
   * Worker threads to migrate the chunks on (from `makeMigratePool`); without it, the calling
   * thread migrates them. Either way the output is the same bytes.
   */
  readonly pool?: MigratePool
}

/**
 * Runs a migration: every record of the inputs goes to `output` or `rejects`, in input order,
 * and the report counts them. Fails only on input it cannot read at all (or a pool's worker
 * that cannot run).
 */
export const migrate = (options: MigrateOptions) =>
  Effect.gen(function* () {
    const normalizer = yield* Normalizer
    const target = options.to ?? "canonical"
    if (!normalizer.encoders.has(target)) return yield* Effect.fail(UnknownTargetError.of(target, normalizer))
    const files = yield* listInputs(options.inputs)
    const pool = options.pool
    const here = migrateChunk(normalizer, target)
    // With a pool, this thread migrates too, but only a chunk the workers have no room for: it
    // also reads and writes, and one worker fewer is one heap fewer.
    let pooled = 0
    const run = (chunk: InputChunk): Effect.Effect<MigratedChunk, MigrateWorkerError | UnknownTargetError> => {
      // A chunk past CHUNK_BYTES is one very large record: it stays here, so a worker's heap
      // can be kept small.
      const large = chunk._tag === "Lines" && chunk.bytes.length > CHUNK_BYTES
      if (pool === undefined || pooled >= pool.concurrency || large) return Effect.sync(() => here(chunk))
      pooled++
      return Effect.ensuring(pool.migrateChunk(target, chunk), Effect.sync(() => pooled--))
    }
    const counter = makeCounter(target)
    // Chunks are migrated side by side (as many as the pool takes at once, plus one here, so
    // memory stays bounded), but taken back in input order: the output is the same bytes with or
    // without a pool.
    yield* Stream.fromIterable(files).pipe(
      Stream.flatMap(readChunks),
      Stream.mapEffect(run, { concurrency: pool === undefined ? 1 : pool.concurrency + 1 }),
      Stream.runForEach((chunk) => {
        counter.merge(chunk.tally)
        const written = Effect.zipRight(options.output(chunk.out), options.rejects(chunk.rejected))
        return options.onProgress ? Effect.zipRight(written, Effect.suspend(() => options.onProgress!(counter.report()))) : written
      })
    )
    return counter.report()
  })
