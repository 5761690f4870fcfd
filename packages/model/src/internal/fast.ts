/**
 * The hot path of bulk decoding. Effect Schema stays the source of truth; from a schema's AST
 * this compiles a plain predicate that accepts exactly what the schema accepts, so a valid
 * record is checked in one cheap pass. Only a record the predicate refuses is walked along the
 * schema (bounded.ts), whose decoders say what is wrong and where.
 *
 * Compiled: literals, keywords, enums, structs (with index signatures and the schema's excess
 * property option), unions, arrays and tuples, refinements (their own filters are called, or
 * the plain test a filter carries, see `fastTest`), and suspensions. A schema with a
 * transformation, declaration or template literal anywhere is not compiled: its decoded value
 * differs from its input, and the fast path falls back whole.
 *
 * The predicate is generated as JavaScript source, which V8 optimises as one function; where
 * code is not generated (`Codegen.configure({ jitless: true })`, or a runtime that refuses
 * `new Function`), the same predicate is made of closures. Guards that modules make at load
 * (`lazyGuard`, and `boundedDecodeEither` over it) are compiled on their first call, so importing compiles nothing.
 */
import { Option, Schema, SchemaAST } from "effect"
import { isRecord } from "../json.js"
import { available, compiled } from "../codegen.js"

type Guard = (u: unknown) => boolean

/**
 * An annotation for a filter: the same check as a plain predicate, which compiled guards call
 * instead of the filter (whose every call goes through Effect's Option and issue machinery).
 * Property tests hold the two to the same answers.
 */
export const FastTestId: unique symbol = Symbol.for("@scanbridge/model/fast/test")

/** `{ [FastTestId]: test }`, to spread into a filter's annotations. */
export const fastTest = <A>(test: (a: A) => boolean): { readonly [FastTestId]: (a: A) => boolean } => ({ [FastTestId]: test })

const testOf = (ast: SchemaAST.Refinement): Guard | undefined => {
  const test = ast.annotations[FastTestId]
  return typeof test === "function" ? (test as Guard) : undefined
}

/** A schema's onExcessProperty option. */
export type Excess = "ignore" | "error" | "preserve"

/** Thrown by a compiler that meets a node it leaves to Effect Schema. */
export class Uncompilable extends Error {}

const PARSE_OPTIONS: SchemaAST.ParseOptions = { errors: "first" }

/** A node's onExcessProperty: its own parse options annotation, or the one it inherits. */
export const excessOf = (ast: SchemaAST.AST, inherited: Excess): Excess => {
  const options = Option.getOrUndefined(SchemaAST.getParseOptionsAnnotation(ast))
  return options?.onExcessProperty ?? inherited
}

