/** What each platform format's shape test accepts: the envelope holds an entry and nothing else. */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { platformAdapter } from "../src/index.js"

const entries = readFileSync(fileURLToPath(new URL("../../../examples/export/platform/entries.ndjson", import.meta.url)), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as Record<string, unknown>)
const enveloped = entries.filter((e) => Object.hasOwn(e, "entry"))
const envelope = platformAdapter.formats.find((f) => f.name === "platform entry envelope")!

describe("the platform entry envelope's shape test", () => {
  it("accepts each example envelope", () => {
    expect(enveloped.length).toBeGreaterThan(0)
    for (const e of enveloped) expect(envelope.detect(e)).toBe(true)
  })

  it("refuses an envelope with another key beside its entry, a bare entry, and an entry that is no entry", () => {
    for (const e of enveloped) {
      expect(envelope.detect({ ...e, requestId: "r-1" })).toBe(false)
      expect(envelope.detect({ requestId: "r-1", ...e })).toBe(false)
      expect(envelope.detect(e["entry"])).toBe(false)
    }
    expect(envelope.detect({ entry: "scan_1" })).toBe(false)
    expect(envelope.detect({ entry: { id: "scan_1" } })).toBe(false)
  })
})
