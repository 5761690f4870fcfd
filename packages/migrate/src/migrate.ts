/**
 * The streaming migration: records in (NDJSON lines, a JSON file's object or array elements,
 * or a folder of such files), scans out in the target shape, and every record that cannot be
 * migrated in the rejects output with its reason. Nothing is held but the chunks in hand (one,
 * or a few per worker thread) and the report's counters, so memory stays flat whatever the
 * input size; the output keeps the input's order, so two runs write the same bytes.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Option, Stream } from "effect"
import type { LengthUnit } from "@scanbridge/model"
import { type ListedInputs, MigrateInputError, type StdinBytes, listInputs } from "./inputs.js"
import { giveBytes } from "./internal/buffers.js"
import { CHUNK_BYTES, type InputChunk, type RecordPosition, afterLine, inputChunks } from "./internal/read.js"
import { readAhead } from "./internal/read-ahead.js"
import { type MigratedChunk, joinChunks, makeCounter, migrateChunk } from "./internal/pipeline.js"
import type { InputDigest } from "./internal/digest.js"
import { type Framing, framingOf } from "./internal/framing.js"
import { Normalizer, UnknownTargetError } from "./normalizer.js"
import { type OutputTarget, checkTarget } from "./target.js"
import { type MigrateOutputError, type PlacedFile, type TextWriter, isSettled, placedFileOf } from "./output.js"
import { type Placement, canPlace, makeTurns, numberLines, placeMigrated, stopTurns } from "./internal/placement.js"
import { type InputRange, linesChunk, rangesOf, readRange, surelyLines } from "./internal/ranges.js"
import type { Report } from "./report.js"
import type { MigratePool, MigrateWorkerError } from "./workers.js"

export type { RecordPosition } from "./internal/read.js"
export type { InputDigest } from "./internal/digest.js"

/** How far a migration has got. */
export interface MigrateProgress {
  readonly report: Report
  /** Input bytes (compressed, for a `.gz`) of the chunks whose results have been written. */
  readonly bytesRead: number
  /** The inputs' size, or null when it is not known (standard input, a pipe). */
  readonly bytesTotal: number | null
  /** The last record written (to the outputs, or committed by a sink): where a resumed run starts after. */
  readonly position: RecordPosition | undefined
  /**
   * With `hashInputs`: the input files read so far, each one's content hashed up to the last
   * record written (the whole of a file done with, or of a JSON document), for a checkpoint.
   */
  readonly digests?: ReadonlyArray<InputDigest>
}

/** Where an earlier run of the same inputs stopped: the last record it wrote, and its report then. */
export interface ResumePoint {
  readonly position: RecordPosition
  readonly report: Report
  /** The digests the run being resumed had (`MigrateProgress.digests`): with `hashInputs`, the files before the resumed one, not read again, keep theirs. */
  readonly digests?: ReadonlyArray<InputDigest>
}

/** A record from somewhere other than a file: a database row, say. */
export interface SourceRecord {
  /** What the rejects and the report call the source: a file's name, a table's or a query's. */
  readonly file: string
  /** 1-based: the record's place in the source. */
  readonly line: number
  /** The record's JSON text. */
  readonly raw: string
  /** The record's own key in its source (a key column's value), named by its reject. */
  readonly key?: string
}

/** Records from somewhere other than files, read in batches (a database cursor's). */
export interface MigrateSource<E> {
  readonly records: Stream.Stream<ReadonlyArray<SourceRecord>, E>
}

/**
 * A destination that takes the run's chunks whole: a database, which writes a chunk's rows, its
 * rejects and the run's progress in one transaction. Its `target` makes the lines it takes.
 */
export interface ChunkSink<E> {
  readonly target: OutputTarget
  /**
   * Writes a chunk whole. A sink that keeps one row per scan says how many of the chunk's scans
   * went over a row this run had written (`SinkWritten`): the report counts them (`repeatedScans`).
   */
  readonly write: (chunk: SinkChunk) => Effect.Effect<SinkWritten | void, E>
}

/** What a sink's write says of a chunk. */
export interface SinkWritten {
  /** Scans written over a row of the same scan that this run had written (in this chunk or an earlier one). */
  readonly repeatedScans: number
}

