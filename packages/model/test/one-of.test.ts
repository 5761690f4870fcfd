import { Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { oneOfKeys } from "../src/adapter-kit.js"
import { FastTestId, compileGuard } from "../src/internal/fast.js"

describe("oneOfKeys", () => {
  const keys = ["results", "pending", "error"] as const
  const value = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), fc.record({ a: fc.integer() }))
  const objects = fc.record({ results: value, pending: value, error: value, other: value }, { requiredKeys: [] })

  for (const orNone of [false, true]) {
    it.prop(
      `its fast test and its message agree, and count the keys present (orNone: ${orNone})`,
      [objects],
      ([o]) => {
        const [message, annotations] = oneOfKeys(keys, { orNone })
        const test = (annotations as Record<symbol, (o: object) => boolean>)[FastTestId]!
        const present = keys.filter((k) => (o as Record<string, unknown>)[k] !== undefined)
        const holds = present.length === 1 || (orNone && present.length === 0)
        expect(test(o)).toBe(holds)
        expect(message(o) === undefined).toBe(holds)
        if (!holds)
          expect(message(o)).toBe(
            `${orNone ? "at most" : "exactly"} one of results, pending, error (found ${present.length === 0 ? "none" : present.join(", ")})`
          )
      },
      { fastCheck: { numRuns: 500 } }
    )
  }

  it("as a Schema filter: the compiled guard and Schema's decode give the same answers", () => {
    const S = Schema.Struct({ a: Schema.optional(Schema.Number), b: Schema.optional(Schema.Number) }).pipe(Schema.filter(...oneOfKeys(["a", "b"])))
    const decode = Schema.decodeUnknownEither(S)
    const guard = compileGuard(S, "ignore")
    expect(guard).not.toBeNull()
    for (const [o, ok] of [
      [{ a: 1 }, true],
      [{ b: 2 }, true],
      [{}, false],
      [{ a: 1, b: 2 }, false]
    ] as const) {
      expect(Schema.is(S)(o)).toBe(ok)
      expect(guard!(o)).toBe(ok)
      expect(Either.isRight(decode(o))).toBe(ok)
    }
    expect(Either.getLeft(decode({ a: 1, b: 2 })).pipe((e) => (e._tag === "Some" ? e.value.message : ""))).toContain("exactly one of a, b (found a, b)")
  })
})
