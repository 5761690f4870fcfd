/**
 * An NDJSON file read in byte ranges by the threads that migrate them, rather than read and cut
 * into chunks by the calling thread: the calling thread only names each range, so reading, cutting
 * and copying the bytes (a third of what it did, bench/results.md) is shared by the workers. A
 * range holds the lines that begin in it; each is read from its start - 1 (to tell a line that
 * begins at its start from one that began before), and on past its end to its last line's end.
 * Line numbers follow from the lines of the ranges before, which other threads count: the ranges
 * take turns for them (placement.ts).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Option, Stream } from "effect"
import { type InputFile, MigrateInputError } from "../inputs.js"
import { giveBytes, takeBytes } from "./buffers.js"
import { CHUNK_BYTES, CHUNK_LINES, type InputChunk } from "./read.js"
import { type OpenFiles, openOnce } from "./run-files.js"

/** A range of a regular NDJSON file: the lines that begin in [start, end). Plain data, so it crosses threads. */
export interface InputRange {
  readonly _tag: "Range"
  /** The file as listed: what rejects name, and what is opened. */
  readonly file: string
  /** Its size when the run began: a read that finds it otherwise fails the run. */
  readonly size: number
  readonly start: number
  readonly end: number
  /** The file's first range: its lines are numbered from 1 (later ranges' follow the ones before). */
  readonly first: boolean
  readonly inputBytes: number
}

/** A range's lines, read. */
export interface RangeLines {
  /** Whole lines, the last maybe ended by the file's end rather than \n. */
  readonly bytes: Uint8Array
  /** Where `bytes` start in the file. */
  readonly offset: number
  /** The lines in `bytes`, blank ones included. */
  readonly lines: number
  /**
   * Where a line larger than the reader's limit begins, which it did not read: the range goes on
   * from there on another thread (a worker's heap is kept small, as for a chunk that is one large line).
   */
  readonly rest: number | undefined
}

const LF = 10

const changed = (range: InputRange, why: string) =>
  new MigrateInputError({ file: range.file, message: `${range.file}: changed size while it was read: ${range.size} bytes when the migration began, ${why}` })

/** The range's lines as a chunk, numbered from `firstLine`. */
export const linesChunk = (range: InputRange, read: Pick<RangeLines, "bytes" | "offset">, firstLine: number, inputBytes: number): InputChunk => ({
  _tag: "Lines",
  file: range.file,
  firstLine,
  first: read.offset === 0,
  offset: read.offset,
  bytes: read.bytes,
  inputBytes
})

/** A part of a range's lines, and its first line's number counted from the range's first (1). */
export interface RangePiece {
  readonly bytes: Uint8Array
  readonly offset: number
  readonly line: number
}

/**
 * A range's lines in pieces of a chunk's size at most (CHUNK_LINES lines, CHUNK_BYTES bytes), each
 * migrated and written before the next: whatever a range holds, a worker holds one chunk's output
 * at a time. Views of the range's bytes, not copies.
 */
export const piecesOf = (read: RangeLines): ReadonlyArray<RangePiece> => {
  const { bytes } = read
  const search = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const pieces: Array<RangePiece> = []
  let start = 0
  let line = 1
  let lines = 0
  for (let from = 0; from < bytes.length; ) {
    const lf = search.indexOf(LF, from)
    const end = lf < 0 ? bytes.length : lf + 1
    if (lines > 0 && (lines === CHUNK_LINES || end - start > CHUNK_BYTES)) {
      pieces.push({ bytes: bytes.subarray(start, from), offset: read.offset + start, line })
      line += lines
      lines = 0
      start = from
    }
    lines++
    from = end
  }
  if (start < bytes.length || pieces.length === 0) pieces.push({ bytes: bytes.subarray(start), offset: read.offset + start, line })
  return pieces
}

/**
 * Reads the lines that begin in a range, to the end of the last (the file's end, at most). With
 * `limit`, a line longer than that (its \n included) is not read: `rest` says where it begins.
 * Fails if the file is shorter than its size, or (its last range) longer.
 */
