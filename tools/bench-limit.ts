/**
 * Part of `pnpm bench` (tools/bench.ts bundles this file with esbuild from the packages' sources,
 * as their build does, and runs it with node): the limits of a migration, measured beside the
 * floor (tools/bench-floor.mjs) in the same rounds, so that a missed target shows what it would
 * take. `node bench-limit.mjs WORK THREADS INPUT OUTPUT [READ_BYTES]`:
 *
 * - WORK `json`: each line JSON.parse'd and JSON.stringify'd, as the floor does. `migrate`:
 *   Scanbridge's per-record work in its place, the library's own `migrateRecord` (JSON.parse,
 *   detect, decode, JSON.stringify of each canonical scan, with no stack captured, as a chunk is
 *   migrated): the output is the bytes `scanbridge migrate` writes. The bench's migrations keep no
 *   rejects (no `--rejects`), so, like them, this counts rejects without formatting them.
 * - THREADS `0`: the floor's loop on this thread (synchronous 8 MiB reads, lines split at newline
 *   bytes, each decoded on its own, output encoded into one 8 MiB buffer written when full).
 *   `N` > 0: N plain worker_threads; this thread reads 8 MiB blocks, cuts each after its last
 *   newline, transfers it to the workers in turn, and writes their output in input order; nothing
 *   else (no streams, no fibers, no chunk objects).
 *
 * So `json 0` is the floor again, `json 2` is the issue's "two plain worker threads doing only
 * parse + stringify", `migrate 0` the best `--workers 0` can be with today's per-record code, and
 * `migrate 2` the best the default (a worker and the main thread) can be. It prints `records N
 * rejected M` on stderr, as the floor does, for the bench to check against the input.
 */
import { closeSync, openSync, readSync, writeSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads"

export type Work = "json" | "migrate"

const NEWLINE = 0x0a
export const BLOCK = 8 * 1024 * 1024
const WRITE = 8 * 1024 * 1024

// --- what is done to a line -----------------------------------------------------------------

/** Called with each JSON text to write; returns nothing. */
type Emit = (json: string) => void

export interface LineWork {
  /** `text` is line number `line` of `file` (1-based); its output lines go to `emit`. */
  readonly line: (text: string, line: number, emit: Emit) => void
  readonly records: () => number
  readonly rejected: () => number
}

const jsonWork = (): LineWork => {
  let records = 0
  let rejected = 0
  return {
    line: (text, _line, emit) => {
      records++
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        rejected++
        return
      }
      emit(JSON.stringify(value))
    },
    records: () => records,
    rejected: () => rejected
  }
}

/** Error, with V8's limit on the frames a stack keeps. */
const withStacks = Error as ErrorConstructor & { stackTraceLimit: number | undefined }

const migrateWork = async (file: string): Promise<LineWork> => {
  // Loaded only for this work: the `json` threads load nothing but this file's own code.
  const [{ defaultNormalizer }, { migrateRecord }] = await Promise.all([import("@scanbridge/migrate"), import("../packages/migrate/src/internal/pipeline.js")])
  const run = migrateRecord(defaultNormalizer, { to: "canonical" })
  // A migration migrates each chunk with no stacks captured (internal/pipeline.ts, migrateChunk).
  withStacks.stackTraceLimit = 0
  let records = 0
  let rejected = 0
  return {
    line: (text, line, emit) => {
      records++
      const outcome = run({ file, line, raw: text })
      if (outcome._tag === "Migrated") for (const json of outcome.lines) emit(json)
      else rejected++
    },
    records: () => records,
    rejected: () => rejected
  }
}

export const workOf = async (work: Work, file: string): Promise<LineWork> => (work === "json" ? jsonWork() : await migrateWork(file))

// --- lines of bytes, output into buffers ------------------------------------------------------

/**
 * Each line of `bytes[0, end)` decoded on its own (`end` just past a newline, or the input's end),
 * as the floor does; a blank line is no record. Returns the number of lines it stepped over.
 */
export const eachLine = (bytes: Buffer, end: number, firstLine: number, work: LineWork, emit: Emit): number => {
  let line = firstLine
  for (let start = 0; start < end; line++) {
    let stop = bytes.indexOf(NEWLINE, start)
    if (stop < 0 || stop >= end) stop = end
    if (stop > start) work.line(bytes.toString("utf8", start, stop), line, emit)
    start = stop + 1
  }
  return line - firstLine
}

/** A buffer of its own (not a slice of the shared pool, so it can be transferred). */
export type Allocate = (size: number) => Buffer

/**
 * Buffers of `size` bytes, taken from those given back (after a trip to another thread) before
 * new ones are made: fresh memory costs a page fault per page, and detached buffers wait for a
 * collection on the thread that received them.
 */
