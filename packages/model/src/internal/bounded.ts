/**
 * Decoding with a bounded list of problems. Effect's `errors: "all"` builds an issue object for
 * every bad item before anything can be cut: a large array of wrong items costs far more memory
 * and time than parsing it did. Here a refused value is walked along its schema: arrays and structs item by item,
 * each item first tried with its compiled guard (no allocation when it passes); only the first
 * MAX_ISSUES bad leaves go through Schema for their messages, the others are counted.
 */
import { Either, ParseResult, Schema, SchemaAST } from "effect"
import { isRecord } from "../json.js"
import { type Issue, type IssueList, MAX_ISSUES, type Path, collectIssues } from "../errors.js"
import { type Excess, compileGuard, excessOf, lazyGuard } from "./fast.js"
import { slowPaths } from "./slow.js"

type Check = (u: unknown) => boolean

// Guards and decoders of the schema's nodes, made when a refused value first needs them.
const checks = new WeakMap<SchemaAST.AST, Map<Excess, Check>>()
// ParseResult's decoders answer with the issue itself: Schema's wrap it in a ParseError, an Error
// whose stack capture was most of a rejected record's cost, for the issue to be read back out.
const decoders = new WeakMap<SchemaAST.AST, Map<Excess, (u: unknown) => Either.Either<unknown, ParseResult.ParseIssue>>>()

const memo = <V>(cache: WeakMap<SchemaAST.AST, Map<Excess, V>>, ast: SchemaAST.AST, excess: Excess, make: () => V): V => {
  let byExcess = cache.get(ast)
  if (byExcess === undefined) cache.set(ast, (byExcess = new Map()))
  let v = byExcess.get(excess)
  if (v === undefined) byExcess.set(excess, (v = make()))
  return v
}

const decoderOf = (ast: SchemaAST.AST, excess: Excess) =>
  memo(decoders, ast, excess, () => ParseResult.decodeUnknownEither(Schema.make(ast), { errors: "all", onExcessProperty: excess }))

/** Whether a value passes a node: its compiled guard, or Schema (first error only) where none compiles. Made once per node. */
export const checkOf = (ast: SchemaAST.AST, excess: Excess): Check =>
  memo(checks, ast, excess, () => {
    const guard = compileGuard(Schema.make(ast), excess)
    if (guard !== null) return guard
    const first = ParseResult.decodeUnknownEither(Schema.make(ast), { errors: "first", onExcessProperty: excess })
    return (u) => Either.isRight(first(u))
  })

// Effect's wording for a key a struct does not name, under onExcessProperty "error".
const unexpectedMessages = new WeakMap<SchemaAST.TypeLiteral, string>()
const unexpectedMessage = (ast: SchemaAST.TypeLiteral): string => {
  let message = unexpectedMessages.get(ast)
  if (message === undefined) {
    const keys = SchemaAST.Union.make(
      ast.propertySignatures.map((p) => (typeof p.name === "symbol" ? new SchemaAST.UniqueSymbol(p.name) : new SchemaAST.Literal(p.name)))
    )
    message = `is unexpected, expected: ${String(keys)}`
    unexpectedMessages.set(ast, message)
  }
  return message
}

class Collector {
  readonly issues: Array<Issue> = []
  omitted = 0
  get full(): boolean {
    return this.issues.length >= MAX_ISSUES
  }
  add(issue: Issue): void {
    if (this.full) this.omitted++
    else this.issues.push(issue)
  }

  /** The problems of `value`, known to fail `ast`, at `path`. */
  refused(ast: SchemaAST.AST, value: unknown, path: Path, excess: Excess): void {
    excess = excessOf(ast, excess)
    switch (ast._tag) {
      case "Suspend":
        return this.refused(ast.f(), value, path, excess)
      case "Refinement":
      case "Transformation": {
        // Both read their `from` side first: while it fails, its problems are the value's.
        const from = ast.from
        if (!checkOf(from, excess)(value)) return this.refused(from, value, path, excess)
        return this.bySchema(ast, value, path, excess)
      }
      case "TupleType":
        if (Array.isArray(value) && ast.elements.length === 0 && ast.rest.length === 1) {
          const item = ast.rest[0]!.type
          for (let i = 0; i < value.length; i++) this.at(item, value[i], [...path, i], excess)
          return
        }
        return this.bySchema(ast, value, path, excess)
      case "TypeLiteral":
        if (isRecord(value) && ast.indexSignatures.every((s) => SchemaAST.isStringKeyword(s.parameter))) return this.struct(ast, value, path, excess)
        return this.bySchema(ast, value, path, excess)
      case "Union": {
        // NullOr(X) and the like: an object or array is no literal, so it is read as X, whose
        // deeper problems are the ones collectIssues reports too.
        const others = ast.types.filter((t) => !SchemaAST.isLiteral(t))
        const [other] = others
        const shaped = other !== undefined && others.length === 1 && (isRecord(value) || Array.isArray(value))
        if (shaped) return this.refused(other, value, path, excess)
        return this.bySchema(ast, value, path, excess)
      }
      default:
        return this.bySchema(ast, value, path, excess)
    }
  }

