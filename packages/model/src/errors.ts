/**
 * The typed errors every adapter shares. Each names where the problem is (a path into the
 * input, in the same dotted form as note paths) and the value found there.
 */
import { Option, ParseResult, Schema, SchemaAST } from "effect"
import { slowPaths } from "./internal/slow.js"

export type PathSegment = string | number
export type Path = ReadonlyArray<PathSegment>

const PathSchema = Schema.Array(Schema.Union(Schema.String, Schema.Number))

/** The fields of an adapter's error for input refused before a request: where, what, why. */
export const inputErrorFields = { path: PathSchema, value: Schema.Unknown, message: Schema.String }

/** One leaf problem: where, what was found, what was expected. */
export const Issue = Schema.Struct({
  path: PathSchema,
  value: Schema.Unknown,
  message: Schema.String
})
export type Issue = typeof Issue.Type

/** `measurementsMm.hipGirth`, `notes[2].kind`; the root is `$`. */
export const formatPath = (path: Path): string => {
  let out = ""
  for (const segment of path) {
    out += typeof segment === "number" ? `[${segment}]` : out === "" ? segment : `.${segment}`
  }
  return out === "" ? "$" : out
}

/** Whether a string is printable ASCII without quote or backslash: its JSON is itself in quotes. */
export const isPlainJsonString = (s: string): boolean => {
  // A loop, not a regex: on the short strings of notes, the call into the regex costs more.
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false
  }
  return true
}

const PREVIEW_MAX = 80

/**
 * Whether `previewValue` renders a value as the string itself in quotes: a string of printable
 * ASCII without quote or backslash, short enough to be shown whole. The common case of ids and
 * versions in notes, rendered without a call to JSON.stringify.
 */
export const isShortPlainString = (value: unknown, max = PREVIEW_MAX): value is string =>
  typeof value === "string" && value.length <= max - 2 && isPlainJsonString(value)

/** `text` cut to `max` characters, the last one an ellipsis where it was cut. */
const ellipsis = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** A key of any length as a path names it: its first 40 characters, an ellipsis where it was cut. */
export const previewKey = (key: string): string => ellipsis(key, 40)

/**
 * A short, single-line rendering of an offending value for messages: its JSON, cut at `max`.
 * Written by hand, not by JSON.stringify: a value from a hostile record can be nested 100,000
 * deep or hold megabytes, and a preview must cost no more than what it shows. It never calls
 * the value's own methods (a key named `toString` is data) and never recurses, so no value and
 * no stack depth makes it throw.
 */
export const previewValue = (value: unknown, max = PREVIEW_MAX): string => {
  if (isShortPlainString(value, max)) return `"${value}"`
  const text = new Preview(max).of(value)
  return ellipsis(text, max)
}

/** One open array or object of a preview: its keys (null for an array), the next index, how many written. */
interface Open {
  readonly value: Record<string, unknown> | ReadonlyArray<unknown>
  readonly keys: ReadonlyArray<string> | null
  next: number
  written: number
}

// JSON's text for a value inside an array or object; undefined where JSON leaves the key out.
const scalarText = (value: unknown, charsLeft: number): string | undefined => {
  switch (typeof value) {
    case "string":
      // Enough of the string for `charsLeft` characters of its JSON, and one more to show it goes on.
      return JSON.stringify(value.length > charsLeft + 2 ? value.slice(0, charsLeft + 2) : value)
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : String(value)
    case "boolean":
      return value ? "true" : "false"
    case "bigint":
      return `${value}n`
    case "undefined":
      return undefined
    case "symbol":
      return Symbol.prototype.toString.call(value)
    case "function":
      return "function"
    default:
      if (value === null) return "null"
      return value instanceof Date ? (Number.isNaN(value.getTime()) ? "null" : JSON.stringify(Date.prototype.toISOString.call(value))) : undefined
  }
}

class Preview {
  private out = ""
  private readonly open: Array<Open> = []
  constructor(private readonly max: number) {}