export const makeRecycler = (size: number) => {
  const free: Array<Buffer> = []
  return {
    allocate: ((n: number) => (n === size ? free.pop() : undefined) ?? Buffer.allocUnsafeSlow(n)) satisfies Allocate,
    giveBack: (bytes: Uint8Array) => {
      if (bytes.buffer.byteLength === size) free.push(Buffer.from(bytes.buffer as ArrayBuffer))
    }
  }
}

/**
 * An output made of `size`-byte buffers: each JSON text encoded straight into the current one,
 * then a newline; a full buffer is handed to `full` (written, or sent to the reading thread) and
 * the next begins in the same buffer, or (with `allocate`) in another one.
 */
export const makeOutput = (size: number, full: (bytes: Buffer) => void, allocate?: Allocate) => {
  let buffer = (allocate ?? Buffer.allocUnsafeSlow)(size)
  let at = 0
  const flush = () => {
    if (at === 0) return
    full(buffer.subarray(0, at))
    if (allocate !== undefined) buffer = allocate(size)
    at = 0
  }
  const emit: Emit = (json) => {
    // At most 3 bytes per UTF-16 unit; the newline is one more.
    if (at + json.length * 3 + 1 > size) {
      flush()
      if (json.length * 3 + 1 > size) {
        full(Buffer.from(`${json}\n`))
        return
      }
    }
    at += buffer.write(json, at)
    buffer[at++] = NEWLINE
  }
  return { emit, flush }
}

/**
 * The input's blocks, read synchronously: up to `size` bytes each, cut just after the last
 * newline (a line longer than a block makes the block grow), as `[bytes, end]`. A block's bytes
 * are the reader's own buffer, read again for the next block, unless `fresh` allocates one for
 * each block, to transfer.
 */
export function* blocksOf(input: number, size: number, fresh?: Allocate): Generator<readonly [Buffer, number]> {
  let buffer = (fresh ?? Buffer.allocUnsafeSlow)(size)
  let carried = 0
  for (;;) {
    if (carried === buffer.length) {
      const bigger = Buffer.allocUnsafeSlow(buffer.length * 2)
      buffer.copy(bigger, 0, 0, carried)
      buffer = bigger
    }
    const n = readSync(input, buffer, carried, buffer.length - carried, null)
    const end = carried + n
    if (n === 0) {
      if (end > 0) yield [buffer, end]
      return
    }
    const last = buffer.lastIndexOf(NEWLINE, end - 1)
    if (last < 0) {
      carried = end
      continue
    }
    carried = end - last - 1
    if (fresh !== undefined) {
      // What follows the cut moves to the next block before this one is handed on (transferred).
      const next = fresh(Math.max(size, carried))
      buffer.copy(next, 0, last + 1, end)
      yield [buffer, last + 1]
      buffer = next
    } else {
      yield [buffer, last + 1]
      buffer.copy(buffer, 0, last + 1, end)
    }
  }
}

/** Lines in `bytes[0, end)`: newlines, and one more for a last line without one. */
export const linesIn = (bytes: Buffer, end: number): number => {
  let lines = 0
  for (let at = bytes.indexOf(NEWLINE, 0); at >= 0 && at < end; at = bytes.indexOf(NEWLINE, at + 1)) lines++
  return end > 0 && bytes[end - 1] !== NEWLINE ? lines + 1 : lines
}

// --- on this thread ---------------------------------------------------------------------------

const inThread = async (work: Work, inputFile: string, outputFile: string, readBytes: number) => {
  const lineWork = await workOf(work, inputFile)
  const input = openSync(inputFile, "r")
  const output = openSync(outputFile, "w")
  const out = makeOutput(WRITE, (bytes) => writeSync(output, bytes))
  let line = 1
  for (const [bytes, end] of blocksOf(input, readBytes)) line += eachLine(bytes, end, line, lineWork, out.emit)
  out.flush()
  closeSync(output)
  closeSync(input)
  return { records: lineWork.records(), rejected: lineWork.rejected() }
}

// --- on worker threads ------------------------------------------------------------------------

interface Block {
  readonly seq: number
  readonly firstLine: number
  readonly bytes: Uint8Array
}
interface Done {
  readonly seq: number
  readonly out: ReadonlyArray<Uint8Array>
  /** The block's bytes, given back to be read into again. */
  readonly input: Uint8Array
}
/** Output buffers written, given back to the worker that filled them. */
interface Written {
  readonly written: ReadonlyArray<Uint8Array>
}
interface Totals {
  readonly totals: { readonly records: number; readonly rejected: number }
}

