/**
 * The proto3 reader's one pass, generated from the wire schema. The reference reader (proto3.ts)
 * copies a message spelled otherwise than printed into the printed spelling key by key, then
 * checks the copy with the schema's guard: two passes, and a closure call, a trail object and a
 * Map lookup per key. This reads each message type with one generated function that resolves a
 * key by a `switch` over its printed and snake_case spellings, rewrites the value (an enum's
 * number, an int64 as a number, a double as a string) and checks it as the compiled guard would,
 * in the same pass.
 *
 * - A message or list that reading leaves as it is comes back as the very value given (nothing
 *   is copied until the first key that differs), as the reference keeps a printed one.
 * - It answers only what it is sure of: a value it refuses (a wrong type, a second spelling of a
 *   field, a null in a list, an inherited key) is read again by the reference reader, whose
 *   errors name the path as the input spelled it. So its errors are the reference's by
 *   construction, and it needs no paths of its own but those of the renamed and ignored keys.
 * - A schema with a node the guard compiler does not compile (a transformation, an index
 *   signature) gets no one pass: the reference reads it.
 *
 * What proto3 reads into a leaf is proto3.ts's, passed in as `Proto3Leaves`, so that this module
 * does not import the module that uses it.
 */
import { Option, type Schema, SchemaAST } from "effect"
import type { PathSegment } from "../errors.js"
import { available, compiled } from "../codegen.js"
import { snakeCase } from "../dialect.js"
import { checkOf } from "./bounded.js"
import { type Excess, Generator, Uncompilable, compileGuard, excessOf, schemaPathForced } from "./fast.js"

/** What a leaf reader answers for a value it does not read. */
export const REFUSED: unique symbol = Symbol.for("@scanbridge/model/proto3/refused")

/** A proto3 field kind, and how the reference reads a value of it that is not already printed. */
export type Leaf = { readonly _tag: "int64" | "double" | "enum"; readonly read: (v: unknown) => unknown } | { readonly _tag: "timestamp" }

export interface Proto3Leaves {
  /** The node's proto3 kind, where it is one of proto3.ts's field schemas. */
  readonly leafOf: (ast: SchemaAST.AST) => Leaf | undefined
  /** An int64 as printed: a value that matches it (and is under 19 characters) is read as it is. */
  readonly int64Printed: RegExp
  /** The printed name protobuf's parser resolves a key to (ToJsonName). */
  readonly jsonName: (key: string) => string
  /** How many other spellings of its fields a message type remembers. */
  readonly maxSpellings: number
}

/** The renamed and ignored keys a read reports, laid out as the reference reader's. */
export interface OnePassContext {
  /** Four entries per renamed key: the printed path of its message, its printed name, the key, the message as read. */
  readonly renamed: Array<unknown>
  readonly ignored: Array<{ readonly path: ReadonlyArray<PathSegment>; readonly value: unknown }>
}

/** Reads a message in one pass: its printed form, or REFUSED for the reference reader to read. */
export type OnePass = (json: unknown, ctx: OnePassContext) => unknown

const SEEN_BITS = 30

/** The own keys of `v` before `stop`, as they are: the copy a message starts once a key differs. */
const upTo = (v: Record<string, unknown>, stop: string): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const k in v) {
    if (k === stop) break
    out[k] = v[k]
  }
  return out
}

class ReaderGenerator {
  // Checks refuse by throwing R: they run inside functions that return the value read.
  readonly g = new Generator(undefined, "throw R;\n")
  readonly functions: Array<string> = []
  private readonly messages = new Map<SchemaAST.AST, Map<string, string>>()

  constructor(readonly leaves: Proto3Leaves) {}

  private capture(value: unknown): string {
    return this.g.capture(value)
  }

  /** Whether reading a value of this node can report a renamed or ignored key (it holds a message). */
  private reports(ast: SchemaAST.AST, depth = 0): boolean {
    // A chain that deep is a recursive schema's: say yes, pushing a path segment is always right.
    if (depth > 32) return true
    if (this.leaves.leafOf(ast) !== undefined) return false
    switch (ast._tag) {
      case "TypeLiteral":
      case "Suspend":
        return true
      case "TupleType":
        return ast.elements.some((e) => this.reports(e.type, depth + 1)) || ast.rest.some((r) => this.reports(r.type, depth + 1))
      case "Refinement":
        return this.reports(ast.from, depth + 1)
      case "Union":
        return ast.types.some((t) => this.reports(t, depth + 1))
      default:
        return false
    }
  }