  of(value: unknown): string {
    if (value === undefined) return "undefined"
    this.value(value)
    // Stops once the text is past `max`: the caller cuts it there anyway.
    while (this.open.length > 0 && this.out.length <= this.max) this.step(this.open[this.open.length - 1]!)
    return this.out
  }

  private value(value: unknown): void {
    const scalar = scalarText(value, this.max - this.out.length)
    if (scalar !== undefined) this.out += scalar
    else if (typeof value !== "object" || value === null) this.out += "null"
    else if (Array.isArray(value)) this.push("[", { value, keys: null, next: 0, written: 0 })
    else this.push("{", { value: value as Record<string, unknown>, keys: Object.keys(value), next: 0, written: 0 })
  }

  private push(bracket: string, open: Open): void {
    this.out += bracket
    this.open.push(open)
  }

  private step(top: Open): void {
    const length = top.keys === null ? (top.value as ReadonlyArray<unknown>).length : top.keys.length
    if (top.next >= length) {
      this.out += top.keys === null ? "]" : "}"
      this.open.pop()
      return
    }
    const key = top.keys === null ? null : top.keys[top.next]!
    const item = key === null ? (top.value as ReadonlyArray<unknown>)[top.next] : (top.value as Record<string, unknown>)[key]
    top.next++
    // As JSON: an object leaves out a key whose value has no JSON; an array writes null.
    if (key !== null && (item === undefined || typeof item === "function" || typeof item === "symbol")) return
    if (top.written++ > 0) this.out += ","
    if (key !== null) this.out += `${JSON.stringify(key)}:`
    this.value(item === undefined || typeof item === "function" || typeof item === "symbol" ? null : item)
  }
}

const issueLine = (issue: Issue): string => `at ${formatPath(issue.path)}: ${issue.message} (got ${previewValue(issue.value)})`

/**
 * How many problems an error lists. Past it they are counted, not described: a 2 MB array of
 * wrong items would otherwise cost an issue object and a message per item, far more than
 * parsing it did.
 */
export const MAX_ISSUES = 20

/** The problems of a value: the first MAX_ISSUES, and how many more there are. */
export interface IssueList {
  readonly issues: ReadonlyArray<Issue>
  /** Problems found past the listed ones: counted, not described. */
  readonly omitted: number
}

/** `issues` cut to MAX_ISSUES, the rest counted with `omitted`. */
const bounded = (issues: ReadonlyArray<Issue>, omitted: number): IssueList =>
  issues.length <= MAX_ISSUES ? { issues, omitted } : { issues: issues.slice(0, MAX_ISSUES), omitted: omitted + issues.length - MAX_ISSUES }

/** The first problem's line, and how many others there are. */
const summary = (list: IssueList, otherwise: string): { readonly first: Issue; readonly more: string } => {
  const first = list.issues[0] ?? { path: [], value: undefined, message: otherwise }
  const others = Math.max(list.issues.length - 1, 0) + list.omitted
  const listed = list.omitted > 0 ? `; the first ${list.issues.length} are in issues` : ""
  return { first, more: others > 0 ? ` (and ${others} more${listed})` : "" }
}

const issueListFields = {
  /** Path and value of the first problem; the first MAX_ISSUES problems are in `issues`. */
  path: PathSchema,
  value: Schema.Unknown,
  issues: Schema.Array(Issue),
  /** How many problems past `issues` were found and counted, not listed. */
  omitted: Schema.optionalWith(Schema.Number, { default: () => 0 })
}

/**
 * The constructor option that skips validating the fields: for the builders below, whose fields
 * are of their types already (TypeScript checks them), on the path of every rejected record. The
 * validation walked the issues' schema each time: a rejected record's largest fixed cost.
 */
const NO_VALIDATION = { disableValidation: true } as const

