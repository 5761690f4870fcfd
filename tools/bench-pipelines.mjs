// Three plain-Node pipelines of an NDJSON file on worker threads, to compare what each leaves the
// main thread (issue 34, part 4): `node tools/bench-pipelines.mjs DESIGN INPUT OUTPUT [WORKERS] [RANGE_BYTES]`.
// Each worker JSON.parses and JSON.stringifies every line (not a migration: the main thread's part
// is what is compared); the output is the same bytes in every design. DESIGN:
// - `main-reads`: the main thread reads 1 MiB at a time, cuts at the last newline (counting the
//   lines, for line numbers), sends the chunk to a worker (transferred), takes the outputs back in
//   order and writes them; buffers circulate, as the migration's do (packages/migrate buffers.ts);
// - `workers-read`: the main thread hands out 1 MiB byte ranges; a worker reads its own (pread) and
//   takes the lines that begin in it; the main thread orders and writes the outputs;
// - `workers-write`: as `workers-read`, but a worker also writes its output itself (pwrite), at the
//   offset the main thread gives each chunk once the chunks before it are done.
// RANGE_BYTES (default 1 MiB) is the size of a read or a range, small for its test
// (tools/test/bench-inputs.test.ts).
// It prints JSON on stdout: the lines converted (and, for `main-reads`, the newlines the main
// thread counted), the main thread's user and system CPU seconds (from
// /proc/self/task/<pid>/stat) and the process's (every thread's, from /proc/self/stat).
import { closeSync, fstatSync, openSync, readSync, writeSync } from "node:fs"
import { Worker } from "node:worker_threads"
import { cpuOf } from "./bench-threads.cjs"

const [design, input, output, workersArg, rangeArg] = process.argv.slice(2)
if (!["main-reads", "workers-read", "workers-write"].includes(design) || input === undefined || output === undefined) {
  console.error("usage: node tools/bench-pipelines.mjs main-reads|workers-read|workers-write INPUT OUTPUT [WORKERS] [RANGE_BYTES]")
  process.exit(2)
}
const WORKERS = Number(workersArg ?? 2)
const RANGE = Number(rangeArg ?? 1024 * 1024)

