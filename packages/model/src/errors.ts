/**
 * The typed errors every adapter shares. Each names where the problem is (a path into the
 * input, in the same dotted form as note paths) and the value found there.
 */
import { ParseResult, Schema, SchemaAST } from "effect"

export type PathSegment = string | number
export type Path = ReadonlyArray<PathSegment>

const PathSchema = Schema.Array(Schema.Union(Schema.String, Schema.Number))

/** The fields of an adapter's error for input refused before a request: where, what, why. */
export const inputErrorFields = { path: PathSchema, value: Schema.Unknown, message: Schema.String }

/** The fields of an adapter's error about a request: never the credential, which is not in the URL. */
export const requestErrorFields = { method: Schema.String, url: Schema.String, message: Schema.String }

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
export const previewsQuoted = (value: unknown, max = PREVIEW_MAX): value is string =>
  typeof value === "string" && value.length <= max - 2 && isPlainJsonString(value)

/** A short, single-line rendering of an offending value for messages. */
export const previewValue = (value: unknown, max = PREVIEW_MAX): string => {
  if (previewsQuoted(value, max)) return `"${value}"`
  let text: string
  try {
    text = value === undefined ? "undefined" : typeof value === "bigint" ? `${value}n` : JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

const issueLine = (issue: Issue): string =>
  `at ${formatPath(issue.path)}: ${issue.message} (got ${previewValue(issue.value)})`

/** Input that does not have the shape or values its format requires. */
export class DecodeError extends Schema.TaggedError<DecodeError>("@scanbridge/model/DecodeError")("DecodeError", {
  /** What was being decoded, for example `scanbridge.scan/v1` or `platform entry`. */
  format: Schema.String,
  /** Path and value of the first problem; every problem is in `issues`. */
  path: PathSchema,
  value: Schema.Unknown,
  issues: Schema.Array(Issue),
  message: Schema.String
}) {
  static fromIssues(format: string, issues: ReadonlyArray<Issue>): DecodeError {
    const first = issues[0] ?? { path: [], value: undefined, message: "invalid input" }
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""
    return new DecodeError({
      format,
      path: first.path,
      value: first.value,
      issues,
      message: `${format}: ${issueLine(first)}${more}`
    })
  }

  static at(format: string, path: Path, value: unknown, message: string): DecodeError {
    return DecodeError.fromIssues(format, [{ path, value, message }])
  }

  static fromParseIssue(format: string, issue: ParseResult.ParseIssue, prefix: Path = []): DecodeError {
    return DecodeError.fromIssues(format, collectIssues(issue, prefix))
  }
}

/** Input that is none of the formats that were tried, or more than one of them. */
export class UnknownFormatError extends Schema.TaggedError<UnknownFormatError>("@scanbridge/model/UnknownFormatError")(
  "UnknownFormatError",
  {
    tried: Schema.Array(Schema.String),
    /** The formats that matched, when the input was ambiguous rather than unknown. */
    matched: Schema.Array(Schema.String),
    value: Schema.Unknown,
    message: Schema.String
  }
) {
  static unknown(tried: ReadonlyArray<string>, value: unknown): UnknownFormatError {
    return new UnknownFormatError({
      tried,
      matched: [],
      value,
      message: `unknown format: none of ${tried.join(", ")} matched ${previewValue(value)}`
    })
  }

  static ambiguous(tried: ReadonlyArray<string>, matched: ReadonlyArray<string>, value: unknown): UnknownFormatError {
    return new UnknownFormatError({
      tried,
      matched,
      value,
      message: `ambiguous format: ${matched.join(" and ")} all match ${previewValue(value)}`
    })
  }
}

/** A value that would break a rule of the canonical model (a negative length, say). */
export class InvariantViolation extends Schema.TaggedError<InvariantViolation>("@scanbridge/model/InvariantViolation")(
  "InvariantViolation",
  {
    path: PathSchema,
    value: Schema.Unknown,
    issues: Schema.Array(Issue),
    message: Schema.String
  }
) {
  static fromIssues(issues: ReadonlyArray<Issue>): InvariantViolation {
    const first = issues[0] ?? { path: [], value: undefined, message: "invariant violated" }
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""
    return new InvariantViolation({
      path: first.path,
      value: first.value,
      issues,
      message: `canonical scan invariant: ${issueLine(first)}${more}`
    })
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

// --- ParseIssue -> Issue[] ----------------------------------------------------------------

const toSegment = (key: PropertyKey): PathSegment => (typeof key === "symbol" ? String(key) : key)

const MAX_MESSAGE = 160

// Effect lists every allowed key in an "is unexpected" message; past a line it is noise.
const leafMessage = (issue: ParseResult.ParseIssue): string => {
  const message = ParseResult.ArrayFormatter.formatIssueSync(issue)[0]?.message ?? "invalid value"
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message
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
 */
export const collectIssues = (issue: ParseResult.ParseIssue, path: Path = []): Array<Issue> => {
  const out: Array<Issue> = []
  const walk = (node: ParseResult.ParseIssue, at: Path): void => {
    switch (node._tag) {
      case "Pointer": {
        const segments = asArray(node.path).map(toSegment)
        const inner = node.issue
        // A filter that blames a sub-path (`{ path, message }`) points into the value it was
        // given, and its leaf carries that whole value: resolve the one at the path.
        if (inner._tag === "Type" && inner.actual === node.actual) {
          out.push({ path: [...at, ...segments], value: valueAt(node.actual, segments), message: leafMessage(inner) })
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
        else out.push({ path: at, value: node.actual, message: leafMessage(node) })
        return
      case "Composite": {
        const children = asArray(node.issues)
        if (SchemaAST.isUnion(node.ast)) {
          const deeper = children.filter((c) => !isPlainMismatch(c))
          if (deeper.length === 0) {
            out.push({ path: at, value: node.actual, message: `Expected ${String(node.ast)}` })
            return
          }
          deeper.forEach((c) => walk(c, at))
          return
        }
        children.forEach((c) => walk(c, at))
        return
      }
      default:
        out.push({ path: at, value: node.actual, message: leafMessage(node) })
    }
  }
  walk(issue, path)
  return out
}
