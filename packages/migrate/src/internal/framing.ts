/**
 * What a text output holds around the lines the pipeline makes, on the writing thread alone (the
 * worker threads do not load the Parquet writer).
 */
import { scanColumns } from "../table.js"
import { parquetRows } from "./parquet.js"
import type { OutputTarget } from "../target.js"
import { csvLine } from "./targets.js"

/**
 * What a text output holds around its lines, made by the writing thread: a CSV's header row, or a
 * Parquet file, whose row groups are encoded from the lines and whose footer ends it. JSON lines
 * have neither.
 */
export interface Framing {
  /** Written before the first line (with its line end), but not by a resumed run. */
  readonly header: string
  /** The bytes written for a chunk's lines, which it takes as its own; without it, the lines themselves. */
  readonly body?: (lines: Uint8Array) => Uint8Array
  /**
   * Written after the last chunk. An output that ends with one is written whole: a run writing it
   * cannot be resumed, since the first run never wrote its end.
   */
  readonly footer?: () => Uint8Array
  /** What the output is, for that refusal. */
  readonly name: string
}

export const framingOf = (target: OutputTarget): Framing => {
  if (target.to === "csv") return { name: "a CSV file", header: `${csvLine(scanColumns(target.units).map((c) => c.name))}\n` }
  if (target.to === "parquet") {
    const rows = parquetRows(target.units)
    return { name: "a Parquet file", header: "", body: rows.add, footer: rows.end }
  }
  return { name: `${target.to} output`, header: "" }
}
