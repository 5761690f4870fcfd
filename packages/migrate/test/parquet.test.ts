/**
 * `migrate({ to: "parquet" })`: the rows of `scanColumns` in a Parquet file with real types, read
 * back by an independent reader (hyparquet) and compared, value by value, with the scans' own,
 * over more than one row group.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { parquetMetadata, parquetReadObjects } from "hyparquet"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, FastCheck as fc, Layer } from "effect"
import { type LengthUnit, Scan, stringifyScan } from "@scanbridge/model"
import { Normalizer, migrate, scanColumns } from "../src/index.js"
import { ROW_GROUP } from "../src/internal/parquet.js"
import { withInputFile } from "./input-file.js"

const layer = Layer.mergeAll(NodeContext.layer, Normalizer.default)

const toParquet = (file: string, units?: LengthUnit) =>
  Effect.gen(function* () {
    const parts: Array<Uint8Array> = []
    const report = yield* migrate({
      inputs: [file],
      to: "parquet",
      ...(units === undefined ? {} : { units }),
      output: (t) => Effect.sync(() => void parts.push(typeof t === "string" ? new TextEncoder().encode(t) : t.slice()))
    })
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
    let at = 0
    for (const p of parts) {
      bytes.set(p, at)
      at += p.length
    }
    return { buffer: bytes.buffer, report }
  }).pipe(Effect.provide(layer))

/** What a cell reads back as: a timestamp as the instant (hyparquet gives a Date), -0 as 0. */
const expected = (type: string, cell: string | number | null) =>
  cell === null ? null : type === "timestamp" ? new Date(cell).getTime() : cell === 0 ? 0 : cell
const read = (type: string, value: unknown) =>
  value instanceof Date ? value.getTime() : type === "integer" && typeof value === "bigint" ? Number(value) : value === 0 ? 0 : value

describe("migrate to parquet", () => {
  it("writes every scan's row with real types, read back by hyparquet value by value, in any unit", () =>
    fc.assert(
      fc.asyncProperty(fc.array(Arbitrary.make(Scan), { minLength: 1, maxLength: 12 }), fc.constantFrom<LengthUnit>("mm", "cm", "in"), (scans, units) =>
        withInputFile(scans.map((s) => stringifyScan(s)).join("\n"), async (file) => {
          const { buffer, report } = await Effect.runPromise(toParquet(file, units))
          expect(report).toMatchObject({ records: scans.length, rejected: 0 })
          const columns = scanColumns(units)
          const rows = await parquetReadObjects({ file: buffer })
          expect(rows).toHaveLength(scans.length)
          scans.forEach((scan, i) => {
            for (const column of columns) expect(read(column.type, rows[i]![column.name])).toBe(expected(column.type, column.value(scan)))
          })
        })
      ),
      { numRuns: 25 }
    ))

  it(
    "declares the types a reader expects, in the columns' order, over several row groups",
    () =>
      withInputFile(
        ((scans) => Array.from({ length: ROW_GROUP * 2 + 5 }, (_, i) => scans[i % scans.length]!).join("\n"))(
          fc.sample(Arbitrary.make(Scan), { numRuns: 50, seed: 18 }).map((s) => stringifyScan(s))
        ),
        async (file) => {
          const { buffer, report } = await Effect.runPromise(toParquet(file))
          expect(report.records).toBe(ROW_GROUP * 2 + 5)
          const metadata = parquetMetadata(buffer)
          expect(Number(metadata.num_rows)).toBe(ROW_GROUP * 2 + 5)
          expect(metadata.row_groups).toHaveLength(3)
          const leaves = metadata.schema.slice(1)
          expect(leaves.map((e) => e.name)).toEqual(scanColumns().map((c) => c.name))
          const typeOf = (name: string) => leaves.find((e) => e.name === name)!
          expect(typeOf("source_id")).toMatchObject({ type: "BYTE_ARRAY", repetition_type: "OPTIONAL" })
          expect(typeOf("age")).toMatchObject({ type: "INT32" })
          expect(typeOf("waist_girth_mm")).toMatchObject({ type: "DOUBLE" })
          expect(typeOf("created_at")).toMatchObject({ type: "INT64", logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" } })
        }
      ),
    60_000
  )
})
