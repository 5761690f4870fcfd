/**
 * Every documented variant of a session record is read on the fast path: no Effect Schema decode
 * and no DecodeError built for a record that is accepted in the end. A snake_case record, or one
 * with enum numbers, is rewritten and checked by the proto3 reader's generated one pass, not read
 * key by key.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { decodeCounted } from "@scanbridge/model/internal"
import { sessionAdapter } from "../src/index.js"

const results = JSON.parse(
  readFileSync(fileURLToPath(new URL("../../../examples/export/session/results.json", import.meta.url)), "utf8")
) as ReadonlyArray<unknown>

/** Every key in the proto field names' spelling, as a proto3 parser also accepts: `scanning_session_id`. */
const snakeCase = (json: unknown): unknown =>
  Array.isArray(json)
    ? json.map(snakeCase)
    : typeof json === "object" && json !== null
      ? Object.fromEntries(Object.entries(json).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeCase(v)]))
      : json

const form = (record: unknown): string => ["results", "pending", "error"].find((k) => Object.hasOwn(record as object, k)) ?? "?"

const VARIANTS: ReadonlyArray<readonly [string, unknown]> = [
  ...results.map((r, i) => [`examples record ${i + 1} (${form(r)})`, r] as const),
  ...results.map((r, i) => [`examples record ${i + 1} (${form(r)}) in snake_case`, snakeCase(r)] as const),
  ["an error given by its ErrorType number", { scanningSessionId: "s", error: { errorType: 0, message: "x" } }],
  ["a pending record without its expiry", { scanning_session_id: "s", pending: {} }]
]

describe("the fast path", () => {
  it.each(VARIANTS)("reads %s with no Schema decode, no DecodeError and no key-by-key read", (_, json) => {
    const { detected, result, schemaDecodes, decodeErrors, proto3ReferenceReads } = decodeCounted(sessionAdapter.formats, json)
    expect(detected).toHaveLength(1)
    expect(result !== undefined && Either.isRight(result)).toBe(true)
    expect({ schemaDecodes, decodeErrors, proto3ReferenceReads }).toEqual({ schemaDecodes: 0, decodeErrors: 0, proto3ReferenceReads: 0 })
  })
})
