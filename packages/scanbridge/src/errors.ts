/**
 * How every plain function fails: whatever stops it, a typed error, a defect (an exception thrown
 * anywhere below it) or an interruption, reaches its caller as one ScanbridgeError, made here.
 */
import { Cause, Effect, Exit, Inspectable, Option, Predicate } from "effect"
import { type OtherFailure, ScanbridgeError } from "@scanbridge/model/plain"

/** The `code` of a defect: an exception thrown, or an Effect that died, below a plain function. */
export const DEFECT = "Defect"
/** The `code` of a run interrupted before it finished. */
export const INTERRUPTED = "Interrupted"
/** The `code` of a failure that is no typed error (it has no `_tag` and `message`). */
export const UNKNOWN_ERROR = "UnknownError"

/** A message with every secret of the call (a database URL, its password) taken out. */
export type Hide = (text: string) => string

const shown: Hide = (text) => text

const passwordOf = (url: string): ReadonlyArray<string> => {
  try {
    const password = new URL(url).password
    return [password, decodeURIComponent(password)]
  } catch {
    // Not a URL, or a password that does not decode: the URL as written is what is hidden.
    return []
  }
}

/** A Hide for database URLs: each one whole, and its password as written and decoded. */
export const hidingUrls = (urls: ReadonlyArray<string>): Hide => {
  // Longest first, so that a password inside its URL does not leave the rest of the URL behind.
  const secrets = [...new Set(urls.flatMap((url) => [url, ...passwordOf(url)]))].filter((s) => s !== "").sort((a, b) => b.length - a.length)
  return (text) => secrets.reduce((hidden, secret) => hidden.replaceAll(secret, "***"), text)
}

// A defect's value can be anything, of any size: enough of it to say what it was.
const MESSAGE_MAX = 500

const isTyped = (u: unknown): u is OtherFailure =>
  Predicate.hasProperty(u, "_tag") && typeof u._tag === "string" && Predicate.hasProperty(u, "message") && typeof u.message === "string"

const describe = (u: unknown): string => (u instanceof Error ? `${u.name}: ${u.message}` : typeof u === "string" ? u : Inspectable.toStringUnknown(u))

// Cut after hiding: a cut through a URL could leave a password's start that hiding no longer finds.
const cut = (text: string): string => (text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX)}…` : text)

/**
 * A ScanbridgeError of `code` for a value that is no typed error, `original` its cause unless
 * that holds a secret: ScanbridgeError takes its cause from its failure, and a defect has none.
 */
const untyped = (code: string, prefix: string, original: unknown, hide: Hide): ScanbridgeError => {
  const described = describe(original)
  const message = hide(described)
  const error = new ScanbridgeError({ _tag: code, message: `${prefix}${cut(message)}` })
  if (message === described) Object.defineProperty(error, "cause", { value: original, writable: true, configurable: true, enumerable: false })
  return error
}

// A status error's reason (PlatformStatusError's NotFound, ...) says nothing secret: kept when the message is hidden.
const reasonOf = (failure: { readonly reason?: unknown }): { readonly reason?: string } =>
  typeof failure.reason === "string" ? { reason: failure.reason } : {}

/** A typed failure (or a ScanbridgeError thrown inside) as the ScanbridgeError of its tag, its message hidden. */
const ofFailure = (failure: unknown, hide: Hide): ScanbridgeError => {
  if (failure instanceof ScanbridgeError) {
    const message = hide(failure.message)
    return message === failure.message ? failure : new ScanbridgeError({ _tag: failure.code, message, ...reasonOf(failure) })
  }
  if (!isTyped(failure)) return untyped(UNKNOWN_ERROR, "", failure, hide)
  const message = hide(failure.message)
  // The typed error itself when it holds no secret: its fields (the file, the path, the value) stay readable as the cause.
  return new ScanbridgeError(message === failure.message ? failure : { _tag: failure._tag, message, ...reasonOf(failure) })
}

/**
 * The one ScanbridgeError for whatever stopped a run: its first typed failure; else, when it was
 * only interrupted, Interrupted; else its defect (Cause.squash), kept as the cause. `hide` takes
 * the call's secrets out of the message.
 */
export const errorOfCause = (cause: Cause.Cause<unknown>, hide: Hide = shown): ScanbridgeError => {
  try {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure)) return ofFailure(failure.value, hide)
    if (Cause.isInterruptedOnly(cause)) return new ScanbridgeError({ _tag: INTERRUPTED, message: "interrupted before it finished" })
    const defect = Cause.squash(cause)
    // normalizerOf throws its AdapterError as a ScanbridgeError: already the answer, not a defect.
    return defect instanceof ScanbridgeError ? ofFailure(defect, hide) : untyped(DEFECT, "internal error: ", defect, hide)
  } catch {
    // Reading the failure threw (a message getter, say): what is left to say holds nothing of it.
    return new ScanbridgeError({ _tag: DEFECT, message: "internal error: the failure could not be read" })
  }
}

/**
 * Runs a plain function's Effect: its value, or a rejection with errorOfCause's ScanbridgeError.
 * `E` holds a tag and a message, so a typed error of any new kind still says what it is.
 */
export const runPlain = <A, E extends OtherFailure>(effect: Effect.Effect<A, E>, hide: Hide = shown): Promise<A> =>
  Effect.runPromiseExit(effect).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    throw errorOfCause(exit.cause, hide)
  })

const isStackOverflow = (e: unknown): boolean => e instanceof RangeError && /call stack|too much recursion/i.test(e.message)

/**
 * Runs a plain function's synchronous work on what the caller gave besides the record (its
 * adapters): what that throws is a defect, as errorOfCause says it. A stack overflow is left to
 * the throwsOnlyScanbridgeError around it, which answers even when too little stack is left to
 * build any other error.
 */
export const defectsAsErrors = <A>(f: () => A): A => {
  try {
    return f()
  } catch (e) {
    throw e instanceof ScanbridgeError || isStackOverflow(e) ? e : errorOfCause(Cause.die(e))
  }
}
