/**
 * `migrate({ to: "csv" })`: one RFC 4180 row per scan under a header, read back by an
 * independent parser (csv-parse) and compared, cell by cell, with the scan's own values.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { parse } from "csv-parse/sync"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, FastCheck as fc, Layer } from "effect"
import { type LengthUnit, Scan, convertLength, stringifyScan } from "@scanbridge/model"
import { Normalizer, type Report, migrate, scanColumns, textOf } from "../src/index.js"
import { withInputFile } from "./input-file.js"

const layer = Layer.mergeAll(NodeContext.layer, Normalizer.default)

const toCsv = (inputs: ReadonlyArray<string>, units?: LengthUnit) =>
  Effect.gen(function* () {
    let out = ""
    const report: Report = yield* migrate({
      inputs,
      to: "csv",
      ...(units === undefined ? {} : { units }),
      output: (t) => Effect.sync(() => void (out += textOf(t)))
    })
    return { out, report }
  }).pipe(Effect.provide(layer))

/** The CSV's rows, an unquoted empty field as null (a value the scan lacks), a quoted one as "". */
const read = (csv: string): Array<Array<string | null>> =>
  parse(csv, { cast: (value, context) => (value === "" && !context.quoting ? null : value), record_delimiter: "\r\n" })

describe("migrate to csv", () => {
  it("writes a header of the columns, then one row per scan holding its own values, in any unit", () =>
    fc.assert(
      fc.asyncProperty(fc.array(Arbitrary.make(Scan), { maxLength: 12 }), fc.constantFrom<LengthUnit>("mm", "cm", "in"), (scans, units) =>
        withInputFile(scans.map((s) => stringifyScan(s)).join("\n"), async (file) => {
          const { out, report } = await Effect.runPromise(toCsv([file], units))
          expect(report).toMatchObject({ records: scans.length, rejected: 0, scans: scans.length })
          // RFC 4180: every record, the last included, ends with CRLF.
          expect(out.endsWith("\r\n")).toBe(true)
          const columns = scanColumns(units)
          const [header, ...rows] = read(out)
          expect(header).toEqual(columns.map((c) => c.name))
          expect(rows).toHaveLength(scans.length)
          scans.forEach((scan, i) => {
            columns.forEach((column, j) => {
              const cell = column.value(scan)
              const read = rows[i]![j]
              if (cell === null || typeof cell === "string") expect(read).toBe(cell)
              // A number as JavaScript prints it, so -0 reads back as 0.
              else expect(Number(read)).toBe(cell === 0 ? 0 : cell)
            })
          })
        })
      ),
      { numRuns: 40 }
    ))

  it("names the length columns by their unit, and converts them with the model's units", () =>
    withInputFile(stringifyScan(fc.sample(Arbitrary.make(Scan), { numRuns: 1, seed: 7 })[0]!), async (file) => {
      const mm = read((await Effect.runPromise(toCsv([file]))).out)
      const inches = read((await Effect.runPromise(toCsv([file], "in"))).out)
      const at = (name: string) => mm[0]!.indexOf(name)
      expect(inches[0]!).toContain("height_in")
      expect(inches[0]!).toContain("waist_girth_in")
      expect(inches[0]!).toContain("weight_g")
      for (const name of ["height", "waist_girth", "hip_girth"]) {
        const value = mm[1]![at(`${name}_mm`)]
        const converted = inches[1]![inches[0]!.indexOf(`${name}_in`)]
        expect(converted === null ? null : Number(converted)).toBe(value == null ? null : convertLength(Number(value), "mm", "in"))
      }
    }))

  it("is a header alone for an input with no scans, and refuses units for a JSON target", async () => {
    await withInputFile("", async (file) => {
      const { out } = await Effect.runPromise(toCsv([file], "cm"))
      expect(read(out)).toEqual([scanColumns("cm").map((c) => c.name)])
      const refused = await Effect.runPromise(
        Effect.flip(migrate({ inputs: [file], to: "platform", units: "cm", output: () => Effect.void })).pipe(Effect.provide(layer))
      )
      expect(refused).toMatchObject({ _tag: "MigratePlanError", option: "units" })
      expect(refused.message).toContain('units "cm": only to csv, parquet or fhir writes lengths in a chosen unit; platform has its own')
      // A caller without types (the plain API's) gets a typed error for a unit that is none.
      const feet = await Effect.runPromise(
        Effect.flip(migrate({ inputs: [file], to: "csv", units: "feet" as LengthUnit, output: () => Effect.void })).pipe(Effect.provide(layer))
      )
      // A unit is no target: the error says which option is wrong.
      expect(feet).toMatchObject({ _tag: "MigratePlanError", option: "units", message: 'units "feet": expected one of mm, cm, in' })
    })
  })
})
