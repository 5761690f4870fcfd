/**
 * Every documented variant of a platform record is read on the fast path: compiled guards only,
 * no Effect Schema decode and no DecodeError built for a record that is accepted in the end
 * (bulk migrations read millions of them).
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { decodeCounted } from "@scanbridge/model/internal"
import { platformAdapter } from "../src/index.js"

const exported = (file: string) => readFileSync(fileURLToPath(new URL(`../../../examples/export/platform/${file}`, import.meta.url)), "utf8")
const entries = exported("entries.ndjson")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as Record<string, unknown>)
const bare = (record: Record<string, unknown>) => (record["entry"] ?? record) as Record<string, unknown>
const clientLibrary = entries.map(bare).find((e) => typeof (e["bodyComposition"] as { bodyFatPercentage?: unknown } | null)?.bodyFatPercentage === "number")!
const failedClientLibrary = { ...clientLibrary, status: "failure", measurements: null, bodyComposition: null, avatar: null, posture: null }

const VARIANTS: ReadonlyArray<readonly [string, unknown]> = [
  ...entries.map((e, i) => [`examples entry ${i + 1} (${Object.hasOwn(e, "entry") ? "in its envelope" : "bare"})`, e] as const),
  ["a list page", JSON.parse(exported("list-page.json"))],
  ["a client-library entry whose muscle mass is null", { ...clientLibrary, bodyComposition: { bodyFatPercentage: 27.5, skeletalMuscleMass: null } }],
  ["a client-library entry with only its glb avatar to tell it", { ...clientLibrary, bodyComposition: null }],
  ["a failed client-library entry whose error is a string", { ...failedClientLibrary, error: "photoQuality" }],
  ["a failed client-library entry whose error has no code", { ...failedClientLibrary, error: { reason: "blurred" } }],
  ["a failed client-library entry whose error code is a number", { ...failedClientLibrary, error: { code: 7, message: "x" } }],
  ["a failed client-library entry in its envelope", { entry: { ...failedClientLibrary, error: "photoQuality" } }],
  ["a failed REST entry without an error", { ...bare(entries.find((e) => bare(e)["status"] === "failure")!), error: null }]
]

describe("the fast path", () => {
  it.each(VARIANTS)("reads %s with no Schema decode and no DecodeError", (_, json) => {
    const { detected, result, schemaDecodes, decodeErrors } = decodeCounted(platformAdapter.formats, json)
    expect(detected).toHaveLength(1)
    expect(result !== undefined && Either.isRight(result)).toBe(true)
    expect({ schemaDecodes, decodeErrors }).toEqual({ schemaDecodes: 0, decodeErrors: 0 })
  })

  it("still says why an entry neither variant reads is refused, in the REST API's terms", () => {
    const { detected, result } = decodeCounted(platformAdapter.formats, { ...failedClientLibrary, error: 42, bodyComposition: { bodyFatPercentage: "27.5" } })
    expect(detected).toHaveLength(1)
    expect(result !== undefined && Either.isLeft(result) && result.left.format).toBe("platform entry")
  })
})
