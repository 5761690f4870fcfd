import { describe, expect, it } from "vitest"
import { summarize } from "../bench-profile.js"

// A bundle as esbuild writes it, unminified: each module headed by its path.
const BUNDLE = [
  "import x from 'y';", // line 0: before any module
  "// packages/model/src/internal/walk.ts",
  "function walk() {}",
  "// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Schema.js",
  "function decode() {}",
  "// packages/migrate/src/internal/pipeline.ts",
  "function loop() {}"
].join("\n")

const frame = (functionName: string, url: string, lineNumber: number) => ({ functionName, url, lineNumber })

describe("the bench's profile summary", () => {
  it("adds each sample's time to the source file its line is in, grouped by package, with V8's entries and generated code apart", () => {
    const nodes = [
      { id: 1, callFrame: frame("walk", "file:///tmp/x/scanbridge.mjs", 2) },
      { id: 2, callFrame: frame("decode", "file:///tmp/x/scanbridge.mjs", 4) },
      { id: 3, callFrame: frame("loop", "file:///tmp/x/scanbridge.mjs", 6) },
      { id: 4, callFrame: frame("(garbage collector)", "", -1) },
      { id: 5, callFrame: frame("guard", "scanbridge-guard/Entry-3.js", 3) },
      { id: 6, callFrame: frame("readFileUtf8", "node:fs", 10) }
    ]
    const { total, byGroup, byFile, byFunction } = summarize(
      { nodes, samples: [1, 2, 3, 3, 4, 5, 6], timeDeltas: [10, 20, 30, 30, 5, 4, 1] },
      BUNDLE,
      "scanbridge.mjs"
    )
    expect(total).toBe(100)
    expect(Object.fromEntries(byGroup.map((s) => [s.name, s.micros]))).toEqual({
      "@scanbridge/migrate": 60,
      effect: 20,
      "@scanbridge/model": 10,
      "(garbage collector)": 5,
      "@scanbridge/model, generated code": 4,
      "node's own modules": 1
    })
    expect(byFile[0]).toEqual({ name: "packages/migrate/src/internal/pipeline.ts", micros: 60 })
    expect(byFile.map((s) => s.name)).toContain("generated guard")
    expect(byFunction[0]).toEqual({ name: "loop (packages/migrate/src/internal/pipeline.ts)", micros: 60 })
  })
})
