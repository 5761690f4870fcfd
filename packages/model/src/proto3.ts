/**
 * The proto3 JSON mapping (protobuf.dev/programming-guides/json), for the vendor APIs whose JSON
 * follows protocol-buffer schemas. A wire schema is written once, as an Effect Schema of the
 * JSON a conforming server prints: lowerCamelCase keys, enum names, int64 as decimal strings,
 * RFC 3339 timestamps. From that one schema this module derives
 *
 * - a reader that accepts every spelling a conforming parser accepts (the original proto field
 *   names, enum numbers, int64 as numbers, doubles as strings, `null` for unset) and rewrites
 *   it to the printed form before the schema validates it. Where code is generated, a message
 *   not printed exactly is read in one generated pass that rewrites and checks at once
 *   (internal/one-pass.ts); the key-by-key reader here is the reference, and reads what that
 *   pass refuses, so errors are always its own; and
 * - a printer that omits fields holding their default value, as protobuf's printer does.
 *
 * Errors name the path as the input spelled it (`results.measurements[2].measurement_type`);
 * notes and the renamed and ignored lists use the printed spelling, so that every spelling of
 * one message reads to the same result.
 */
import { boundedDecodeEither } from "./internal/bounded.js"
import { type SchemaNarrowing, fastTest, lazyGuard } from "./internal/fast.js"
import { type Leaf, type Proto3Leaves, REFUSED, lazyOnePass } from "./internal/one-pass.js"
import { slowPaths } from "./internal/slow.js"
import { Either, Option, Schema, SchemaAST } from "effect"
import { isRecord } from "./json.js"
import { DecodeError, type Path, type PathSegment } from "./errors.js"
import { isUtcTimestamp } from "./scan.js"
import { FOUR_DIGIT_YEARS_MS, digitsAt, utcTimestampOfMillis, wallClockMillis } from "./internal/time.js"

/** toISOString's form for years 1-9999 (the range of a proto3 Timestamp): parseTimestamp keeps it as it is. */
export const isCanonicalTimestamp = (s: string): boolean => isUtcTimestamp(s) && !s.startsWith("0000")

// --- Field kinds --------------------------------------------------------------------------

const KIND = Symbol.for("@scanbridge/model/proto3/kind")

type Kind = { readonly _tag: "int64" } | { readonly _tag: "double" } | { readonly _tag: "timestamp" } | { readonly _tag: "enum"; readonly enum: EnumType }

const kindOf = (ast: SchemaAST.AST): Kind | undefined => ast.annotations[KIND] as Kind | undefined

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
// One spelling per value: "-0" and leading zeros are read, never printed.
const INT64_PRINTED = /^(0|-?[1-9]\d*)$/
// Up to 18 digits every value is within int64: no BigInt needed to know.
const inInt64Range = (s: string) => s.length < 19 || (BigInt(s) >= INT64_MIN && BigInt(s) <= INT64_MAX)
const isInt64 = (s: string) => INT64_PRINTED.test(s) && inInt64Range(s)

/** An int64 as printed: a decimal string, full precision. The reader also takes a JSON integer. */
export const Int64 = Schema.String.pipe(
  Schema.filter((s) => isInt64(s) || "an int64 as a decimal string", {
    ...fastTest(isInt64),
    arbitrary: () => (fc) => fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(String)
  })
).annotations({ identifier: "Int64", [KIND]: { _tag: "int64" } satisfies Kind })

/** A double. The reader also takes a numeric string and "NaN", "Infinity", "-Infinity". */
export const Double = Schema.Number.annotations({ identifier: "Double", [KIND]: { _tag: "double" } satisfies Kind })

const isTimestamp = (s: string): boolean => isCanonicalTimestamp(s) || Option.isSome(parseTimestamp(s))

