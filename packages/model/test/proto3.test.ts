import { Arbitrary, Either, FastCheck as fc, Option, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Codegen, DecodeError, Proto3 } from "../src/index.js"
import { countSlowPaths, setSchemaPathOnly } from "../src/internal/index.js"

const { field } = Proto3

// --- A small message in the printed (lowerCamelCase) spelling ------------------------------

const Color = Proto3.enumType("Color", { COLOR_UNSPECIFIED: 0, RED: 1, GREEN: 2, BLUE: null })

const Inner = Schema.Struct({
  someField: field(Proto3.Int64),
  someText: field(Schema.String)
})

const Item = Schema.Struct({
  itemName: field(Schema.String),
  weightValue: field(Proto3.Double)
})

const Msg = Schema.Struct({
  bigCount: field(Proto3.Int64),
  ratio: field(Proto3.Double),
  color: field(Proto3.Enum(Color)),
  createdAt: field(Proto3.Timestamp),
  include3dAvatar: field(Schema.Boolean),
  label: field(Schema.String),
  nestedMsg: field(Inner),
  items: field(Schema.Array(Item)),
  counts: field(Schema.Array(Proto3.Int64))
})
type MsgJson = typeof Msg.Encoded

const FORMAT = "test message"
const read = Proto3.reader(Msg, FORMAT)
const print = Proto3.printer(Msg)

// --- Helpers ------------------------------------------------------------------------------

const ok = <A, E>(result: Either.Either<A, E>): A => Either.getOrThrowWith(result, (e) => (e instanceof Error ? e : new Error(`unexpected Left: ${String(e)}`)))

const err = <A, E>(result: Either.Either<A, E>): E => Either.getOrThrowWith(Either.flip(result), (a) => new Error(`expected a Left, got ${JSON.stringify(a)}`))

const decodedValue = (json: unknown) => ok(read(json)).value

/** The DecodeError of reading `json`, checked to name the format, the path and the value. */
const failure = (json: unknown): DecodeError => {
  const e = err(read(json))
  expect(e).toBeInstanceOf(DecodeError)
  expect(e.format).toBe(FORMAT)
  expect(e.message.startsWith(`${FORMAT}: `)).toBe(true)
  return e
}

/** A read as plain data, key order included: its value, the renamed and ignored keys, or the error. */
const readOf = (reader: (json: unknown) => Either.Either<Proto3.Read<unknown>, DecodeError>, json: unknown) => {
  const r = reader(json)
  return Either.isLeft(r)
    ? { error: { message: r.left.message, path: r.left.path } }
    : { value: JSON.stringify(r.right.value), renamed: r.right.renamed, ignored: r.right.ignored }
}
/** The read with every guard on, and on the reference path (every value read key by key, then Effect Schema). */
const bothPaths = (reader: (json: unknown) => Either.Either<Proto3.Read<unknown>, DecodeError>, json: unknown) => {
  const fast = readOf(reader, json)
  setSchemaPathOnly(true)
  try {
    return { fast, reference: readOf(reader, json) }
  } finally {
    setSchemaPathOnly(false)
  }
}

/** The printed name's original proto field name: `nestedMsg` -> `nested_msg`. */
const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

// --- toJsonName ---------------------------------------------------------------------------

describe("toJsonName", () => {
  it.each([
    ["include_3d_avatar_in_results", "include3dAvatarInResults"],
    ["scanning_session_id", "scanningSessionId"],
    ["expire_at_timestamp", "expireAtTimestamp"],
    ["x", "x"],
    ["scanningSessionId", "scanningSessionId"],
    ["include3dAvatarInResults", "include3dAvatarInResults"]
  ])("%s -> %s", (name, json) => {
    expect(Proto3.toJsonName(name)).toBe(json)
  })
})

// --- reader -------------------------------------------------------------------------------

