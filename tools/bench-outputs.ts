/**
 * The outputs of the bench's migrations read back (tools/bench-tables.ts): each record counted
 * and checked, so that a figure is never that of a run that wrote less than it should, or
 * something else.
 */
import { closeSync, openSync, readSync } from "node:fs"
import { FORMATS } from "./bench-inputs.js"

const NEWLINE = 0x0a
const QUOTE = 0x22

/** Blocks of 8 MiB: the floor's (tools/bench-floor.mjs). Tests pass a few bytes, to cut lines and fields. */
const BLOCK_BYTES = 8 << 20

/** Calls `each` with every block of `file`, in order; the block is reused by the next read. */
const eachBlock = (file: string, blockBytes: number, each: (block: Buffer) => void) => {
  const fd = openSync(file, "r")
  const buffer = Buffer.allocUnsafe(blockBytes)
  try {
    for (let n = readSync(fd, buffer, 0, buffer.length, null); n > 0; n = readSync(fd, buffer, 0, buffer.length, null)) each(buffer.subarray(0, n))
  } finally {
    closeSync(fd)
  }
}

/** Calls `each` with every line of `file` and its number (from 1); how many lines it holds. */
const eachLine = (file: string, blockBytes: number, each: (line: string, n: number) => void): number => {
  let carried = Buffer.alloc(0)
  let n = 0
  eachBlock(file, blockBytes, (block) => {
    // A newline byte never occurs inside a multi-byte UTF-8 character: cutting at one is safe.
    const data = carried.length === 0 ? block : Buffer.concat([carried, block])
    let start = 0
    for (let end = data.indexOf(NEWLINE, start); end >= 0; end = data.indexOf(NEWLINE, start)) {
      each(data.toString("utf8", start, end), ++n)
      start = end + 1
    }
    carried = Buffer.from(data.subarray(start))
  })
  if (carried.length > 0) each(carried.toString("utf8"), ++n)
  return n
}

/** The JSON object a line holds, or an error naming the output, the line and what it found. */
const objectAt = (what: string, line: string, n: number): Record<string, unknown> => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (e) {
    throw new Error(`${what}, line ${n}: not JSON (${(e as Error).message})`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${what}, line ${n}: not a JSON object`)
  return value as Record<string, unknown>
}

/** Canonical NDJSON: one canonical scan a line. */
export const canonicalScans = (file: string, what: string, blockBytes = BLOCK_BYTES) =>
  eachLine(file, blockBytes, (line, n) => {
    const format = objectAt(what, line, n)["format"]
    if (format !== FORMATS.canonical) throw new Error(`${what}, line ${n}: format ${JSON.stringify(format)}, not ${FORMATS.canonical}`)
  })

/**
 * FHIR NDJSON: one transaction Bundle a line, each entry a resource with a urn:uuid full URL and a
 * request. Its shape only: the FHIR package's tests validate what it holds.
 */
export const fhirBundles = (file: string, what: string, blockBytes = BLOCK_BYTES) =>
  eachLine(file, blockBytes, (line, n) => {
    const bundle = objectAt(what, line, n)
    if (bundle["resourceType"] !== "Bundle" || bundle["type"] !== "transaction")
      throw new Error(
        `${what}, line ${n}: resourceType ${JSON.stringify(bundle["resourceType"])}, type ${JSON.stringify(bundle["type"])}, not a transaction Bundle`
      )
    const entries = bundle["entry"]
    if (!Array.isArray(entries) || entries.length === 0) throw new Error(`${what}, line ${n}: a Bundle without entries`)
    entries.forEach((entry: { fullUrl?: unknown; resource?: { resourceType?: unknown }; request?: { method?: unknown } }, i) => {
      if (
        typeof entry?.fullUrl !== "string" ||
        !entry.fullUrl.startsWith("urn:uuid:") ||
        typeof entry.resource?.resourceType !== "string" ||
        typeof entry.request?.method !== "string"
      )
        throw new Error(`${what}, line ${n}: entry[${i}] is not a resource with a urn:uuid fullUrl and a request`)
    })
  })

/** CSV: its records, the rows after the header; a newline inside a quoted field is not a row's end. */
export const csvRecords = (file: string, what: string, blockBytes = BLOCK_BYTES) => {
  let rows = 0
  let quoted = false
  eachBlock(file, blockBytes, (block) => {
    let at = 0
    for (;;) {
      if (quoted) {
        // A doubled quote inside a field closes and reopens it: the same state after both.
        const close = block.indexOf(QUOTE, at)
        if (close < 0) return
        quoted = false
        at = close + 1
      }
      const open = block.indexOf(QUOTE, at)
      const end = open < 0 ? block.length : open
      for (let nl = block.indexOf(NEWLINE, at); nl >= 0 && nl < end; nl = block.indexOf(NEWLINE, nl + 1)) rows++
      if (open < 0) return
      quoted = true
      at = open + 1
    }
  })
  if (quoted) throw new Error(`${what}: a quoted field is never closed`)
  if (rows === 0) throw new Error(`${what}: no header`)
  return rows - 1
}