  /** Statements that read the value in variable `x` as the node, into the variable named by `y`. */
  read(ast: SchemaAST.AST, x: string, excess: Excess, depth = 0): { readonly code: string; readonly y: string } {
    if (depth > 64) throw new Uncompilable("a chain of suspensions")
    const y = this.g.fresh("y")
    const leaf = this.leaves.leafOf(ast)
    if (leaf !== undefined) {
      if (leaf._tag === "timestamp") return { code: `const ${y} = ${x};\n${this.g.check(ast, y, excess)}`, y }
      const printed =
        leaf._tag === "int64"
          ? `typeof ${y} === "string" && ${y}.length < 19 && ${this.capture(this.leaves.int64Printed)}.test(${y})`
          : leaf._tag === "double"
            ? `typeof ${y} === "number"`
            : `typeof ${y} === "string"`
      // What the reference reader makes of an int64 is always one as printed; of an enum, a name
      // or a number the schema may refuse (past 2^53); of a double, a number.
      const check = leaf._tag === "int64" ? "" : this.g.check(ast, y, excess)
      return { code: `let ${y} = ${x};\nif (!(${printed})) {\n${y} = ${this.capture(leaf.read)}(${x});\nif (${y} === R) throw R;\n}\n${check}`, y }
    }
    switch (ast._tag) {
      case "TypeLiteral":
        return { code: `const ${y} = ${this.message(ast, excess)}(${x}, cx, st);\n`, y }
      case "TupleType": {
        if (ast.elements.length !== 0 || ast.rest.length !== 1) break
        const element = ast.rest[0]!.type
        const a = this.g.fresh("a")
        const i = this.g.fresh("i")
        const e = this.g.fresh("e")
        const inner = this.read(element, e, excess, depth + 1)
        const pushed = this.reports(element)
        return {
          code:
            `if (!Array.isArray(${x})) throw R;\nlet ${a} = null;\n` +
            `for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {\nconst ${e} = ${x}[${i}];\nif (${e} === null) throw R;\n` +
            `${pushed ? `st.push(${i});\n` : ""}${inner.code}${pushed ? "st.pop();\n" : ""}` +
            `if (${a} !== null) ${a}.push(${inner.y});\nelse if (${inner.y} !== ${e}) {\n${a} = ${x}.slice(0, ${i});\n${a}.push(${inner.y});\n}\n}\n` +
            `const ${y} = ${a} === null ? ${x} : ${a};\n`,
          y
        }
      }
      case "Refinement": {
        const from = this.read(ast.from, x, excess, depth + 1)
        return { code: `${from.code}if (${this.g.refinementFails(ast, from.y)}) throw R;\n`, y: from.y }
      }
      case "Transformation":
        throw new Uncompilable("a transformation")
      case "Suspend":
        return this.read(ast.f(), x, excess, depth + 1)
      case "Union": {
        // NullOr(X) or X | undefined: read as X, as the reference reader does.
        const members = ast.types.filter((t) => !SchemaAST.isUndefinedKeyword(t) && !(SchemaAST.isLiteral(t) && t.literal === null))
        if (members.length === 1) return this.read(members[0]!, x, excess, depth + 1)
        break
      }
    }
    // What the reference reader keeps as it is, checked as the guard checks it.
    return { code: `const ${y} = ${x};\n${this.g.check(ast, y, excess)}`, y }
  }

  /** The name of the function that reads a message of this type, generated once per type. */
  private message(ast: SchemaAST.TypeLiteral, inherited: Excess): string {
    const excess = excessOf(ast, inherited)
    let byExcess = this.messages.get(ast)
    if (byExcess === undefined) this.messages.set(ast, (byExcess = new Map()))
    const known = byExcess.get(excess)
    if (known !== undefined) return known
    const name = `m${this.functions.length}`
    byExcess.set(excess, name)
    // Reserve the slot first: a recursive type's body calls its own function.
    const slot = this.functions.length
    this.functions.push("")
    this.functions[slot] = this.messageBody(ast, name, excess)
    return name
  }

