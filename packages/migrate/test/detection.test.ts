/**
 * Detection over any collection: exactly one format's detect must hold. The normalizer settles
 * that in one generated function (a loop where code is not generated); these properties hold
 * both to the rule as UnknownFormatError states it, whatever the detects answer or throw.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { type Adapter, Codegen, DecodeError, type ScanFormat, UnknownFormatError } from "@scanbridge/model"
import { Normalizer, type NormalizerService } from "../src/index.js"

const FORMATS = 5

/** The calls to the formats' detects so far. */
let detectCalls = 0

/** Format i holds where the record has a true `k<i>`; `throw<i>` makes its detect throw instead. */
const formatOf = (i: number): ScanFormat => ({
  name: `format ${i}`,
  api: `api${i}`,
  detect: (json) => {
    detectCalls++
    if (typeof json !== "object" || json === null) return false
    const record = json as Record<string, unknown>
    if (record[`throw${i}`] === true) throw new Error(`detect ${i} failed`)
    return record[`k${i}`] === true
  },
  // The decoder's answer names it, so a test sees which format decoded.
  decode: (json) => Either.left(DecodeError.at(`format ${i}`, [], json, `decoded as format ${i}`))
})

const adapters: ReadonlyArray<Adapter> = Array.from({ length: FORMATS }, (_, i) => ({
  name: `api${i}`,
  formats: [formatOf(i)],
  encoder: { target: `api${i}`, encode: () => Either.right({ value: null, notes: [] }) }
}))

const make = (): NormalizerService => Either.getOrThrow(Normalizer.make(adapters))
const generated = make()
const looped = (() => {
  // Built with code generation off: the loop that stands in for the generated function.
  Codegen.configure({ jitless: true })
  try {
    return make()
  } finally {
    Codegen.configure({ jitless: false })
  }
})()

const key = fc.oneof(
  fc.integer({ min: 0, max: FORMATS - 1 }).map((i) => `k${i}`),
  fc.integer({ min: 0, max: FORMATS - 1 }).map((i) => `throw${i}`),
  fc.constantFrom("other", "format")
)
const bare = fc.dictionary(key, fc.oneof(fc.boolean(), fc.constant(1), fc.constant("scanbridge.scan/v1")), { maxKeys: 4 })
const record = fc.oneof(
  { weight: 4, arbitrary: bare },
  fc.record({ source: fc.constantFrom("api1", "format 3", "nobody"), payload: bare }),
  fc.constantFrom(null, 1, "text", [])
)

/** What the rule says of a bare record: the one format that holds, or the error naming them. */
const expected = (n: NormalizerService, json: unknown): { readonly format: string } | { readonly message: string } => {
  const tried = n.formats.map((f) => f.name)
  const matched: Array<string> = []
  try {
    for (const f of n.formats) if (f.detect(json)) matched.push(f.name)
  } catch (e) {
    return { message: UnknownFormatError.unreadable(tried, json, e).message }
  }
  if (matched.length === 1) return { format: matched[0]! }
  return { message: (matched.length === 0 ? UnknownFormatError.unknown(tried, json) : UnknownFormatError.ambiguous(tried, matched, json)).message }
}

/** An answer as text: the error's message, or the value's JSON. */
const answer = (result: Either.Either<unknown, { readonly message: string }>): string =>
  Either.isLeft(result) ? result.left.message : JSON.stringify(result.right)

const isEnvelope = (json: unknown): boolean => typeof json === "object" && json !== null && "source" in json

describe.each([
  ["generated", generated],
  ["looped (no code generation)", looped]
])("detection, %s", (_, n) => {
  it.prop(
    "detects and normalizes a bare record as the rule says: its one format, or no format, several or an unreadable one named",
    [record],
    ([json]) => {
      const detected = n.detect(json)
      if (isEnvelope(json)) {
        // An envelope names its format: normalize answers as detect and that format's decode do.
        expect(answer(n.normalize(json))).toBe(Either.isLeft(detected) ? detected.left.message : answer(detected.right.format.decode(detected.right.payload)))
        return
      }
      const rule = expected(n, json)
      if ("format" in rule) {
        const format = Either.getOrThrow(detected).format
        expect(format.name).toBe(rule.format)
        expect(answer(n.normalize(json))).toBe(answer(format.decode(json)))
      } else {
        expect(answer(detected)).toBe(rule.message)
        expect(answer(n.normalize(json))).toBe(rule.message)
      }
    },
    { fastCheck: { numRuns: 3000, seed: 34 } }
  )

  it("answers a record two formats claim as ambiguous, naming both in order, and decodes with neither", () => {
    const json = { k3: true, k1: true }
    const error = Either.getOrThrow(Either.flip(n.normalize(json)))
    expect(error).toBeInstanceOf(UnknownFormatError)
    expect(error.message).toBe(
      UnknownFormatError.ambiguous(
        n.formats.map((f) => f.name),
        ["format 1", "format 3"],
        json
      ).message
    )
  })

  it("answers a record no format holds after two passes over the detects: the single match, then which ones hold", () => {
    const json = { other: true }
    const unknown = UnknownFormatError.unknown(
      n.formats.map((f) => f.name),
      json
    ).message
    for (const run of [(j: unknown) => answer(n.normalize(j)), (j: unknown) => answer(n.detect(j))]) {
      detectCalls = 0
      expect(run(json)).toBe(unknown)
      expect(detectCalls).toBe(2 * FORMATS)
    }
  })

  it("answers a detect that throws with a typed error, never a throw, even where another format holds", () => {
    const json = { k0: true, throw4: true }
    expect(() => n.normalize(json)).not.toThrow()
    expect(Either.getOrThrow(Either.flip(n.normalize(json))).message).toMatch(/^cannot tell the format: .*detect 4 failed/)
  })
})
