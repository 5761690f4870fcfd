/**
 * What the migration does to records and chunks of them, wherever it runs: a record migrated or
 * rejected with its reason, a chunk's output text and counts, and the counts' sum. The calling
 * thread (migrate.ts) and the worker threads (workers.ts) both run `migrateChunk`, so both write
 * the same bytes.
 */
import { Either } from "effect"
import { EncodeError, type Scan } from "@scanbridge/model"
import { unreadableReason } from "@scanbridge/model/internal"
import { type NormalizerService, decodeDetected } from "../normalizer.js"
import type { Reject, Report } from "../report.js"
import { type InputChunk, type InputRecord, type RecordPosition, type Unreadable, forEachRecord } from "./read.js"
import { giveBytes, takeBytes } from "./buffers.js"
import type { OutputTarget } from "../target.js"
import { scanLine } from "./targets.js"
import { utf8Lines } from "./utf8-lines.js"

export type Outcome =
  | { readonly _tag: "Migrated"; readonly format: string; readonly scans: ReadonlyArray<Scan>; readonly lines: ReadonlyArray<string> }
  | { readonly _tag: "Rejected"; readonly reject: Reject }

// --- One record ---------------------------------------------------------------------------

const reject = (record: InputRecord, tag: string, message: string, path: ReadonlyArray<string | number> | null): Outcome => ({
  _tag: "Rejected",
  reject: { file: record.file, line: record.line, ...(record.key === undefined ? {} : { key: record.key }), error: { tag, message, path }, raw: record.raw }
})

/** Migrates one record: parse, detect, decode, encode every scan it holds. Never throws. */
export const migrateRecord = (normalizer: NormalizerService, target: OutputTarget) => {
  const line = scanLine(normalizer, target)
  if (line === undefined) throw new Error(`unknown target ${target.to}`)
  return (record: InputRecord): Outcome => {
    let json: unknown
    try {
      json = JSON.parse(record.raw)
    } catch (e) {
      return reject(record, "InvalidJson", `not JSON: ${(e as Error).message}`, null)
    }
    const detected = normalizer.detect(json)
    if (Either.isLeft(detected)) return reject(record, detected.left._tag, detected.left.message, null)
    const format = detected.right.format
    const scans = decodeDetected(detected.right, normalizer.options)
    if (Either.isLeft(scans)) return reject(record, scans.left._tag, scans.left.message, scans.left.path)
    // An encoder that throws instead of answering (an integrator's adapter's bug) rejects this
    // record alone, and the run goes on.
    try {
      const lines: Array<string> = []
      for (const scan of scans.right) {
        const encoded = line(scan, format.name)
        if (Either.isLeft(encoded)) return reject(record, encoded.left._tag, encoded.left.message, encoded.left.path)
        lines.push(encoded.right)
      }
      return { _tag: "Migrated", format: format.name, scans: scans.right, lines }
    } catch (e) {
      const error = EncodeError.at(target.to, [], undefined, unreadableReason(e))
      return reject(record, error._tag, error.message, error.path)
    }
  }
}

// --- Counting -----------------------------------------------------------------------------

/**
 * The counts of some records, as plain data: a worker thread sends one back with each chunk it
 * migrates, and the report is their sum.
 */
export type Tally = Omit<Report, "rejected" | "target">

interface MutableTally {
  records: number
  migrated: number
  scans: number
  readonly byFormat: Record<string, number>
  readonly byStatus: Record<string, number>
  readonly byNoteKind: Record<string, number>
  readonly byRejectReason: Record<string, number>
}

export const emptyTally = (): MutableTally => ({ records: 0, migrated: 0, scans: 0, byFormat: {}, byStatus: {}, byNoteKind: {}, byRejectReason: {} })

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

