import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc, Schema } from "effect"
import { Codegen, Proto3, Scan, SizeDocument, UtcTimestamp } from "../src/index.js"
import { compileGuard, lazyGuard } from "../src/internal/fast.js"
import { isUtcTimestamp } from "../src/adapter-kit.js"

/** Values near a valid one: one leaf replaced by anything, so most are almost valid. */
const mutated = <A>(valid: fc.Arbitrary<A>) =>
  fc
    .tuple(valid, fc.array(fc.nat(), { maxLength: 6 }), fc.oneof(fc.jsonValue(), fc.constantFrom(undefined, -0, Number.NaN, Infinity, "", -1, 1.5)))
    .map(([value, path, replacement]) => {
      const go = (v: unknown, p: ReadonlyArray<number>): unknown => {
        if (p.length === 0 || typeof v !== "object" || v === null) return replacement
        const keys = Object.keys(v)
        if (keys.length === 0) return replacement
        const key = keys[p[0]! % keys.length]!
        const copy = (Array.isArray(v) ? [...v] : { ...v }) as Record<string, unknown>
        if (p[0]! % 7 === 6) delete copy[key]
        else copy[key] = go((v as Record<string, unknown>)[key], p.slice(1))
        return copy
      }
      return go(value, path)
    })

const agrees = <A, I>(name: string, schema: Schema.Schema<A, I>, excess: "ignore" | "error", samples?: fc.Arbitrary<unknown>) => {
  const is = Schema.is(schema, { onExcessProperty: excess })
  const valid = samples ?? (Arbitrary.make(schema) as fc.Arbitrary<unknown>)
  it.each([
    ["generated code", true],
    ["closures", false]
  ])(`${name}: the guard compiled to %s accepts exactly what Schema accepts (onExcessProperty ${excess})`, (_, generate) => {
    const guard = compileGuard(schema, excess, { generate })
    expect(guard).not.toBeNull()
    fc.assert(
      fc.property(fc.oneof(valid, mutated(valid), fc.jsonValue()), (u) => {
        expect(guard!(u)).toBe(is(u))
      }),
      { numRuns: 1_000 }
    )
  })
}

describe("compileGuard", () => {
  agrees("Scan", Scan, "ignore")
  agrees("Scan", Scan, "error")
  // SizeDocument's filter (the recommended size is one of the sizes) rejects almost every random
  // document, so its valid samples come from its fields without the filter.
  agrees("SizeDocument", SizeDocument, "error", Arbitrary.make(SizeDocument.from))
  agrees("UtcTimestamp", UtcTimestamp, "ignore")
  agrees(
    "a proto3 message",
    Schema.Struct({
      id: Proto3.field(Proto3.Int64),
      kind: Proto3.field(Proto3.Enum(Proto3.enumType("Kind", { KIND_UNSPECIFIED: 0, A: 1 }))),
      items: Proto3.field(Schema.Array(Schema.Struct({ x: Proto3.field(Proto3.Double), t: Proto3.field(Proto3.Timestamp) }))),
      counts: Schema.Record({ key: Schema.String, value: Schema.Number.pipe(Schema.int(), Schema.between(0, 10)) })
    }),
    "ignore"
  )

  it("finds UtcTimestamp's calendar rules as Date does", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date("0000-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true }), (d) => {
        expect(Schema.is(UtcTimestamp)(d.toISOString())).toBe(true)
      }),
      { numRuns: 2_000 }
    )
    for (const bad of [
      "2026-02-29T00:00:00.000Z",
      "2026-04-31T00:00:00.000Z",
      "2026-13-01T00:00:00.000Z",
      "2026-01-01T24:00:00.000Z",
      "2026-01-01T00:60:00.000Z"
    ]) {
      expect(Schema.is(UtcTimestamp)(bad)).toBe(false)
    }
    expect(Schema.is(UtcTimestamp)("2024-02-29T00:00:00.000Z")).toBe(true)
    expect(Schema.is(UtcTimestamp)("2000-02-29T00:00:00.000Z")).toBe(true)
    expect(Schema.is(UtcTimestamp)("1900-02-29T00:00:00.000Z")).toBe(false)
  })

  it("isUtcTimestamp accepts exactly the strings a Date prints back as they are", () => {
    const digits = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`))
    const stamp = fc
      .tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2), digits(3))
      .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`)
    const mutated = stamp.chain((s) => fc.tuple(fc.nat(s.length - 1), fc.char()).map(([i, c]) => `${s.slice(0, i)}${c}${s.slice(i + 1)}`))
    const byDate = (s: string) => {
      const t = Date.parse(s)
      return /^\d{4}-/.test(s) && !Number.isNaN(t) && new Date(t).toISOString() === s
    }
    fc.assert(
      fc.property(fc.oneof(stamp, mutated, fc.string()), (s) => {
        expect(isUtcTimestamp(s)).toBe(byDate(s))
      }),
      { numRuns: 20_000 }
    )
  })

  it("counts own keys only, as Schema does, when an object inherits enumerable keys", () => {
    const Struct = Schema.Struct({ a: Schema.Number, b: Schema.optionalWith(Schema.String, { exact: true }) })
    const Indexed = Schema.Struct({ a: Schema.Number }, { key: Schema.String, value: Schema.Number })
    const inheriting = (proto: object, own: object) => Object.assign(Object.create(proto) as object, own)
    // Inherited keys the schema does not name (one it names is read through the prototype by
    // the guards, unlike Schema: a known gap, out of reach of JSON.parse's plain objects).
    const values = [
      inheriting({ zzz: 1 }, { a: 1 }),
      inheriting({ zzz: 1 }, { a: "1" }),
      inheriting({ q: 1 }, { a: 1, b: "y" }),
      inheriting({ q: 1 }, { a: 1, b: "y", zzz: 2 }),
      inheriting({ zzz: "x" }, { a: 1, zzz: 2 })
    ]
    for (const [schema, excess] of [
      [Struct, "error"],
      [Struct, "ignore"],
      [Indexed, "error"],
      [Indexed, "ignore"]
    ] as const) {
      const is = Schema.is(schema as Schema.Schema<unknown, unknown>, { onExcessProperty: excess })
      for (const generate of [true, false]) {
        const guard = compileGuard(schema as Schema.Schema<unknown, unknown>, excess, { generate })!
        for (const value of values) expect(guard(value), `${JSON.stringify(Object.keys(value))} (${excess}, generated: ${generate})`).toBe(is(value))
      }
    }
  })

  it("checks the fields after a nested struct its key count did not settle", () => {
    // A nested struct whose own keys do not match its count (a key that holds undefined, or an
    // inherited one) goes to its exact guard; its answer is the nested struct's, not the record's.
    const Inner = Schema.Struct({ x: Schema.optionalWith(Schema.Unknown, { exact: true }) })
    const Outer = Schema.Struct({ inner: Inner, after: Schema.String })
    const values = [
      { inner: { x: undefined }, after: 5 },
      { inner: Object.assign(Object.create({ zzz: 1 }) as object, { x: 1 }), after: 5 },
      { inner: { x: undefined }, after: "ok" }
    ]
    for (const excess of ["error", "ignore"] as const) {
      const is = Schema.is(Outer, { onExcessProperty: excess })
      for (const generate of [true, false]) {
        const guard = compileGuard(Outer, excess, { generate })!
        for (const value of values) expect(guard(value), `${JSON.stringify(value)} (${excess}, generated: ${generate})`).toBe(is(value))
      }
    }
  })

  it("does not compile a schema that transforms its input", () => {
    expect(compileGuard(Schema.NumberFromString)).toBeNull()
  })
})