/** A chunk of the run, migrated: its records' lines in the sink's target and their rejects. */
export interface SinkChunk {
  /** One line (LF-ended, UTF-8) per scan, in the sink's target. */
  readonly out: Uint8Array
  /** One JSON `Reject` per line. */
  readonly rejected: Uint8Array
  /** The records the chunk holds, migrated and rejected. */
  readonly records: number
  /** The chunk's last record, if it holds any: what a resumed run starts after. */
  readonly position: RecordPosition | undefined
  /**
   * The run's report with this chunk counted: what a resumed run's report goes on from. Its
   * `repeatedScans` are the earlier chunks'; a sink that counts this chunk's adds them.
   */
  readonly report: Report
}

interface MigrateCommon<R> {
  /**
   * Files, folders and `-` (standard input), or the inputs `listInputs` listed (so they are
   * walked once), or a source of records (`postgresSource`).
   */
  readonly inputs: ReadonlyArray<string> | ListedInputs | MigrateSource<R>
  /** Standard input's bytes, read for an input `-` (on Node: `NodeStream.fromReadable(() => process.stdin)`). */
  readonly stdin?: StdinBytes
  /** Called after every chunk with the report so far and the input bytes done (for a progress bar). */
  readonly onProgress?: (progress: MigrateProgress) => Effect.Effect<void>
  /**
   * Resumes an earlier run of the same inputs that wrote up to `position` (its outputs kept, opened
   * to append): files before `position.file` are not read, and its records up to `position.line`
   * are skipped; the report goes on from `report`. No header is written again. A source of records
   * (`postgresSource`) resumes by its own means (its `after` key) and is not skipped here.
   */
  readonly after?: ResumePoint
  /**
   * Worker threads to migrate the chunks on (from `makeMigratePool`); without it, the calling
   * thread migrates them. Either way the output is the same bytes.
   */
  readonly pool?: MigratePool
  /**
   * Hashes the input files' content as it is read (SHA-256), so that `onProgress` says what the
   * run stands on (`MigrateProgress.digests`) and a checkpoint can be checked against the files
   * before a run resumes from it (`verifyInputs`). Off by default: it costs a pass over the bytes.
   */
  readonly hashInputs?: boolean
}

/** Outputs of text: a file, standard output, memory. */
export interface TextOutputs {
  /**
   * `canonical` (default), `platform`, `session`, `estimation`, `fit`, `fhir` (a FHIR R4
   * transaction Bundle per scan), or an added adapter's target: one JSON per line. Or `csv`: one
   * row per scan, in `scanColumns`' order, after a header; or `parquet`: the same rows, typed, in
   * a Parquet file.
   */
  readonly to?: string
  /**
   * The unit of the lengths, for a target that offers a choice (`checkTarget`): `csv` and
   * `parquet`, any (default `mm`); `fhir`, `cm` (default) or `in` (masses then in pounds).
   */
  readonly units?: LengthUnit
  /** With `to: "fhir"`, the identifier system of the patients, whose identifiers are the scans' `externalId`s (an absolute URI). */
  readonly patientSystem?: string
  /** Where the migrated records go, one per line. */
  readonly output: TextWriter
  /**
   * Where rejects go, one `{file, line, error, raw}` per line. Without it, rejected records are
   * counted in the report (by reason) but neither written nor formatted.
   */
  readonly rejects?: TextWriter
  readonly into?: undefined
}

/** A sink that takes chunks whole (`postgresSink`), rejects included. */
export interface SinkOutput<W> {
  readonly into: ChunkSink<W>
  readonly to?: undefined
  readonly units?: undefined
  readonly patientSystem?: undefined
  readonly output?: undefined
  readonly rejects?: undefined
}

/** `R`: what the source of records may fail with; `W`: what the sink may. */
export type MigrateOptions<R = never, W = never> = MigrateCommon<R> & (TextOutputs | SinkOutput<W>)

/** A migrated chunk, with the input bytes it stood for and, when they are hashed, their digest. */
interface PlacedChunk extends MigratedChunk {
  readonly inputBytes: number
  readonly digest: InputDigest | undefined
}

/**
 * How a run's chunks are written: to a sink whole, or to the text outputs. A migrated chunk's
 * buffers are given back once written by a writer done with them (`isSettled`; a sink's write
 * ends when its transaction has).
 */