/** Adds a tally's counts to `into`'s, its keys after those `into` has. */
const addTally = (into: MutableTally, tally: Tally): void => {
  into.records += tally.records
  into.migrated += tally.migrated
  into.scans += tally.scans
  addAll(into.byFormat, tally.byFormat)
  addAll(into.byStatus, tally.byStatus)
  addAll(into.byNoteKind, tally.byNoteKind)
  addAll(into.byRejectReason, tally.byRejectReason)
}

/**
 * Counts outcomes, or whole chunks' tallies, as they pass; `report()` reads the totals. Tallies
 * merged in input order give the report's keys in the same order as counting each record.
 */
export const makeCounter = (target: string) => {
  const total = emptyTally()
  let repeatedScans = 0
  return {
    /** Counts scans a sink wrote over a row of the same scan it had written in this run. */
    repeated(n: number): void {
      repeatedScans += n
    },
    merge(tally: Tally): void {
      addTally(total, tally)
    },
    report(): Report {
      const { records, migrated, scans, byFormat, byStatus, byNoteKind, byRejectReason } = total
      // Copies: a report taken during the run (a progress, a checkpoint's) keeps the counts it had.
      return {
        records,
        migrated,
        rejected: records - migrated,
        scans,
        target,
        byFormat: { ...byFormat },
        byStatus: { ...byStatus },
        byNoteKind: { ...byNoteKind },
        byRejectReason: { ...byRejectReason },
        ...(repeatedScans === 0 ? {} : { repeatedScans })
      }
    }
  }
}

// --- One chunk ----------------------------------------------------------------------------

/** A chunk of records migrated: the UTF-8 bytes for each output, and its counts. Plain data, so it can cross threads. */
export interface MigratedChunk {
  /** One JSON per line, for the output. */
  readonly out: Uint8Array
  /** One reject per line, for the rejects output. */
  readonly rejected: Uint8Array
  readonly tally: Tally
  /** The chunk's last record, if it holds any: where a run that stops after this chunk resumes. */
  readonly last?: RecordPosition
  /** The bytes of each output its thread wrote itself, in their place (placement.ts): those outputs' bytes here are empty. */
  readonly placed?: { readonly out: number; readonly rejected: number }
  /**
   * A range's chunk (ranges.ts) that stopped before a line too large for a worker: where the
   * range goes on, on the calling thread, which holds the chunk's turns until then.
   */
  readonly rest?: number
}

/**
 * Bytes one after another, copied once (not at all when only one holds any), into a buffer from
 * this thread's free list; the parts copied are pushed on `copied`, for the caller to give back once every join
 * that may read them is done.
 */
const joined = (parts: ReadonlyArray<Uint8Array>, copied: Array<Uint8Array>) => {
  const full = parts.filter((p) => p.length > 0)
  if (full.length <= 1) return full[0] ?? new Uint8Array(0)
  const all = takeBytes(full.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of full) {
    all.set(part, at)
    at += part.length
  }
  copied.push(...full)
  return all
}

/**
 * One chunk of several that follow each other (a range's pieces, a range and its rest): what
 * writing them in order writes. At least one chunk.
 */
export const joinChunks = (chunks: ReadonlyArray<MigratedChunk>): MigratedChunk => {
  if (chunks.length === 1) return chunks[0]!
  const tally = emptyTally()
  for (const chunk of chunks) addTally(tally, chunk.tally)
  let last: RecordPosition | undefined
  for (const chunk of chunks) last = chunk.last ?? last
  const placed = chunks.every((c) => c.placed !== undefined)
    ? { out: chunks.reduce((n, c) => n + c.placed!.out, 0), rejected: chunks.reduce((n, c) => n + c.placed!.rejected, 0) }
    : undefined
  // The pieces' buffers go back once both joins are made: a range's outputs that are not placed
  // (standard output, /dev/null, a caller's writer) took new buffers for every range otherwise,
  // some 2,400 per worker over 3M records.
  const copied: Array<Uint8Array> = []
  const out = joined(
    chunks.map((c) => c.out),
    copied
  )
  const rejected = joined(
    chunks.map((c) => c.rejected),
    copied
  )
  for (const part of copied) giveBytes(part)
  return {
    out,
    rejected,
    tally,
    ...(last === undefined ? {} : { last }),
    ...(placed === undefined ? {} : { placed })
  }
}

