/**
 * Governed code generation, seen from a package a user imports: nothing is generated on import,
 * the first use generates, `Codegen.configure({ jitless: true })` generates nothing at all, a
 * runtime that refuses `new Function` is asked once, and every way gives the same results.
 * Each case runs in a fresh process (test/codegen-child.ts), since the guards are per process.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const repo = fileURLToPath(new URL("../../..", import.meta.url))
const CHILD = fileURLToPath(new URL("./codegen-child.ts", import.meta.url))
const TIMEOUT = 60_000

interface Run {
  readonly onImport: number
  readonly afterUse: number
  readonly results: ReadonlyArray<unknown>
}

const run = (lines: ReadonlyArray<unknown>, options: { readonly jitless?: boolean; readonly nodeFlags?: ReadonlyArray<string> } = {}): Run =>
  JSON.parse(
    execFileSync(process.execPath, [...(options.nodeFlags ?? []), "--import", "tsx", CHILD, ...(options.jitless ? ["--jitless"] : [])], {
      cwd: repo,
      input: lines.map((l) => `${JSON.stringify(l)}\n`).join(""),
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024
    })
  ) as Run

const EXPORT = join(repo, "examples", "export")
const ndjson = (file: string) => readFileSync(join(EXPORT, file), "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as unknown)
/** A record of each source format and generation in the example export. */
const EXAMPLES: ReadonlyArray<unknown> = [
  ...ndjson("platform/entries.ndjson"),
  JSON.parse(readFileSync(join(EXPORT, "platform/list-page.json"), "utf8")) as unknown,
  ...(JSON.parse(readFileSync(join(EXPORT, "session/results.json"), "utf8")) as Array<unknown>),
  ...ndjson("estimation/read-responses.ndjson"),
  ...ndjson("fit/estimations.ndjson")
]

/** An example record with one leaf replaced, one key removed or added: mostly almost valid. */
const mutated: fc.Arbitrary<unknown> = fc
  .tuple(fc.constantFrom(...EXAMPLES), fc.array(fc.nat(), { maxLength: 6 }), fc.oneof(fc.jsonValue(), fc.constantFrom(-0, -1, 1.5, "", null, 1e300)), fc.nat())
  .map(([value, path, replacement, how]) => {
    const go = (v: unknown, p: ReadonlyArray<number>): unknown => {
      if (p.length === 0 || typeof v !== "object" || v === null) return replacement
      const keys = Object.keys(v)
      if (keys.length === 0) return replacement
      const key = keys[p[0]! % keys.length]!
      const copy = (Array.isArray(v) ? [...v] : { ...v }) as Record<string, unknown>
      if (how % 7 === 6 && p.length === 1) delete copy[key]
      else if (how % 7 === 5 && p.length === 1 && !Array.isArray(v)) copy[`extra${how}`] = replacement
      else copy[key] = go((v as Record<string, unknown>)[key], p.slice(1))
      return copy
    }
    return go(value, path)
  })

// Each way runs once, over the examples and then the arbitrary records.
const ARBITRARY = [...fc.sample(mutated, { numRuns: 2_000, seed: 15 }), ...fc.sample(fc.jsonValue(), { numRuns: 200, seed: 15 })]
let generated: Run
let jitless: Run
let refused: Run
beforeAll(() => {
  generated = run([...EXAMPLES, ...ARBITRARY])
  jitless = run([...EXAMPLES, ...ARBITRARY], { jitless: true })
  // Node's switch for what a strict CSP does in a browser: every `new Function` throws EvalError.
  refused = run(EXAMPLES, { nodeFlags: ["--disallow-code-generation-from-strings"] })
}, TIMEOUT)

const migrated = (results: ReadonlyArray<unknown>) => results.filter((r) => typeof r === "object" && r !== null && "scans" in r).length

describe("code generation in @scanbridge/migrate", () => {
  it("generates nothing on import, and generates its guards on first use", () => {
    expect(generated.onImport).toBe(0)
    expect(generated.afterUse).toBeGreaterThan(0)
    expect(migrated(generated.results.slice(0, EXAMPLES.length))).toBeGreaterThan(EXAMPLES.length / 2)
  })

  it("generates nothing at all when jitless", () => {
    expect(jitless.onImport).toBe(0)
    expect(jitless.afterUse).toBe(0)
  })

  it("asks a runtime that refuses code generation once, and then uses the closures", () => {
    expect(refused.onImport).toBe(0)
    expect(refused.afterUse).toBe(1)
    expect(refused.results).toEqual(generated.results.slice(0, EXAMPLES.length))
  })

  it("gives the same scans and the same errors jitless as with generated code, on arbitrary records", () => {
    const inputs = [...EXAMPLES, ...ARBITRARY]
    expect(jitless.results.length).toBe(inputs.length)
    inputs.forEach((input, i) => {
      expect({ input, result: jitless.results[i] }).toEqual({ input, result: generated.results[i] })
    })
    // Both outcomes are well represented: the property is not only about rejects.
    const arbitrary = generated.results.slice(EXAMPLES.length)
    expect(migrated(arbitrary)).toBeGreaterThan(arbitrary.length / 10)
    expect(migrated(arbitrary)).toBeLessThan(arbitrary.length * 0.95)
  })
})
