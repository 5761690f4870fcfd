/**
 * Reading the inputs `listInputs` (../inputs.ts) found: files, `.gz` files, named pipes and
 * devices, and standard input. Each input is read as the bytes it holds (a record that is not
 * UTF-8 is marked, not silently mended), and a regular file that changes size while it is read
 * fails the run. The reader cuts the input into chunks, the unit a worker thread takes.
 */
import { Buffer } from "node:buffer"
import { createHash } from "node:crypto"
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Encoding, Option, Stream } from "effect"
import { type InputFile, MigrateInputError, STDIN, type StdinBytes, listInputs } from "../inputs.js"
import { giveBytes, takeBytes } from "./buffers.js"
import { type InputDigest, withDigests } from "./digest.js"
import { type ArrayFault, splitArray } from "./json-array.js"

/** One record of the input, with where it came from. */
export interface InputRecord {
  readonly file: string
  /** 1-based: the line of an NDJSON file, the element of a JSON array, 1 for a lone object. */
  readonly line: number
  /** The record's JSON text, exactly as read (a byte that is not UTF-8 as U+FFFD). */
  readonly raw: string
  /** Set when the record could not be read faithfully as text: it is rejected with this reason, not migrated. */
  readonly unreadable?: Unreadable
  /** The record's key in its source (a database row's key column), when it has one. */
  readonly key?: string
}

/** Why a record could not be read as text. */
export interface Unreadable {
  /** `InvalidUtf8`: bytes that are not UTF-8. `TooDeep`: a JSON document's element nested too deeply to be written back as text. */
  readonly tag: "InvalidUtf8" | "TooDeep"
  readonly message: string
  /** InvalidUtf8: the byte offset in the file (the decompressed bytes of a `.gz`) of the first byte that is not UTF-8. */
  readonly offset?: number
  /** InvalidUtf8: the record's exact bytes in base64, since `raw` cannot hold them. */
  readonly rawBase64?: string
}

/**
 * A chunk of the input, as plain data a worker thread can take: up to 1024 lines (fewer within
 * 1 MiB, one line at least) of an NDJSON file as their bytes (so the reading thread neither
 * decodes nor splits them, and a worker gets them without a copy), or up to 1024 records of a
 * JSON document (fewer once their text reaches 1 MiB). `inputBytes` is the share of the input's bytes (compressed, for a `.gz`) the
 * chunk stands for: the chunks of an input add up to its size, for progress.
 */
export type InputChunk =
  | {
      readonly _tag: "Lines"
      readonly file: string
      /** The 1-based line number of the first line. */
      readonly firstLine: number
      /** Whether these are the file's first bytes (where a byte order mark is skipped). */
      readonly first: boolean
      /** Where `bytes` start in the file (in its decompressed bytes for a `.gz`). */
      readonly offset: number
      /** Whole lines, each ended by \n (the file's last one maybe not); UTF-8, or meant to be. */
      readonly bytes: Uint8Array
      readonly inputBytes: number
      /** When the input is hashed: its content up to the end of the chunk's last record. */
      readonly digest?: InputDigest
    }
  | {
      readonly _tag: "Records"
      readonly records: ReadonlyArray<InputRecord>
      readonly inputBytes: number
      /**
       * When the input is hashed: a JSON array's content up to the chunk's last element (all of it,
       * for its last chunk), or a lone JSON value's whole content.
       */
      readonly digest?: InputDigest
    }

// --- Records of bytes ---------------------------------------------------------------------

/** The offset of the first byte in `bytes` that does not begin a well-formed UTF-8 character, or -1. */
export const firstInvalidUtf8 = (bytes: Uint8Array): number => {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!
    if (lead < 0x80) {
      i++
      continue
    }
    const tail = lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0
    if (tail === 0 || i + tail >= bytes.length) return i
    // The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf
    if (bytes[i + 1]! < low || bytes[i + 1]! > high) return i
    for (let k = 2; k <= tail; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i
    i += tail + 1
  }
  return -1
}

/**
 * The same bytes as a Buffer, for its indexOf: memchr, some twenty times faster than
 * Uint8Array's element by element. Finding line ends is most of what the reading thread does
 * (issue 34), so every search for a \n goes through one.
 */
const searchable = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

const lossy = new TextDecoder("utf-8", { ignoreBOM: true })
const hasBom = (bytes: Uint8Array, at = 0) => bytes[at] === 0xef && bytes[at + 1] === 0xbb && bytes[at + 2] === 0xbf