const writerOf = <W>(
  options: TextOutputs | SinkOutput<W>,
  counter: ReturnType<typeof makeCounter>,
  framing: Framing | undefined,
  placedFiles: { readonly out: PlacedFile | undefined; readonly rejected: PlacedFile | undefined }
): ((chunk: PlacedChunk) => Effect.Effect<void, W | MigrateOutputError>) => {
  const into = options.into
  if (into !== undefined) {
    return (chunk: PlacedChunk): Effect.Effect<void, W> =>
      Effect.map(
        into.write({ out: chunk.out, rejected: chunk.rejected, records: chunk.tally.records, position: chunk.last, report: counter.report() }),
        (written) => {
          if (written !== undefined) counter.repeated(written.repeatedScans)
          giveBytes(chunk.out)
          giveBytes(chunk.rejected)
        }
      )
  }
  const { output, rejects } = options as TextOutputs
  const outputSettled = isSettled(output)
  const rejectsSettled = rejects !== undefined && isSettled(rejects)
  const body = framing?.body
  return (chunk: PlacedChunk): Effect.Effect<void, MigrateOutputError> => {
    // The bytes a chunk's thread wrote itself count as the writer's; what is left of them here is
    // empty, and written as nothing.
    if (chunk.placed !== undefined) {
      placedFiles.out?.advance(chunk.placed.out)
      placedFiles.rejected?.advance(chunk.placed.rejected)
    }
    // Lines a framing encodes (a Parquet file's rows) are done with once encoded.
    const out = body === undefined ? chunk.out : body(chunk.out)
    if (body !== undefined) giveBytes(chunk.out)
    return Effect.zipRight(output(out), rejects === undefined ? Effect.void : rejects(chunk.rejected)).pipe(
      Effect.tap(() => {
        if (outputSettled && body === undefined) giveBytes(chunk.out)
        if (rejectsSettled) giveBytes(chunk.rejected)
      })
    )
  }
}

/**
 * The files a resumed run reads: from the checkpoint's file on (the ones before it were done). A
 * checkpoint naming no file of the inputs is refused: the inputs are not the run's that wrote it.
 */
const resumedFiles = (listed: ListedInputs, position: RecordPosition | undefined) => {
  if (position === undefined) return Effect.succeed(listed.files)
  const at = listed.files.findIndex((f) => f.file === position.file)
  return at < 0
    ? Effect.fail(
        new MigrateInputError({
          file: position.file,
          message: `${position.file}: the run being resumed stopped in this input, which is not among the inputs now; run without resuming`
        })
      )
    : Effect.succeed(listed.files.slice(at))
}

/**
 * With a pool, the chunks held besides the pool's: read and waiting for a worker's place, so a
 * place that frees is taken at once.
 */
const WAITING_CHUNKS = 1
/** Reads ahead of the migration, in the queue of `readAhead` (a read is a chunk or a few). */
const READ_AHEAD = 2

/**
 * Runs a migration: every record of the inputs goes to `output` or `rejects`, in input order,
 * and the report counts them. Fails only on input it cannot read at all (or a pool's worker
 * that cannot run).
 */
