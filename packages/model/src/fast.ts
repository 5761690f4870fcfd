/**
 * The hot path of bulk decoding. Effect Schema stays the source of truth; from a schema's AST
 * this compiles a plain predicate that accepts exactly what the schema accepts, so a valid
 * record is checked in one cheap pass. Only a record the predicate refuses goes through the
 * Schema decoder, which says what is wrong and where.
 *
 * Compiled: literals, keywords, enums, structs (with index signatures and the schema's excess
 * property option), unions, arrays and tuples, refinements (their own filters are called), and
 * suspensions. A schema with a transformation, declaration or template literal anywhere is not
 * compiled: its decoded value differs from its input, and the fast path falls back whole.
 */
import { Either, Option, ParseResult, Schema, SchemaAST } from "effect"
import { isRecord } from "./adapter.js"

type Guard = (u: unknown) => boolean
type Excess = "ignore" | "error" | "preserve"

class Uncompilable extends Error {}

const PARSE_OPTIONS: SchemaAST.ParseOptions = { errors: "first" }

const excessOf = (ast: SchemaAST.AST, inherited: Excess): Excess => {
  const options = Option.getOrUndefined(SchemaAST.getParseOptionsAnnotation(ast))
  return options?.onExcessProperty ?? inherited
}

type Bounds = { readonly [K in "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "minLength" | "maxLength" | "minItems" | "maxItems"]?: unknown }

const num = (v: unknown): v is number => typeof v === "number"

// Effect's own filters say what they check in their schema id and JSON Schema annotation: those
// become direct comparisons, without the Option every filter call returns. The compiled guard is
// checked against Schema.is by property tests, so a mismatch here fails a test, never a decode.
const knownFilter = (ast: SchemaAST.Refinement): Guard | undefined => {
  const id = Option.getOrUndefined(SchemaAST.getSchemaIdAnnotation(ast))
  const j = (Option.getOrUndefined(SchemaAST.getJSONSchemaAnnotation(ast)) ?? {}) as Bounds
  switch (id) {
    case Schema.FiniteSchemaId:
      return (u) => Number.isFinite(u)
    case Schema.IntSchemaId:
      return (u) => Number.isSafeInteger(u)
    case Schema.GreaterThanOrEqualToSchemaId:
      return num(j.minimum) ? ((m) => (u) => (u as number) >= m)(j.minimum) : undefined
    case Schema.GreaterThanSchemaId:
      return num(j.exclusiveMinimum) ? ((m) => (u) => (u as number) > m)(j.exclusiveMinimum) : undefined
    case Schema.LessThanOrEqualToSchemaId:
      return num(j.maximum) ? ((m) => (u) => (u as number) <= m)(j.maximum) : undefined
    case Schema.LessThanSchemaId:
      return num(j.exclusiveMaximum) ? ((m) => (u) => (u as number) < m)(j.exclusiveMaximum) : undefined
    case Schema.BetweenSchemaId:
      return num(j.minimum) && num(j.maximum) ? ((lo, hi) => (u) => (u as number) >= lo && (u as number) <= hi)(j.minimum, j.maximum) : undefined
    case Schema.MinLengthSchemaId:
      return num(j.minLength) ? ((n) => (u) => (u as string).length >= n)(j.minLength) : undefined
    case Schema.MaxLengthSchemaId:
      return num(j.maxLength) ? ((n) => (u) => (u as string).length <= n)(j.maxLength) : undefined
    case Schema.ItemsCountSchemaId:
      return num(j.minItems) && j.minItems === j.maxItems ? ((n) => (u) => (u as ReadonlyArray<unknown>).length === n)(j.minItems) : undefined
    default:
      return undefined
  }
}


const compile = (ast: SchemaAST.AST, inheritedExcess: Excess): Guard => {
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
      const from = compile(ast.from, excess)
      const known = knownFilter(ast)
      if (known !== undefined) return (u) => from(u) && known(u)
      const filter = ast.filter
      return (u) => from(u) && Option.isNone(filter(u, PARSE_OPTIONS, ast))
    }
    case "Suspend": {
      let inner: Guard | undefined
      return (u) => (inner ??= compile(ast.f(), excess))(u)
    }
    case "Union": {
      const literals = ast.types.every(SchemaAST.isLiteral)
      if (literals) {
        const set = new Set(ast.types.map((t) => (t as SchemaAST.Literal).literal))
        return (u) => set.has(u as SchemaAST.LiteralValue)
      }
      const members = ast.types.map((t) => compile(t, excess))
      return (u) => members.some((m) => m(u))
    }
    case "TupleType": {
      const elements = ast.elements.map((e) => ({ optional: e.isOptional, guard: compile(e.type, excess) }))
      const [head, ...tail] = ast.rest.map((r) => compile(r.type, excess))
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
        return { name: p.name, optional: p.isOptional, guard: compile(p.type, excess) }
      })
      const names = new Set(props.map((p) => p.name))
      const indexes = ast.indexSignatures.map((s) => {
        if (!SchemaAST.isStringKeyword(s.parameter)) throw new Uncompilable("an index signature over non-string keys")
        return compile(s.type, excess)
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

/** The compiled predicate of a schema, or null when the schema transforms its input. */
export const compileGuard = <A, I>(schema: Schema.Schema<A, I>, onExcessProperty: Excess = "ignore"): ((u: unknown) => u is A) | null => {
  try {
    return compile(schema.ast, onExcessProperty) as (u: unknown) => u is A
  } catch (e) {
    if (e instanceof Uncompilable) return null
    throw e
  }
}

/**
 * `Schema.decodeUnknownEither` with a compiled fast path: a value the predicate accepts is
 * returned as it is (the schema does not transform it), anything else is decoded by the
 * schema for its error.
 */
export const fastDecodeEither = <A, I>(schema: Schema.Schema<A, I>, options: SchemaAST.ParseOptions = {}) => {
  const slow = Schema.decodeUnknownEither(schema, options)
  const guard = compileGuard(schema, options.onExcessProperty ?? "ignore")
  if (guard === null) return slow
  return (u: unknown): Either.Either<A, ParseResult.ParseError> => (guard(u) ? Either.right(u) : slow(u))
}
