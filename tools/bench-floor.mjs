// The floor of `pnpm bench` (tools/bench.ts): the fastest plain Node script we could write that does
// what a migration must do at least, read NDJSON, JSON.parse each line, JSON.stringify it, write
// NDJSON. `node tools/bench-floor.mjs INPUT OUTPUT [READ_BYTES]` (READ_BYTES for its test). Plain
// JavaScript, run by node itself, with nothing between it and V8:
// - synchronous 8 MiB reads (fs.readSync), no stream, no readline, no event loop turns;
// - lines split at the byte level, so a UTF-8 character never straddles a read: a newline byte
//   (0x0a) never occurs inside a multi-byte character; the partial last line is carried over;
// - a line JSON.parse rejects is counted, as a migration rejects it (mixed inputs hold some);
// - output gathered into one string and written in ~8 MiB batches (fs.writeSync).
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
let out = ""

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
  out += JSON.stringify(value) + "\n"
  if (out.length >= WRITE) {
    writeSync(output, out)
    out = ""
  }
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
  const lines = buffer.toString("utf8", 0, last).split("\n")
  for (let i = 0; i < lines.length; i++) line(lines[i])
  carried = end - last - 1
  buffer.copy(buffer, 0, last + 1, end)
}
if (out !== "") writeSync(output, out)
closeSync(output)
closeSync(input)
process.stderr.write(`records ${records} rejected ${rejected}\n`)
