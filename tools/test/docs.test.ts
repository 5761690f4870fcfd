import { describe, expect, it } from "vitest"
import { GENERATED, readCurrent, replaceRegion } from "../docs/generated.js"

describe("generated docs", () => {
  it.each(GENERATED.map((f) => [f.path, f] as const))("%s matches what pnpm run docs would write", (_path, file) => {
    const current = readCurrent(file)
    expect(current, "run `pnpm run docs` and commit the result").toBe(file.render(current))
  })

  it("replaces only the marked region", () => {
    const doc = "a\n<!-- generated:x -->\nold\n<!-- /generated:x -->\nb\n"
    expect(replaceRegion(doc, "x", "new")).toBe("a\n<!-- generated:x -->\n\nnew\n\n<!-- /generated:x -->\nb\n")
    expect(() => replaceRegion(doc, "y", "new")).toThrow(/generated region y/)
  })
})
