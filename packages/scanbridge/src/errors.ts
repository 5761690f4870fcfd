/**
 * How every plain function fails: whatever stops it, a typed error, a defect (an exception thrown
 * anywhere below it) or an interruption, reaches its caller as one ScanbridgeError, made here.
 */
import { Cause, Effect, Exit, Inspectable, Option, Predicate, type Stream } from "effect"
import type { ScanbridgeFailure } from "@scanbridge/model"
import { type OtherFailure, ScanbridgeError as ScanbridgeErrorOfModel, type ScanbridgeErrorClass } from "@scanbridge/model/plain"
import type { EstimationClientService } from "@scanbridge/estimation"
import type { FitClientService } from "@scanbridge/fit"
import type { GatewayStoreError } from "@scanbridge/gateway"
import type { MigrationError } from "@scanbridge/migrate"
import type { PlatformClientService } from "@scanbridge/platform"
import type { SessionClientService } from "@scanbridge/session"

/** The `code` of a defect: an exception thrown, or an Effect that died, below a plain function. */
export const DEFECT = "Defect"
/** The `code` of a run interrupted before it finished. */
export const INTERRUPTED = "Interrupted"
/** The `code` of a failure that is no typed error (it has no `_tag` and `message`). */
export const UNKNOWN_ERROR = "UnknownError"
/** The `code` of a read option that is none of its values (`lengthUnit "ft"`). */
export const OPTION_ERROR = "OptionError"
/** The `code` of createGateway's options that it cannot use (no client ids, two stores, ...). */
export const GATEWAY_OPTION_ERROR = "GatewayOptionError"

/** What the methods of a client's service fail with: each Effect's error, each Stream's. */
type FailureOfService<S> = {
  readonly [K in keyof S]: S[K] extends (...args: never) => Effect.Effect<infer _A, infer E, infer _R>
    ? E
    : S[K] extends (...args: never) => Stream.Stream<infer _A, infer E, infer _R>
      ? E
      : never
}[keyof S]

/**
 * Every typed failure a plain function can meet, read from where each is declared: the model's,
 * a migration's (Migration.run's, which holds the normalizer's and the encoder's), what each
 * of the four clients' methods fails with, and a gateway's store that cannot be opened.
 */
type PlainFailure =
  | ScanbridgeFailure
  | MigrationError
  | GatewayStoreError
  | FailureOfService<PlatformClientService>
  | FailureOfService<SessionClientService>
  | FailureOfService<EstimationClientService>
  | FailureOfService<FitClientService>

/**
 * Every `code` of the plain API's ScanbridgeError: the tag of each typed failure, and the codes
 * made here for what has no tag (a defect, an interruption, an untyped failure, a bad option).
 */
export type ScanbridgeErrorCode =
  | PlainFailure["_tag"]
  | typeof DEFECT
  | typeof INTERRUPTED
  | typeof UNKNOWN_ERROR
  | typeof OPTION_ERROR
  | typeof GATEWAY_OPTION_ERROR

/** The plain API's ScanbridgeError: its `code` one of ScanbridgeErrorCode. */
export type ScanbridgeError = ScanbridgeErrorOfModel<ScanbridgeErrorCode>

/** The class of @scanbridge/model/plain, typed with the plain API's codes: `instanceof` narrows `code` to them. */
export const ScanbridgeError: ScanbridgeErrorClass<ScanbridgeErrorCode> = ScanbridgeErrorOfModel

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
const untyped = (code: typeof DEFECT | typeof UNKNOWN_ERROR, prefix: string, original: unknown, hide: Hide): ScanbridgeError => {
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
  // A tag of PlainFailure: the failures reaching here are those runPlain's Effects and the clients declare.
  const typed = failure as OtherFailure<ScanbridgeErrorCode>
  const message = hide(typed.message)
  // The typed error itself when it holds no secret: its fields (the file, the path, the value) stay readable as the cause.
  return new ScanbridgeError(message === typed.message ? typed : { _tag: typed._tag, message, ...reasonOf(typed) })
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
export const runPlain = <A, E extends OtherFailure<ScanbridgeErrorCode>>(effect: Effect.Effect<A, E>, hide: Hide = shown, signal?: AbortSignal): Promise<A> =>
  // Aborting `signal` interrupts the Effect: its finalizers run (outputs left as they were) before the Promise rejects.
  Effect.runPromiseExit(effect, signal === undefined ? undefined : { signal }).then((exit) => {
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