/** A record whose bytes are not UTF-8: its text as U+FFFD-mended, and the exact bytes beside. */
const invalidUtf8 = (file: string, line: number, bytes: Uint8Array, offset: number, bad: number): InputRecord => ({
  file,
  line,
  raw: lossy.decode(bytes),
  unreadable: {
    tag: "InvalidUtf8",
    message: `not UTF-8: byte ${offset + bad} of the file (byte ${bad} of the record) begins no valid character`,
    offset: offset + bad,
    rawBase64: Encoding.encodeBase64(bytes)
  }
})

// Strict, so a byte that is not UTF-8 is found rather than mended. Line by line, which costs
// less than decoding a whole chunk at once: V8 makes a line's string directly, where a chunk's
// string is sliced per line.
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * The records of a chunk of NDJSON lines, numbered from its `firstLine`. A line ends at \n or
 * \r\n (a lone \r is part of the line); a blank line is counted, not kept. A line that is not
 * UTF-8 is marked (its bytes kept), the others are read as text. A byte order mark is skipped at
 * the file's start only.
 */
const eachRecordOfLines = (chunk: Extract<InputChunk, { _tag: "Lines" }>, f: (record: InputRecord) => void): void => {
  const { file, bytes, offset } = chunk
  const lines = searchable(bytes)
  let line = chunk.firstLine
  for (let from = chunk.first && hasBom(bytes) ? 3 : 0; from < bytes.length; line++) {
    const lf = lines.indexOf(10, from)
    const end = lf < 0 ? bytes.length : lf
    const own = bytes.subarray(from, bytes[end - 1] === 13 && end > from ? end - 1 : end)
    let raw: string | undefined
    try {
      raw = strict.decode(own)
    } catch {
      const bad = firstInvalidUtf8(own)
      if (bad >= 0) f(invalidUtf8(file, line, own, offset + from, bad))
      else raw = lossy.decode(own)
    }
    if (raw !== undefined && raw.trim() !== "") f({ file, line, raw })
    from = end + 1
  }
}

/**
 * Calls `f` with each record of a chunk, in order, each read as it is reached: a record's text
 * is garbage as soon as `f` is done with it, rather than live (and promoted to the old
 * generation) until the chunk's last record is migrated.
 */
export const forEachRecord = (chunk: InputChunk, f: (record: InputRecord) => void): void =>
  chunk._tag === "Records" ? chunk.records.forEach((record) => f(record)) : eachRecordOfLines(chunk, f)

/** The records of a chunk, in order. */
export const recordsOf = (chunk: InputChunk): ReadonlyArray<InputRecord> => {
  if (chunk._tag === "Records") return chunk.records
  const records: Array<InputRecord> = []
  eachRecordOfLines(chunk, (record) => records.push(record))
  return records
}

// Every character String.prototype.trim removes that is ASCII.
const isAsciiSpace = (b: number) => b === 0x20 || (b >= 0x09 && b <= 0x0d)

/** Whether a line's bytes (without its line ending) are a record as eachRecordOfLines reads them: not blank, or not UTF-8. */
const holdsRecord = (own: Uint8Array): boolean => {
  let ascii = true
  for (const b of own) {
    if (b >= 0x80) ascii = false
    else if (!isAsciiSpace(b)) return true
  }
  if (ascii) return false
  // Rare: white space beyond ASCII (a no-break space, U+FEFF) or bytes that are not UTF-8.
  try {
    return strict.decode(own).trim() !== ""
  } catch {
    return firstInvalidUtf8(own) >= 0 || lossy.decode(own).trim() !== ""
  }
}

/**
 * Where a chunk of lines' last record ends (after its \n, if it has one), or -1 when it holds
 * only blank lines: the bytes of the chunk a run that stops after it has read. Found from the end,
 * so a chunk that ends with a record costs one line's scan, not a decoding of the chunk.
 */
export const lastRecordEnd = (chunk: Extract<InputChunk, { _tag: "Lines" }>): number => {
  const { bytes } = chunk
  const lines = searchable(bytes)
  const start = chunk.first && hasBom(bytes) ? 3 : 0
  for (let end = bytes.length; end > start; ) {
    const stop = bytes[end - 1] === 10 ? end - 1 : end
    // lastIndexOf counts a negative index from the end: no search before the first byte.
    const lf = stop > 0 ? lines.lastIndexOf(10, stop - 1) : -1
    const from = Math.max(lf + 1, start)
    if (holdsRecord(bytes.subarray(from, bytes[stop - 1] === 13 && stop > from ? stop - 1 : stop))) return end
    end = lf + 1
  }
  return -1
}

// --- Chunks -------------------------------------------------------------------------------