export const readRange = (range: InputRange, limit?: number, open: OpenFiles = openOnce): Effect.Effect<RangeLines, MigrateInputError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const unreadable = (e: { readonly message: string }) => new MigrateInputError({ file: range.file, message: `${range.file}: ${e.message}` })
    const file = yield* Effect.mapError(open(range.file, "r"), unreadable)
    // Reads `length` bytes at `at` into `into` from `offset`, or fewer at the file's end.
    const readAt = (into: Uint8Array, offset: number, at: number, length: number) =>
      Effect.mapError(
        file.use((handle) =>
          Effect.gen(function* () {
            let got = 0
            while (got < length) {
              yield* handle.seek(at + got, "start")
              const n = Number(yield* handle.read(into.subarray(offset + got, offset + length)))
              if (n === 0) break
              got += n
            }
            return got
          })
        ),
        unreadable
      )
    const from = Math.max(range.start - 1, 0)
    // Room for the range and a line or so past it, so the common case reads once. Never past
    // the file's size: only the last range looks beyond it.
    let buffer = takeBytes(range.end - from + 4096)
    let length = Math.min(buffer.length, range.size - from)
    const got = yield* readAt(buffer, 0, from, length)
    if (got < length) return yield* changed(range, `${from + got} bytes read`)
    let search = Buffer.from(buffer.buffer, buffer.byteOffset, length)
    // The first line that begins in the range: at its start, or after the first \n from start - 1
    // to end - 2 (a \n at end - 1 begins a line of the next range).
    const lastIn = range.end - 1 - from
    const firstLf = range.start === 0 ? -1 : search.indexOf(LF)
    const begin = range.start === 0 ? 0 : firstLf >= 0 && firstLf < lastIn ? firstLf + 1 : -1
    if (begin < 0) {
      giveBytes(buffer)
      return { bytes: new Uint8Array(0), offset: range.end, lines: 0, rest: undefined }
    }
    // The last line that begins in the range, and the \n that ends it.
    const lastLf = lastIn - 1 >= begin ? search.lastIndexOf(LF, lastIn - 1) : -1
    const lastStart = Math.max(begin, lastLf + 1)
    let stop = search.indexOf(LF, lastIn)
    while (stop < 0 && from + length < range.size && (limit === undefined || length - lastStart <= limit)) {
      // The last line goes on past what was read: read on.
      const more = takeBytes(Math.max(buffer.length * 2, length + 64 * 1024))
      more.set(buffer.subarray(0, length))
      giveBytes(buffer)
      buffer = more
      const want = Math.min(buffer.length - length, range.size - from - length)
      const added = yield* readAt(buffer, length, from + length, want)
      if (added < want) return yield* changed(range, `${from + length + added} bytes read`)
      search = Buffer.from(buffer.buffer, buffer.byteOffset, length + added)
      stop = search.indexOf(LF, length)
      length += added
    }
    const end = stop >= 0 ? stop + 1 : length
    // The file's last range reads one byte past its size: a byte more is a file that grew.
    if (range.end === range.size) {
      const probe = new Uint8Array(1)
      if ((yield* readAt(probe, 0, range.size, 1)) > 0) return yield* changed(range, "more now")
    }
    const large = limit !== undefined && end - lastStart > limit
    const taken = large ? lastStart : end
    const bytes = buffer.subarray(begin, taken)
    let count = 0
    for (let lf = search.indexOf(LF, begin); lf >= 0 && lf < taken; lf = search.indexOf(LF, lf + 1)) count++
    if (bytes.length > 0 && bytes[bytes.length - 1] !== LF) count++
    return { bytes, offset: from + begin, lines: count, rest: large ? from + lastStart : undefined }
  })

/**
 * Bytes of the file each range stands for: about four chunks', migrated in pieces of a chunk
 * (piecesOf), so that what a range costs whatever its size (a message each way, its reads and
 * turns, the calling thread's stream and pool) is paid a quarter as often: at one chunk's size the
 * workers spent a tenth more CPU, and the calling thread's share of 200k platform entries' CPU
 * was 14-15 %, at two 12-14 %, at four 10-11 % (bench/results.md). A range read with a line's
 * worth past it fits a buffer of four units (buffers.ts).
 */
export const RANGE_BYTES = 4 * CHUNK_BYTES - 64 * 1024

/** The ranges of a file of `size` bytes, of `bytes` each (the last maybe fewer). */
export const rangesOf = (file: string, size: number, bytes = RANGE_BYTES): Stream.Stream<InputRange> =>
  Stream.fromIterable(
    (function* () {
      for (let start = 0; start < size; start += bytes) {
        const end = Math.min(start + bytes, size)
        yield { _tag: "Range" as const, file, size, start, end, first: start === 0, inputBytes: end - start }
      }
    })()
  )

const HEAD_BYTES = 64 * 1024

const isAsciiSpace = (b: number) => b === 0x20 || (b >= 0x09 && b <= 0x0d)

/**
 * Whether a file is read as NDJSON lines for sure from its first bytes, as `inputChunks` would
 * read it: its first character past white space (and a byte order mark) is ASCII and does not
 * open an array. Anything else (an array, which may be the whole file; white space beyond ASCII;
 * a file of only white space) is read as before.
 */
export const surelyLines = (input: InputFile): Effect.Effect<boolean, never, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    if (input.kind !== "file" || input.size === null || input.size === 0 || /\.json(?:\.gz)?$|\.gz$/.test(input.file)) return false
    const fs = yield* FileSystem.FileSystem
    const head = yield* Effect.option(Effect.scoped(Effect.flatMap(fs.open(input.file), (handle) => handle.readAlloc(Math.min(HEAD_BYTES, input.size ?? 0)))))
    const bytes = Option.getOrUndefined(Option.flatten(head))
    if (bytes === undefined) return false
    const from = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
    for (let i = from; i < bytes.length; i++) {
      const b = bytes[i]!
      if (isAsciiSpace(b)) continue
      return b < 0x80 && b !== 0x5b
    }
    return false
  })
