// The floor of `pnpm bench` (tools/bench.ts): the fastest plain Node script we could write that does
// what a migration must do at least, read NDJSON, JSON.parse each line, JSON.stringify it, write
// NDJSON. `node tools/bench-floor.mjs INPUT OUTPUT [READ_BYTES]` (READ_BYTES for its test). Plain
// JavaScript, run by node itself, with nothing between it and V8:
// - synchronous 8 MiB reads (fs.readSync), no stream, no readline, no event loop turns;
// - lines split at the byte level, so a UTF-8 character never straddles a read: a newline byte
//   (0x0a) never occurs inside a multi-byte character; the partial last line is carried over;
// - each line decoded on its own: decoding a whole read into one 8 MiB string and splitting it
//   made a string V8 keeps in its large-object space until a full collection, and cost 20 % more
//   CPU time and 250 MB of RSS where this takes 70 MB;
// - a line JSON.parse rejects is counted, as a migration rejects it (mixed inputs hold some);
// - each JSON.stringify encoded straight into one 8 MiB buffer, written when full (fs.writeSync):
//   no string of a batch outlives the record it came from.
// It prints `records N rejected M` on stderr, for the bench to check against the input.
import { closeSync, openSync, readSync, writeSync } from "node:fs"

const READ = Number(process.argv[4] ?? 8 * 1024 * 1024)
const WRITE = 8 * 1024 * 1024
const NEWLINE = 0x0a

const input = openSync(process.argv[2], "r")
const output = openSync(process.argv[3], "w")
let buffer = Buffer.allocUnsafe(READ)
let carried = 0
let records = 0
let rejected = 0
const outBuffer = Buffer.allocUnsafe(WRITE)
let outAt = 0

const line = (text) => {
  if (text === "") return
  records++
  let value
  try {
    value = JSON.parse(text)
  } catch {
    rejected++
    return
  }
  const json = JSON.stringify(value)
  // At most 3 bytes per UTF-16 unit; the newline is one more.
  if (outAt + json.length * 3 + 1 > WRITE) {
    writeSync(output, outBuffer, 0, outAt)
    outAt = 0
    if (json.length * 3 + 1 > WRITE) {
      writeSync(output, json + "\n")
      return
    }
  }
  outAt += outBuffer.write(json, outAt)
  outBuffer[outAt++] = NEWLINE
}

for (;;) {
  // A line longer than the buffer: double it, keeping what is carried.
  if (carried === buffer.length) {
    const bigger = Buffer.allocUnsafe(buffer.length * 2)
    buffer.copy(bigger, 0, 0, carried)
    buffer = bigger
  }
  const n = readSync(input, buffer, carried, buffer.length - carried, null)
  const end = carried + n
  if (n === 0) {
    if (end > 0) line(buffer.toString("utf8", 0, end))
    break
  }
  const last = buffer.lastIndexOf(NEWLINE, end - 1)
  if (last < 0) {
    carried = end
    continue
  }
  for (let start = 0; start <= last; ) {
    const stop = buffer.indexOf(NEWLINE, start)
    line(buffer.toString("utf8", start, stop))
    start = stop + 1
  }
  carried = end - last - 1
  buffer.copy(buffer, 0, last + 1, end)
}
if (outAt > 0) writeSync(output, outBuffer, 0, outAt)
closeSync(output)
closeSync(input)
process.stderr.write(`records ${records} rejected ${rejected}\n`)