/**
 * Lines or records per chunk: large enough to amortise what a chunk costs whatever its size (the
 * stream's fibers, a worker's message, which weighed on the main thread at 256 lines), small
 * enough to share the work out finely. A chunk's
 * records are read one at a time and its outputs are bytes, so its size holds nothing live on
 * the heap.
 */
export const CHUNK_LINES = 1024
/**
 * A chunk holds at most this many bytes, unless it is one line larger than that, which `migrate`
 * keeps off the workers. One unit of the recycled buffers (buffers.ts), so that every chunk's
 * buffer fits every free one: at 2 MiB, chunks of 2 to 3 MiB and outputs of every size recycled
 * poorly, and a run's peak RSS grew by half.
 */
export const CHUNK_BYTES = 1024 * 1024

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => concatInto(new Uint8Array(lengthOf(parts)), parts)

const lengthOf = (parts: ReadonlyArray<Uint8Array>) => parts.reduce((n, p) => n + p.length, 0)

const concatInto = (bytes: Uint8Array, parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  let at = 0
  for (const part of parts) {
    bytes.set(part, at)
    at += part.length
  }
  return bytes
}

/** A chunk of no records that stands for input bytes read (an empty file's, a `.gz` trailer's). */
const bytesOnly = (inputBytes: number): Stream.Stream<InputChunk> =>
  inputBytes > 0 ? Stream.make({ _tag: "Records" as const, records: [], inputBytes }) : Stream.empty

/**
 * An NDJSON file's bytes cut into chunks of CHUNK_LINES lines (fewer within CHUNK_BYTES), at \n
 * bytes (never inside a UTF-8 character). Each chunk's bytes are a buffer of their own from
 * `takeBytes`, so it can be transferred to a worker, and whoever migrates it gives it back.
 * `consumed(end)` says how many input bytes have been read once the content up to `end` has (the
 * content is the input unless it is decompressed). With `recycle`, each of `bytes` is a buffer
 * from `takeBytes`, given back once cut (nothing of it is kept but copies).
 */
const linesOf = <E, R>(
  file: string,
  bytes: Stream.Stream<Uint8Array, E, R>,
  consumed: (end: number) => number = (end) => end,
  recycle = false
): Stream.Stream<InputChunk, E, R> =>
  Stream.suspend(() => {
    // The chunk being gathered: whole lines (`held`, copies of earlier reads' bytes) and the
    // line begun in an earlier read and not yet ended (`partial`).
    let held: Array<Uint8Array> = []
    let heldLines = 0
    let heldBytes = 0
    let partial: Array<Uint8Array> = []
    let partialBytes = 0
    // The line begun in earlier reads, ended now: it joins the chunk's lines.
    const holdPartial = () => {
      held.push(...partial)
      heldBytes += partialBytes
      partial = []
      partialBytes = 0
    }
    let firstLine = 1
    let first = true
    let offset = 0
    let counted = 0
    const inputBytesTo = (end: number) => {
      const n = consumed(end) - counted
      counted += n
      return n
    }
    const chunk = (): InputChunk => {
      const bytes = concatInto(takeBytes(lengthOf(held)), held)
      const c: InputChunk = { _tag: "Lines", file, firstLine, first, offset, bytes, inputBytes: inputBytesTo(offset + bytes.length) }
      first = false
      firstLine += heldLines
      offset += bytes.length
      held = []
      heldLines = 0
      heldBytes = 0
      return c
    }
    const take = (buffer: Uint8Array): Array<InputChunk> => {
      const chunks: Array<InputChunk> = []
      // This read's bytes from `start` to `lineStart` are whole lines of the chunk being gathered.
      let start = 0
      let lineStart = 0
      const cut = (end: number) => {
        if (end > start) held.push(buffer.subarray(start, end))
        chunks.push(chunk())
        start = end
      }
      const lines = searchable(buffer)
      for (let lf = lines.indexOf(10); lf >= 0; lf = lines.indexOf(10, lf + 1)) {
        // At most CHUNK_LINES lines and CHUNK_BYTES bytes, unless one line is larger: it is then
        // a chunk of its own, which `migrate` keeps off the workers, so a worker's heap stays small.
        const lineBytes = partialBytes + lf + 1 - lineStart
        if (heldLines > 0 && heldBytes + (lineStart - start) + lineBytes > CHUNK_BYTES) cut(lineStart)
        if (partialBytes > 0) holdPartial()
        lineStart = lf + 1
        if (++heldLines === CHUNK_LINES || heldBytes + (lineStart - start) >= CHUNK_BYTES) cut(lineStart)
      }
      // Copies: the stream may fill its buffer again.
      if (lineStart > start) {
        held.push(buffer.slice(start, lineStart))
        heldBytes += lineStart - start
      }
      if (lineStart < buffer.length) {
        partial.push(buffer.slice(lineStart))
        partialBytes += buffer.length - lineStart
      }
      if (recycle) giveBytes(buffer)
      return chunks
    }
    const last = (): Stream.Stream<InputChunk> => {
      // A last line without a \n.
      holdPartial()
      return held.length === 0 ? bytesOnly(inputBytesTo(offset)) : Stream.make(chunk())
    }
    return bytes.pipe(Stream.mapConcat(take), Stream.concat(Stream.suspend(last)))
  })

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d

