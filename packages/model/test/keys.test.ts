import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { type Path, Scan } from "../src/index.js"
import { DecodeWalk, exactSchemaDecoder, unknownKeysOf, unknownKeysOfItem } from "../src/adapter-kit.js"
import { compileGuard } from "../src/internal/fast.js"

const Point = Schema.Struct({ x: Schema.Number, y: Schema.Number })
const Shape = Schema.Struct({
  name: Schema.String,
  tag: Schema.optionalWith(Schema.String, { exact: true }),
  centre: Schema.NullOr(Point),
  points: Schema.Array(Point),
  extra: Schema.optionalWith(Schema.Unknown, { exact: true })
})

describe("unknownKeysOf", () => {
  const keys = unknownKeysOf(Shape)

  it("finds nothing in a value whose every key the schema names", () => {
    expect(keys({ name: "a", tag: "t", centre: { x: 1, y: 2 }, points: [{ x: 0, y: 0 }] })).toEqual([])
  })

  it("finds each key no struct names, at any depth, in document order, with its path and value", () => {
    const value = {
      z: 1,
      name: "a",
      centre: { x: 1, y: 2, w: [3] },
      points: [
        { x: 0, y: 0 },
        { x: 1, q: { deep: true }, y: 1 }
      ]
    }
    expect(keys(value)).toEqual([
      { path: ["z"], value: 1 },
      { path: ["centre", "w"], value: [3] },
      { path: ["points", 1, "q"], value: { deep: true } }
    ])
  })

  it("takes keys like __proto__, constructor and toString as any other key", () => {
    const value = JSON.parse('{"name":"a","centre":{"x":1,"y":2,"__proto__":{"a":1},"constructor":2},"points":[],"toString":3}') as unknown
    expect(keys(value).map((k) => k.path)).toEqual([["centre", "__proto__"], ["centre", "constructor"], ["toString"]])
  })

  it("looks into nothing under Unknown, nor into a null of NullOr", () => {
    expect(keys({ name: "a", centre: null, points: [], extra: { anything: { at: "all" } } })).toEqual([])
  })

  it("lets an index signature take the keys it accepts, and only those", () => {
    const Measurements = Schema.Record({ key: Schema.String, value: Schema.Number })
    expect(unknownKeysOf(Schema.Struct({ m: Measurements }))({ m: { anything: 1, goes: 2 } })).toEqual([])
    const Prefixed = Schema.Struct({ id: Schema.String }, Schema.Record({ key: Schema.TemplateLiteral("x-", Schema.String), value: Schema.Unknown }))
    expect(unknownKeysOf(Prefixed)({ id: "a", "x-trace": 1, trace: 2 })).toEqual([{ path: ["trace"], value: 2 }])
  })

  it("reads a union as the member that accepts the value and names the most of its keys", () => {
    const Event = Schema.Union(
      Schema.Struct({ kind: Schema.Literal("a"), a: Schema.Number }),
      Schema.Struct({ kind: Schema.String, b: Point }),
      Schema.Struct({ kind: Schema.String, b: Point, c: Schema.Number })
    )
    const of = unknownKeysOf(Schema.Struct({ e: Event }))
    expect(of({ e: { kind: "a", a: 1, z: 0 } })).toEqual([{ path: ["e", "z"], value: 0 }])
    // The first member does not accept it; of the two others, the third names c.
    expect(of({ e: { kind: "b", b: { x: 1, y: 1, w: 0 }, c: 2, z: 0 } })).toEqual([
      { path: ["e", "b", "w"], value: 0 },
      { path: ["e", "z"], value: 0 }
    ])
  })

  it("walks tuples element by element, the rest, and the elements after the rest", () => {
    const T = Schema.Tuple([Point], Schema.Struct({ r: Schema.Number }), Point)
    expect(unknownKeysOf(T)([{ x: 0, y: 0, a: 1 }, { r: 1, b: 2 }, { r: 2 }, { x: 0, y: 0, c: 3 }])).toEqual([
      { path: [0, "a"], value: 1 },
      { path: [1, "b"], value: 2 },
      { path: [3, "c"], value: 3 }
    ])
  })

  it("follows suspensions (recursive schemas), refinements and the wire side of transformations", () => {
    interface Tree {
      readonly label: string
      readonly children: ReadonlyArray<Tree>
    }
    const Tree: Schema.Schema<Tree> = Schema.Struct({ label: Schema.String, children: Schema.Array(Schema.suspend(() => Tree)) })
    expect(unknownKeysOf(Tree)({ label: "r", children: [{ label: "c", children: [{ label: "d", children: [], z: 1 }] }] })).toEqual([
      { path: ["children", 0, "children", 0, "z"], value: 1 }
    ])
    const Filtered = Point.pipe(Schema.filter((p) => p.x < p.y))
    expect(unknownKeysOf(Filtered)({ x: 0, y: 1, z: 2 })).toEqual([{ path: ["z"], value: 2 }])
    // snake_case on the wire, camelCase decoded: the wire's keys are the known ones.
    const Renamed = Schema.Struct({ user_id: Schema.String, at: Schema.NumberFromString }).pipe(Schema.rename({ user_id: "userId" }))
    expect(unknownKeysOf(Renamed)({ user_id: "u", at: "1", userId: "u" })).toEqual([{ path: ["userId"], value: "u" }])
  })
})

