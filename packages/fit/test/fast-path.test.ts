/**
 * Every documented variant of a fit estimation result is read on the fast path: no Effect
 * Schema decode and no DecodeError built for a record that is accepted in the end.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { decodeCounted } from "@scanbridge/model/internal"
import { fitAdapter } from "../src/index.js"

const estimations = readFileSync(fileURLToPath(new URL("../../../examples/export/fit/estimations.ndjson", import.meta.url)), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as unknown)

/** Every key in the proto field names' spelling, as a proto3 parser also accepts. */
const snakeCase = (json: unknown): unknown =>
  Array.isArray(json)
    ? json.map(snakeCase)
    : typeof json === "object" && json !== null
      ? Object.fromEntries(Object.entries(json).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeCase(v)]))
      : json

const VARIANTS: ReadonlyArray<readonly [string, unknown]> = [
  ...estimations.map((e, i) => [`examples result ${i + 1}`, e] as const),
  ...estimations.map((e, i) => [`examples result ${i + 1} in snake_case`, snakeCase(e)] as const)
]

describe("the fast path", () => {
  it.each(VARIANTS)("reads %s with no Schema decode, no DecodeError and no key-by-key read", (_, json) => {
    const { detected, result, schemaDecodes, decodeErrors, proto3ReferenceReads } = decodeCounted(fitAdapter.formats, json)
    expect(detected).toHaveLength(1)
    expect(result !== undefined && Either.isRight(result)).toBe(true)
    expect({ schemaDecodes, decodeErrors, proto3ReferenceReads }).toEqual({ schemaDecodes: 0, decodeErrors: 0, proto3ReferenceReads: 0 })
  })
})