/**
 * A JSON document that does not open an array, read whole: a lone value is one record, as
 * JSON.stringify writes it. One that does not parse is read line by line, as NDJSON (a `.json`
 * file that holds NDJSON, or standard input that began with a line that was not JSON).
 */
const loneDocument = (file: string, bytes: Uint8Array, inputBytes: number): Stream.Stream<InputChunk> => {
  let text: string
  let utf8 = true
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    utf8 = false
    text = new TextDecoder().decode(bytes)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return linesOf(file, Stream.make(bytes), (end) => Math.round((inputBytes * end) / Math.max(bytes.length, 1)))
  }
  // The value's bytes, without the byte order mark and white space around it.
  let start = hasBom(bytes) ? 3 : 0
  let end = bytes.length
  while (isSpace(bytes[start])) start++
  while (end > start && isSpace(bytes[end - 1])) end--
  const own = bytes.subarray(start, end)
  const bad = utf8 ? -1 : firstInvalidUtf8(own)
  return Stream.make<[InputChunk]>({
    _tag: "Records",
    records: [bad >= 0 ? invalidUtf8(file, 1, own, start, bad) : valueRecord(file, 1, json, own)],
    inputBytes
  })
}

/**
 * A parsed value's record, as JSON.stringify writes it. JSON.stringify recurses, JSON.parse does
 * not: a deep enough value parses but cannot be written back. Its text is then taken from its bytes.
 */
const valueRecord = (file: string, line: number, value: unknown, own: Uint8Array): InputRecord => {
  try {
    return { file, line, raw: JSON.stringify(value) }
  } catch (e) {
    const message = `nested too deeply to be read (${describe(e)})`
    return { file, line, raw: lossy.decode(own), unreadable: { tag: "TooDeep", message } }
  }
}

/**
 * An array element's record: parsed from its bytes and written back by JSON.stringify, as a whole
 * document's elements were when it was read whole; marked when its bytes are not UTF-8. A string
 * says why it is not JSON at all (the array is broken, not this record).
 */
const elementRecord = (file: string, line: number, own: Uint8Array, start: number): InputRecord | string => {
  let text: string
  let utf8 = true
  try {
    text = strict.decode(own)
  } catch {
    utf8 = false
    text = lossy.decode(own)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return describe(e)
  }
  const bad = utf8 ? -1 : firstInvalidUtf8(own)
  return bad >= 0 ? invalidUtf8(file, line, own, start, bad) : valueRecord(file, line, value, own)
}

/** An input's content, as read so far, and how. */
interface DocumentReading {
  readonly file: string
  /** The input's bytes read so far (compressed, for a `.gz`), for the chunks' share of them. */
  readonly consumed: () => number
  /** Whether the chunks carry digests of the content (a file's, when a run keeps a checkpoint). */
  readonly hashed: boolean
  /** Whether the content's buffers are from `takeBytes`, to be given back once read. */
  readonly recycle: boolean
}

/**
 * A JSON document's chunks. An array (its first character `[`) is streamed: its elements are
 * found as its bytes arrive (json-array.ts) and each is a record, numbered from 1, in chunks of
 * CHUNK_LINES (fewer once their bytes reach CHUNK_BYTES), so memory stays flat whatever its size. A
 * chunk is let go once the next element has been read, and the last one once the array has closed
 * and nothing but white space follows: a small broken array is refused before any record of it is
 * migrated, and the last chunk's digest is the whole content's. Another chunk's digest covers the
 * content up to its last element's last byte, where a resumed run goes on. An array that breaks is
 * refused once, saying where (its lines are pieces of one value: as records each would be a reject
 * of its own, some 1,700 for a pretty-printed array of 300 scans, that say nothing of the file).
 * Any other document is read whole (loneDocument).
 */
