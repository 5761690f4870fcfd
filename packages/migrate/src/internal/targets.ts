/**
 * What a migration writes for each scan, by target: a JSON line in the target's shape (the
 * canonical form's or an adapter's), or a row of a table (CSV, Parquet). The calling thread and the
 * worker threads both resolve a target here, so both write the same bytes; what the output holds
 * around those lines is the writing thread's alone (framing.ts).
 */
import { stringify } from "csv-stringify/sync"
import { Either } from "effect"
import type { EncodeError, EncodeOptions, Scan } from "@scanbridge/model"
import type { NormalizerService } from "../normalizer.js"
import { POSTGRES_ROWS, postgresRow } from "../postgres/rows.js"
import { type Cell, scanColumns } from "../table.js"
import type { OutputTarget } from "../target.js"

/** A scan as one line of the output, without its line end; `format` is the format it was read from. */
export type ScanLine = (scan: Scan, format: string) => Either.Either<string, EncodeError>

/** A target written whole, its footer last (a Parquet file's): a run writing one cannot be resumed. */
export const writtenWhole = (to: string): boolean => to === "parquet"

// RFC 4180: fields quoted when they hold a comma, a quote or a line break, records ended by CRLF.
// Text is always quoted and a missing value is an empty field, so an empty text (`""`) is not a
// missing one: readers such as DuckDB read the first as '' and the second as NULL. The pipeline
// ends every line with LF, so a row keeps its CR.
const CSV = { record_delimiter: "windows", quoted_string: true } as const
export const csvLine = (cells: ReadonlyArray<Cell>): string => stringify([cells], CSV).slice(0, -1)

/** How `target` writes a scan, or undefined when the normalizer has no such target. */
export const scanLine = (normalizer: NormalizerService, target: OutputTarget): ScanLine | undefined => {
  if (target.to === POSTGRES_ROWS) return postgresRow
  if (target.to === "csv") {
    const columns = scanColumns(target.units)
    return (scan) => Either.right(csvLine(columns.map((c) => c.value(scan))))
  }
  // A row's cells as JSON: the writing thread gathers them into Parquet's row groups (parquet.ts).
  if (target.to === "parquet") {
    const columns = scanColumns(target.units)
    return (scan) => Either.right(JSON.stringify(columns.map((c) => c.value(scan))))
  }
  const encoder = normalizer.encoders.get(target.to)
  if (encoder === undefined) return undefined
  const options: EncodeOptions = {
    ...(target.units === undefined ? {} : { units: target.units }),
    ...(target.patientSystem === undefined ? {} : { patientSystem: target.patientSystem })
  }
  return (scan) => {
    const encoded = encoder.encode(scan, options)
    // Notes of the encoding travel with a canonical scan; other shapes have no place for them.
    return Either.isLeft(encoded) ? Either.left(encoded.left) : Either.right(JSON.stringify(encoded.right.value))
  }
}
