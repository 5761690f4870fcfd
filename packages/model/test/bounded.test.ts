/**
 * Bounded decoding (internal/bounded.ts) on a schema the compiled guard cannot take, one that
 * transforms: Effect Schema decodes the value, and must give it the shape the guard's path gives
 * a schema that does not transform (the input itself), so that a codec writing an object (a
 * note's preview, a canonical line) writes the same bytes whichever path read it.
 */
import { Either, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { schemaDecoder } from "../src/adapter-kit.js"
import type { DecodeError } from "../src/index.js"
import { countSlowPaths } from "../src/internal/index.js"
import { fastTest } from "../src/internal/fast.js"

const Transforming = Schema.Struct({ a: Schema.String, n: Schema.NumberFromString, inner: Schema.Struct({ flag: Schema.Boolean }) })
// Its twin without the transformation: its valid values pass the guard and come back as they are.
const Plain = Schema.Struct({ a: Schema.String, n: Schema.String, inner: Schema.Struct({ flag: Schema.Boolean }) })

describe("schemaDecoder on a schema that transforms", () => {
  it("keeps the keys the schema does not name, at every depth, in the input's order, as the guard's path does", () => {
    const input = { extra: 1, n: "5", a: "x", inner: { other: [1, 2], flag: true }, last: null }
    const transformed = Either.getOrThrow(schemaDecoder(Transforming, "transforming")(input))
    const plain = Either.getOrThrow(schemaDecoder(Plain, "plain")(input))
    expect(plain).toBe(input)
    expect(JSON.stringify(transformed)).toBe(JSON.stringify({ ...input, n: 5 }))
    expect(Object.keys(transformed)).toEqual(Object.keys(plain))
  })

  it("and names the same path as the twin for a value both refuse", () => {
    const input = { a: "x", n: 5, inner: { flag: true } }
    const pathOf = (result: Either.Either<unknown, DecodeError>) => (Either.isLeft(result) ? result.left.path : undefined)
    expect(pathOf(schemaDecoder(Transforming, "transforming")(input))).toEqual(["n"])
    expect(pathOf(schemaDecoder(Plain, "plain")(input))).toEqual(["n"])
  })
})

describe("schemaDecoder on a value its compiled guard refuses", () => {
  it("rejects it without a Schema decode, with the walk's problems", () => {
    const bad = { a: "x", n: 5, inner: { flag: "yes" } }
    const plain = countSlowPaths(() => schemaDecoder(Plain, "plain")(bad))
    expect({ schemaDecodes: plain.schemaDecodes, decodeErrors: plain.decodeErrors }).toEqual({ schemaDecodes: 0, decodeErrors: 1 })
    expect(Either.isLeft(plain.result) && plain.result.left.issues.map((i) => i.path)).toEqual([["n"], ["inner", "flag"]])
    // Where no guard compiles, Schema decides first, as before.
    expect(countSlowPaths(() => schemaDecoder(Transforming, "transforming")(bad)).schemaDecodes).toBe(1)
  })

  it("accepts it where Schema accepts it: a guard's slip never refuses a good value", () => {
    // A filter whose plain test, which the compiled guard calls instead of it, wrongly says no.
    const Slipping = Schema.Struct({ a: Schema.String.pipe(Schema.filter(() => true, { ...fastTest(() => false) })) })
    const input = { a: "x" }
    const decoded = countSlowPaths(() => schemaDecoder(Slipping, "slipping")(input))
    expect(decoded.result).toEqual(Either.right(input))
    expect(decoded.schemaDecodes).toBe(1)
  })
})