// The workers: CommonJS, evaluated. A message is a chunk's bytes (`main-reads`), a range to read
// (the other two), or the offset to write a held output at (`workers-write`).
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const { openSync, readSync, writeSync } = require("node:fs")
const { input, output, design } = workerData
const fd = design === "main-reads" ? -1 : openSync(input, "r")
const out = design === "workers-write" ? openSync(output, "r+") : -1
const decoder = new TextDecoder()
const encoder = new TextEncoder()
const held = new Map()
let buffer = Buffer.allocUnsafe(${RANGE} + 65536)
const convert = (bytes) => {
  let text = ""
  let lines = 0
  for (const line of decoder.decode(bytes).split("\\n")) {
    if (line === "") continue
    lines++
    text += JSON.stringify(JSON.parse(line)) + "\\n"
  }
  return { bytes: encoder.encode(text), lines }
}
// The lines that begin in [start, end): read from start - 1, so that a line beginning at start is
// told from one that began before it, and on past end to the newline of the line that begins last.
const rangeBytes = (start, end, size) => {
  const from = Math.max(start - 1, 0)
  let n = readSync(fd, buffer, 0, Math.min(buffer.length, size - from), from)
  const last = end - 1 - from
  let stop = n
  if (end < size) {
    let newline = buffer.subarray(0, n).indexOf(10, last)
    // A line longer than the buffer: read on until its newline, or the end of the file.
    while (newline < 0 && from + n < size) {
      const larger = Buffer.allocUnsafe(buffer.length * 2)
      buffer.copy(larger, 0, 0, n)
      buffer = larger
      n += readSync(fd, buffer, n, Math.min(buffer.length - n, size - from - n), from + n)
      newline = buffer.subarray(0, n).indexOf(10, last)
    }
    stop = newline < 0 ? n : newline + 1
  }
  const first = buffer.subarray(0, stop).indexOf(10, 0)
  const begin = start === 0 ? 0 : first < 0 ? stop : first + 1
  return buffer.subarray(begin, stop)
}
parentPort.on("message", (m) => {
  if (m.offset !== undefined) {
    const bytes = held.get(m.seq)
    held.delete(m.seq)
    writeSync(out, bytes, 0, bytes.length, m.offset)
    parentPort.postMessage({ written: m.seq })
    return
  }
  if (design === "main-reads") {
    const { bytes, lines } = convert(m.bytes)
    parentPort.postMessage({ seq: m.seq, out: bytes, lines, back: m.bytes }, [bytes.buffer, m.bytes.buffer])
    return
  }
  const { bytes, lines } = convert(rangeBytes(m.start, m.end, m.size))
  if (design === "workers-read") return parentPort.postMessage({ seq: m.seq, out: bytes, lines }, [bytes.buffer])
  held.set(m.seq, bytes)
  parentPort.postMessage({ seq: m.seq, length: bytes.length, lines })
})
`

const inputFd = openSync(input, "r")
const size = fstatSync(inputFd).size
const outputFd = openSync(output, "w")
const workers = Array.from({ length: WORKERS }, () => new Worker(workerSource, { eval: true, workerData: { input, output, design } }))
const before = cpuOf(`/proc/self/task/${process.pid}/stat`)

let sent = 0
let inFlight = 0
let nextInOrder = 0
let lines = 0
let newlines = 0
let position = 0
let carried = new Uint8Array(0)
let ended = false
let offset = 0
let written = 0
const done = new Map()
const ownerOf = new Map()
const free = []

const finish = () => {
  closeSync(outputFd)
  const main = cpuOf(`/proc/self/task/${process.pid}/stat`)
  const all = cpuOf("/proc/self/stat")
  const round = (x) => Math.round(x * 100) / 100
  console.log(
    JSON.stringify({
      design,
      lines,
      newlines,
      main: { user: round(main.user - before.user), system: round(main.system - before.system) },
      process: round(all.user + all.system)
    })
  )
  process.exit(0)
}

/** `main-reads`: the next chunk of whole lines, read after the partial line carried from the last read. */
const nextChunk = () => {
  for (;;) {
    const kept = free.pop()
    const buffer = kept !== undefined && kept.length >= carried.length + RANGE ? kept : new Uint8Array(carried.length + RANGE)
    buffer.set(carried, 0)
    const n = readSync(inputFd, buffer, carried.length, RANGE, null)
    const length = carried.length + n
    if (n === 0) ended = true
    const end = ended ? length : buffer.lastIndexOf(10, length - 1) + 1
    carried = buffer.slice(end, length)
    // No newline in all that was read: a line longer than a read, carried whole into a larger buffer.
    if (end === 0 && !ended) continue
    const bytes = Buffer.from(buffer.buffer, 0, end)
    // Counted here, as a reader must to number the lines (the figure printed is the workers' count).
    for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) newlines++
    return end === 0 ? undefined : buffer.subarray(0, end)
  }
}

const pump = () => {
  while (inFlight < 2 * WORKERS && !(design === "main-reads" ? ended : position >= size)) {
    const seq = sent
    const worker = workers[seq % WORKERS]
    if (design === "main-reads") {
      const bytes = nextChunk()
      if (bytes === undefined) break
      worker.postMessage({ seq, bytes }, [bytes.buffer])
    } else {
      const end = Math.min(size, position + RANGE)
      ownerOf.set(seq, worker)
      worker.postMessage({ seq, start: position, end, size })
      position = end
    }
    sent++
    inFlight++
  }
  const allWritten = design === "workers-write" ? written === sent : nextInOrder === sent
  if (inFlight === 0 && allWritten && (design === "main-reads" ? ended : position >= size)) finish()
}

const received = (m) => {
  if (m.written !== undefined) {
    written++
    return pump()
  }
  inFlight--
  if (m.back !== undefined) free.push(new Uint8Array(m.back.buffer))
  lines += m.lines
  done.set(m.seq, m)
  for (let next = done.get(nextInOrder); next !== undefined; next = done.get(nextInOrder)) {
    done.delete(nextInOrder)
    if (design === "workers-write") {
      ownerOf.get(nextInOrder).postMessage({ seq: nextInOrder, offset })
      ownerOf.delete(nextInOrder)
      offset += next.length
    } else writeSync(outputFd, next.out)
    nextInOrder++
  }
  pump()
}

for (const worker of workers) worker.on("message", received)
pump()