/**
 * Builds an error of the input without a stack trace: its message and fields say what is wrong
 * and where in the record; the frames of the decoder that found it say nothing to the user. The
 * capture was most of a rejected record's normalize (migrate lowered the limit for its chunks
 * only; this makes a direct `normalize` call as cheap).
 */
const withoutStack = <A>(make: () => A): A => {
  // V8's limit on the frames a stack keeps (elsewhere the property does nothing).
  const stacks = Error as ErrorConstructor & { stackTraceLimit: number | undefined }
  const limit = stacks.stackTraceLimit
  stacks.stackTraceLimit = 0
  try {
    return make()
  } finally {
    stacks.stackTraceLimit = limit
  }
}

/** Input that does not have the shape or values its format requires. */
export class DecodeError extends Schema.TaggedError<DecodeError>("@scanbridge/model/DecodeError")("DecodeError", {
  /** What was being decoded, for example `scanbridge.scan/v1` or `platform entry`. */
  format: Schema.String,
  ...issueListFields,
  message: Schema.String
}) {
  /** The error of these problems; past MAX_ISSUES they are counted in `omitted`, not listed. */
  static fromIssues(format: string, issues: ReadonlyArray<Issue>, omitted = 0): DecodeError {
    slowPaths.decodeErrors++
    const list = bounded(issues, omitted)
    const { first, more } = summary(list, "invalid input")
    return withoutStack(
      () =>
        new DecodeError(
          {
            format,
            path: first.path,
            value: first.value,
            issues: list.issues,
            omitted: list.omitted,
            message: `${format}: ${issueLine(first)}${more}`
          },
          NO_VALIDATION
        )
    )
  }

  static fromIssueList(format: string, list: IssueList): DecodeError {
    return DecodeError.fromIssues(format, list.issues, list.omitted)
  }

  /**
   * A value a decoder could not get through at all: it threw (a stack overflow on a value
   * nested too deeply, most likely, or a bug) instead of returning an error. At the root, with
   * a preview of the value, so the record is rejected like any other and the run goes on.
   */
  static unreadable(format: string, value: unknown, cause: unknown): DecodeError {
    return DecodeError.at(format, [], value, unreadableReason(cause))
  }

  static at(format: string, path: Path, value: unknown, message: string): DecodeError {
    return DecodeError.fromIssues(format, [{ path, value, message }])
  }

  static fromParseIssue(format: string, issue: ParseResult.ParseIssue, prefix: Path = []): DecodeError {
    return DecodeError.fromIssueList(format, collectIssues(issue, prefix))
  }
}

/** Input that is none of the formats that were tried, or more than one of them. */
export class UnknownFormatError extends Schema.TaggedError<UnknownFormatError>("@scanbridge/model/UnknownFormatError")("UnknownFormatError", {
  tried: Schema.Array(Schema.String),
  /** The formats that matched, when the input was ambiguous rather than unknown. */
  matched: Schema.Array(Schema.String),
  value: Schema.Unknown,
  message: Schema.String
}) {
  static unknown(tried: ReadonlyArray<string>, value: unknown): UnknownFormatError {
    return withoutStack(
      () =>
        new UnknownFormatError(
          {
            tried,
            matched: [],
            value,
            message: `unknown format: none of ${tried.join(", ")} matched ${previewValue(value)}`
          },
          NO_VALIDATION
        )
    )
  }

  /** A shape test threw (on a value nested too deeply, say) instead of answering. */
  static unreadable(tried: ReadonlyArray<string>, value: unknown, cause: unknown): UnknownFormatError {
    return withoutStack(
      () =>
        new UnknownFormatError(
          { tried, matched: [], value, message: `cannot tell the format: ${unreadableReason(cause)} (got ${previewValue(value)})` },
          NO_VALIDATION
        )
    )
  }

  /** A `{source, payload}` envelope whose source names none of the APIs or formats (previewed: a source may be any size). */
  static unknownSource(tried: ReadonlyArray<string>, apis: ReadonlyArray<string>, source: string): UnknownFormatError {
    return withoutStack(
      () =>
        new UnknownFormatError(
          {
            tried,
            matched: [],
            value: source,
            message: `unknown source ${previewValue(source)}: expected an API (${apis.join(", ")}) or a format (${tried.join(", ")})`
          },
          NO_VALIDATION
        )
    )
  }

  static ambiguous(tried: ReadonlyArray<string>, matched: ReadonlyArray<string>, value: unknown): UnknownFormatError {
    return withoutStack(
      () =>
        new UnknownFormatError(
          {
            tried,
            matched,
            value,
            message: `ambiguous format: ${matched.join(" and ")} all match ${previewValue(value)}`
          },
          NO_VALIDATION
        )
    )
  }
}

