/**
 * `@scanbridge/model/plain`: the model for code that does not use Effect. Ordinary functions
 * that return plain JSON objects and throw one error class, `ScanbridgeError`.
 */
import { Either } from "effect"
import { decodeScanEither, parseScanEither } from "./canonical.js"
import { DecodeError, type Issue, type Path, type ScanbridgeFailure } from "./errors.js"
import { makeScan as makeScanEither, type ScanInit, type ScanJson } from "./scan.js"
import * as units from "./units.js"

export { Catalogue, MEASUREMENTS, MEASUREMENT_NAMES, POSTURE_FRONT, POSTURE_RIGHT, STATS } from "./catalogue.js"
export type { CanonicalTarget, MeasurementEntry, MeasurementKind, MeasurementName, Side, StatEntry, StatQuantity } from "./catalogue.js"
export { GENDER_CODES } from "./internal/codec.js"
export {
  convertAngle,
  convertLength,
  convertMass,
  GRAMS_PER_POUND,
  isExactE4,
  MM_PER_INCH,
  round
} from "./units.js"
export type { AngleUnit, LengthUnit, MassUnit } from "./units.js"
export type { Issue, Path, ScanInit, ScanJson }
export { SCAN_FORMAT } from "./scan.js"

/** The codes of the model's own errors (ScanbridgeFailure's tags): what this entry's functions throw. */
export type ModelErrorCode = ScanbridgeFailure["_tag"]

/**
 * The one error the plain API throws. `code` is the `_tag` of the typed error behind it, and
 * `path`/`value` say where the first problem is; `issues` lists all of them. `Code` is the union
 * of the codes it can have: the model's here, every code of the plain API in `scanbridge`.
 */
class ScanbridgeErrorOf<Code extends string> extends Error {
  override readonly name = "ScanbridgeError"
  /** The typed error's tag: DecodeError, UnknownFormatError, EncodeError, MigrateInputError, ... */
  readonly code: Code
  /**
   * What a status error's status or error type means, where the error behind it has one: the
   * `reason` of PlatformStatusError (`NotFound`, ...), SessionCreateError, EstimationStatusError
   * and FitRejectionError. Undefined for every other code.
   */
  readonly reason: string | undefined
  readonly path: Path
  readonly value: unknown
  readonly issues: ReadonlyArray<Issue>

  constructor(given: FailureOf<Code>) {
    super(given.message, { cause: given })
    // Its code is its tag, which FailureOf<Code> holds to Code; the checks below read it as any failure.
    this.code = given._tag as Code
    const failure: ScanbridgeFailure | OtherFailure = given
    this.reason = "reason" in failure && typeof failure.reason === "string" ? failure.reason : undefined
    this.value = "value" in failure ? failure.value : undefined
    if (!isModelFailure(failure)) {
      this.path = []
      this.issues = []
    } else if (failure._tag === "UnknownFormatError") {
      this.path = []
      this.issues = []
    } else if (failure._tag === "EncodeError") {
      this.path = failure.path
      this.issues = [{ path: failure.path, value: failure.value, message: failure.message }]
    } else {
      this.path = failure.path
      this.issues = failure.issues
    }
  }
}

/** What a ScanbridgeError of `Code` is made from: a model failure, or another typed error, of that tag. */
export type FailureOf<Code extends string> = (ScanbridgeFailure & { readonly _tag: Code }) | OtherFailure<Code>

/**
 * ScanbridgeError's class as an entry exports it: `new` makes one of any code in `Accepted`, and
 * `instanceof` narrows to a ScanbridgeError whose `code` is one of `Codes`.
 */
export interface ScanbridgeErrorClass<Codes extends string, Accepted extends string = Codes> {
  new <Code extends Accepted>(failure: FailureOf<Code>): ScanbridgeError<Code>
  readonly prototype: ScanbridgeError<Codes>
}

export type ScanbridgeError<Code extends string = ModelErrorCode> = ScanbridgeErrorOf<Code>

/**
 * The class. Here `instanceof` narrows to the model's codes, what this entry throws; the same
 * class exported by `scanbridge` narrows to every code of the plain API. Packages that build the
 * plain API make it with their own codes.
 */
export const ScanbridgeError: ScanbridgeErrorClass<ModelErrorCode, string> = ScanbridgeErrorOf

/** A typed error of another package (a file that cannot be read, say): its tag and message. */
export interface OtherFailure<Code extends string = string> {
  readonly _tag: Code
  readonly message: string
  readonly value?: unknown
  /** What the status of a status error means (PlatformStatusError's `reason`, ...). */
  readonly reason?: string
}

const MODEL_TAGS: ReadonlySet<string> = new Set(["DecodeError", "UnknownFormatError", "InvariantViolation", "EncodeError"])
const isModelFailure = (f: ScanbridgeFailure | OtherFailure): f is ScanbridgeFailure => MODEL_TAGS.has(f._tag)

// The last resort of `throwsOnlyScanbridgeError`, made while the stack is whole: when too
// little is left even to build an error, this one is thrown.
const STACK_EXHAUSTED = new ScanbridgeError(
  new DecodeError({
    format: "record",
    path: [],
    value: undefined,
    issues: [],
    omitted: 0,
    message: "record: the stack ran out; call again with more stack left"
  })
)

/**
 * Runs `f`, and turns whatever it throws other than a ScanbridgeError (a RangeError when the
 * stack runs out, say) into one, a DecodeError at the root naming the value: the plain API
 * throws nothing else, whatever the input and the stack left to it.
 */
export const throwsOnlyScanbridgeError = <A>(value: unknown, f: () => A): A => {
  try {
    return f()
  } catch (e) {
    if (e instanceof ScanbridgeError) throw e
    let error: ScanbridgeError
    try {
      error = new ScanbridgeError(DecodeError.unreadable("record", value, e))
    } catch {
      error = STACK_EXHAUSTED
    }
    throw error
  }
}

/**
 * The value of an Either, or its failure thrown as a ScanbridgeError: how a plain function (here
 * and in the plain API) turns the Either of an Effect API into a value or a throw.
 */
export const orThrow = <A>(result: Either.Either<A, ScanbridgeFailure | OtherFailure>): A => {
  if (Either.isLeft(result)) throw new ScanbridgeError(result.left)
  return result.right
}

/** Validates a parsed JSON value as a canonical scan; throws ScanbridgeError. */
export const validateScan = (json: unknown): ScanJson => orThrow(decodeScanEither(json))

/** Parses and validates canonical scan JSON text; throws ScanbridgeError. */
export const parseScan = (text: string): ScanJson => orThrow(parseScanEither(text))

/** Whether a parsed JSON value is a valid canonical scan. Never throws. */
export const isScan = (json: unknown): json is ScanJson => Either.isRight(decodeScanEither(json))

/** Builds a canonical scan with every unspecified key null; throws ScanbridgeError. */
export const makeScan = (init: ScanInit): ScanJson => orThrow(makeScanEither(init))

/** PERCENTAGE_E4 -> percent (123456 -> 12.3456); an E4 that is not a safe integer throws. */
export const e4ToPercent = (e4: number): number => {
  if (!Number.isSafeInteger(e4)) {
    throw new ScanbridgeError(DecodeError.at("PERCENTAGE_E4", [], e4, "Expected a safe integer"))
  }
  return units.e4ToPercent(e4 as units.PercentE4)
}

/** percent -> PERCENTAGE_E4, rounded half away from zero past four decimals (see isExactE4). */
export const percentToE4 = (percent: number): number => units.percentToE4(percent as units.Percent)