describe("Codegen.compiled", () => {
  const source = (body: string) => ({ kind: "test", name: "add one", params: ["a"], body })

  it("makes the function from its source where the runtime allows it", () => {
    const fallback = (a: number) => a - 1
    const f = Codegen.compiled<(a: number) => number>(source("return a + 1;"), () => fallback)
    expect(f).not.toBe(fallback)
    expect(f(1)).toBe(2)
  })

  it("does not hide a mistake in the source behind the fallback", () => {
    expect(() => Codegen.compiled(source("return a +;"), () => () => 0)).toThrow(SyntaxError)
  })

  it("names the generated code with a sourceURL, so its frames say what they are", () => {
    const f = Codegen.compiled<(a: () => void) => void>({ kind: "test", name: "call me/maybe", params: ["a"], body: "a();" }, () => (a) => a())
    let stack = ""
    f(() => {
      stack = new Error("where").stack ?? ""
    })
    expect(stack).toMatch(/scanbridge-test\/call_me_maybe-\d+\.js/)
  })

  it("names a guard's frames after its schema", () => {
    const Shouty = Schema.Struct({ a: Schema.String.pipe(Schema.filter(() => (void (stack = new Error("where").stack ?? ""), true))) }).annotations({
      identifier: "Shouty"
    })
    let stack = ""
    expect(compileGuard(Shouty)!({ a: "x" })).toBe(true)
    expect(stack).toMatch(/scanbridge-guard\/Shouty-\d+\.js/)
  })

  it("uses the closures, generating nothing, while jitless", () => {
    const fallback = (a: number) => a - 1
    Codegen.configure({ jitless: true })
    try {
      expect(Codegen.options().jitless).toBe(true)
      expect(Codegen.available()).toBe(false)
      expect(Codegen.compiled(source("return a + 1;"), () => fallback)).toBe(fallback)
      // A guard compiled while jitless is the closures' (a filter's frame has no generated caller).
      let stack = ""
      const S = Schema.Struct({ a: Schema.String.pipe(Schema.filter(() => (void (stack = new Error("where").stack ?? ""), true))) })
      expect(compileGuard(S)!({ a: "x" })).toBe(true)
      expect(stack).not.toContain("scanbridge-guard/")
    } finally {
      Codegen.configure({ jitless: false })
    }
    expect(Codegen.compiled(source("return a + 1;"), () => fallback)).not.toBe(fallback)
  })
})

describe("lazyGuard", () => {
  it("compiles on its first call, not when it is made", () => {
    let calls = 0
    const S = Schema.Struct({ a: Schema.Number }).annotations({ identifier: "Counted" })
    const spied = new Proxy(S, {
      get: (target, key, receiver) => {
        if (key === "ast") calls++
        return Reflect.get(target, key, receiver) as unknown
      }
    })
    const guard = lazyGuard(spied)
    expect(calls).toBe(0)
    expect(guard({ a: 1 })).toBe(true)
    expect(guard({ a: "1" })).toBe(false)
    expect(calls).toBeGreaterThan(0)
  })

  it("refuses everything where the schema transforms: the caller's slow path decides", () => {
    expect(lazyGuard(Schema.NumberFromString)("1")).toBe(false)
    expect(lazyGuard(Schema.NumberFromString)(1)).toBe(false)
  })
})