/** A record the reader could not read faithfully, rejected as it was read. */
const unread = (record: InputRecord, why: Unreadable): Outcome => ({
  _tag: "Rejected",
  reject: {
    file: record.file,
    line: record.line,
    error: { tag: why.tag, message: why.message, path: null, ...(why.offset === undefined ? {} : { offset: why.offset }) },
    raw: record.raw,
    ...(why.rawBase64 === undefined ? {} : { rawBase64: why.rawBase64 })
  }
})

/** `Error`, with V8's limit on the frames a stack keeps (elsewhere the property does nothing). */
const withStacks = Error as ErrorConstructor & { stackTraceLimit: number | undefined }

/**
 * Migrates a chunk of the input, in order. The one code path for a chunk, whether the reading
 * thread or a worker runs it, so both write the same bytes. Never throws but for an unknown target.
 * Without `keepRejects`, rejects are counted, not formatted (`rejected` is empty). A chunk of
 * lines is done with once migrated: its buffer is given back (buffers.ts), to read the next ones.
 * With `numbering`, the chunk's lines are numbered as if its file began with them, until its place
 * in the file is known: its rejects are kept for `renumbered` to format, once told how many lines
 * come before. With `shared`, the chunk's bytes are part of a larger buffer, given back by
 * whoever holds that.
 */
export const migrateChunk = (normalizer: NormalizerService, target: OutputTarget, keepRejects = true) => {
  const run = migrateRecord(normalizer, target)
  const out = utf8Lines()
  const rejected = utf8Lines()
  return (chunk: InputChunk, numbering?: Array<Reject>, shared = false): MigratedChunk => {
    const tally = emptyTally()
    // Whatever a chunk that threw left behind is not this chunk's.
    out.clear()
    rejected.clear()
    // A reject keeps an error's tag, message and path, never its stack: the errors made while a
    // chunk is migrated (typed decode errors, and those a decoder tried before another way
    // succeeded) skip capturing one, which cost an eighth of a mixed input's time. The chunk is
    // migrated synchronously, so no other code runs with the limit lowered.
    const stackTraceLimit = withStacks.stackTraceLimit
    withStacks.stackTraceLimit = 0
    let last: InputRecord | undefined
    try {
      forEachRecord(chunk, (record) => {
        last = record
        const o = record.unreadable === undefined ? run(record) : unread(record, record.unreadable)
        count(tally, o)
        if (o._tag === "Migrated") for (const line of o.lines) out.add(line)
        else if (keepRejects) numbering === undefined ? rejected.add(JSON.stringify(o.reject)) : numbering.push(o.reject)
      })
    } finally {
      withStacks.stackTraceLimit = stackTraceLimit
    }
    if (chunk._tag === "Lines" && !shared) giveBytes(chunk.bytes)
    const position = last === undefined ? {} : { last: { file: last.file, line: last.line, ...(last.key === undefined ? {} : { key: last.key }) } }
    return { out: out.take(), rejected: rejected.take(), tally, ...position }
  }
}

const numbered = utf8Lines()

/**
 * A chunk migrated with its lines numbered from 1 (`migrateChunk`'s `numbering`), renumbered now
 * that `before` lines of its file are known to come before it: its rejects, kept aside, formatted.
 */
export const renumbered = (chunk: MigratedChunk, rejects: ReadonlyArray<Reject>, before: number): MigratedChunk => {
  numbered.clear()
  for (const reject of rejects) numbered.add(JSON.stringify({ ...reject, line: reject.line + before }))
  const last = chunk.last
  return { ...chunk, rejected: numbered.take(), ...(last === undefined ? {} : { last: { ...last, line: last.line + before } }) }
}