const documentChunks = <R>(
  reading: DocumentReading,
  content: Stream.Stream<Uint8Array, MigrateInputError, R>
): Stream.Stream<InputChunk, MigrateInputError, R> =>
  Stream.suspend(() => {
    const { file, consumed, recycle } = reading
    // The reads before the array's [ (white space), and all of a document that is not an array.
    let kept: Array<Uint8Array> = []
    let whole = false
    let records: Array<InputRecord> = []
    let heldBytes = 0
    // A chunk that is full, let go once the next element is read (or the array closes), with its digest.
    let full: { readonly digest: InputDigest | undefined } | undefined
    let counted = 0
    let emitted: Array<InputChunk> = []
    // The content hashed so far, up to `hashedTo`; `current` the read being split, which begins at `base`.
    const hash = reading.hashed ? createHash("sha256") : undefined
    let hashedTo = 0
    let base = 0
    let current: Uint8Array = NO_BYTES
    const digestTo = (end: number): InputDigest | undefined => {
      if (hash === undefined) return undefined
      hash.update(current.subarray(hashedTo - base, end - base))
      hashedTo = end
      return { file, bytes: end, sha256: hash.copy().digest("hex") }
    }
    const cut = (digest: InputDigest | undefined): Extract<InputChunk, { _tag: "Records" }> => {
      const inputBytes = consumed() - counted
      counted += inputBytes
      const chunk: Extract<InputChunk, { _tag: "Records" }> = { _tag: "Records", records, inputBytes, ...(digest === undefined ? {} : { digest }) }
      records = []
      heldBytes = 0
      full = undefined
      return chunk
    }
    const splitter = splitArray((own, start, n) => {
      if (full !== undefined) emitted.push(cut(full.digest))
      const record = elementRecord(file, n, own, start)
      if (typeof record === "string") return record
      records.push(record)
      heldBytes += own.length
      if (records.length === CHUNK_LINES || heldBytes >= CHUNK_BYTES) full = { digest: digestTo(start + own.length) }
      return undefined
    })
    const broken = (fault: ArrayFault) =>
      new MigrateInputError({
        file,
        message: `${file}: this file is a JSON array, and it does not parse as one (${fault.message}); fix it, or write one record per line (NDJSON)`
      })
    const take = (bytes: Uint8Array): Effect.Effect<Array<InputChunk>, MigrateInputError> => {
      if (whole) {
        kept.push(bytes)
        return Effect.succeed([])
      }
      current = bytes
      const fault = splitter.push(bytes)
      if (fault === "notArray") {
        whole = true
        kept.push(bytes)
        return Effect.succeed([])
      }
      if (fault !== undefined) return Effect.fail(broken(fault))
      if (hash !== undefined) hash.update(bytes.subarray(hashedTo - base))
      base += bytes.length
      hashedTo = base
      current = NO_BYTES
      if (!splitter.opened()) kept.push(bytes)
      else if (recycle) {
        for (const read of kept) giveBytes(read)
        giveBytes(bytes)
        kept = []
      } else kept = []
      const chunks = emitted
      emitted = []
      return Effect.succeed(chunks)
    }
    const last = (): Stream.Stream<InputChunk, MigrateInputError> => {
      const end = whole ? "empty" : splitter.end()
      if (end === "empty") return wholeDocument(reading, concat(kept))
      if (end !== undefined) return Stream.fail(broken(end))
      const digest = hash === undefined ? undefined : { file, bytes: base, sha256: hash.digest("hex") }
      const chunk = cut(digest)
      return chunk.records.length === 0 && chunk.inputBytes === 0 && digest === undefined ? Stream.empty : Stream.make(chunk)
    }
    return content.pipe(Stream.mapConcatEffect(take), Stream.concat(Stream.suspend(last)))
  })

/** A document read whole (loneDocument); with `hashed`, each of its chunks carries the digest of all of it. */
const wholeDocument = (reading: DocumentReading, bytes: Uint8Array): Stream.Stream<InputChunk> => {
  const chunks = loneDocument(reading.file, bytes, reading.consumed())
  if (!reading.hashed) return chunks
  // All of it is hashed with the first chunk; each chunk carries the same digest.
  let rest = bytes
  const all = () => {
    const span = { bytes: rest, upTo: rest.length }
    rest = NO_BYTES
    return span
  }
  return withDigests(reading.file, chunks, all, digestOnly)
}

// --- Reading one input --------------------------------------------------------------------

const describe = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** A regular file is read this many bytes at a time (`migrate` reads ahead of the migration). */
const READ_BYTES = 1024 * 1024

/**
 * A regular file's bytes, failing if it changes size while it is read: a truncated or growing
 * file would otherwise give a partial or torn migration with nothing said. Each read fills a
 * buffer from `takeBytes`, for the reader of the stream to give back.
 */