const worker = async (work: Work, file: string) => {
  const lineWork = await workOf(work, file)
  let outputs: Array<Uint8Array> = []
  const recycler = makeRecycler(WRITE)
  const out = makeOutput(WRITE, (bytes) => outputs.push(bytes), recycler.allocate)
  parentPort!.on("message", (block: Block | Written | "end") => {
    if (typeof block === "object" && "written" in block) {
      for (const bytes of block.written) recycler.giveBack(bytes)
      return
    }
    if (block === "end") {
      parentPort!.postMessage({ totals: { records: lineWork.records(), rejected: lineWork.rejected() } } satisfies Totals)
      return
    }
    const bytes = Buffer.from(block.bytes.buffer, block.bytes.byteOffset, block.bytes.byteLength)
    eachLine(bytes, bytes.length, block.firstLine, lineWork, out.emit)
    out.flush()
    const done: Done = { seq: block.seq, out: outputs, input: block.bytes }
    parentPort!.postMessage(done, [block.bytes.buffer as ArrayBuffer, ...outputs.map((o) => o.buffer as ArrayBuffer)])
    outputs = []
  })
}

/**
 * Reads block by block and hands them to the workers in turn; this thread waits (and so takes
 * the workers' results and writes them) only when they hold all the blocks they may.
 */
const withWorkers = async (work: Work, threads: number, inputFile: string, outputFile: string, readBytes: number) => {
  const workers = Array.from({ length: threads }, () => new Worker(fileURLToPath(import.meta.url), { workerData: { work, file: inputFile } }))
  const input = openSync(inputFile, "r")
  const output = openSync(outputFile, "w")
  // Each worker holds at most two blocks: one it works on, one waiting, so it never idles while
  // this thread reads, and memory stays bounded.
  const most = threads * 2
  const finished = new Map<number, ReadonlyArray<Uint8Array>>()
  const recycler = makeRecycler(readBytes)
  let written = 0
  let sent = 0
  let wake: (() => void) | undefined
  const totals: Array<Totals["totals"]> = []
  let allTotals: (() => void) | undefined
  for (const w of workers) {
    w.on("message", (message: Done | Totals) => {
      if ("totals" in message) {
        totals.push(message.totals)
        if (totals.length === workers.length) allTotals?.()
        return
      }
      recycler.giveBack(message.input)
      finished.set(message.seq, message.out)
      // Written in input order, as soon as the oldest is back, and given back to their worker.
      for (let next = finished.get(written); next !== undefined; next = finished.get(written)) {
        for (const bytes of next) writeSync(output, bytes)
        const back: Written = { written: next }
        workers[written % workers.length]!.postMessage(
          back,
          next.map((bytes) => bytes.buffer as ArrayBuffer)
        )
        finished.delete(written++)
      }
      const w = wake
      wake = undefined
      w?.()
    })
    w.on("error", (e) => {
      console.error(e)
      process.exit(1)
    })
  }
  let line = 1
  for (const [bytes, end] of blocksOf(input, readBytes, recycler.allocate)) {
    while (sent - written >= most) await new Promise<void>((resolve) => (wake = resolve))
    const block: Block = { seq: sent, firstLine: line, bytes: bytes.subarray(0, end) }
    line += linesIn(bytes, end)
    workers[sent % workers.length]!.postMessage(block, [bytes.buffer as ArrayBuffer])
    sent++
  }
  closeSync(input)
  while (written < sent) await new Promise<void>((resolve) => (wake = resolve))
  closeSync(output)
  const all = new Promise<void>((resolve) => (allTotals = resolve))
  for (const w of workers) w.postMessage("end")
  await all
  await Promise.all(workers.map((w) => w.terminate()))
  return { records: totals.reduce((a, t) => a + t.records, 0), rejected: totals.reduce((a, t) => a + t.rejected, 0) }
}

// --- the program ------------------------------------------------------------------------------

if (!isMainThread) {
  const { work, file } = workerData as { work: Work; file: string }
  await worker(work, file)
} else if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [work, threads, input, output, readBytes] = process.argv.slice(2)
  if ((work !== "json" && work !== "migrate") || threads === undefined || input === undefined || output === undefined) {
    console.error("usage: node bench-limit.mjs json|migrate THREADS INPUT OUTPUT [READ_BYTES]")
    process.exit(2)
  }
  const read = Number(readBytes ?? BLOCK)
  const n = Number(threads)
  const counts = n === 0 ? await inThread(work, input, output, read) : await withWorkers(work, n, input, output, read)
  process.stderr.write(`records ${counts.records} rejected ${counts.rejected}\n`)
}