/** A value that would break a rule of the canonical model (a negative length, say). */
export class InvariantViolation extends Schema.TaggedError<InvariantViolation>("@scanbridge/model/InvariantViolation")("InvariantViolation", {
  ...issueListFields,
  message: Schema.String
}) {
  static fromIssues(issues: ReadonlyArray<Issue>, omitted = 0): InvariantViolation {
    const list = bounded(issues, omitted)
    const { first, more } = summary(list, "invariant violated")
    return new InvariantViolation({
      path: first.path,
      value: first.value,
      issues: list.issues,
      omitted: list.omitted,
      message: `canonical scan invariant: ${issueLine(first)}${more}`
    })
  }

  static fromIssueList(list: IssueList): InvariantViolation {
    return InvariantViolation.fromIssues(list.issues, list.omitted)
  }
}

/** A canonical scan that the target format cannot hold (a pending scan as a platform entry, say). */
export class EncodeError extends Schema.TaggedError<EncodeError>("@scanbridge/model/EncodeError")("EncodeError", {
  /** The target format, for example `platform entry`. */
  format: Schema.String,
  /** Path into the canonical scan and the value found there. */
  path: PathSchema,
  value: Schema.Unknown,
  message: Schema.String
}) {
  static at(format: string, path: Path, value: unknown, reason: string): EncodeError {
    return new EncodeError({
      format,
      path,
      value,
      message: `${format}: cannot encode ${formatPath(path)} = ${previewValue(value)}: ${reason}`
    })
  }
}

export type ScanbridgeFailure = DecodeError | UnknownFormatError | InvariantViolation | EncodeError

/** Whether a thrown value is the engine's stack overflow (V8 and others throw a RangeError). */
export const isStackOverflow = (e: unknown): boolean => e instanceof RangeError && /call stack|too much recursion/i.test(e.message)

/** Why a value could not be read, from what was thrown: never the thrown value's own text unchecked. */
export const unreadableReason = (cause: unknown): string =>
  isStackOverflow(cause)
    ? "the record is nested too deeply to read (the stack ran out)"
    : `could not be read: ${cause instanceof Error ? ellipsis(cause.message, PREVIEW_MAX) : previewValue(cause)}`

// --- ParseIssue -> Issue[] ----------------------------------------------------------------

const toSegment = (key: PropertyKey): PathSegment => (typeof key === "symbol" ? String(key) : key)

const MAX_MESSAGE = 160

const cut = (message: string): string => ellipsis(message, MAX_MESSAGE)

// Effect's automatic title of a filter (not exported from SchemaAST).
const AUTO_TITLE = Symbol.for("effect/annotation/AutoTitle")

// What Effect's default message says a refinement expects.
const expectedOf = (ast: SchemaAST.AST): string => {
  if (!SchemaAST.isRefinement(ast)) return String(ast)
  const auto = ast.annotations[AUTO_TITLE]
  const named = Option.getOrUndefined(SchemaAST.getDescriptionAnnotation(ast)) ?? Option.getOrUndefined(SchemaAST.getTitleAnnotation(ast))
  return (
    named ??
    (typeof auto === "string" ? auto : undefined) ??
    Option.getOrUndefined(SchemaAST.getIdentifierAnnotation(ast)) ??
    `{ ${String(ast.from)} | filter }`
  )
}