export const migrate = <R = never, W = never>(options: MigrateOptions<R, W>) =>
  Effect.gen(function* () {
    const normalizer = yield* Normalizer
    const into = options.into
    const to = into?.target.to ?? options.to ?? "canonical"
    // Not `into?.target ?? (yield* ...)`: a CommonJS build wraps the right side of `??` in an
    // arrow function, where `yield` is no keyword.
    const target: OutputTarget =
      into !== undefined
        ? into.target
        : yield* checkTarget(normalizer, {
            to,
            ...(options.units === undefined ? {} : { units: options.units }),
            ...(options.patientSystem === undefined ? {} : { patientSystem: options.patientSystem })
          })
    const inputs = options.inputs
    const listed = "records" in inputs ? undefined : "files" in inputs ? inputs : yield* listInputs(inputs)
    // Before anything is read: a run that cannot read all its inputs does not begin.
    if (options.stdin === undefined && listed?.files.some((f) => f.kind === "stdin")) return yield* MigrateInputError.noStdin()
    const pool = options.pool
    const keepRejects = into !== undefined || options.rejects !== undefined
    const migrateChunkSync = migrateChunk(normalizer, target, keepRejects)
    const migrateOnThisThread = (chunk: InputChunk) => Effect.sync(() => migrateChunkSync(chunk))
    // With a pool, this thread orders the chunks (and reads and writes what the workers cannot):
    // whatever it does itself, no number of workers shares (issue 34), so a chunk waits for a
    // worker rather than be migrated here, even while the workers start.
    const framing = options.output === undefined ? undefined : framingOf(target)
    // With a pool, outputs that are files (and whose lines are written as they are, not encoded
    // here) are written by the thread that migrates each chunk, at its place (internal/placement.ts).
    const turnsAllowed = pool?.readsAndWrites === true && canPlace
    const placing = turnsAllowed && framing !== undefined && framing.body === undefined && framing.footer === undefined
    const placedFiles = {
      out: placing && options.output !== undefined ? placedFileOf(options.output) : undefined,
      rejected: placing && options.rejects !== undefined ? placedFileOf(options.rejects) : undefined
    }
    // With a pool, a regular NDJSON file is read by the workers, each a range of it (internal/ranges.ts).
    const ranging = turnsAllowed && listed !== undefined && options.hashInputs !== true
    // Chunks take turns (for their lines' numbers and their outputs' places) when either is theirs.
    const turnTaking = ranging || placedFiles.out !== undefined || placedFiles.rejected !== undefined
    // Made when the first chunk is, after any header has been written.
    let turns: SharedArrayBuffer | undefined
    let chunksRun = 0
    // Tells the workers' files of this run from another's (internal/run-files.ts).
    const runNumber = Math.floor(Math.random() * 2 ** 31)
    const placementOf = (): Placement | undefined => {
      if (!turnTaking) return undefined
      const { out, rejected } = placedFiles
      turns ??= makeTurns(out?.end() ?? 0, rejected?.end() ?? 0)
      const named = (file: PlacedFile | undefined) => (file === undefined ? undefined : { path: file.path, file: file.file })
      return { run: runNumber, seq: chunksRun++, turns, out: named(out), rejected: named(rejected) }
    }
    const fs = yield* FileSystem.FileSystem
    const here = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem>) => Effect.provideService(effect, FileSystem.FileSystem, fs)
    type RunError = MigrateWorkerError | UnknownTargetError | MigrateOutputError | MigrateInputError
    // A range's rest, past a line too large for a worker, read and migrated here with the turns
    // its worker held.
    const goOn = (range: InputRange, begun: MigratedChunk, from: number, placement: Placement): Effect.Effect<MigratedChunk, RunError> =>
      here(
        Effect.gen(function* () {
          const read = yield* readRange({ ...range, start: from })
          const held = { held: true, hold: false }
          const firstLine = yield* numberLines(placement.turns, placement.seq, read.lines, false, held)
          const rest = migrateChunkSync(linesChunk(range, read, firstLine ?? 0, 0))
          return joinChunks([begun, yield* placeMigrated(placement, rest, { keep: true, taking: held })])
        })
      )
    const run = (chunk: InputChunk | InputRange): Effect.Effect<MigratedChunk, RunError> => {
      const placement = placementOf()
      if (chunk._tag === "Range") {
        return Effect.flatMap(pool!.migrateChunk(target, chunk, keepRejects, placement), (done) =>
          done.rest === undefined ? Effect.succeed(done) : goOn(chunk, done, done.rest, placement!)
        )
      }
      // Every chunk takes the lines' turn, so it passes in order; only a range's lines are numbered by it.
      const numbered = placement === undefined || !ranging ? Effect.void : numberLines(placement.turns, placement.seq, 0, true)
      // A chunk past CHUNK_BYTES is one very large record: it stays here, so a worker's heap
      // can be kept small. Placed, it takes its turn like a worker's.
      const large = chunk._tag === "Lines" && chunk.bytes.length > CHUNK_BYTES
      const done: Effect.Effect<MigratedChunk, RunError> =
        pool !== undefined && !large
          ? pool.migrateChunk(target, chunk, keepRejects, placement)
          : placement === undefined
            ? migrateOnThisThread(chunk)
            : Effect.flatMap(migrateOnThisThread(chunk), (migrated) => here(placeMigrated(placement, migrated, { keep: true })))
      return Effect.zipRight(numbered, done, { concurrent: true })
    }
    const counter = makeCounter(to)
    // Chunks are migrated side by side (as many as the pool takes at once, so memory stays
    // bounded), but taken back in input order: the output is the same bytes with or without a pool.
    let bytesRead = 0
    // An output with a footer cannot be appended to: a resumed run's would need the end the first one never wrote.
    if (framing?.footer !== undefined && options.after !== undefined) {
      return yield* new UnknownTargetError({ target: to, message: `${framing.name} is written whole, so a run writing one cannot be resumed` })
    }
    const write = writerOf(options, counter, framing, placedFiles)
    const after = options.after
    if (after !== undefined) {
      counter.merge(after.report)
      counter.repeated(after.report.repeatedScans ?? 0)
    }
    const files = listed === undefined ? [] : yield* resumedFiles(listed, after?.position)
    // By file, in the order read; the files before the resumed one keep the resumed run's.
    const hashed = options.hashInputs === true
    const digests = new Map<string, InputDigest>(hashed ? (after?.digests ?? []).map((d) => [d.file, d]) : [])
    const keepDigest = (digest: InputDigest | undefined) => void (digest !== undefined && digests.set(digest.file, digest))
    const chunks: Stream.Stream<InputChunk | InputRange, MigrateInputError | R, FileSystem.FileSystem> =
      listed === undefined
        ? Stream.map((inputs as MigrateSource<R>).records, (records) => ({
            _tag: "Records",
            records,
            inputBytes: records.reduce((n, r) => n + r.raw.length, 0)
          }))
        : Stream.flatMap(Stream.fromIterable(files), (input): Stream.Stream<InputChunk | InputRange, MigrateInputError, FileSystem.FileSystem> => {
            const read = inputChunks(input, options.stdin, hashed)
            const skip = after?.position
            if (skip === undefined || skip.file !== input.file) {
              if (!ranging) return read
              // Its ranges, if it is surely NDJSON lines, as inputChunks would read it.
              return Stream.unwrap(
                Effect.map(
                  surelyLines(input),
                  (lines): Stream.Stream<InputChunk | InputRange, MigrateInputError, FileSystem.FileSystem> =>
                    lines ? rangesOf(input.file, input.size!) : read
                )
              )
            }
            // The resumed file: its records up to the checkpoint's are skipped; their bytes count as
            // read, and were hashed (the chunks skipped come before any this run writes). A chunk of
            // no records has nothing to skip: one that carries the file's whole digest, after the
            // records written, must follow them.
            return Stream.filterMap(read, (chunk) => {
              if (chunk._tag === "Records" && chunk.records.length === 0) return Option.some(chunk)
              const rest = afterLine(chunk, skip.line)
              if (rest === undefined) {
                bytesRead += chunk.inputBytes
                keepDigest(chunk.digest)
              }
              return Option.fromNullable(rest)
            })
          })
    const bytesTotal = listed?.bytesTotal ?? null
    let position = after?.position
    const migrated = readAhead(chunks, READ_AHEAD).pipe(
      Stream.mapEffect(
        (chunk) =>
          Effect.map(
            run(chunk),
            (migrated): PlacedChunk => ({ ...migrated, inputBytes: chunk.inputBytes, digest: chunk._tag === "Range" ? undefined : chunk.digest })
          ),
        {
          // Placed chunks wait for the ones before them while holding a worker's place: one waiting
          // for a place could be the one they wait for.
          concurrency: pool === undefined ? 1 : pool.concurrency + (turnTaking ? 0 : WAITING_CHUNKS)
        }
      ),
      // Written behind: the next chunk is migrated while the last one's bytes are written.
      Stream.buffer({ capacity: 2 }),
      Stream.runForEach((chunk) => {
        counter.merge(chunk.tally)
        bytesRead += chunk.inputBytes
        position = chunk.last ?? position
        keepDigest(chunk.digest)
        const written = write(chunk)
        const progress = Effect.suspend(() =>
          options.onProgress!({ report: counter.report(), bytesRead, bytesTotal, position, ...(hashed ? { digests: [...digests.values()] } : {}) })
        )
        return options.onProgress ? Effect.zipRight(written, progress) : written
      })
    )
    // A pool that cannot start fails the run at once, and a run done before the pool has started
    // waits for it: whether a pool works does not depend on the input's size.
    if (framing !== undefined && framing.header !== "" && after === undefined) yield* options.output!(framing.header)
    yield* (pool === undefined ? migrated : Effect.zip(migrated, pool.started, { concurrent: true })).pipe(
      // However the run ends, no chunk waits for a turn any more.
      Effect.ensuring(Effect.sync(() => turns !== undefined && stopTurns(turns)))
    )
    if (framing?.footer !== undefined) yield* options.output!(framing.footer())
    const report = counter.report()
    // Not an error: nothing was lost, and an input may rightly be empty (a day with no scans). But
    // a run that read nothing is most often given the wrong file, and "0 records" alone hides it.
    return report.records > 0 ? report : { ...report, warnings: [`no records read: ${nothingIn(listed)}`] }
  })

/** What held no records, for the warning of a run that read none. */
const nothingIn = (listed: ListedInputs | undefined): string => {
  if (listed === undefined) return "the source gave none (a query that returned no rows?)"
  if (listed.files.length === 0) return "the inputs hold no .ndjson, .jsonl or .json file"
  const names = listed.files.slice(0, 3).map((f) => f.file)
  const more = listed.files.length > names.length ? ` and ${listed.files.length - names.length} more` : ""
  return `${names.join(", ")}${more} ${listed.files.length === 1 ? "is" : "are"} empty or only blank lines (or an empty JSON array)`
}