describe("reader", () => {
  describe("field names", () => {
    it("reads camelCase and original (snake_case) names to the same value, and lists the renamed keys", () => {
      const camel = ok(read({ bigCount: "1", include3dAvatar: true, nestedMsg: { someField: "2" }, items: [{ itemName: "a" }] }))
      const snakeCase = ok(read({ big_count: "1", include_3d_avatar: true, nested_msg: { some_field: "2" }, items: [{ item_name: "a" }] }))
      expect(snakeCase.value).toEqual(camel.value)
      expect(camel.value).toEqual({ bigCount: "1", include3dAvatar: true, nestedMsg: { someField: "2" }, items: [{ itemName: "a" }] })
      expect(camel.renamed).toEqual([])
      expect(snakeCase.renamed).toEqual([
        { path: ["bigCount"], from: "big_count" },
        { path: ["include3dAvatar"], from: "include_3d_avatar" },
        { path: ["nestedMsg"], from: "nested_msg" },
        { path: ["nestedMsg", "someField"], from: "some_field" },
        { path: ["items", 0, "itemName"], from: "item_name" }
      ])
    })

    it("refuses one field given twice, in either order, at the second key", () => {
      const e1 = failure({ bigCount: "1", big_count: "2" })
      expect(e1.path).toEqual(["big_count"])
      expect(e1.value).toBe("2")
      const e2 = failure({ nested_msg: { some_text: "a", someText: "b" } })
      expect(e2.path).toEqual(["nested_msg", "someText"])
    })

    it.each([
      ["snake_case", { big_count: null, bigCount: "1" }, "bigCount"],
      ["camelCase", { bigCount: null, big_count: "1" }, "big_count"]
    ])("counts a null %s spelling as the field given once", (_, json, second) => {
      expect(failure(json).path).toEqual([second])
    })

    it("reads a message's own keys only, as Object.keys lists them: an inherited enumerable key is no field", () => {
      const inherited: Record<string, unknown> = Object.create({ label: "inherited", big_count: "9", mystery: 1 })
      Object.assign(inherited, { bigCount: "1", nested_msg: { some_text: "t" } })
      const r = ok(read(inherited))
      expect(r.value).toEqual({ bigCount: "1", nestedMsg: { someText: "t" } })
      expect(r.ignored).toEqual([])
      expect(r.renamed).toEqual([
        { path: ["nestedMsg"], from: "nested_msg" },
        { path: ["nestedMsg", "someText"], from: "some_text" }
      ])
    })

    describe("in a message of more fields than the reader counts in bits (30)", () => {
      const names = Array.from({ length: 35 }, (_, i) => `someName${i}`)
      const Big = Schema.Struct(Object.fromEntries(names.map((n) => [n, field(Schema.String)])))
      const readBig = Proto3.reader(Big, FORMAT)

      it("reads every spelling, and refuses a field given twice at its second key, in either order", () => {
        expect(ok(readBig({ some_name0: "a", someName34: "b", some_name33: "c" })).value).toEqual({ someName0: "a", someName34: "b", someName33: "c" })
        for (const [json, second] of [
          [{ someName0: "a", some_name31: "b", someName31: "c" }, "someName31"],
          [{ someName0: "a", someName31: "c", some_name31: "b" }, "some_name31"],
          [{ someName34: "c", some_name0: "a", some_name34: "b" }, "some_name34"]
        ] as const) {
          const e = err(readBig(json))
          expect(e.path, JSON.stringify(json)).toEqual([second])
          expect(e.message).toContain("no second spelling of field")
        }
      })
    })

    it("drops unknown keys and reports them in `ignored`, with the printed path of their parent", () => {
      const r = ok(read({ mystery: 1, nested_msg: { extra_key: true, someText: "t" }, items: [{ other: [1] }] }))
      expect(r.value).toEqual({ nestedMsg: { someText: "t" }, items: [{}] })
      expect(r.ignored).toEqual([
        { path: ["mystery"], value: 1 },
        { path: ["nestedMsg", "extra_key"], value: true },
        { path: ["items", 0, "other"], value: [1] }
      ])
    })
  })

  describe("null", () => {
    it("means unset: the field is absent from the result", () => {
      const value = decodedValue({ bigCount: null, ratio: null, color: null, created_at: null, nestedMsg: null, items: null, label: "x" })
      expect(value).toEqual({ label: "x" })
      for (const key of ["bigCount", "ratio", "color", "createdAt", "nestedMsg", "items"]) expect(Object.hasOwn(value, key), key).toBe(false)
    })

    it("is refused inside a repeated field", () => {
      const e1 = failure({ items: [{}, null] })
      expect(e1.path).toEqual(["items", 1])
      expect(e1.value).toBeNull()
      expect(failure({ counts: ["1", null] }).path).toEqual(["counts", 1])
    })
  })

  describe("int64", () => {
    it.each<[unknown, string]>([
      [42, "42"],
      ["42", "42"],
      [-7, "-7"],
      ["-7", "-7"],
      [0, "0"],
      [-0, "0"],
      ["-0", "0"],
      ["007", "7"],
      ["-007", "-7"],
      [Number.MAX_SAFE_INTEGER, "9007199254740991"],
      ["9223372036854775807", "9223372036854775807"],
      ["-9223372036854775808", "-9223372036854775808"]
    ])("reads %j as %j", (input, printed) => {
      expect(decodedValue({ bigCount: input }).bigCount).toBe(printed)
    })

    it.each<[string, unknown]>([
      ["a fraction as a number", 1.5],
      ["a fraction as a string", "1.5"],
      ["an empty string", ""],
      ["exponent notation in a string", "1e3"],
      ["a leading space", " 1"],
      ["a trailing space", "1 "],
      ["a plus sign", "+1"],
      ["a number beyond 2^53 (its exact value is lost)", 2 ** 53],
      ["a larger number beyond 2^53", 9.3e18],
      ["a string above 2^63-1", "9223372036854775808"],
      ["a string below -2^63", "-9223372036854775809"],
      ["a boolean", true],
      ["NaN", Number.NaN]
    ])("refuses %s, naming the path and the value", (_, input) => {
      const e = failure({ bigCount: input })
      expect(e.path).toEqual(["bigCount"])
      expect(e.value).toBe(input)
    })

    it("reads repeated int64 elementwise", () => {
      expect(decodedValue({ counts: [1, "02", -0] }).counts).toEqual(["1", "2", "0"])
    })
  })

  describe("double", () => {
    it.each<[unknown, number]>([
      [1.5, 1.5],
      ["1.5", 1.5],
      ["-2e3", -2000],
      ["0", 0],
      ["NaN", Number.NaN],
      ["Infinity", Number.POSITIVE_INFINITY],
      ["-Infinity", Number.NEGATIVE_INFINITY]
    ])("reads %j as %d", (input, n) => {
      expect(decodedValue({ ratio: input }).ratio).toBe(n)
    })

    it.each<[unknown]>([["abc"], [""], [" 1"], ["infinity"], [true], [[1]]])("refuses %j", (input) => {
      const e = failure({ ratio: input })
      expect(e.path).toEqual(["ratio"])
      expect(e.value).toEqual(input)
    })
  })

  describe("enum", () => {
    it.each<[unknown, string | number]>([
      ["RED", "RED"],
      [1, "RED"],
      [0, "COLOR_UNSPECIFIED"],
      ["BLUE", "BLUE"],
      // Not documented, or a newer server's: kept as it is, for the codec to decide.
      [7, 7],
      [-1, -1],
      ["PURPLE", "PURPLE"]
    ])("reads %j as %j", (input, value) => {
      expect(decodedValue({ color: input }).color).toBe(value)
    })

    it.each<[unknown]>([[1.5], [true], [{}]])("refuses %j", (input) => {
      expect(failure({ color: input }).path).toEqual(["color"])
    })
  })

  describe("timestamp", () => {
    it("keeps a valid timestamp as written and refuses an invalid one", () => {
      expect(decodedValue({ created_at: "2026-01-02T12:04:05.123456789+09:00" }).createdAt).toBe("2026-01-02T12:04:05.123456789+09:00")
      const e = failure({ created_at: "2026-02-30T00:00:00Z" })
      expect(e.path).toEqual(["created_at"])
      expect(e.value).toBe("2026-02-30T00:00:00Z")
    })
  })

  describe("error paths use the input's spelling", () => {
    it("for a value the reader refuses", () => {
      const e = failure({ nested_msg: { some_field: "1.5" } })
      expect(e.path).toEqual(["nested_msg", "some_field"])
      expect(e.value).toBe("1.5")
      expect(failure({ nestedMsg: { some_field: "x" } }).path).toEqual(["nestedMsg", "some_field"])
      expect(failure({ items: [{}, { weight_value: "abc" }] }).path).toEqual(["items", 1, "weight_value"])
    })

    it("for a value the schema refuses", () => {
      const e = failure({ nested_msg: { some_text: 5 } })
      expect(e.path).toEqual(["nested_msg", "some_text"])
      expect(e.value).toBe(5)
      expect(failure({ nested_msg: { someText: 5 } }).path).toEqual(["nested_msg", "someText"])
      expect(failure({ items: [{ item_name: false }] }).path).toEqual(["items", 0, "item_name"])
      expect(failure({ include_3d_avatar: "yes" }).path).toEqual(["include_3d_avatar"])
    })

    it("for a wrong type where a message or a list belongs", () => {
      expect(failure({ nested_msg: "x" }).path).toEqual(["nested_msg"])
      expect(failure({ items: {} }).path).toEqual(["items"])
      expect(failure([]).path).toEqual([])
    })

    it("under a base path, and through `locate` for errors found after reading", () => {
      const based = Proto3.reader(Msg, FORMAT, ["body"])
      expect(err(based({ nested_msg: { some_field: "x" } })).path).toEqual(["body", "nested_msg", "some_field"])
      expect(err(based({ nested_msg: { some_text: 1 } })).path).toEqual(["body", "nested_msg", "some_text"])
      const r = ok(read({ nested_msg: { some_text: "a" }, items: [{ weight_value: 1 }] }))
      expect(r.locate(["nestedMsg", "someText"])).toEqual(["nested_msg", "some_text"])
      expect(r.locate(["items", 0, "weightValue"])).toEqual(["items", 0, "weight_value"])
      expect(r.locate(["label"])).toEqual(["label"])
    })
  })

  describe("every spelling reads to the same value", () => {
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String)
    const double = fc.double()
    const colorValue = fc.oneof(
      fc.constantFrom("COLOR_UNSPECIFIED", "RED", "GREEN", "BLUE"),
      fc.integer({ min: 3, max: 1000 }),
      fc.constantFrom("PURPLE", "VIOLET")
    )
    const timestamp = fc
      .date({ min: new Date("0001-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true })
      .map((d) => d.toISOString())
    const optional = { requiredKeys: [] as [] }
    const message: fc.Arbitrary<MsgJson> = fc.record(
      {
        bigCount: int64,
        ratio: double,
        color: colorValue,
        createdAt: timestamp,
        include3dAvatar: fc.boolean(),
        label: fc.string(),
        nestedMsg: fc.record({ someField: int64, someText: fc.string() }, optional),
        items: fc.array(fc.record({ itemName: fc.string(), weightValue: double }, optional), { maxLength: 4 }),
        counts: fc.array(int64, { maxLength: 4 })
      },
      optional
    )

    /** Coin flips drawn by fast-check, so a failing case shrinks and replays. */
    const coins = (flips: fc.Stream<boolean>) => (): boolean => flips.next().value as boolean

    const respell = (m: MsgJson, coin: () => boolean): Record<string, unknown> => {
      const key = (name: string) => (coin() ? snake(name) : name)
      const int = (s: string): unknown => (coin() && Number.isSafeInteger(Number(s)) ? Number(s) : s)
      const dbl = (n: number): unknown => (coin() ? (Object.is(n, -0) ? "-0" : String(n)) : n)
      const out: Record<string, unknown> = {}
      const set = (name: string, v: unknown) => {
        out[key(name)] = v
      }
      for (const [name, v] of Object.entries(m)) {
        if (name === "bigCount") set(name, int(v as string))
        else if (name === "ratio") set(name, dbl(v as number))
        else if (name === "color") set(name, typeof v === "string" && typeof Color.numbers[v] === "number" && coin() ? Color.numbers[v] : v)
        else if (name === "nestedMsg") {
          const n = v as NonNullable<MsgJson["nestedMsg"]>
          set(name, {
            ...(n.someField === undefined ? {} : { [key("someField")]: int(n.someField) }),
            ...(n.someText === undefined ? {} : { [key("someText")]: n.someText })
          })
        } else if (name === "items") {
          set(
            name,
            (v as NonNullable<MsgJson["items"]>).map((i) => ({
              ...(i.itemName === undefined ? {} : { [key("itemName")]: i.itemName }),
              ...(i.weightValue === undefined ? {} : { [key("weightValue")]: dbl(i.weightValue) })
            }))
          )
        } else if (name === "counts") set(name, (v as ReadonlyArray<string>).map(int))
        else set(name, v)
      }
      // Absent fields may be written as null.
      for (const name of Object.keys(Msg.fields)) if (!Object.hasOwn(m, name) && coin()) out[key(name)] = null
      return out
    }

    it.prop(
      "camel or snake keys, int64 as numbers, enum numbers, doubles as strings, explicit nulls",
      [message, fc.infiniteStream(fc.boolean())],
      ([m, flips]) => {
        const printed = ok(read(m)).value
        const respelled = respell(m, coins(flips))
        expect(ok(read(respelled)).value, JSON.stringify(respelled)).toEqual(printed)
      },
      { fastCheck: { numRuns: 300 } }
    )
  })
})

describe("reader: messages and lists already printed are kept as they are", () => {
  // Printed fields beside one spelled otherwise, nulls, unknown keys, numbers for int64 and
  // enums, and nested messages and lists in any of those forms.
  const mutated = fc.letrec<{ record: Record<string, unknown> }>((tie) => ({
    record: fc.dictionary(
      fc.constantFrom("bigCount", "big_count", "ratio", "color", "label", "nestedMsg", "nested_msg", "items", "counts", "someField", "some_text", "mystery"),
      fc.oneof(
        { depthSize: "small" },
        fc.constant(null),
        fc.constantFrom("1", "-7", "01", "RED", "x", "2026-01-02T03:04:05.000Z"),
        fc.integer({ min: -3, max: 3 }),
        fc.double(),
        fc.boolean(),
        tie("record"),
        fc.array(fc.oneof(tie("record"), fc.constant(null), fc.constantFrom("1", "2")), { maxLength: 3 })
      ),
      { maxKeys: 6 }
    )
  })).record

  it.prop(
    "reads every record as the reference path does: the same value (key order too), renamed and ignored keys, errors",
    [mutated],
    ([json]) => {
      const { fast, reference } = bothPaths(read, json)
      expect(fast, JSON.stringify(json)).toEqual(reference)
    },
    { fastCheck: { numRuns: 2000, seed: 34 } }
  )

  it("keeps a printed nested message and list as the very objects given", () => {
    const nestedMsg = { someField: "1", someText: "t" }
    const items = [{ itemName: "a", weightValue: 1 }]
    const value = decodedValue({ big_count: "2", nestedMsg, items }) as Record<string, unknown>
    expect(value["nestedMsg"]).toBe(nestedMsg)
    expect(value["items"]).toBe(items)
    // One value to rewrite inside, and the message is read key by key (a copy).
    const respelled = { someField: 1, someText: "t" }
    expect((decodedValue({ big_count: "2", nestedMsg: respelled }) as Record<string, unknown>)["nestedMsg"]).not.toBe(respelled)
  })

  // A field of any value, and one that may be null: their nulls are the reader's to drop (a null
  // in a list, to refuse), so a message holding one is read, not kept; so is an enum's number.
  const Loose = Schema.Struct({
    topName: field(Schema.String),
    wrapper: field(
      Schema.Struct({
        anything: field(Schema.Unknown),
        maybe: field(Schema.NullOr(Schema.String)),
        list: field(Schema.Array(Schema.Unknown)),
        shade: field(Proto3.Enum(Color))
      })
    )
  })
  const readLoose = Proto3.reader(Loose, FORMAT)

  it.each([
    ["a null of any-value field", { top_name: "a", wrapper: { anything: null, maybe: "m" } }, { topName: "a", wrapper: { maybe: "m" } }],
    ["a null where null is allowed", { top_name: "a", wrapper: { maybe: null, shade: "RED" } }, { topName: "a", wrapper: { shade: "RED" } }],
    ["an enum's number", { top_name: "a", wrapper: { maybe: "m", shade: 2 } }, { topName: "a", wrapper: { maybe: "m", shade: "GREEN" } }],
    [
      "no null at all",
      { top_name: "a", wrapper: { anything: { x: null }, maybe: "m", list: [1, "b"] } },
      { topName: "a", wrapper: { anything: { x: null }, maybe: "m", list: [1, "b"] } }
    ]
  ])("reads %s as the reference path does", (_, json, expected) => {
    const { fast, reference } = bothPaths(readLoose, json)
    expect(fast).toEqual(reference)
    expect(fast.value).toBe(JSON.stringify(expected))
  })

  it("refuses a null in a list of any values, as the reference path does", () => {
    const { fast, reference } = bothPaths(readLoose, { top_name: "a", wrapper: { list: [1, null] } })
    expect(fast).toEqual(reference)
    expect(fast.error?.path).toEqual(["wrapper", "list", 1])
  })
})

describe("reader: the generated one pass", () => {
  // A message of every shape the one pass reads: a required field, refinements on a list, a
  // double and a message, an enum, a nullable field, a field of any value, a union of messages
  // (read as it is), a timestamp, a recursive message, and more fields than one word of bits.
  interface Node {
    readonly nodeName?: string
    readonly childNodes?: ReadonlyArray<Node>
  }
  const Node: Schema.Schema<Node> = Schema.Struct({
    nodeName: field(Schema.String),
    childNodes: field(Schema.Array(Schema.suspend(() => Node)).pipe(Schema.maxItems(3)))
  })
  const extraNames = Array.from({ length: 33 }, (_, i) => `extraName${i}`)
  const Wide = Schema.Struct({
    requiredId: Schema.String,
    shortList: field(Schema.Array(Proto3.Int64).pipe(Schema.maxItems(3))),
    positiveRatio: field(Proto3.Double.pipe(Schema.nonNegative())),
    shade: field(Proto3.Enum(Color)),
    maybeText: field(Schema.NullOr(Schema.String)),
    anything: field(Schema.Unknown),
    either: field(Schema.Union(Schema.Struct({ kindA: Schema.String }), Schema.Struct({ kindB: Schema.Number }))),
    seenAt: field(Proto3.Timestamp),
    tree: field(Node),
    pairOf: field(
      Schema.Struct({ leftPart: field(Schema.String), rightPart: field(Schema.String) }).pipe(
        Schema.filter((p) => p.leftPart === undefined || p.leftPart !== p.rightPart || "two different parts")
      )
    ),
    ...Object.fromEntries(extraNames.map((n) => [n, field(Schema.String)]))
  })
  const readWide = Proto3.reader(Wide, FORMAT)

  /** Coin flips drawn by fast-check, so a failing case shrinks and replays. */
  const coins = (flips: fc.Stream<boolean>) => (): boolean => flips.next().value as boolean

  // Keys as a proto3 parser takes them, values as it reads them; inside `anything` and `either`
  // (read as they are) nothing changes.
  const respell = (value: unknown, coin: () => boolean, key?: string): unknown => {
    if (key === "anything" || key === "either") return value
    if (Array.isArray(value)) return value.map((v) => respell(v, coin, key === "shortList" ? "shortList" : undefined))
    if (key === "shortList" && typeof value === "string" && Number.isSafeInteger(Number(value)) && coin()) return Number(value)
    if (key === "positiveRatio" && typeof value === "number" && coin()) return String(value)
    if (key === "shade" && typeof value === "string" && typeof Color.numbers[value] === "number" && coin()) return Color.numbers[value]
    if (typeof value !== "object" || value === null) return value
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[coin() ? snake(k) : k] = respell(v, coin, k)
    if (key === undefined && coin()) out["not_a_field"] = { x: null }
    if (key === undefined && !Object.hasOwn(value, "maybeText") && coin()) out["maybe_text"] = null
    return out
  }

  const wide = Arbitrary.make(Wide)

  it.prop(
    "reads every spelling of a valid message in one pass, as the reference reads it",
    [wide, fc.infiniteStream(fc.boolean())],
    ([m, flips]) => {
      const json = respell(m, coins(flips))
      const counted = countSlowPaths(() => readOf(readWide, json))
      expect(counted.proto3ReferenceReads, JSON.stringify(json)).toBe(0)
      expect(counted.result.error).toBeUndefined()
      const { reference } = bothPaths(readWide, json)
      expect(counted.result, JSON.stringify(json)).toEqual(reference)
    },
    { fastCheck: { numRuns: 300, seed: 341 } }
  )

  // A value swapped somewhere in a respelled valid message: what the one pass refuses, the
  // reference reads again, so the answers, errors included, are the reference's.
  const swap = fc.oneof(
    fc.constant(null),
    fc.constant(undefined),
    fc.constantFrom("1", "-7", "01", "RED", "x", "2026-01-02T03:04:05.000Z", "2026-13-02T03:04:05Z", "NaN"),
    fc.constantFrom(0, -1, 2.5, 2 ** 53, -0),
    fc.boolean(),
    fc.constant({}),
    fc.constant([null]),
    fc.constant({ some_unknown: 1, requiredId: 2 })
  )

  const mutate = (value: unknown, path: ReadonlyArray<number>, replacement: unknown): unknown => {
    if (path.length === 0 || typeof value !== "object" || value === null) return replacement
    const [first, ...rest] = path
    if (Array.isArray(value)) {
      if (value.length === 0) return value
      const i = first! % value.length
      return value.map((v, j) => (j === i ? mutate(v, rest, replacement) : v))
    }
    const keys = Object.keys(value)
    if (keys.length === 0) return value
    const k = keys[first! % keys.length]!
    return { ...value, [k]: mutate((value as Record<string, unknown>)[k], rest, replacement) }
  }

  it.prop(
    "answers a mutated message as the reference does: the same value, renamed and ignored keys, or the same error",
    [wide, fc.infiniteStream(fc.boolean()), fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), swap],
    ([m, flips, path, replacement]) => {
      const json = mutate(respell(m, coins(flips)), path, replacement)
      const { fast, reference } = bothPaths(readWide, json)
      expect(fast, JSON.stringify(json)).toEqual(reference)
    },
    { fastCheck: { numRuns: 1000, seed: 342 } }
  )

  it.each([
    ["a required field left out", { maybe_text: "m" }, ["requiredId"]],
    ["a required field null", { required_id: null }, ["required_id"]],
    ["a list past its refinement", { requiredId: "a", short_list: [1, "2", 3, 4] }, ["short_list"]],
    ["a message's own filter", { requiredId: "a", pair_of: { left_part: "x", rightPart: "x" } }, ["pair_of"]],
    ["an enum number past 2^53", { requiredId: "a", shade: 2 ** 53 }, ["shade"]],
    ["a negative double as a string", { requiredId: "a", positive_ratio: "-1" }, ["positive_ratio"]],
    ["a second spelling past 30 fields", { requiredId: "a", extraName31: "x", extra_name31: "y" }, ["extra_name31"]],
    [
      "a deep child's bad value",
      { requiredId: "a", tree: { child_nodes: [{ childNodes: [{ node_name: 1 }] }] } },
      ["tree", "child_nodes", 0, "childNodes", 0, "node_name"]
    ]
  ])("refuses %s as the reference does, at the path the input spelled", (_, json, path) => {
    const { fast, reference } = bothPaths(readWide, json)
    expect(fast).toEqual(reference)
    expect(fast.error?.path).toEqual(path)
  })

  it("reports renamed and ignored keys at their printed paths, through lists and a recursive message", () => {
    const r = ok(readWide({ required_id: "a", tree: { child_nodes: [{ node_name: "x", odd_key: 1 }] }, mystery: [2] }))
    expect(r.value).toEqual({ requiredId: "a", tree: { childNodes: [{ nodeName: "x" }] } })
    expect(r.renamed).toEqual([
      { path: ["requiredId"], from: "required_id" },
      { path: ["tree", "childNodes"], from: "child_nodes" },
      { path: ["tree", "childNodes", 0, "nodeName"], from: "node_name" }
    ])
    expect(r.ignored).toEqual([
      { path: ["tree", "childNodes", 0, "odd_key"], value: 1 },
      { path: ["mystery"], value: [2] }
    ])
    expect(r.locate(["tree", "childNodes", 0, "nodeName"])).toEqual(["tree", "child_nodes", 0, "node_name"])
  })

  it("keeps what it need not change as the very values given, and copies from the first key that differs", () => {
    const tree = { nodeName: "t", childNodes: [{ nodeName: "c" }] }
    const list = ["1", "2"]
    const value = ok(readWide({ required_id: "a", tree, shortList: list })).value as Record<string, unknown>
    expect(value["tree"]).toBe(tree)
    expect(value["shortList"]).toBe(list)
    const changed = ok(readWide({ required_id: "a", tree: { nodeName: "t", childNodes: [{ nodeName: "c" }, { node_name: "d" }] } })).value as Record<
      string,
      unknown
    >
    expect(changed["tree"]).toEqual({ nodeName: "t", childNodes: [{ nodeName: "c" }, { nodeName: "d" }] })
    expect(Object.keys(changed)).toEqual(["requiredId", "tree"])
  })

  it("is not generated while jitless: the reference reads, with the same answers", () => {
    const json = { required_id: "a", short_list: [1], shade: 1, tree: { child_nodes: [{ node_name: "x" }] } }
    const generated = countSlowPaths(() => readOf(Proto3.reader(Wide, FORMAT), json))
    Codegen.configure({ jitless: true })
    try {
      const jitless = countSlowPaths(() => readOf(Proto3.reader(Wide, FORMAT), json))
      expect(jitless.proto3ReferenceReads).toBe(1)
      expect(generated.proto3ReferenceReads).toBe(0)
      expect(jitless.result).toEqual(generated.result)
    } finally {
      Codegen.configure({ jitless: false })
    }
  })
})

// --- parseTimestamp -----------------------------------------------------------------------

describe("parseTimestamp", () => {
  const parsed = (s: string) => Option.getOrThrowWith(Proto3.parseTimestamp(s), () => new Error(`${s} did not parse`))

  it.each([
    ["2026-01-02T03:04:05Z", "2026-01-02T03:04:05.000Z"],
    ["2026-01-02T03:04:05.000Z", "2026-01-02T03:04:05.000Z"],
    ["2026-01-02T12:04:05+09:00", "2026-01-02T03:04:05.000Z"],
    ["2026-01-01T22:34:05-04:30", "2026-01-02T03:04:05.000Z"],
    ["2026-01-02T03:04:05+00:00", "2026-01-02T03:04:05.000Z"],
    ["2026-01-02t03:04:05z", "2026-01-02T03:04:05.000Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
    ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"],
    ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
    ["2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00.000Z"]
  ])("%s is the instant %s", (s, iso) => {
    expect(parsed(s)).toEqual({ iso, subMillisecond: "" })
  })

  it.each([
    ["", ".000Z", ""],
    [".1", ".100Z", ""],
    [".12", ".120Z", ""],
    [".123", ".123Z", ""],
    [".1234", ".123Z", "4"],
    [".123456", ".123Z", "456"],
    [".123456789", ".123Z", "456789"],
    [".123450000", ".123Z", "45"],
    [".000000001", ".000Z", "000001"],
    [".999000000", ".999Z", ""]
  ])("fraction %j: %s, %j below a millisecond", (fraction, ms, sub) => {
    expect(parsed(`2026-01-02T03:04:05${fraction}Z`)).toEqual({ iso: `2026-01-02T03:04:05${ms}`, subMillisecond: sub })
  })

  it.each([
    ["2026-02-30T00:00:00Z"],
    ["2025-02-29T00:00:00Z"],
    ["2026-04-31T00:00:00Z"],
    ["2026-13-01T00:00:00Z"],
    ["2026-00-01T00:00:00Z"],
    ["2026-01-00T00:00:00Z"],
    ["2026-01-01T24:00:00Z"],
    ["2026-01-01T00:60:00Z"],
    ["2026-01-01T00:00:60Z"],
    ["0000-01-01T00:00:00Z"],
    ["0001-01-01T00:00:00+00:01"],
    ["9999-12-31T23:59:59-00:01"],
    ["2026-01-01T00:00:00+24:00"],
    ["2026-01-01T00:00:00+00:60"],
    ["2026-01-01T00:00:00.1234567890Z"],
    ["2026-01-01T00:00:00."],
    ["2026-01-01T00:00:00"],
    ["2026-01-01 00:00:00Z"],
    ["2026-1-01T00:00:00Z"],
    ["+002026-01-01T00:00:00Z"],
    ["2026-01-01T00:00:00+0900"],
    [""]
  ])("%j is None", (s) => {
    expect(Option.isNone(Proto3.parseTimestamp(s))).toBe(true)
  })

  it.prop(
    "reads every Date.toISOString() of years 1-9999 to itself",
    [fc.date({ min: new Date("0001-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true })],
    ([d]) => {
      expect(parsed(d.toISOString())).toEqual({ iso: d.toISOString(), subMillisecond: "" })
    },
    { fastCheck: { numRuns: 500 } }
  )

  // RFC 3339's form as a regex and the instant as a Date: the reading parseTimestamp had before
  // it read by character, kept here as the statement it must agree with.
  const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/
  const byRegexAndDate = (s: string): Proto3.ParsedTimestamp | null => {
    const m = RFC3339.exec(s)
    if (m === null) return null
    const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
    const fraction = m[7] ?? ""
    const [offsetHours, offsetMinutes] = [Number(m[9] ?? 0), Number(m[10] ?? 0)]
    const offset = (m[8] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes)
    if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null
    if (offsetHours > 23 || offsetMinutes > 59) return null
    const date = new Date(0)
    date.setUTCFullYear(year, month - 1, day)
    if (date.getUTCMonth() !== month - 1) return null
    date.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, "0")))
    const instant = new Date(date.getTime() - offset * 60_000)
    if (instant.getUTCFullYear() < 1 || instant.getUTCFullYear() > 9999) return null
    return { iso: instant.toISOString(), subMillisecond: fraction.slice(3).replace(/0+$/, "") }
  }
  const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`))
  // Near-timestamps: each field in and just out of range, any fraction length, every zone form.
  const nearTimestamp = fc
    .tuple(
      fc.oneof(digits(4), fc.constantFrom("0000", "0001", "9999", "1900", "2000", "2024", "2100")),
      fc.integer({ min: 0, max: 13 }),
      fc.integer({ min: 0, max: 32 }),
      fc.constantFrom("T", "t", " ", "x"),
      fc.integer({ min: 0, max: 24 }),
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 0, max: 60 }),
      fc.oneof(
        fc.constant(""),
        fc.constant("."),
        fc.integer({ min: 1, max: 11 }).chain((n) => digits(n).map((d) => `.${d}`))
      ),
      fc.oneof(
        fc.constantFrom("Z", "z", "", "+0900", "Zz", "+00:00x"),
        fc
          .tuple(fc.constantFrom("+", "-"), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }))
          .map(([sign, h, m]) => `${sign}${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`)
      )
    )
    .map(([y, mo, d, t, h, mi, s, f, z]) => {
      const two = (n: number) => String(n).padStart(2, "0")
      return `${y}-${two(mo)}-${two(d)}${t}${two(h)}:${two(mi)}:${two(s)}${f}${z}`
    })

  it.prop(
    "reads every string as the RFC 3339 regex and a Date read it",
    [fc.oneof(nearTimestamp, fc.string())],
    ([s]) => {
      expect(Option.getOrNull(Proto3.parseTimestamp(s))).toEqual(byRegexAndDate(s))
    },
    { fastCheck: { numRuns: 5000 } }
  )
})

// --- printer ------------------------------------------------------------------------------

describe("printer", () => {
  it("leaves out fields at their default value", () => {
    const defaults: MsgJson = { bigCount: "0", ratio: 0, color: "COLOR_UNSPECIFIED", label: "", include3dAvatar: false, items: [], counts: [] }
    expect(print(defaults)).toEqual({})
    expect(print({ color: 0 })).toEqual({})
  })

  it("keeps set values, including an empty message", () => {
    const value: MsgJson = {
      bigCount: "-1",
      ratio: Number.NaN,
      color: "RED",
      createdAt: "2026-01-02T03:04:05.000Z",
      include3dAvatar: true,
      label: " ",
      nestedMsg: {},
      items: [{}],
      counts: ["0"]
    }
    expect(print(value)).toEqual(value)
    expect(print({ color: 7 })).toEqual({ color: 7 })
    expect(print({ color: "BLUE" })).toEqual({ color: "BLUE" })
  })

  it("leaves out defaults in nested messages and list elements, keeping repeated scalars whole", () => {
    expect(
      print({
        nestedMsg: { someField: "0", someText: "x" },
        items: [
          { itemName: "", weightValue: 2 },
          { itemName: "b", weightValue: 0 }
        ],
        counts: ["0", "1"]
      })
    ).toEqual({ nestedMsg: { someText: "x" }, items: [{ weightValue: 2 }, { itemName: "b" }], counts: ["0", "1"] })
    expect(print({ nestedMsg: { someField: "0" } })).toEqual({ nestedMsg: {} })
  })

  it.prop(
    "prints what the reader reads back to the same value, minus the defaults",
    [
      fc.record({
        bigCount: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
        ratio: fc.double({ noNaN: true }),
        label: fc.string()
      })
    ],
    ([m]) => {
      const printed = print(m)
      const back = ok(read(printed)).value
      expect(back.bigCount ?? "0").toBe(m.bigCount)
      expect(back.ratio ?? 0).toBe(m.ratio === 0 ? 0 : m.ratio)
      expect(back.label ?? "").toBe(m.label)
    },
    { fastCheck: { numRuns: 200 } }
  )
})