describe("unknownKeysOfItem", () => {
  it("gives one item's keys from the item, and the keys outside the list as they are", () => {
    const keys = [
      { path: ["z"], value: 0 },
      { path: ["items", 0, "a"], value: 1 },
      { path: ["items", 1, "b", "c"], value: 2 }
    ]
    expect(unknownKeysOfItem(keys, "items", 1)).toEqual([
      { path: ["z"], value: 0 },
      { path: ["b", "c"], value: 2 }
    ])
    expect(unknownKeysOfItem(keys, "items", 2)).toEqual([{ path: ["z"], value: 0 }])
  })
})

describe("exactSchemaDecoder", () => {
  const decode = exactSchemaDecoder(Shape, "shape")

  it("walks nothing in an exact record, and gives the unknown keys of any other", () => {
    const exact = decode({ name: "a", centre: null, points: [] })
    expect(Either.isRight(exact) && exact.right).toMatchObject({ exact: true, unknownKeys: [] })
    const other = decode({ name: "a", centre: { x: 0, y: 0, w: 1 }, points: [] })
    expect(Either.isRight(other) && other.right).toMatchObject({ exact: false, unknownKeys: [{ path: ["centre", "w"], value: 1 }] })
    expect(Either.isLeft(decode({ name: 1 }))).toBe(true)
  })

  it("notes each unknown key as dropped, with the same words as every adapter", () => {
    const read = decode({ name: "a", centre: { x: 0, y: 0, w: [1, 2] }, points: [] })
    const walk = new DecodeWalk("shape")
    walk.noteUnknownKeys(["entry"], Either.getOrThrow(read).unknownKeys)
    expect(walk.notes).toEqual([{ kind: "dropped", path: "entry.centre.w", detail: "unknown key w = [1,2]: the canonical scan has no place for it" }])
  })

  // A key added to any object of a valid scan: the walk finds exactly it, and finds none exactly
  // where the exact guard accepts.
  it("agrees with the exact guard, and finds a key added to any object of a valid value", () => {
    const exact = compileGuard(Scan, "error")!
    const accepts = Schema.is(Scan)
    const keys = unknownKeysOf(Scan)
    const added = fc
      .tuple(
        Arbitrary.make(Scan),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.string({ maxLength: 6 }).map((s) => `x-${s}`),
        fc.jsonValue()
      )
      .map(([value, steps, key, v]) => {
        const path: Array<string | number> = []
        const go = (node: unknown, i: number): unknown => {
          if (typeof node !== "object" || node === null) return node
          const own = Object.keys(node)
          if (i < steps.length && own.length > 0) {
            const k = own[steps[i]! % own.length]!
            const copy = (Array.isArray(node) ? [...node] : { ...node }) as Record<string, unknown>
            path.push(Array.isArray(node) ? Number(k) : k)
            copy[k] = go((node as Record<string, unknown>)[k], i + 1)
            return copy
          }
          if (Array.isArray(node)) return node
          path.push(key)
          return { ...node, [key]: v }
        }
        const out = go(value, 0)
        return { value, out, path: path[path.length - 1] === key ? (path as Path) : null }
      })
    fc.assert(
      fc.property(added, ({ value, out, path }) => {
        expect(keys(value)).toEqual([])
        if (!accepts(out)) return
        const found = keys(out)
        expect(exact(out)).toBe(found.length === 0)
        if (path !== null) expect(found.map((k) => k.path)).toEqual([path])
      }),
      { numRuns: 500 }
    )
  })
})
