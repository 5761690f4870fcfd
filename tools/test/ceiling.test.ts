/**
 * The bench's one-pass ceiling (tools/ceiling/) times what normalize answers, no less: on every
 * bench record of its format it gives normalize's scans byte for byte, and it leaves to normalize
 * (answers undefined) every record off the common path rather than answer it otherwise.
 */
import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { defaultNormalizer } from "@scanbridge/migrate"
import { pathsOf, valueAt, withValueAt } from "../../packages/model/test/json-paths.js"
import { templates } from "../bench-inputs.js"
import { recordsOf } from "../bench-pairs.js"
import { readEstimationItem } from "../ceiling/estimation-read-item.js"
import { repoRoot } from "../docs/generated.js"

const lines = recordsOf(templates(repoRoot).estimationItem, 64)
const normalized = (json: unknown) => JSON.stringify(Either.getOrThrow(defaultNormalizer.normalize(json)))

type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }

describe("the one-pass ceiling of estimation read items", () => {
  it("reads every bench record, each to normalize's bytes", () => {
    for (const line of lines) {
      const json = JSON.parse(line) as Json
      const read = readEstimationItem(json)
      expect(read, line).toBeDefined()
      expect(JSON.stringify(read)).toBe(normalized(json))
    }
  })

  it("answers any changed record as normalize does, or leaves it to normalize", () => {
    const records = lines.slice(0, 8).map((l) => JSON.parse(l) as Json)
    const values: ReadonlyArray<Json> = [null, -1, 0, 1.5, 7, 70, 71, 400, 5000, 1e9, "", "x", "2026-11-22 06:00:38", true, [], {}]
    const mutated = fc.tuple(fc.nat(), fc.nat(), fc.constantFrom(...values), fc.boolean()).map(([r, p, value, rename]) => {
      const record = records[r % records.length]!
      const paths = pathsOf(record).filter((path) => path.length > 0)
      const path = paths[p % paths.length]!
      if (!rename) return withValueAt(record, path, value)
      // A key renamed: the same value under a name the schema does not have.
      const parent = path.slice(0, -1)
      const key = path[path.length - 1]!
      if (typeof key === "number") return withValueAt(record, path, value)
      const copy = structuredClone(record)
      const o = valueAt(copy, parent) as Record<string, Json>
      o[`${key}_x`] = o[key]!
      delete o[key]
      return copy
    })
    let read = 0
    fc.assert(
      fc.property(mutated, (json) => {
        const answer = readEstimationItem(json)
        if (answer === undefined) return
        read++
        expect(JSON.stringify(answer)).toBe(normalized(json))
      }),
      { numRuns: 2000, seed: 34 }
    )
    // Some changed records stay on the common path (another value in range): they are compared too.
    expect(read).toBeGreaterThan(50)
  })
})