  private messageBody(ast: SchemaAST.TypeLiteral, name: string, excess: Excess): string {
    if (ast.indexSignatures.length > 0) throw new Uncompilable("an index signature")
    const props = ast.propertySignatures.map((p) => {
      if (typeof p.name !== "string" || p.name === "__proto__") throw new Uncompilable("a key that is no plain field name")
      return { name: p.name, ast: p }
    })
    const index = new Map(props.map((p, i) => [p.name, i]))
    const { jsonName, maxSpellings } = this.leaves
    // Keys that are neither a printed name nor its snake_case: resolved as protobuf's parser
    // does (the printed name, else its ToJsonName), once per spelling.
    const spellings = new Map<string, number>()
    const resolve = (key: string): number => {
      let i = spellings.get(key)
      if (i === undefined) {
        i = index.get(jsonName(key)) ?? -1
        if (spellings.size < maxSpellings) spellings.set(key, i)
      }
      return i
    }
    const labels = new Map<string, { readonly field: number; readonly renamed: boolean }>()
    props.forEach((p, i) => labels.set(p.name, { field: i, renamed: false }))
    for (const p of props) {
      const snake = snakeCase(p.name)
      if (labels.has(snake)) continue
      const field = resolve(snake)
      if (field >= 0) labels.set(snake, { field, renamed: true })
    }
    const names = this.capture(props.map((p) => p.name))
    const words = Math.ceil(props.length / SEEN_BITS)
    let code = `function ${name}(v, cx, st) {\nif (typeof v !== "object" || v === null || Array.isArray(v)) throw R;\n`
    code += `let o = null;\nlet p = null;\n${Array.from({ length: words }, (_, w) => `let b${w} = 0;\n`).join("")}`
    // An inherited key is no field (parsed JSON has none): the reference reader reads the rest.
    code += `for (const k in v) {\nif (!hop.call(v, k)) throw R;\nlet f = -1;\nlet r = true;\nswitch (k) {\n`
    for (const [label, { field, renamed }] of labels) code += `case ${JSON.stringify(label)}:\nf = ${field};\n${renamed ? "" : "r = false;\n"}break;\n`
    code += `default:\nf = ${this.capture(resolve)}(k);\n}\nconst x = v[k];\n`
    code += `if (f < 0) {\nif (o === null) o = upTo(v, k);\ncx.ignored.push({ path: [...(p ??= st.slice()), k], value: x });\ncontinue;\n}\n`
    code += `if (r) {\nif (o === null) o = upTo(v, k);\ncx.renamed.push((p ??= st.slice()), ${names}[f], k, o);\n}\n`
    code += "switch (f) {\n"
    props.forEach((p, i) => {
      const bit = `b${Math.floor(i / SEEN_BITS)}`
      const mask = 2 ** (i % SEEN_BITS)
      const key = JSON.stringify(p.name)
      const value = this.read(p.ast.type, "x", excess)
      const pushed = this.reports(p.ast.type)
      // A second spelling of one field: the reference reader refuses it, and says where.
      code += `case ${i}: {\nif ((${bit} & ${mask}) !== 0) throw R;\n${bit} |= ${mask};\n`
      // null means unset: the field is left out.
      code += "if (x === null) {\nif (o === null) o = upTo(v, k);\ncontinue;\n}\n"
      code += `${pushed ? `st.push(${key});\n` : ""}${value.code}${pushed ? "st.pop();\n" : ""}`
      code += `if (o !== null) o[${key}] = ${value.y};\nelse if (${value.y} !== x) {\no = upTo(v, k);\no[${key}] = ${value.y};\n}\ncontinue;\n}\n`
    })
    code += "}\n}\n"
    // A required field left out (or null) where its type takes no undefined.
    for (const p of props) {
      if (p.ast.isOptional || checkOf(p.ast.type, excess)(undefined)) continue
      code += `if ((o === null ? v : o)[${JSON.stringify(p.name)}] === undefined) throw R;\n`
    }
    return `${code}return o === null ? v : o;\n}\n`
  }
}

const generate = <A, I>(schema: Schema.Schema<A, I>, leaves: Proto3Leaves): OnePass | null => {
  // The reference reader's answer is the guard's value as it is only where a guard compiles
  // (asked of the closures: generating a guard only to know that would be wasted).
  if (!available() || compileGuard(schema, "ignore", { generate: false }) === null) return null
  const gen = new ReaderGenerator(leaves)
  let read: (v: unknown, cx: OnePassContext, st: Array<PathSegment>) => unknown
  try {
    const root = gen.read(schema.ast, "v", "ignore")
    const body = `${gen.functions.join("")}return function read(v, cx, st) {\n${root.code}return ${root.y};\n}`
    const name = Option.getOrUndefined(SchemaAST.getIdentifierAnnotation(schema.ast)) ?? schema.ast._tag
    const make = compiled<(...args: ReadonlyArray<unknown>) => typeof read>(
      { kind: "proto3-reader", name, params: ["c", "hasOwn", "hop", "R", "upTo"], body },
      () => {
        throw new Uncompilable("no new Function in this runtime")
      }
    )
    read = make(gen.g.captured, Object.hasOwn, Object.prototype.hasOwnProperty, REFUSED, upTo)
  } catch (e) {
    if (e instanceof Uncompilable) return null
    throw e
  }
  return (json, ctx) => {
    try {
      return read(json, ctx, [])
    } catch (e) {
      if (e === REFUSED) return REFUSED
      throw e
    }
  }
}

/**
 * The one-pass reader of a wire schema, generated on its first call; null where there is none:
 * code is not generated (jitless), the schema has a node it does not compile, or the
 * differential test forces the reference path.
 */
export const lazyOnePass = <A, I>(schema: Schema.Schema<A, I>, leaves: Proto3Leaves): (() => OnePass | null) => {
  let made: OnePass | null | undefined
  return () => (schemaPathForced() ? null : made === undefined ? (made = generate(schema, leaves)) : made)
}
