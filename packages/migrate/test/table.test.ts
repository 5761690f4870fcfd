/**
 * A canonical scan as a table's row (src/table.ts): the columns' names, order and types, and
 * every scan's row, checked against the scan it came from.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc } from "effect"
import { MEASUREMENT_NAMES, POSTURE_FRONT, POSTURE_RIGHT, Scan } from "@scanbridge/model"
import { SCAN_COLUMNS, scanRow, snakeCase } from "../src/table.js"

describe("the scan table's columns", () => {
  it("are unique snake_case names: identity, subject, measurements in catalogue order, composition, posture, notes", () => {
    const names = SCAN_COLUMNS.map((c) => c.name)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]*$/)
    expect(names.slice(0, 10)).toEqual(["source_api", "source_id", "external_id", "status", "created_at", "method", "age", "gender", "height_mm", "weight_g"])
    expect(names.slice(10, 10 + MEASUREMENT_NAMES.length)).toEqual(MEASUREMENT_NAMES.map((n) => `${snakeCase(n)}_mm`))
    expect(names.filter((n) => n.startsWith("posture_front_"))).toHaveLength(POSTURE_FRONT.length)
    expect(names.filter((n) => n.startsWith("posture_right_"))).toHaveLength(POSTURE_RIGHT.reduce((sum, p) => sum + p.points - 1, 0))
    expect(names.at(-1)).toBe("note_count")
    expect(snakeCase("backNeckPointToWristR")).toBe("back_neck_point_to_wrist_r")
  })

  it("give every scan a row of their types, holding the scan's own values", () => {
    fc.assert(
      fc.property(Arbitrary.make(Scan), (scan) => {
        const row = scanRow(scan)
        expect(row).toHaveLength(SCAN_COLUMNS.length)
        SCAN_COLUMNS.forEach((column, i) => {
          const cell = row[i]
          if (cell === null) return
          if (column.type === "text") expect(typeof cell).toBe("string")
          if (column.type === "timestamp") expect(Number.isNaN(Date.parse(cell as string))).toBe(false)
          if (column.type === "integer") expect(Number.isInteger(cell)).toBe(true)
          if (column.type === "double") expect(Number.isFinite(cell)).toBe(true)
        })
        const cell = (name: string) => row[SCAN_COLUMNS.findIndex((c) => c.name === name)]
        for (const name of MEASUREMENT_NAMES) expect(cell(`${snakeCase(name)}_mm`)).toBe(scan.measurementsMm[name] ?? null)
        expect(cell("source_id")).toBe(scan.source.id)
        expect(cell("note_count")).toBe(scan.notes.length)
        expect(cell("posture_right_body_line_4_degrees")).toBe(scan.posture?.right?.angles.bodyLine?.[3] ?? null)
      })
    )
  })
})