/** An instant as proto3 prints google.protobuf.Timestamp: RFC 3339, up to nanoseconds. */
export const Timestamp = Schema.String.pipe(
  Schema.filter((s) => isTimestamp(s) || "an RFC 3339 timestamp, like 2026-01-02T03:04:05.123456789Z", {
    ...fastTest(isTimestamp),
    arbitrary: () => (fc) =>
      fc.date({ min: new Date("0001-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true }).map((d) => d.toISOString())
  })
).annotations({ identifier: "Timestamp", [KIND]: { _tag: "timestamp" } satisfies Kind })

export interface ParsedTimestamp {
  /** The instant in the canonical form, `Date.prototype.toISOString()`. */
  readonly iso: string
  /** The digits below a millisecond that the canonical form cannot hold ("" when none). */
  readonly subMillisecond: string
}

// The instants of years 0001-9999, a proto3 Timestamp's range.
const FIRST_MS = -62_135_596_800_000
const LAST_MS = FOUR_DIGIT_YEARS_MS.max
const isDigitAt = (s: string, i: number) => {
  const c = s.charCodeAt(i)
  return c >= 48 && c <= 57
}

/**
 * Reads an RFC 3339 timestamp of years 0001-9999 (`YYYY-MM-DD[Tt]hh:mm:ss[.1-9 digits]` then
 * `Z`, `z` or `±hh:mm`); None for anything else. Read by character and computed by arithmetic,
 * not with a regex and a Date (a quarter of the cost); a property test holds it to that reading.
 */
export const parseTimestamp = (s: string): Option.Option<ParsedTimestamp> => {
  // Most stored timestamps are already canonical (toISOString's form): nothing to compute.
  if (isCanonicalTimestamp(s)) return Option.some({ iso: s, subMillisecond: "" })
  const n = s.length
  if (n < 20 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return Option.none()
  const t = s.charCodeAt(10)
  if (t !== 84 && t !== 116) return Option.none()
  const wallClock = wallClockMillis(s)
  // Year 0000 is no instant a protobuf Timestamp holds (its range begins at 0001).
  if (Number.isNaN(wallClock) || digitsAt(s, 0, 4) < 1) return Option.none()
  // An optional fraction of 1-9 digits, then Z, z or an offset ending the string.
  let at = 19
  let fraction = ""
  if (s.charCodeAt(at) === 46) {
    let end = at + 1
    while (end < n && isDigitAt(s, end)) end++
    if (end === at + 1 || end > at + 10) return Option.none()
    fraction = s.slice(at + 1, end)
    at = end
  }
  const zone = s.charCodeAt(at)
  let offset = 0
  if (zone === 90 || zone === 122) {
    if (at + 1 !== n) return Option.none()
  } else if (zone === 43 || zone === 45) {
    if (at + 6 !== n || s.charCodeAt(at + 3) !== 58) return Option.none()
    const offsetHours = digitsAt(s, at + 1, 2)
    const offsetMinutes = digitsAt(s, at + 4, 2)
    if (offsetHours < 0 || offsetHours > 23 || offsetMinutes < 0 || offsetMinutes > 59) return Option.none()
    offset = (zone === 45 ? -1 : 1) * (offsetHours * 60 + offsetMinutes)
  } else return Option.none()
  const millis =
    fraction.length === 0 ? 0 : fraction.length >= 3 ? digitsAt(fraction, 0, 3) : digitsAt(fraction, 0, fraction.length) * (fraction.length === 1 ? 100 : 10)
  const ms = wallClock - offset * 60_000 + millis
  if (ms < FIRST_MS || ms > LAST_MS) return Option.none()
  return Option.some({ iso: utcTimestampOfMillis(ms), subMillisecond: fraction.length > 3 ? fraction.slice(3).replace(/0+$/, "") : "" })
}

/** An enum: its value names and the numbers the vendor documents (null where not shown). */
export interface EnumType {
  readonly name: string
  readonly numbers: Readonly<Record<string, number | null>>
  /** Number -> name, for the documented numbers. */
  readonly byNumber: ReadonlyMap<number, string>
  readonly names: ReadonlySet<string>
}

export const enumType = (name: string, numbers: Readonly<Record<string, number | null>>): EnumType => {
  const byNumber = new Map<number, string>()
  for (const [value, n] of Object.entries(numbers)) if (n !== null) byNumber.set(n, value)
  return { name, numbers, byNumber, names: new Set(Object.keys(numbers)) }
}

/**
 * An enum field as printed: a value name. The reader turns a documented number into its name
 * and keeps a name or number it does not know (a newer server's), so the codec decides whether
 * that is an error or a dropped item. Names are checked by set lookup, not a literal union.
 */
export const Enum = (type: EnumType) =>
  Schema.Union(Schema.String, Schema.Number.pipe(Schema.int())).annotations({
    identifier: type.name,
    [KIND]: { _tag: "enum", enum: type } satisfies Kind
  })

/** A proto3 field: optional, as every proto3 field is; absent and null both mean unset. */
export const field = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

// --- Names --------------------------------------------------------------------------------

/** protobuf's ToJsonName: `include_3d_avatar_in_results` -> `include3dAvatarInResults`. */
export const toJsonName = (name: string): string => {
  let out = ""
  let upper = false
  for (const c of name) {
    if (c === "_") upper = true
    else {
      out += upper ? c.toUpperCase() : c
      upper = false
    }
  }
  return out
}

// --- Reading ------------------------------------------------------------------------------

/** A key the input spelled otherwise than the printer would (`scanning_session_id`). */
export interface Renamed {
  readonly path: Path
  readonly from: string
}

/** A key the schema does not know: a conforming parser set to ignore unknown fields skips it. */
export interface Ignored {
  readonly path: Path
  readonly value: unknown
}

export interface Read<A> {
  readonly value: A
  readonly renamed: ReadonlyArray<Renamed>
  readonly ignored: ReadonlyArray<Ignored>
  /** A path in printed names, as the input spelled it (for errors found after reading). */
  readonly locate: (path: Path) => Path
}

/**
 * Where the reader is: each step's key as the input spells it and as the printer does. Made
 * once per message and list the reader enters, not per field; turned into a path only when one
 * is reported.
 */
interface Trail {
  readonly parent: Trail | null
  readonly key: PathSegment
  readonly name: PathSegment
}

const pathOf = (trail: Trail | null, spelling: "key" | "name"): Array<PathSegment> => {
  const out: Array<PathSegment> = []
  for (let t = trail; t !== null; t = t.parent) out.push(t[spelling])
  return out.reverse()
}

/** Where a value is: `key` (input spelling) and `name` (printed) under `parent`; null at the root. */
const trailAt = (parent: Trail | null, key: PathSegment | undefined, name: PathSegment | undefined): Trail | null =>
  key === undefined ? null : { parent, key, name: name ?? key }

class ReadFailure {
  constructor(
    readonly trail: Trail | null,
    readonly value: unknown,
    readonly message: string
  ) {}
}

interface Context {
  /**
   * Each key the input spelled otherwise than the printer, four entries each: the trail of its
   * message, its printed name, the input's key, and the message as read (to report paths).
   * Flat, so that a snake_case record allocates no object per key.
   */
  readonly renamed: Array<Trail | PathSegment | object | null>
  readonly ignored: Array<Ignored>
}

/** A reader of the value at (parent, key, name): the value's printed form, or a ReadFailure thrown. */
type Reader = (value: unknown, parent: Trail | null, key: PathSegment | undefined, name: PathSegment | undefined, ctx: Context) => unknown

const fail = (at: Trail | null, value: unknown, message: string): never => {
  throw new ReadFailure(at, value, message)
}

const readInt64 = (value: unknown, at: Trail | null): string => {
  if (typeof value === "number") {
    if (!Number.isInteger(value)) return fail(at, value, "an int64: a whole number")
    if (!Number.isSafeInteger(value)) {
      return fail(at, value, "an int64 beyond 2^53 written as a JSON number, which has lost its exact value: write it as a string")
    }
    return String(value === 0 ? 0 : value)
  }
  if (typeof value === "string") {
    if (INT64_PRINTED.test(value) && value.length < 19) return value
    if (!/^-?\d+$/.test(value)) return fail(at, value, "an int64 as a decimal string (no fraction, exponent or spaces)")
    const n = BigInt(value)
    if (n < INT64_MIN || n > INT64_MAX) return fail(at, value, "an int64 between -2^63 and 2^63-1")
    return n.toString()
  }
  return fail(at, value, "an int64 (a decimal string or a JSON integer)")
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/
const SPECIAL: Readonly<Record<string, number>> = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, "-Infinity": Number.NEGATIVE_INFINITY }

const readDouble = (value: unknown, at: Trail | null): number => {
  if (typeof value === "number") return value
  if (typeof value === "string") {
    if (Object.hasOwn(SPECIAL, value)) return SPECIAL[value]!
    if (JSON_NUMBER.test(value)) return Number(value)
  }
  return fail(at, value, `a double (a JSON number, a numeric string, "NaN", "Infinity" or "-Infinity")`)
}

const readEnum = (type: EnumType, value: unknown, at: Trail | null): string | number => {
  if (typeof value === "string") return value
  if (typeof value === "number" && Number.isInteger(value)) return type.byNumber.get(value) ?? value
  return fail(at, value, `a ${type.name} value name or number`)
}

interface Field {
  readonly name: string
  readonly read: Reader
  /** The field's bit among the names an object has read (0: past the bits, see compileObject). */
  readonly bit: number
}

// The fields of a message that `seen` tracks as bits of a small integer, with no Set per object.
const SEEN_BITS = 30

// Spellings remembered per message type (the printed and original names come first); a stream
// of ever new unknown keys is still read, past the bound without being remembered.
const MAX_SPELLINGS = 256

const compileObject = (ast: SchemaAST.TypeLiteral): Reader => {
  const byName = new Map<string, Field>()
  for (const p of ast.propertySignatures) {
    if (typeof p.name !== "string") continue
    const index = byName.size
    byName.set(p.name, { name: p.name, read: keptAsPrinted(compile(p.type), p.type), bit: index < SEEN_BITS ? 2 ** index : 0 })
  }
  // Most messages have a few fields, each a bit of `seenBits`; a larger one counts on a Set.
  const small = byName.size <= SEEN_BITS
  // The field each key of the input names (null: none), as protobuf's parser resolves it: the
  // printed name itself, else its ToJsonName. Resolved once per spelling, not once per key read.
  const byKey = new Map<string, Field | null>(byName)
  const fieldOf = (key: string): Field | null => {
    let field = byKey.get(key)
    if (field === undefined) {
      field = byName.get(toJsonName(key)) ?? null
      if (byKey.size < MAX_SPELLINGS) byKey.set(key, field)
    }
    return field
  }
  return (value, parent, at, as, ctx) => {
    const here = trailAt(parent, at, as)
    if (!isRecord(value)) return fail(here, value, "an object")
    const out: Record<string, unknown> = {}
    // The names read so far: needed only once a key is spelled otherwise than its name, since two
    // keys of one object can only name one field when one of them is.
    let seen: Set<string> | undefined
    let seenBits = 0
    // for-in and the own-key test read Object.keys's keys in its order, without a list of them
    // made for every message read.
    for (const key in value) {
      if (!hasOwn.call(value, key)) continue
      const field = fieldOf(key)
      const v = value[key]
      if (field === null) {
        ctx.ignored.push({ path: [...pathOf(here, "name"), key], value: v })
        continue
      }
      const name = field.name
      if (small) {
        // Every field read is marked, so a second spelling is found without a look back.
        if ((seenBits & field.bit) !== 0) return fail({ parent: here, key, name: key }, v, secondSpelling(name))
        seenBits |= field.bit
        if (key !== name) ctx.renamed.push(here, name, key, out)
      } else if (key !== name || seen !== undefined) {
        if (seen === undefined) {
          seen = new Set()
          for (const earlier in value) {
            if (earlier === key) break
            const read = hasOwn.call(value, earlier) ? fieldOf(earlier) : null
            if (read !== null) seen.add(read.name)
          }
        }
        if (seen.has(name)) return fail({ parent: here, key, name: key }, v, secondSpelling(name))
        seen.add(name)
        if (key !== name) ctx.renamed.push(here, name, key, out)
      }
      // null means unset: the field takes its default, which is what leaving it out means.
      if (v === null) continue
      out[name] = field.read(v, here, key, name, ctx)
    }
    return out
  }
}

const hasOwn = Object.prototype.hasOwnProperty

const secondSpelling = (name: string): string => `no second spelling of field ${name} (protobuf reads each field once)`

/**
 * What a printed message holds where the reader would give back the value as it is: no null (the
 * reader drops a null field and refuses a null in a list), and no value of unknown shape (its null
 * is not seen), enum fields as names. Stricter is safe: a value refused here is only read.
 */
const printedOnly: SchemaNarrowing = (ast) => {
  if (kindOf(ast)?._tag === "enum") return Schema.String.ast
  if (ast._tag === "UnknownKeyword" || ast._tag === "AnyKeyword") return SchemaAST.neverKeyword
  if (ast._tag === "Union" && ast.types.some(isNullLiteral)) {
    const rest = SchemaAST.Union.make(ast.types.filter((t) => !isNullLiteral(t)))
    return printedOnly(rest) ?? rest
  }
  return undefined
}

const isNullLiteral = (ast: SchemaAST.AST): boolean => SchemaAST.isLiteral(ast) && ast.literal === null

const isMessageOrList = (ast: SchemaAST.AST): boolean =>
  ast._tag === "TypeLiteral" ||
  (ast._tag === "TupleType" && ast.elements.length === 0 && ast.rest.length === 1) ||
  (ast._tag === "Refinement" && kindOf(ast) === undefined && isMessageOrList(ast.from))

/**
 * A field's reader that keeps a message or list already in printed spelling as it is: reading
 * it would copy it key by key into the same value. A record with one key spelled otherwise
 * (fit's estimation_token) then copies that key's message only, not its every measurement.
 */
const keptAsPrinted = (read: Reader, ast: SchemaAST.AST): Reader => {
  if (!isMessageOrList(ast)) return read
  const printed = lazyGuard(Schema.make(ast), "error", { narrow: printedOnly })
  return (value, parent, key, name, ctx) => (printed(value) ? value : read(value, parent, key, name, ctx))
}

const compileArray = (element: SchemaAST.AST): Reader => {
  const read = compile(element)
  return (value, parent, at, as, ctx) => {
    const here = trailAt(parent, at, as)
    if (!Array.isArray(value)) return fail(here, value, "an array")
    const out = new Array<unknown>(value.length)
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i]
      out[i] = v === null ? fail({ parent: here, key: i, name: i }, v, "no null inside a repeated field") : read(v, here, i, i, ctx)
    }
    return out
  }
}

const passThrough: Reader = (value) => value

const compile = (ast: SchemaAST.AST): Reader => {
  const kind = kindOf(ast)
  if (kind !== undefined) {
    switch (kind._tag) {
      case "int64":
        // As printed (the common case), without making the trail an error would need.
        return (v, parent, key, name) => (typeof v === "string" && v.length < 19 && INT64_PRINTED.test(v) ? v : readInt64(v, trailAt(parent, key, name)))
      case "double":
        return (v, parent, key, name) => (typeof v === "number" ? v : readDouble(v, trailAt(parent, key, name)))
      case "enum":
        return (v, parent, key, name) => (typeof v === "string" ? v : readEnum(kind.enum, v, trailAt(parent, key, name)))
      case "timestamp":
        return passThrough
    }
  }
  switch (ast._tag) {
    case "TypeLiteral":
      return compileObject(ast)
    case "TupleType":
      return ast.elements.length === 0 && ast.rest.length === 1 ? compileArray(ast.rest[0]!.type) : passThrough
    case "Refinement":
      return compile(ast.from)
    case "Transformation":
      return compile(ast.from)
    case "Suspend": {
      let inner: Reader | undefined
      return (v, parent, key, name, ctx) => (inner ??= compile(ast.f()))(v, parent, key, name, ctx)
    }
    case "Union": {
      // NullOr(X) or X | undefined: read as X. Other unions are left to the schema.
      const members = ast.types.filter((t) => !SchemaAST.isUndefinedKeyword(t) && !(SchemaAST.isLiteral(t) && t.literal === null))
      return members.length === 1 ? compile(members[0]!) : passThrough
    }
    default:
      return passThrough
  }
}

/** The renamed keys of a read, as the API lists them: the printed path of each, and the key. */
const renamedOf = (flat: ReadonlyArray<unknown>): Array<Renamed> => {
  const out: Array<Renamed> = []
  for (let i = 0; i < flat.length; i += 4) {
    // The one pass records its message's printed path itself, the reference reader its trail.
    const at = flat[i] as Trail | ReadonlyArray<PathSegment> | null
    out.push({ path: [...(Array.isArray(at) ? at : pathOf(at as Trail | null, "name")), flat[i + 1] as string], from: flat[i + 2] as string })
  }
  return out
}

/** A leaf reader of the one pass: the reference's reading, REFUSED where it would fail. */
const orRefused =
  <A>(read: (value: unknown, at: Trail | null) => A) =>
  (value: unknown): A | typeof REFUSED => {
    try {
      return read(value, null)
    } catch (e) {
      if (e instanceof ReadFailure) return REFUSED
      throw e
    }
  }

const INT64_LEAF: Leaf = { _tag: "int64", read: orRefused(readInt64) }
const DOUBLE_LEAF: Leaf = { _tag: "double", read: orRefused(readDouble) }
const TIMESTAMP_LEAF: Leaf = { _tag: "timestamp" }

const LEAVES: Proto3Leaves = {
  leafOf: (ast): Leaf | undefined => {
    const kind = kindOf(ast)
    switch (kind?._tag) {
      case undefined:
        return undefined
      case "int64":
        return INT64_LEAF
      case "double":
        return DOUBLE_LEAF
      case "enum":
        return { _tag: "enum", read: orRefused((v, at) => readEnum(kind.enum, v, at)) }
      case "timestamp":
        return TIMESTAMP_LEAF
    }
  },
  int64Printed: INT64_PRINTED,
  jsonName: toJsonName,
  maxSpellings: MAX_SPELLINGS
}

// Error paths come from the schema in printed names; report them as the input spelled them.
const inputPath = (root: unknown, path: Path, renamed: ReadonlyArray<unknown>): Path => {
  const out: Array<PathSegment> = []
  let node: unknown = root
  for (const segment of path) {
    let key: PathSegment = segment
    if (typeof segment === "string" && typeof node === "object" && node !== null) {
      for (let i = 0; i < renamed.length; i += 4) {
        if (renamed[i + 3] === node && renamed[i + 1] === segment) {
          key = renamed[i + 2] as string
          break
        }
      }
    }
    out.push(key)
    node = typeof node === "object" && node !== null ? (node as Record<PathSegment, unknown>)[segment] : undefined
  }
  return out
}

const identityPath = (path: Path): Path => path

const NONE: ReadonlyArray<never> = []

/**
 * A reader of one message in any spelling a conforming proto3 JSON parser accepts, validated
 * by `schema` (written in the printed spelling). Never throws.
 */
export const reader = <A, I>(schema: Schema.Schema<A, I>, format: string, base: Path = []) => {
  const read = compile(schema.ast)
  const validate = boundedDecodeEither(schema)
  // Most stored messages are already in printed spelling with no unknown field: the reader would
  // copy them unchanged, so they are returned as they are once the schema's predicate agrees.
  // An enum field then holds a name: a number is the reader's to map.
  const printedExactly = lazyGuard(schema, "error", { narrow: (ast) => (kindOf(ast)?._tag === "enum" ? Schema.String.ast : undefined) })
  // The rest in one generated pass where there is one; what it refuses, the reference reads.
  const onePass = lazyOnePass(schema, LEAVES)
  return (json: unknown): Either.Either<Read<A>, DecodeError> => {
    if (printedExactly(json)) return Either.right({ value: json as A, renamed: NONE, ignored: NONE, locate: identityPath })
    const fast = onePass()
    if (fast !== null) {
      const ctx: Context = { renamed: [], ignored: [] }
      const value = fast(json, ctx)
      if (value !== REFUSED) {
        slowPaths.proto3OnePassReads++
        return Either.right(new Reread(value as A, ctx.ignored, value, ctx.renamed))
      }
    }
    slowPaths.proto3ReferenceReads++
    const ctx: Context = { renamed: [], ignored: [] }
    let printed: unknown
    try {
      printed = read(json, null, undefined, undefined, ctx)
    } catch (e) {
      if (e instanceof ReadFailure) return Either.left(DecodeError.at(format, [...base, ...pathOf(e.trail, "key")], e.value, e.message))
      throw e
    }
    const result = validate(printed)
    const flat = ctx.renamed
    if (Either.isLeft(result)) {
      const issues = result.left.issues.map((issue) => ({ ...issue, path: [...base, ...inputPath(printed, issue.path, flat)] }))
      return Either.left(DecodeError.fromIssues(format, issues, result.left.omitted))
    }
    return Either.right(new Reread(result.right, ctx.ignored, printed, flat))
  }
}

/** A read that rewrote the input: its renamed list made when first asked for (most readers never ask). */
class Reread<A> implements Read<A> {
  private list: ReadonlyArray<Renamed> | undefined
  constructor(
    readonly value: A,
    readonly ignored: ReadonlyArray<Ignored>,
    private readonly printed: unknown,
    private readonly flat: ReadonlyArray<unknown>
  ) {}
  get renamed(): ReadonlyArray<Renamed> {
    return (this.list ??= this.flat.length === 0 ? NONE : renamedOf(this.flat))
  }
  readonly locate = (path: Path): Path => (this.flat.length === 0 ? path : inputPath(this.printed, path, this.flat))
}

// --- Printing -----------------------------------------------------------------------------

type Printer = (value: unknown) => unknown

/** Whether a printed scalar is its field's default, which protobuf's printer leaves out. */
const isDefault = (ast: SchemaAST.AST, value: unknown): boolean => {
  const kind = kindOf(ast)
  if (kind?._tag === "int64") return value === "0"
  if (kind?._tag === "double") return value === 0
  if (kind?._tag === "enum") return value === 0 || (typeof value === "string" && kind.enum.numbers[value] === 0)
  return value === "" || value === false || (Array.isArray(value) && value.length === 0)
}

const compilePrinter = (ast: SchemaAST.AST): Printer => {
  switch (ast._tag) {
    case "TypeLiteral": {
      const fields = ast.propertySignatures
        .filter((p): p is SchemaAST.PropertySignature & { name: string } => typeof p.name === "string")
        .map((p) => ({ name: p.name, type: p.type, print: compilePrinter(p.type) }))
      return (value) => {
        if (!isRecord(value)) return value
        const out: Record<string, unknown> = {}
        for (const f of fields) {
          const v = value[f.name]
          if (v === undefined || v === null || isDefault(f.type, v)) continue
          out[f.name] = f.print(v)
        }
        return out
      }
    }
    case "TupleType": {
      if (ast.elements.length !== 0 || ast.rest.length !== 1) return (v) => v
      const print = compilePrinter(ast.rest[0]!.type)
      return (value) => (Array.isArray(value) ? value.map(print) : value)
    }
    case "Refinement":
    case "Transformation":
      return kindOf(ast) === undefined ? compilePrinter(ast.from) : (v) => v
    case "Union": {
      const members = ast.types.filter((t) => !SchemaAST.isUndefinedKeyword(t) && !(SchemaAST.isLiteral(t) && t.literal === null))
      return members.length === 1 && kindOf(ast) === undefined ? compilePrinter(members[0]!) : (v) => v
    }
    default:
      return (v) => v
  }
}

/**
 * The JSON protobuf's printer writes for a message already in printed spelling: the same
 * object without the fields that hold their default value (0, "", false, [], the zero enum).
 * A message field that is set stays, even when empty.
 */
export const printer = <A, I>(schema: Schema.Schema<A, I>): ((value: I) => I) => compilePrinter(schema.ast) as (value: I) => I
