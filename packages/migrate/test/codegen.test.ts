/**
 * Governed code generation, seen from a package a user imports: nothing is generated on import,
 * the first use generates, `Codegen.configure({ jitless: true })` generates nothing at all, a
 * runtime that refuses `new Function` is asked once, and every way gives the same results.
 * Each case runs in a fresh process (test/codegen-child.ts), since the guards are per process.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { mutatedSample, repo, samples } from "./records.js"

const CHILD = fileURLToPath(new URL("./codegen-child.ts", import.meta.url))
const TIMEOUT = 60_000

interface Run {
  readonly onImport: number
  readonly afterUse: number
  readonly results: ReadonlyArray<unknown>
}

const run = (lines: ReadonlyArray<unknown>, options: { readonly jitless?: boolean; readonly nodeFlags?: ReadonlyArray<string> } = {}): Run =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [...(options.nodeFlags ?? []), "--conditions=@scanbridge/source", "--import", "tsx", CHILD, ...(options.jitless ? ["--jitless"] : [])],
      {
        cwd: repo,
        input: lines.map((l) => `${JSON.stringify(l)}\n`).join(""),
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024
      }
    )
  ) as Run

// Each way runs once, over a valid record of every format (the samples) and then arbitrary records.
const ARBITRARY = [...fc.sample(mutatedSample, { numRuns: 2_000, seed: 15 }), ...fc.sample(fc.jsonValue(), { numRuns: 200, seed: 15 })]
let generated: Run
let jitless: Run
let refused: Run
beforeAll(() => {
  generated = run([...samples, ...ARBITRARY])
  jitless = run([...samples, ...ARBITRARY], { jitless: true })
  // Node's switch for what a strict CSP does in a browser: every `new Function` throws EvalError.
  refused = run(samples, { nodeFlags: ["--disallow-code-generation-from-strings"] })
}, TIMEOUT)

const migrated = (results: ReadonlyArray<unknown>) => results.filter((r) => typeof r === "object" && r !== null && "scans" in r).length

describe("code generation in @scanbridge/migrate", () => {
  it("generates nothing on import, and generates its guards on first use", () => {
    expect(generated.onImport).toBe(0)
    expect(generated.afterUse).toBeGreaterThan(0)
    expect(migrated(generated.results.slice(0, samples.length))).toBeGreaterThan(samples.length / 2)
  })

  it("generates nothing at all when jitless", () => {
    expect(jitless.onImport).toBe(0)
    expect(jitless.afterUse).toBe(0)
  })

  it("asks a runtime that refuses code generation once, and then uses the closures", () => {
    expect(refused.onImport).toBe(0)
    expect(refused.afterUse).toBe(1)
    expect(refused.results).toEqual(generated.results.slice(0, samples.length))
  })

  it("gives the same scans and the same errors jitless as with generated code, on arbitrary records", () => {
    const inputs = [...samples, ...ARBITRARY]
    expect(jitless.results.length).toBe(inputs.length)
    inputs.forEach((input, i) => {
      expect({ input, result: jitless.results[i] }).toEqual({ input, result: generated.results[i] })
    })
    // Both outcomes are well represented: the property is not only about rejects.
    const arbitrary = generated.results.slice(samples.length)
    expect(migrated(arbitrary)).toBeGreaterThan(arbitrary.length / 10)
    expect(migrated(arbitrary)).toBeLessThan(arbitrary.length * 0.95)
  })
})