const fileBytes = (fs: FileSystem.FileSystem, file: string, size: number, unreadable: (e: PlatformError) => MigrateInputError) =>
  Stream.unwrapScoped(
    Effect.map(Effect.mapError(fs.open(file), unreadable), (handle) => {
      let read = 0
      const changed = Effect.flatMap(Effect.option(fs.stat(file)), (now) =>
        Effect.fail(
          Option.some(
            new MigrateInputError({
              file,
              message: `${file}: changed size while it was read: ${size} bytes when the migration began, ${Option.isSome(now) ? `${now.value.size} bytes now` : `${read} bytes read`}`
            })
          )
        )
      )
      // Reads of READ_BYTES (rather than the platform's 64 KiB) are some 16 times fewer calls and
      // stream elements. The file is read to its end, one read past its size: a byte more is a
      // file that grew.
      const next = Effect.suspend(() => {
        const bytes = takeBytes(READ_BYTES)
        return Effect.flatMap(
          Effect.mapError(handle.read(bytes), (e) => Option.some(unreadable(e))),
          (n): Effect.Effect<Uint8Array, Option.Option<MigrateInputError>> => {
            const got = Number(n)
            read += got
            if (got > 0 && read <= size) return Effect.succeed(bytes.subarray(0, got))
            giveBytes(bytes)
            return read === size ? Effect.fail(Option.none()) : changed
          }
        )
      })
      return Stream.repeatEffectOption(next)
    })
  )

/**
 * A pipe's or a device's bytes, in order. The platform's file reads are positional (pread), which
 * a pipe refuses (ESPIPE); position -1 asks for a plain read from where the last one ended.
 */
const streamBytes = (fs: FileSystem.FileSystem, file: string, unreadable: (e: PlatformError) => MigrateInputError) =>
  Stream.unwrapScoped(
    Effect.map(Effect.mapError(fs.open(file), unreadable), (handle) =>
      Stream.repeatEffectOption(
        handle.seek(-1, "start").pipe(
          Effect.zipRight(handle.readAlloc(64 * 1024)),
          Effect.mapError((e) => Option.some(unreadable(e))),
          Effect.flatMap(Option.match({ onNone: () => Effect.fail(Option.none()), onSome: Effect.succeed }))
        )
      )
    )
  )

/** Decompressed gzip; a corrupt or truncated one is a MigrateInputError. */
const gunzip = <R>(file: string, bytes: Stream.Stream<Uint8Array, MigrateInputError, R>): Stream.Stream<Uint8Array, MigrateInputError, R> =>
  Stream.unwrap(
    // The web stream types take views of ArrayBuffers only; bytes read are (never shared memory).
    Effect.map(Stream.toReadableStreamEffect(Stream.map(bytes, (b): BufferSource => b as Uint8Array<ArrayBuffer>)), (compressed) =>
      Stream.fromReadableStream({
        evaluate: () => compressed.pipeThrough(new DecompressionStream("gzip")),
        onError: (e) => (e instanceof MigrateInputError ? e : new MigrateInputError({ file, message: `${file}: not readable as gzip: ${describe(e)}` }))
      })
    )
  )

/** How an input is read: as NDJSON lines, or as one JSON document. */
type Reading = "lines" | "document"

/**
 * Chooses how to read an input from its first lines: called with each line (without its \n, a
 * byte order mark maybe first) until it answers, then, if it has not, with null at the input's end.
 * A line that runs on past PEEK_BYTES is also shown by its start (`whole` false), once, so that a
 * choice its start makes need not wait for (and hold) all of an array on one line.
 */
type Chooser = (line: Uint8Array | null, whole: boolean) => Reading | undefined

/** How much of a line that has not ended yet a Chooser is shown. */
const PEEK_BYTES = 64 * 1024

/** A line's text, trimmed, without a byte order mark. */
const lineText = (bytes: Uint8Array) => lossy.decode(hasBom(bytes) ? bytes.subarray(3) : bytes).trim()

const parses = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return undefined
  }
}

/**
 * Standard input: when its first non-blank line is a JSON value other than an array, it is NDJSON,
 * streamed as it comes. Otherwise (a pretty-printed document, or an array on one line) it is one
 * JSON document, like a `.json` file: an array streamed, anything else read whole (line by line if
 * it does not parse). A line that opens an array is never that JSON value other than an array, so
 * its first character decides, without waiting for the line's end.
 */
