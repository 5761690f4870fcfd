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