  private at(ast: SchemaAST.AST, value: unknown, path: Path, excess: Excess): void {
    if (!checkOf(ast, excess)(value)) this.refused(ast, value, path, excess)
  }

  private struct(ast: SchemaAST.TypeLiteral, value: Record<string, unknown>, path: Path, excess: Excess): void {
    const indexes = ast.indexSignatures.map((s) => s.type)
    if (indexes.length > 0) {
      // As Schema: every key's value is held to every index signature.
      for (const key of Object.keys(value)) for (const type of indexes) this.at(type, value[key], [...path, key], excess)
    } else if (excess === "error") {
      const names = new Set<PropertyKey>(ast.propertySignatures.map((p) => p.name))
      for (const key of Object.keys(value)) {
        if (!names.has(key)) this.add({ path: [...path, key], value: value[key], message: unexpectedMessage(ast) })
      }
    }
    for (const p of ast.propertySignatures) {
      const has = Object.hasOwn(value, p.name)
      if (!has && p.isOptional) continue
      const v = value[p.name as string]
      if (checkOf(p.type, excess)(v)) continue
      if (has) this.refused(p.type, v, [...path, p.name as string], excess)
      else this.add({ path: [...path, p.name as string], value: undefined, message: "is missing" })
    }
  }

  /** A leaf (or a shape this walk does not take apart): Schema says what is wrong, once the list has room. */
  private bySchema(ast: SchemaAST.AST, value: unknown, path: Path, excess: Excess): void {
    if (this.full) return void this.omitted++
    const result = decoderOf(ast, excess)(value)
    if (Either.isRight(result)) return
    const found = collectIssues(result.left, path)
    for (const issue of found.issues) this.add(issue)
    this.omitted += found.omitted
  }
}

/** The problems of a value the schema refuses: the first MAX_ISSUES, and a count of the others. */
export const boundedIssues = (ast: SchemaAST.AST, value: unknown, excess: Excess = "ignore", base: Path = []): IssueList => {
  const collector = new Collector()
  collector.refused(ast, value, base, excess)
  // A value the walk found nothing wrong with although the schema refused it (a filter over
  // the whole value, say): Schema's own word, so an error is never empty.
  if (collector.issues.length === 0 && collector.omitted === 0) {
    const result = decoderOf(ast, excess)(value)
    if (Either.isLeft(result)) return collectIssues(result.left, base)
  }
  return { issues: collector.issues, omitted: collector.omitted }
}

/**
 * A decoder as fast as a compiled guard on valid input, whose failure is a bounded list of
 * problems: a guard, then Schema with its first error only (for a schema that transforms), then
 * the bounded walk for the problems.
 */
export const boundedDecodeEither = <A, I>(schema: Schema.Schema<A, I>, options: { readonly onExcessProperty?: Excess } = {}) => {
  const excess = options.onExcessProperty ?? "ignore"
  const guard = lazyGuard(schema, excess)
  // What the guard passes is the input itself, its keys in their order and those the schema does
  // not name kept: Schema's value is made the same ("preserve", "original"), so that a decoder
  // that writes an object (a note's preview, a canonical line) writes the same bytes either way.
  const first = ParseResult.decodeUnknownEither(schema, {
    errors: "first",
    onExcessProperty: excess === "ignore" ? "preserve" : excess,
    propertyOrder: "original"
  })
  const schemaDecode = (u: unknown): Either.Either<A, ParseResult.ParseIssue> => {
    slowPaths.schemaDecodes++
    return first(u)
  }
  return (u: unknown, base: Path = []): Either.Either<A, IssueList> => {
    if (guard(u)) return Either.right(u)
    // What a compiled guard refuses, Schema refuses: its decode, a third of a refused record's
    // cost, is spent only where no guard decides.
    const decides = guard.decides()
    if (!decides) {
      const result = schemaDecode(u)
      if (Either.isRight(result)) return Either.right(result.right)
    }
    const issues = boundedIssues(schema.ast, u, excess, base)
    if (!decides || issues.issues.length > 0 || issues.omitted > 0) return Either.left(issues)
    // The walk found nothing wrong and Schema accepts: a guard that refused it was wrong, and
    // Schema, the source of truth, decides.
    const result = schemaDecode(u)
    return Either.isRight(result) ? Either.right(result.right) : Either.left(issues)
  }
}