const stdinChooser = (): Chooser => (line, whole) => {
  if (line === null) return "lines"
  const text = lineText(line)
  if (text.startsWith("[")) return "document"
  if (text === "" || !whole) return undefined
  const parsed = parses(text)
  return parsed !== undefined && !Array.isArray(parsed.value) ? "lines" : "document"
}

/**
 * A file named as NDJSON (or anything but `.json`) that holds a JSON array is read as a `.json`
 * file is, whatever its name: its elements are the records. It is a JSON array when its first
 * non-blank line opens one and either does not parse alone (the array goes on over the next lines:
 * pretty-printed) or is the file's only line (an array on one line). A first line that is a whole
 * array followed by other records is NDJSON whose first record is an array: read line by line, that
 * record is rejected as what it is, and the others migrate. Only the first line that opens an array
 * costs a parse; any other file is streamed as before. So an array on one line under such a name is
 * held until that line ends, whatever its size; a pretty-printed one, or one in a `.json` file, is
 * streamed.
 */
const fileChooser = (): Chooser => {
  let wholeArray = false
  return (line, whole) => {
    if (line === null) return wholeArray ? "document" : "lines"
    // Whether an array on one line is followed by other records is known only at its end.
    if (!whole) return undefined
    const text = lineText(line)
    if (text === "") return undefined
    if (wholeArray || !text.startsWith("[")) return "lines"
    if (parses(text) === undefined) return "document"
    wholeArray = true
    return undefined
  }
}

/**
 * An input's chunks, read as `choose` decides from its first lines: as lines or as one document
 * (documentChunks). Only the lines before the choice are held.
 */
const chosenChunks = <R>(
  bytes: Stream.Stream<Uint8Array, MigrateInputError, R>,
  choose: Chooser,
  asLines: (all: Stream.Stream<Uint8Array, MigrateInputError, R>) => Stream.Stream<InputChunk, MigrateInputError, R>,
  asDocument: (all: Stream.Stream<Uint8Array, MigrateInputError, R>) => Stream.Stream<InputChunk, MigrateInputError, R>
): Stream.Stream<InputChunk, MigrateInputError, R> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const pull = yield* Stream.toPull(bytes)
      const head: Array<Uint8Array> = []
      let line: Array<Uint8Array> = []
      let lineBytes = 0
      let peeked = false
      let reading: Reading | undefined
      let ended = false
      while (reading === undefined && !ended) {
        const parts = yield* Effect.catchAll(pull, Option.match({ onNone: () => Effect.succeed(null), onSome: Effect.fail }))
        if (parts === null) {
          ended = true
          const last = concat(line)
          reading = (last.length > 0 ? choose(last, true) : undefined) ?? choose(null, true) ?? "lines"
          break
        }
        for (const part of parts) {
          head.push(part)
          let from = 0
          for (let lf = part.indexOf(10); reading === undefined && lf >= 0; lf = part.indexOf(10, from)) {
            reading = choose(concat([...line, part.subarray(from, lf)]), true)
            line = []
            lineBytes = 0
            peeked = false
            from = lf + 1
          }
          if (reading !== undefined) continue
          line.push(part.subarray(from))
          lineBytes += part.length - from
          if (!peeked && lineBytes >= PEEK_BYTES) {
            peeked = true
            reading = choose(concat(line), false)
          }
        }
      }
      const all = Stream.concat(Stream.fromIterable(head), ended ? Stream.empty : Stream.repeatEffectChunkOption(pull))
      return reading === "document" ? asDocument(all) : asLines(all)
    })
  )

const unreadableOf = (file: string) => (e: PlatformError) => new MigrateInputError({ file, message: `${file}: ${e.message}` })

/** A file's or a pipe's bytes as they are read, not decompressed. */
const bytesOf = (fs: FileSystem.FileSystem, input: InputFile) =>
  input.kind === "stream" || input.size === null
    ? streamBytes(fs, input.file, unreadableOf(input.file))
    : fileBytes(fs, input.file, input.size, unreadableOf(input.file))

const isGzip = (file: string) => file.endsWith(".gz")

/** A chunk of no records that carries an input's digest. */
const digestOnly = (digest: InputDigest): InputChunk => ({ _tag: "Records", records: [], inputBytes: 0, digest })

const NO_BYTES = new Uint8Array(0)

/**
 * One input's chunks: NDJSON lines as bytes, or the elements of a JSON document (a `.json` file,
 * or standard input holding one) as records. A `.gz` is decompressed as it is read. With `hashed`,
 * a file's chunks carry its digest (digest.ts): of its content up to each chunk's last record (a
 * JSON array's last element), all of it with the last chunk, or of a lone JSON value's whole content.
 */
