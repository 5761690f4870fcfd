/**
 * A canonical scan as a row of the PostgreSQL sink's table, in COPY's text format: the table's
 * columns (`SCAN_COLUMNS`), then its key, the format it was read from, the whole scan as JSONB and
 * its notes. Worker threads make these rows as they make any other output; the sink only copies
 * them in. No database code here: this module runs wherever a migration does.
 */
import { createHash } from "node:crypto"
import { Either } from "effect"
import { EncodeError, type Scan, stringifyScan } from "@scanbridge/model"
import { type Cell, SCAN_COLUMNS } from "../table.js"

/** The internal target whose lines are these rows (see `scanLine`): never a `--to`. */
export const POSTGRES_ROWS = "postgres rows"

/** The columns after `SCAN_COLUMNS`, in the rows' order. */
export const EXTRA_COLUMNS = ["scan_key", "format", "scan", "notes"] as const

/**
 * What names a scan in the table, with its API: its source id, or for a scan without one (a fit
 * estimation with no token, a canonical scan whose id is null) its content's SHA-256, so that the
 * same scan read twice is one row.
 */
export const scanKey = (scan: Scan, json: string): string => scan.source.id ?? `sha256:${createHash("sha256").update(json).digest("hex")}`

// COPY's text format: a backslash, a tab, a line feed and a carriage return are escaped; \N is null.
const SPECIAL = /[\\\t\n\r]/g
const ESCAPES: Readonly<Record<string, string>> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" }
export const copyText = (text: string): string => text.replace(SPECIAL, (c) => ESCAPES[c]!)
export const copyCell = (cell: Cell): string => (cell === null ? "\\N" : typeof cell === "number" ? String(cell) : copyText(cell))

/**
 * JSON text PostgreSQL cannot store: a \u0000 (text and JSONB hold no NUL) or a lone surrogate
 * (`JSON.stringify` escapes only those; JSONB refuses them). An escaped backslash before the `u`
 * is text, not an escape, hence the even run of backslashes.
 */
const UNSTORABLE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i

/** Text PostgreSQL cannot store, or undefined. */
export const unstorable = (text: string): string | undefined => {
  if (text.includes("\u0000")) return "U+0000"
  const match = UNSTORABLE.exec(text)
  return match === null ? undefined : match[0].endsWith("0000") ? "U+0000" : "a lone UTF-16 surrogate"
}

/** A scan's row, or the reason PostgreSQL could not hold it (the record is rejected with it). */
export const postgresRow = (scan: Scan, format: string): Either.Either<string, EncodeError> => {
  const json = stringifyScan(scan)
  const bad = unstorable(json) ?? unstorable(format)
  if (bad !== undefined) return Either.left(EncodeError.at(POSTGRES_ROWS, [], undefined, `PostgreSQL text and JSONB cannot hold ${bad}`))
  let row = ""
  for (const column of SCAN_COLUMNS) row += `${copyCell(column.value(scan))}\t`
  row += `${copyText(scanKey(scan, json))}\t${copyText(format)}\t${copyText(json)}\t${copyText(JSON.stringify(scan.notes))}`
  return Either.right(row)
}