/**
 * A leaf's message, as Effect's ArrayFormatter words it, except that the value is shown by
 * previewValue: Effect's default "Expected X, actual V" formats the whole value, recursively,
 * which overflows the stack on a deeply nested value and costs its whole size on a large one.
 * Effect's list of allowed keys in an "is unexpected" message is cut too: past a line it is noise.
 */
const leafMessage = (issue: ParseResult.ParseIssue): string => {
  const type = issue._tag === "Refinement" && issue.kind === "Predicate" ? issue.issue : issue
  const annotated =
    type._tag === "Type" &&
    (type.message !== undefined || Option.isSome(SchemaAST.getMessageAnnotation(type.ast)) || Option.isSome(SchemaAST.getParseIssueTitleAnnotation(type.ast)))
  if (type._tag === "Type" && !annotated) return cut(`Expected ${expectedOf(type.ast)}, actual ${previewValue(type.actual)}`)
  return cut(ParseResult.ArrayFormatter.formatIssueSync(issue)[0]?.message ?? "invalid value")
}

const valueAt = (value: unknown, path: Path): unknown =>
  path.reduce<unknown>((v, key) => (typeof v === "object" && v !== null ? (v as Record<PathSegment, unknown>)[key] : undefined), value)

const isPlainMismatch = (issue: ParseResult.ParseIssue): boolean =>
  issue._tag === "Type" || (issue._tag === "Composite" && SchemaAST.isUnion(issue.ast) && asArray(issue.issues).every(isPlainMismatch))

const asArray = <A>(a: A | ReadonlyArray<A>): ReadonlyArray<A> => (Array.isArray(a) ? a : [a as A])

/**
 * Flattens Effect's issue tree into leaves that keep the offending value (ArrayFormatter keeps
 * only the message). A union whose every member failed on the value itself is one leaf
 * ("Expected "male" | "female""); where some member got further, its deeper issues win, so
 * a bad field inside a nullable struct is reported at the field, not as "expected null".
 * The first MAX_ISSUES leaves are described; the others are counted, their messages never made.
 */
export const collectIssues = (issue: ParseResult.ParseIssue, path: Path = []): IssueList => {
  const out: Array<Issue> = []
  let omitted = 0
  const leaf = (at: Path, value: unknown, message: () => string): void => {
    if (out.length < MAX_ISSUES) out.push({ path: at, value, message: message() })
    else omitted++
  }
  const walk = (node: ParseResult.ParseIssue, at: Path): void => {
    switch (node._tag) {
      case "Pointer": {
        const segments = asArray(node.path).map(toSegment)
        const inner = node.issue
        // A filter that blames a sub-path (`{ path, message }`) points into the value it was
        // given, and its leaf carries that whole value: resolve the one at the path.
        if (inner._tag === "Type" && inner.actual === node.actual) {
          leaf([...at, ...segments], valueAt(node.actual, segments), () => leafMessage(inner))
          return
        }
        walk(inner, [...at, ...segments])
        return
      }
      case "Transformation":
        walk(node.issue, at)
        return
      case "Refinement":
        if (node.kind === "From" || node.issue._tag === "Pointer") walk(node.issue, at)
        else leaf(at, node.actual, () => leafMessage(node))
        return
      case "Composite": {
        const children = asArray(node.issues)
        if (SchemaAST.isUnion(node.ast)) {
          const deeper = children.filter((c) => !isPlainMismatch(c))
          if (deeper.length === 0) {
            leaf(at, node.actual, () => cut(`Expected ${String(node.ast)}`))
            return
          }
          deeper.forEach((c) => walk(c, at))
          return
        }
        children.forEach((c) => walk(c, at))
        return
      }
      default:
        leaf(at, node.actual, () => leafMessage(node))
    }
  }
  walk(issue, path)
  return { issues: out, omitted }
}