export const inputChunks = (input: InputFile, stdin?: StdinBytes, hashed = false): Stream.Stream<InputChunk, MigrateInputError, FileSystem.FileSystem> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const file = input.file
      const source =
        input.kind === "stdin"
          ? stdin === undefined
            ? Stream.fail(MigrateInputError.noStdin())
            : Stream.mapError(stdin, (e) => new MigrateInputError({ file, message: `${file}: ${describe(e)}` }))
          : bytesOf(fs, input)
      let read = 0
      const counted = Stream.map(source, (bytes) => ((read += bytes.length), bytes))
      const gz = isGzip(file)
      // A regular file's reads are buffers of `takeBytes`, given back as they are cut into chunks.
      const recycle = !gz && input.kind === "file" && input.size !== null
      const asDocument = (content: Stream.Stream<Uint8Array, MigrateInputError>) =>
        documentChunks({ file, consumed: () => read, hashed: hashed && input.kind !== "stdin", recycle }, content)
      if (input.kind === "stdin") return chosenChunks(counted, stdinChooser(), (all) => linesOf(STDIN, all), asDocument)
      const content = gz ? gunzip(file, counted) : counted
      if (/\.json(?:\.gz)?$/.test(file)) return asDocument(content)
      const asLines = (all: Stream.Stream<Uint8Array, MigrateInputError>) => {
        const lines = gz ? linesOf(file, all, () => read) : linesOf(file, all, undefined, recycle)
        return hashed
          ? withDigests(file, lines, (chunk) => (chunk._tag === "Lines" ? { bytes: chunk.bytes, upTo: lastRecordEnd(chunk) } : undefined), digestOnly)
          : lines
      }
      // Any other name may still hold a JSON array (fileChooser): a resumed run chooses as the first did, from the same bytes.
      return chosenChunks(content, fileChooser(), asLines, asDocument)
    })
  )

/**
 * A file input's content, as its records are read from it (decompressed, for a `.gz`): what its
 * digest hashes. A regular file's reads are buffers of `takeBytes`, the reader's to give back.
 */
export const inputContent = (input: InputFile): Stream.Stream<Uint8Array, MigrateInputError, FileSystem.FileSystem> =>
  Stream.unwrap(
    Effect.map(FileSystem.FileSystem, (fs) => {
      const bytes = bytesOf(fs, input)
      return isGzip(input.file) ? gunzip(input.file, bytes) : bytes
    })
  )

/** The chunks of some inputs (files, folders), each file read once. */
export const readChunks = (...inputs: ReadonlyArray<string>): Stream.Stream<InputChunk, MigrateInputError, FileSystem.FileSystem | Path.Path> =>
  Stream.unwrap(Effect.map(listInputs(inputs), (listed) => Stream.flatMap(Stream.fromIterable(listed.files), (input) => inputChunks(input))))

/** The records of some inputs: every non-empty line of NDJSON, or the elements of a JSON array. */
export const readRecords = (...inputs: ReadonlyArray<string>): Stream.Stream<InputRecord, MigrateInputError, FileSystem.FileSystem | Path.Path> =>
  Stream.mapConcat(readChunks(...inputs), recordsOf)

// --- Where a run stands, for resuming it -------------------------------------------------

/** A record's place: its input and its 1-based line (a JSON array's element, a database row's place). */
export interface RecordPosition {
  readonly file: string
  readonly line: number
  /** The record's key in its source (a database row's key column), when it has one. */
  readonly key?: string
}

/**
 * `chunk` without its records at or before `line` (of its file, which an earlier run migrated), or
 * undefined when none is left. Lines are cut at a \n, without reading them; the rest is copied into
 * a buffer of its own and the chunk's given back.
 */
export const afterLine = (chunk: InputChunk, line: number): InputChunk | undefined => {
  if (chunk._tag === "Records") {
    const records = chunk.records.filter((r) => r.line > line)
    return records.length === 0 ? undefined : { ...chunk, records }
  }
  if (chunk.firstLine > line) return chunk
  let cut = 0
  const lines = searchable(chunk.bytes)
  for (let n = chunk.firstLine; n <= line && cut < chunk.bytes.length; n++) {
    const lf = lines.indexOf(10, cut)
    cut = lf < 0 ? chunk.bytes.length : lf + 1
  }
  if (cut >= chunk.bytes.length) {
    giveBytes(chunk.bytes)
    return undefined
  }
  const bytes = takeBytes(chunk.bytes.length - cut)
  bytes.set(chunk.bytes.subarray(cut))
  giveBytes(chunk.bytes)
  return { ...chunk, bytes, firstLine: line + 1, first: false, offset: chunk.offset + cut }
}
