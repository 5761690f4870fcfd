/**
 * `--to parquet`: the rows of `scanColumns` in a Parquet file with real types (text as UTF-8
 * strings, integers as INT32, doubles as DOUBLE, timestamps as INT64 milliseconds adjusted to
 * UTC; every column nullable), through hyparquet-writer. The pipeline (on any thread) writes each
 * scan's cells as a JSON array; here, on the writing thread, they are gathered into row groups of
 * ROW_GROUP rows, each encoded and handed on as bytes as soon as it is full, so memory holds one
 * row group at most. hyparquet-writer was chosen by a measured comparison on 1,000,000 scans
 * (docs/databases.md).
 */
import { ByteWriter, ParquetWriter, type SchemaElement, schemaFromColumnData } from "hyparquet-writer"
import type { LengthUnit } from "@scanbridge/model"
import { type Cell, type ColumnType, scanColumns } from "../table.js"
import { textOf } from "../output.js"

/**
 * Rows per row group: 10,240 (ten chunks). The writer holds a row group's values and pages at
 * once, so larger groups cost memory in proportion, and time, for a file only a little smaller
 * (measured on 1M scans: docs/databases.md).
 */
export const ROW_GROUP = 10_240

const BASIC: Readonly<Record<ColumnType, "STRING" | "INT32" | "DOUBLE" | "TIMESTAMP">> = {
  text: "STRING",
  integer: "INT32",
  double: "DOUBLE",
  timestamp: "TIMESTAMP"
}

/** A Parquet file being written: rows in (one JSON array of cells per line), the file's bytes out. */
export interface ParquetRows {
  /** Takes a chunk's lines; gives the bytes of the row groups they filled (maybe none). */
  readonly add: (lines: Uint8Array) => Uint8Array
  /** The last row group and the footer: the file's last bytes. */
  readonly end: () => Uint8Array
}

export const parquetRows = (units: LengthUnit = "mm"): ParquetRows => {
  const columns = scanColumns(units)
  const schema: Array<SchemaElement> = schemaFromColumnData({
    columnData: columns.map((c) => ({ name: c.name, data: [], type: BASIC[c.type], nullable: true }))
  })
  // The logical type of a UTC instant, so that readers (DuckDB, Arrow) read a timestamp with a time zone.
  for (const element of schema)
    if (element.converted_type === "TIMESTAMP_MILLIS") element.logical_type = { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" }
  const bytes = new ByteWriter()
  const writer = new ParquetWriter({ writer: bytes, schema, codec: "SNAPPY", createdBy: "scanbridge" })
  let held: Array<Array<Cell | Date>> = columns.map(() => [])
  let rows = 0
  const timestamps = columns.map((c) => c.type === "timestamp")
  /** What the writer has written since it was last taken. */
  const take = (): Uint8Array => {
    const out = new Uint8Array(bytes.buffer, 0, bytes.index).slice()
    bytes.index = 0
    return out
  }
  const flush = () => {
    if (rows === 0) return
    void writer.write({ columnData: columns.map((c, i) => ({ name: c.name, data: held[i]! })), rowGroupSize: rows })
    held = columns.map(() => [])
    rows = 0
  }
  return {
    add(lines) {
      for (const line of textOf(lines).split("\n")) {
        if (line === "") continue
        const cells = JSON.parse(line) as ReadonlyArray<Cell>
        for (let i = 0; i < cells.length; i++) {
          const cell = cells[i]!
          held[i]!.push(timestamps[i] && typeof cell === "string" ? new Date(cell) : cell)
        }
        if (++rows === ROW_GROUP) flush()
      }
      return take()
    },
    end() {
      flush()
      void writer.finish()
      return take()
    }
  }
}