type Bounds = {
  readonly [K in "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "minLength" | "maxLength" | "minItems" | "maxItems"]?: unknown
}

const num = (v: unknown): v is number => typeof v === "number"

// Effect's own filters say what they check in their schema id and JSON Schema annotation: those
// become direct comparisons, without the Option every filter call returns. The compiled guard is
// checked against Schema.is by property tests, so a mismatch here fails a test, never a decode.
// Read once here; the closure and the generated compilers each render it.
interface Comparison {
  readonly of: "value" | "length"
  readonly op: ">=" | ">" | "<=" | "<" | "==="
  readonly bound: number
}
type KnownCheck = "finite" | "safeInteger" | ReadonlyArray<Comparison>

const knownCheck = (ast: SchemaAST.Refinement): KnownCheck | undefined => {
  const id = Option.getOrUndefined(SchemaAST.getSchemaIdAnnotation(ast))
  const j = (Option.getOrUndefined(SchemaAST.getJSONSchemaAnnotation(ast)) ?? {}) as Bounds
  const one = (of: Comparison["of"], op: Comparison["op"], bound: unknown): KnownCheck | undefined => (num(bound) ? [{ of, op, bound }] : undefined)
  switch (id) {
    case Schema.FiniteSchemaId:
      return "finite"
    case Schema.IntSchemaId:
      return "safeInteger"
    case Schema.GreaterThanOrEqualToSchemaId:
      return one("value", ">=", j.minimum)
    case Schema.GreaterThanSchemaId:
      return one("value", ">", j.exclusiveMinimum)
    case Schema.LessThanOrEqualToSchemaId:
      return one("value", "<=", j.maximum)
    case Schema.LessThanSchemaId:
      return one("value", "<", j.exclusiveMaximum)
    case Schema.BetweenSchemaId:
      return num(j.minimum) && num(j.maximum)
        ? [
            { of: "value", op: ">=", bound: j.minimum },
            { of: "value", op: "<=", bound: j.maximum }
          ]
        : undefined
    case Schema.MinLengthSchemaId:
      return one("length", ">=", j.minLength)
    case Schema.MaxLengthSchemaId:
      return one("length", "<=", j.maxLength)
    case Schema.ItemsCountSchemaId:
      return j.minItems === j.maxItems ? one("length", "===", j.minItems) : undefined
    default:
      return undefined
  }
}

const COMPARE: { readonly [Op in Comparison["op"]]: (a: number, b: number) => boolean } = {
  ">=": (a, b) => a >= b,
  ">": (a, b) => a > b,
  "<=": (a, b) => a <= b,
  "<": (a, b) => a < b,
  "===": (a, b) => a === b
}

const knownGuard = (check: KnownCheck): Guard => {
  if (check === "finite") return (u) => Number.isFinite(u)
  if (check === "safeInteger") return (u) => Number.isSafeInteger(u)
  return (u) => check.every((c) => COMPARE[c.op](c.of === "length" ? (u as { length: number }).length : (u as number), c.bound))
}

/** A guard compiled on its first call: a recursive schema's, or one needed only now and then. */
const lazily = (make: () => Guard): Guard => {
  let guard: Guard | undefined
  return (u) => (guard ??= make())(u)
}

/** Replaces a node of a schema with a stricter one before it is compiled (or leaves it: undefined). */
export type SchemaNarrowing = (ast: SchemaAST.AST) => SchemaAST.AST | undefined

const compile = (node: SchemaAST.AST, inheritedExcess: Excess, narrow: SchemaNarrowing | undefined): Guard => {
  const ast = narrow?.(node) ?? node
  const excess = excessOf(ast, inheritedExcess)
  switch (ast._tag) {
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "UniqueSymbol": {
      const symbol = ast.symbol
      return (u) => u === symbol
    }
    case "UndefinedKeyword":
    case "VoidKeyword":
      return (u) => u === undefined
    case "NeverKeyword":
      return () => false
    case "UnknownKeyword":
    case "AnyKeyword":
      return () => true
    case "StringKeyword":
      return (u) => typeof u === "string"
    case "NumberKeyword":
      return (u) => typeof u === "number"
    case "BooleanKeyword":
      return (u) => typeof u === "boolean"
    case "BigIntKeyword":
      return (u) => typeof u === "bigint"
    case "SymbolKeyword":
      return (u) => typeof u === "symbol"
    case "ObjectKeyword":
      return (u) => (typeof u === "object" && u !== null) || typeof u === "function"
    case "Enums": {
      const values = new Set(ast.enums.map(([, v]) => v))
      return (u) => values.has(u as string | number)
    }
    case "Refinement": {
      const from = compile(ast.from, excess, narrow)
      const check = knownCheck(ast)
      const known = check === undefined ? testOf(ast) : knownGuard(check)
      if (known !== undefined) return (u) => from(u) && known(u)
      const filter = ast.filter
      return (u) => from(u) && Option.isNone(filter(u, PARSE_OPTIONS, ast))
    }
    case "Suspend":
      return lazily(() => compile(ast.f(), excess, narrow))
    case "Union": {
      const literals = ast.types.every(SchemaAST.isLiteral)
      if (literals) {
        const set = new Set(ast.types.map((t) => (t as SchemaAST.Literal).literal))
        return (u) => set.has(u as SchemaAST.LiteralValue)
      }
      const members = ast.types.map((t) => compile(t, excess, narrow))
      return (u) => members.some((m) => m(u))
    }
    case "TupleType": {
      const elements = ast.elements.map((e) => ({ optional: e.isOptional, guard: compile(e.type, excess, narrow) }))
      const [head, ...tail] = ast.rest.map((r) => compile(r.type, excess, narrow))
      if (tail.length > 0) throw new Uncompilable("a tuple with elements after its rest")
      return (u) => {
        if (!Array.isArray(u)) return false
        for (let i = 0; i < elements.length; i++) {
          const e = elements[i]!
          if (i >= u.length) {
            if (!e.optional) return false
          } else if (!e.guard(u[i])) return false
        }
        if (head === undefined) return u.length <= elements.length
        for (let i = elements.length; i < u.length; i++) if (!head(u[i])) return false
        return true
      }
    }
    case "TypeLiteral": {
      const props = ast.propertySignatures.map((p) => {
        if (typeof p.name !== "string") throw new Uncompilable("a symbol key")
        return { name: p.name, optional: p.isOptional, guard: compile(p.type, excess, narrow) }
      })
      const names = new Set(props.map((p) => p.name))
      const indexes = ast.indexSignatures.map((s) => {
        if (!SchemaAST.isStringKeyword(s.parameter)) throw new Uncompilable("an index signature over non-string keys")
        return compile(s.type, excess, narrow)
      })
      const checkExtra = indexes.length > 0 || excess === "error"
      return (u) => {
        if (!isRecord(u)) return false
        for (const p of props) {
          const v = u[p.name]
          // As Schema does by default: a missing required key is read as undefined.
          if (v === undefined && !Object.hasOwn(u, p.name)) {
            if (!p.optional && !p.guard(undefined)) return false
          } else if (!p.guard(v)) return false
        }
        if (checkExtra) {
          // for-in allocates no key array; parsed JSON has no inherited enumerable keys.
          for (const key in u) {
            if (names.has(key) || !Object.hasOwn(u, key)) continue
            if (indexes.length > 0) {
              const v = u[key]
              if (!indexes.every((g) => g(v))) return false
            } else return false
          }
        }
        return true
      }
    }
    default:
      throw new Uncompilable(ast._tag)
  }
}

// --- Generated code -----------------------------------------------------------------------

// The same predicate as straight-line JavaScript: V8 inlines property loads and comparisons it
// can see, where the closures above cost a call per node. Values that are not literals (sets,
// filters, nested guards) are passed in by index. Where code cannot be generated (a runtime
// without `new Function`, say under a strict CSP, or jitless), the closures serve.
export class Generator {
  /**
   * `refuse` is the statement a failed check runs: `return false;` in a guard; the proto3
   * reader, which checks inside functions that return values, throws instead.
   */
  constructor(
    readonly narrow: SchemaNarrowing | undefined,
    readonly refuse = "return false;\n"
  ) {}
  readonly captured: Array<unknown> = []
  private vars = 0

  fresh(prefix: string): string {
    return `${prefix}${this.vars++}`
  }

  capture(value: unknown): string {
    this.captured.push(value)
    return `c[${this.captured.length - 1}]`
  }

  /** Statements that refuse (`return false`) when the value in `v` does not match. */
  check(node: SchemaAST.AST, v: string, excess: Excess): string {
    const ast = this.narrow?.(node) ?? node
    const fail = (condition: string) => `if (${condition}) ${this.refuse}`
    excess = excessOf(ast, excess)
    switch (ast._tag) {
      case "Literal":
        return fail(`${v} !== ${this.literal(ast.literal)}`)
      case "UndefinedKeyword":
      case "VoidKeyword":
        return fail(`${v} !== undefined`)
      case "NeverKeyword":
        return this.refuse
      case "UnknownKeyword":
      case "AnyKeyword":
        return ""
      case "StringKeyword":
        return fail(`typeof ${v} !== "string"`)
      case "NumberKeyword":
        return fail(`typeof ${v} !== "number"`)
      case "BooleanKeyword":
        return fail(`typeof ${v} !== "boolean"`)
      case "Enums":
        return fail(`!${this.capture(new Set(ast.enums.map(([, e]) => e)))}.has(${v})`)
      case "Refinement":
        return this.check(ast.from, v, excess) + fail(this.refinementFails(ast, v))
      case "Union": {
        if (ast.types.every(SchemaAST.isLiteral)) {
          const literals = ast.types.map((t) => (t as SchemaAST.Literal).literal)
          // A few comparisons beat a hash lookup; many do not.
          if (literals.length <= 6) return fail(literals.map((l) => `${v} !== ${this.literal(l)}`).join(" && "))
          return fail(`!${this.capture(new Set(literals))}.has(${v})`)
        }
        // NullOr(X) and the like: the literals compared inline, the one other member checked in place.
        const literals = ast.types.filter(SchemaAST.isLiteral)
        const others = ast.types.filter((t) => !SchemaAST.isLiteral(t))
        if (others.length === 1 && literals.length > 0) {
          return `if (${literals.map((l) => `${v} !== ${this.literal(l.literal)}`).join(" && ")}) {\n${this.check(others[0]!, v, excess)}}\n`
        }
        // Members that are one expression each (String | Number, say) are tested inline.
        const inline = ast.types.map((t) => this.expression(t, v))
        if (inline.every((e) => e !== undefined)) return fail(`!(${inline.join(" || ")})`)
        const members = ast.types.map((t) => this.capture(this.function(t, excess)))
        return fail(members.map((m) => `!${m}(${v})`).join(" && "))
      }
      case "TupleType": {
        const [head, ...tail] = ast.rest
        if (tail.length > 0) throw new Uncompilable("a tuple with elements after its rest")
        const n = ast.elements.length
        let code = fail(head === undefined ? `!Array.isArray(${v}) || ${v}.length > ${n}` : `!Array.isArray(${v})`)
        ast.elements.forEach((e, i) => {
          const item = this.fresh("v")
          const body = `const ${item} = ${v}[${i}];\n${this.check(e.type, item, excess)}`
          code += e.isOptional ? `if (${v}.length > ${i}) {\n${body}}\n` : `if (${v}.length <= ${i}) ${this.refuse}{\n${body}}\n`
        })
        if (head !== undefined) {
          const i = this.fresh("i")
          const item = this.fresh("v")
          code += `for (let ${i} = ${n}; ${i} < ${v}.length; ${i}++) {\nconst ${item} = ${v}[${i}];\n${this.check(head.type, item, excess)}}\n`
        }
        return code
      }
      case "TypeLiteral": {
        let code = fail(`typeof ${v} !== "object" || ${v} === null || Array.isArray(${v})`)
        const indexes = ast.indexSignatures.map((s) => {
          if (!SchemaAST.isStringKeyword(s.parameter)) throw new Uncompilable("an index signature over non-string keys")
          return s.type
        })
        // Without index signatures, a count of the defined known keys against the object's own
        // keys finds extra keys and keys set to undefined without a lookup per absent key; a
        // mismatch (rare in JSON: it is an error) is settled by the exact closure guard.
        const counted = indexes.length === 0 && excess === "error"
        const n = this.fresh("n")
        if (counted) code += `let ${n} = 0;\n`
        const names: Array<string> = []
        for (const p of ast.propertySignatures) {
          if (typeof p.name !== "string") throw new Uncompilable("a symbol key")
          names.push(p.name)
          const key = JSON.stringify(p.name)
          const item = this.fresh("v")
          const body = this.check(p.type, item, excess)
          const takesUndefined = compile(p.type, excess, this.narrow)(undefined)
          code += `const ${item} = ${v}[${key}];\n`
          // As Schema does by default: a missing required key is read as undefined.
          const whenUndefined = takesUndefined ? "" : p.isOptional ? (counted ? "" : fail(`hasOwn(${v}, ${key})`)) : this.refuse
          code += `if (${item} !== undefined) {\n${counted ? `${n}++;\n` : ""}${body}}${whenUndefined === "" ? "" : ` else {\n${whenUndefined}}`}\n`
        }
        if (counted) {
          // Counted with for-in, which reads V8's enum cache and allocates nothing, where
          // Object.keys makes an array per object (more garbage than JSON.parse made the object
          // with). An inherited enumerable key (never in parsed JSON) makes the count -1: the
          // exact guard below then decides. `hop.call` inside for-in is folded away by V8.
          const own = this.fresh("own")
          const k = this.fresh("k")
          code += `let ${own} = 0;\nfor (const ${k} in ${v}) {\nif (!hop.call(${v}, ${k})) {\n${own} = -1;\nbreak;\n}\n${own}++;\n}\n`
          // An own key the struct does not name settles it at once (a record with an unknown key
          // is refused in one look, not by a second pass over it); the exact guard settles the
          // rest of this struct, and the checks after it go on.
          const known = names.length === 0 ? "" : `${names.map((name) => `case ${JSON.stringify(name)}:`).join("\n")}\ncontinue;\n`
          code += `if (${own} !== ${n}) {\nfor (const ${k} of Object.keys(${v})) {\nswitch (${k}) {\n${known}default:\n${this.refuse}}\n}\n${fail(`!${this.exact(ast, excess)}(${v})`)}}\n`
        } else if (indexes.length > 0 || excess === "error") {
          const k = this.fresh("k")
          const item = this.fresh("v")
          const known = names.length === 0 ? "" : `switch (${k}) {\n${names.map((name) => `case ${JSON.stringify(name)}:`).join("\n")}\ncontinue;\n}\n`
          const extra = indexes.length === 0 ? this.refuse : `const ${item} = ${v}[${k}];\n${indexes.map((t) => this.check(t, item, excess)).join("")}`
          // for-in reads values through V8's enum cache, with no key array. It also visits
          // inherited enumerable keys, which parsed JSON never has: the first one hands the
          // value to the exact closure guard, which decides on own keys only, as Schema does.
          const seen = this.fresh("seen")
          code += `let ${seen} = 0;\nfor (const ${k} in ${v}) {\nif (!hop.call(${v}, ${k})) {\n${seen} = -1;\nbreak;\n}\n${known}${extra}}\n`
          code += fail(`${seen} < 0 && !${this.exact(ast, excess)}(${v})`)
        }
        return code
      }
      default:
        // Suspensions (recursive schemas) and the rare rest: a call into the closure compiler.
        return fail(`!${this.capture(compile(ast, excess, this.narrow))}(${v})`)
    }
  }

  /** The closure guard of a struct, for the rare object its key count does not settle; built when first needed. */
  private exact(ast: SchemaAST.AST, excess: Excess): string {
    const narrow = this.narrow
    return this.capture(lazily(() => compile(ast, excess, narrow)))
  }

  /** The check as one boolean expression, where the schema is that simple. */
  private expression(node: SchemaAST.AST, v: string): string | undefined {
    const ast = this.narrow?.(node) ?? node
    switch (ast._tag) {
      case "Literal":
        return `${v} === ${this.literal(ast.literal)}`
      case "StringKeyword":
        return `typeof ${v} === "string"`
      case "NumberKeyword":
        return `typeof ${v} === "number"`
      case "BooleanKeyword":
        return `typeof ${v} === "boolean"`
      case "UndefinedKeyword":
        return `${v} === undefined`
      case "Refinement": {
        const from = this.expression(ast.from, v)
        return from === undefined ? undefined : `(${from} && !${this.refinementFails(ast, v)})`
      }
      default:
        return undefined
    }
  }

  private literal(literal: SchemaAST.LiteralValue): string {
    if (typeof literal === "string" || typeof literal === "boolean" || literal === null) return JSON.stringify(literal)
    if (typeof literal === "number") return Object.is(literal, -0) ? "-0" : Number.isFinite(literal) ? String(literal) : this.capture(literal)
    return this.capture(literal)
  }

  /** A refinement's own check of `v` (not its `from`'s), as an expression true when it fails. */
  refinementFails(ast: SchemaAST.Refinement, v: string): string {
    const check = knownCheck(ast)
    if (check === "finite") return `!Number.isFinite(${v})`
    if (check === "safeInteger") return `!Number.isSafeInteger(${v})`
    if (check !== undefined) return `!(${check.map((c) => `${c.of === "length" ? `${v}.length` : v} ${c.op} ${this.literal(c.bound)}`).join(" && ")})`
    const test = testOf(ast)
    if (test !== undefined) return `!${this.capture(test)}(${v})`
    const filter = ast.filter
    // Option.none() is one shared value: a passing filter allocates nothing.
    return `${this.capture((u: unknown) => Option.isSome(filter(u, PARSE_OPTIONS, ast)))}(${v})`
  }

  /** A whole predicate for one schema. */
  function(ast: SchemaAST.AST, excess: Excess): Guard {
    const inner = new Generator(this.narrow)
    const body = inner.check(ast, "v", excess)
    const source = { kind: "guard", name: nameOf(ast), params: ["c", "hasOwn", "hop"], body: `return function guard(v) {\n${body}return true;\n}` }
    const make = compiled<(c: ReadonlyArray<unknown>, hasOwn: typeof Object.hasOwn, hop: typeof Object.prototype.hasOwnProperty) => Guard>(source, () => {
      throw new Uncompilable("no new Function in this runtime")
    })
    // hop is called as hop.call(object, key).
    return make(inner.captured, Object.hasOwn, Object.prototype.hasOwnProperty)
  }
}

/** What a generated guard's frames are called: the schema's identifier or title, or its kind of node. */
const nameOf = (ast: SchemaAST.AST): string =>
  Option.getOrUndefined(SchemaAST.getIdentifierAnnotation(ast)) ?? Option.getOrUndefined(SchemaAST.getTitleAnnotation(ast)) ?? ast._tag

const generate = (ast: SchemaAST.AST, excess: Excess, narrow: SchemaNarrowing | undefined): Guard | null => {
  if (!available()) return null
  try {
    return new Generator(narrow).function(ast, excess)
  } catch (e) {
    // A runtime without `new Function`, or a shape left to the closures.
    if (e instanceof Uncompilable) return null
    throw e
  }
}

/** How a guard is compiled. */
export interface GuardOptions {
  /** false: from closures only, as where code is not generated. */
  readonly generate?: boolean
  /**
   * Replaces a node of the schema with a stricter one before it is compiled (the proto3
   * reader's exact-print check reads an enum field as a name only).
   */
  readonly narrow?: SchemaNarrowing
}

/**
 * The compiled predicate of a schema, now, or null when the schema transforms its input.
 * Generated code where it may be (see `Codegen`), closures otherwise.
 */
export const compileGuard = <A, I>(
  schema: Schema.Schema<A, I>,
  onExcessProperty: Excess = "ignore",
  options: GuardOptions = {}
): ((u: unknown) => u is A) | null => {
  try {
    const generated = options.generate === false ? null : generate(schema.ast, onExcessProperty, options.narrow)
    return (generated ?? compile(schema.ast, onExcessProperty, options.narrow)) as (u: unknown) => u is A
  } catch (e) {
    if (e instanceof Uncompilable) return null
    throw e
  }
}

const refuseAll = (_: unknown): boolean => false

/**
 * `compileGuard` on the guard's first call, not before: a module that makes its guards when it
 * loads compiles nothing until data arrives. Where the schema transforms its input (no guard
 * compiles), the guard refuses everything: the caller's slow path (Schema) then decides.
 */
export const lazyGuard = <A, I>(schema: Schema.Schema<A, I>, onExcessProperty: Excess = "ignore", options: GuardOptions = {}): LazyGuard<A> => {
  let compiled: Guard | undefined
  let decides = false
  const compiledGuard = (): Guard => {
    if (compiled !== undefined) return compiled
    const made = compileGuard(schema, onExcessProperty, options)
    decides = made !== null
    return (compiled = made ?? refuseAll)
  }
  const guard = (u: unknown) => !schemaPathOnly && compiledGuard()(u)
  return Object.assign(guard as (u: unknown) => u is A, { decides: () => !schemaPathOnly && (compiledGuard(), decides) })
}

/**
 * A guard compiled on its first call, and whether its refusal is Schema's: a compiled guard
 * accepts exactly what the schema accepts (property tests hold the two together), so a value it
 * refuses needs no Schema decode to be known refused, only the walk that says why. It does not
 * decide where no guard compiles (the schema transforms: it refuses everything) or while the
 * differential test forces the schema path.
 */
export interface LazyGuard<A> {
  (u: unknown): u is A
  readonly decides: () => boolean
}

// Read on every call, not when a guard is made: the differential test runs both paths in one process.
let schemaPathOnly = false

/** Whether the differential test forces the reference path (`setSchemaPathOnly`). */
export const schemaPathForced = (): boolean => schemaPathOnly

/**
 * Every lazy guard refuses everything while this is on, so every record takes the reference path:
 * Effect Schema decodes it and the keys it does not name are found by walking the schema. For the
 * differential test, which holds the fast path to the reference's bytes and rejects; not an
 * option for users (the answers are the same, only slower).
 */
export const setSchemaPathOnly = (on: boolean): void => {
  schemaPathOnly = on
}
