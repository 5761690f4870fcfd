/**
 * The keys of a decoded record that its wire schema does not name, at any depth. Wire schemas
 * ignore keys they do not know (as a client of a live API must), so the decoded value has none
 * of them; a codec that builds a canonical scan from it notes each one as dropped. Derived from
 * the schema itself, so no codec keeps a list of keys by hand.
 *
 * Run only on a record the schema accepts and its exact guard refuses (see
 * `exactSchemaDecoder`): a record the exact guard accepts has no such key, and is not walked.
 */
import { type Schema, SchemaAST } from "effect"
import { isRecord } from "../json.js"
import { checkOf } from "./bounded.js"
import type { Path, PathSegment } from "../errors.js"

/** A key no struct of the schema names: its path (ending with the key) and the value it held. */
export interface UnknownKey {
  readonly path: Path
  readonly value: unknown
}

// A node's walk: reports into `out`, with `at` the path down to `value` (a stack, copied on report).
type Walk = (value: unknown, at: Array<PathSegment>, out: Array<UnknownKey>) => void

const nothing: Walk = () => {}

const walks = new WeakMap<SchemaAST.AST, Walk>()

const walkOf = (ast: SchemaAST.AST): Walk => {
  let walk = walks.get(ast)
  if (walk === undefined) {
    walk = compile(ast)
    walks.set(ast, walk)
  }
  return walk
}

// A key of an index signature: a string keyword takes any key; a narrower one (a template
// literal, a refinement) is asked.
const acceptsKey = (parameter: SchemaAST.AST): ((key: string) => boolean) => (SchemaAST.isStringKeyword(parameter) ? () => true : checkOf(parameter, "ignore"))

const compile = (ast: SchemaAST.AST): Walk => {
  switch (ast._tag) {
    case "Suspend": {
      let inner: Walk | undefined
      return (value, at, out) => (inner ??= walkOf(ast.f()))(value, at, out)
    }
    // The wire side: JSON is what a transformation decodes from.
    case "Refinement":
    case "Transformation":
      return walkOf(ast.from)
    case "TypeLiteral":
      return struct(ast)
    case "TupleType":
      return tuple(ast)
    case "Union":
      return union(ast)
    default:
      // Leaves, and Unknown/Any: whatever they hold is the codec's to read as it is.
      return nothing
  }
}

const struct = (ast: SchemaAST.TypeLiteral): Walk => {
  // Built on the first walk, so that a recursive schema's struct can refer to itself.
  let fields: Map<string, Walk> | undefined
  let indexes: ReadonlyArray<{ readonly accepts: (key: string) => boolean; readonly walk: Walk }> | undefined
  return (value, at, out) => {
    if (!isRecord(value)) return
    if (fields === undefined || indexes === undefined) {
      fields = new Map()
      for (const p of ast.propertySignatures) if (typeof p.name === "string") fields.set(p.name, walkOf(p.type))
      indexes = ast.indexSignatures.map((s) => ({ accepts: acceptsKey(s.parameter), walk: walkOf(s.type) }))
    }
    for (const key of Object.keys(value)) {
      const walk = fields.get(key) ?? indexes.find((s) => s.accepts(key))?.walk
      // A leaf holds no keys: nothing to descend into.
      if (walk === nothing) continue
      at.push(key)
      if (walk === undefined) out.push({ path: [...at], value: value[key] })
      else walk(value[key], at, out)
      at.pop()
    }
  }
}

const tuple = (ast: SchemaAST.TupleType): Walk => {
  let elements: ReadonlyArray<Walk> | undefined
  let head: Walk | undefined
  let after: ReadonlyArray<Walk> = []
  return (value, at, out) => {
    if (!Array.isArray(value)) return
    if (elements === undefined) {
      elements = ast.elements.map((e) => walkOf(e.type))
      ;[head, ...after] = ast.rest.map((r) => walkOf(r.type))
    }
    for (let i = 0; i < value.length; i++) {
      // Elements, then the rest, then the elements that follow the rest, counted from the end.
      const fromEnd = value.length - i
      const walk = i < elements.length ? elements[i] : fromEnd <= after.length ? after[after.length - fromEnd] : head
      if (walk === undefined || walk === nothing) continue
      at.push(i)
      walk(value[i], at, out)
      at.pop()
    }
  }
}

// Members that can hold keys at all: literals and keywords have none.
const holdsKeys = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "TypeLiteral":
    case "TupleType":
    case "Union":
    case "Suspend":
      return true
    case "Refinement":
    case "Transformation":
      return holdsKeys(ast.from)
    default:
      return false
  }
}

/**
 * The member the value was read as: the one that accepts it (NullOr(X) and the like have one to
 * choose from). Where several accept it, the one that names the most of its keys: a key another
 * member names is not unknown.
 */
const union = (ast: SchemaAST.Union): Walk => {
  const members = ast.types.filter(holdsKeys)
  if (members.length === 0) return nothing
  if (members.length === 1) return walkOf(members[0]!)
  return (value, at, out) => {
    let best: Array<UnknownKey> | undefined
    for (const member of members) {
      if (!checkOf(member, "ignore")(value)) continue
      const found: Array<UnknownKey> = []
      walkOf(member)(value, at, found)
      if (best === undefined || found.length < best.length) best = found
      if (best.length === 0) break
    }
    if (best !== undefined) out.push(...best)
  }
}

/**
 * The keys of `value` that `schema` does not name, at any depth, in document order: under
 * structs (their index signatures take the keys they accept), arrays and tuples, the member of
 * a union the value was read as, suspensions, and the `from` side of refinements and
 * transformations. Nothing under Unknown or Any is looked into. For a value the schema accepts.
 */
export const unknownKeysOf = <A, I, R>(schema: Schema.Schema<A, I, R>): ((value: unknown) => ReadonlyArray<UnknownKey>) => {
  const ast = schema.ast
  return (value) => {
    const out: Array<UnknownKey> = []
    walkOf(ast)(value, [], out)
    return out
  }
}

/**
 * The unknown keys of item `index` of the array at `key` (paths from the item), and those
 * outside that array (paths as they are): what one item's scan of a list notes.
 */
export const unknownKeysOfItem = (keys: ReadonlyArray<UnknownKey>, key: string, index: number): ReadonlyArray<UnknownKey> => {
  // An exact page (no unknown key, the common case) costs its items nothing.
  if (keys.length === 0) return keys
  const out: Array<UnknownKey> = []
  for (const k of keys) {
    if (k.path[0] !== key) out.push(k)
    else if (k.path[1] === index) out.push({ path: k.path.slice(2), value: k.value })
  }
  return out
}
