/**
 * Every documented variant of an estimation record is read on the fast path: no Effect Schema
 * decode and no DecodeError built for a record that is accepted in the end.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { decodeCounted } from "@scanbridge/model/internal"
import { estimationAdapter } from "../src/index.js"

const responses = readFileSync(fileURLToPath(new URL("../../../examples/export/estimation/read-responses.ndjson", import.meta.url)), "utf8")
  .trim()
  .split("\n")
  .map(
    (l) =>
      JSON.parse(l) as {
        readonly measurements: ReadonlyArray<{ readonly status: string; readonly created_at: string; readonly estimation: { readonly status?: string } }>
      }
  )

const what = (r: (typeof responses)[number]): string => {
  const item = r.measurements[0]!
  return `${item.status}${item.estimation.status === undefined ? "" : `, ${item.estimation.status}`}, created_at ${item.created_at}`
}

const VARIANTS: ReadonlyArray<readonly [string, unknown]> = [
  ...responses.map((r, i) => [`examples response ${i + 1} (${what(r)})`, r] as const),
  ...responses.map((r, i) => [`the item of examples response ${i + 1} (${what(r)})`, r.measurements[0]] as const)
]

describe("the fast path", () => {
  it.each(VARIANTS)("reads %s with no Schema decode and no DecodeError", (_, json) => {
    const { detected, result, schemaDecodes, decodeErrors } = decodeCounted(estimationAdapter.formats, json)
    expect(detected).toHaveLength(1)
    expect(result !== undefined && Either.isRight(result)).toBe(true)
    expect({ schemaDecodes, decodeErrors }).toEqual({ schemaDecodes: 0, decodeErrors: 0 })
  })
})
