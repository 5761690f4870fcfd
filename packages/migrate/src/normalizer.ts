/**
 * Format detection and normalization over a collection of adapters (adapters.ts). A JSON value
 * is matched against the canonical form's shape and then every adapter's, in the collection's
 * order; exactly one must match. An explicit `{ "source": "...", "payload": ... }` envelope names
 * the format (or the API) and skips detection.
 */
import { Context, Effect, Either, Layer, Schema } from "effect"
import {
  type Adapter,
  Codegen,
  DecodeError,
  type DecodeOptions,
  SCAN_FORMAT,
  type Scan,
  type ScanEncoder,
  type ScanFormat,
  UnknownFormatError,
  isRecord,
  readScanEither
} from "@scanbridge/model"
import { type AdapterError, CANONICAL_TARGET, builtInAdapters, checkAdapters } from "./adapters.js"
import { TABLE_TARGETS } from "./table.js"

/** The canonical form itself, read and written as it is. */
export const canonicalFormat: ScanFormat = {
  name: SCAN_FORMAT,
  api: null,
  shape: `\`format\` is \`${SCAN_FORMAT}\``,
  detect: (json) => isRecord(json) && json["format"] === SCAN_FORMAT,
  decode: (json, options) => oneScanOf(readScanEither(json, options))
}

const oneScanOf = (result: Either.Either<Scan, DecodeError>): Either.Either<ReadonlyArray<Scan>, DecodeError> =>
  Either.isLeft(result) ? Either.left(result.left) : Either.right([result.right])

export const canonicalEncoder: ScanEncoder = {
  target: CANONICAL_TARGET,
  encode: (scan) => Either.right({ value: scan, notes: [] })
}

export interface Detected {
  readonly format: ScanFormat
  /** The JSON to decode: the envelope's payload, or the input itself. */
  readonly payload: unknown
  /** Whether a `{source, payload}` envelope named the format. */
  readonly explicit: boolean
}

export type NormalizeError = DecodeError | UnknownFormatError

/**
 * The scans of a detected value. A decoder answers with typed errors, but whatever one throws (a
 * stack overflow on a value nested too deeply, an integrator's adapter's bug) is a DecodeError
 * here too: no record stops a migration.
 */
export const decodeDetected = ({ format, payload }: Detected, options?: DecodeOptions): Either.Either<ReadonlyArray<Scan>, DecodeError> =>
  decodeAs(format, payload, options)

const decodeAs = (format: ScanFormat, payload: unknown, options: DecodeOptions | undefined): Either.Either<ReadonlyArray<Scan>, DecodeError> => {
  try {
    return format.decode(payload, options)
  } catch (e) {
    return Either.left(DecodeError.unreadable(format.name, payload, e))
  }
}

export interface NormalizerService {
  /** The collection it was built from, in detection order. */
  readonly adapters: ReadonlyArray<Adapter>
  /** The canonical form's and then every adapter's, in detection order. */
  readonly formats: ReadonlyArray<ScanFormat>
  /** Targets by name: `canonical` and one per adapter. */
  readonly encoders: ReadonlyMap<string, ScanEncoder>
  readonly detect: (json: unknown) => Either.Either<Detected, UnknownFormatError>
  /** What every decode is told (the units that records do not state). */
  readonly options: DecodeOptions
  /** Every canonical scan a JSON value holds. Never throws. */
  readonly normalize: (json: unknown) => Either.Either<ReadonlyArray<Scan>, NormalizeError>
}

const isEnvelope = (json: unknown): json is { readonly source: string; readonly payload: unknown } =>
  isRecord(json) && typeof json["source"] === "string" && "payload" in json && Object.keys(json).length === 2

const sameOptions = (a: DecodeOptions, b: DecodeOptions): boolean =>
  (a.lengthUnit ?? "auto") === (b.lengthUnit ?? "auto") &&
  (a.bodyFatScale ?? "auto") === (b.bodyFatScale ?? "auto") &&
  (a.muscleMassUnit ?? "auto") === (b.muscleMassUnit ?? "auto")

type SingleMatch = (json: unknown) => number

/**
 * Which one of `formats` a value is: the index of the only format whose detect holds, or -1 when
 * none or several do (detectOneOf then says which). Generated as one function with a call site per
 * format, each of which V8 can inline, where a loop's one call site sees every detect and inlines
 * none; on the first call, as every generator (a normalizer is built on import).
 */
const singleMatchOf = (formats: ReadonlyArray<ScanFormat>): SingleMatch => {
  let match: SingleMatch | undefined
  return (json) => (match ??= generateSingleMatch(formats))(json)
}

const generateSingleMatch = (formats: ReadonlyArray<ScanFormat>): SingleMatch => {
  const detects = formats.map((f) => f.detect)
  const looped = (): SingleMatch => (json) => {
    let found = -1
    for (let i = 0; i < detects.length; i++) {
      if (!detects[i]!(json)) continue
      if (found >= 0) return -1
      found = i
    }
    return found
  }
  const names = detects.map((_, i) => `d${i}`)
  const tests = names.map((d, i) => `if (${d}(json)) {\nif (found >= 0) return -1;\nfound = ${i};\n}\n`).join("")
  const make = Codegen.compiled<(d: ReadonlyArray<(json: unknown) => boolean>) => SingleMatch>(
    {
      kind: "detect",
      name: `${formats.length}-formats`,
      params: ["detects"],
      body: `const [${names.join(", ")}] = detects;\nreturn function detect(json) {\nlet found = -1;\n${tests}return found;\n}`
    },
    () => looped
  )
  return make(detects)
}

/** The error of a value that none of the formats `tried` holds, or that several (`matched`) do. */
const notOne = (tried: ReadonlyArray<string>, matched: ReadonlyArray<ScanFormat>, json: unknown): Either.Either<never, UnknownFormatError> =>
  Either.left(
    matched.length === 0
      ? UnknownFormatError.unknown(tried, json)
      : UnknownFormatError.ambiguous(
          tried,
          matched.map((f) => f.name),
          json
        )
  )

/** A normalizer over a checked collection, plus the canonical form. */
const build = (adapters: ReadonlyArray<Adapter>, options: DecodeOptions = {}): NormalizerService => {
  const formats = [canonicalFormat, ...adapters.flatMap((a) => a.formats)]
  const names = formats.map((f) => f.name)
  const apis = adapters.map((a) => a.name)
  const encoders = new Map<string, ScanEncoder>([[canonicalEncoder.target, canonicalEncoder], ...adapters.map((a) => [a.encoder.target, a.encoder] as const)])

  const detectOneOf = (candidates: ReadonlyArray<ScanFormat>, json: unknown, explicit: boolean): Either.Either<Detected, UnknownFormatError> => {
    // Counted in a loop, not filtered: this runs once per record of a migration.
    let found: ScanFormat | undefined
    let count = 0
    for (const f of candidates) if (f.detect(json)) (found = f), count++
    if (count === 1) return Either.right({ format: found!, payload: json, explicit })
    const matched = candidates.filter((f) => f.detect(json))
    const tried = candidates.map((f) => f.name)
    // One named format decodes even when its shape test is unsure: the caller said what it is.
    if (explicit && candidates.length === 1) return Either.right({ format: candidates[0]!, payload: json, explicit })
    return notOne(tried, matched, json)
  }

  const singleMatch = singleMatchOf(formats)

  // A bare value whose single match is none (-1): no format holds it, or several do. Which, from
  // one more pass over the detects, not two: detectOneOf would count them again first.
  const noSingleMatch = (json: unknown) =>
    notOne(
      names,
      formats.filter((f) => f.detect(json)),
      json
    )

  const detectOrThrow = (json: unknown): Either.Either<Detected, UnknownFormatError> => {
    if (!isEnvelope(json)) {
      const i = singleMatch(json)
      return i >= 0 ? Either.right({ format: formats[i]!, payload: json, explicit: false }) : noSingleMatch(json)
    }
    const named = formats.filter((f) => f.name === json.source || f.api === json.source)
    if (named.length === 0) return Either.left(UnknownFormatError.unknownSource(names, apis, json.source))
    return detectOneOf(named, json.payload, true)
  }

  // Shape tests answer true or false, but whatever one throws (a stack overflow on a record
  // nested too deeply, an integrator's adapter's bug) is a typed error here too.
  const detect = (json: unknown): Either.Either<Detected, UnknownFormatError> => {
    try {
      return detectOrThrow(json)
    } catch (e) {
      return Either.left(UnknownFormatError.unreadable(names, json, e))
    }
  }

  const normalize = (json: unknown): Either.Either<ReadonlyArray<Scan>, NormalizeError> => {
    // A bare record of one format (most of a migration) is decoded without its Detected, and a
    // bare record of none or several formats answered without running its single match again;
    // an envelope is detect's to answer. A detect that throws is a typed error, as in detect.
    let i = -1
    let envelope = false
    try {
      envelope = isEnvelope(json)
      if (!envelope) {
        i = singleMatch(json)
        if (i < 0) return noSingleMatch(json)
      }
    } catch (e) {
      return Either.left(UnknownFormatError.unreadable(names, json, e))
    }
    if (!envelope) return decodeAs(formats[i]!, json, options)
    const detected = detect(json)
    return Either.isLeft(detected) ? Either.left(detected.left) : decodeDetected(detected.right, options)
  }

  return { adapters, formats, encoders, detect, options, normalize }
}

/** A normalizer over this collection, or why the collection cannot be one (adapters.ts). */
const make = (adapters: ReadonlyArray<Adapter>): Either.Either<NormalizerService, AdapterError> => Either.map(checkAdapters(adapters), build)

/** The normalizer over the built-in adapters, for code that does not use layers. */
export const defaultNormalizer: NormalizerService = build(builtInAdapters)

export class Normalizer extends Context.Tag("@scanbridge/migrate/Normalizer")<Normalizer, NormalizerService>() {
  /**
   * A normalizer over exactly these adapters (and the canonical form), in this detection order;
   * an AdapterError when one is not an adapter or two claim one name.
   */
  static readonly make = make
  /**
   * `base` with these adapters added after its own, in this order; `base` itself when there are
   * none. How the command, the plain API and a migration worker add an integrator's adapters.
   */
  static readonly extend = (base: NormalizerService, extra: ReadonlyArray<Adapter>): Either.Either<NormalizerService, AdapterError> =>
    extra.length === 0 ? Either.right(base) : Either.map(make([...base.adapters, ...extra]), (n) => Normalizer.withOptions(n, base.options))
  /** `base` telling every decode these options (a unit of lengths, say) instead of its own; `base` itself when they are the same. */
  static readonly withOptions = (base: NormalizerService, options: DecodeOptions): NormalizerService =>
    sameOptions(base.options, options) ? base : build(base.adapters, options)
  /** The Normalizer over these adapters (default: the built-in ones), telling every decode `options` (default: every unit auto). */
  static readonly layer = (adapters: ReadonlyArray<Adapter> = builtInAdapters, options: DecodeOptions = {}): Layer.Layer<Normalizer, AdapterError> =>
    adapters === builtInAdapters
      ? sameOptions(defaultNormalizer.options, options)
        ? Normalizer.default
        : Layer.succeed(Normalizer, Normalizer.withOptions(defaultNormalizer, options))
      : Layer.effect(
          Normalizer,
          Either.map(make(adapters), (n) => Normalizer.withOptions(n, options))
        )
  /** The Normalizer over the built-in adapters. */
  static readonly default: Layer.Layer<Normalizer> = Layer.succeed(Normalizer, defaultNormalizer)
}

/** Which format a JSON value is, from its shape (or its `{source, payload}` envelope). */
export const detectFormat = (json: unknown): Either.Either<Detected, UnknownFormatError> => defaultNormalizer.detect(json)

/** Every canonical scan a JSON value holds, as an Effect over the Normalizer in context. */
export const normalize = (json: unknown): Effect.Effect<ReadonlyArray<Scan>, NormalizeError, Normalizer> => Effect.flatMap(Normalizer, (n) => n.normalize(json))

/** The same without Effect context: the built-in adapters. Never throws. */
export const normalizeEither = (json: unknown): Either.Either<ReadonlyArray<Scan>, NormalizeError> => defaultNormalizer.normalize(json)

/** The target names no encoder. */
export class UnknownTargetError extends Schema.TaggedError<UnknownTargetError>("@scanbridge/migrate/UnknownTargetError")("UnknownTargetError", {
  target: Schema.String,
  message: Schema.String
}) {
  /** `target` asked of a normalizer that has no such encoder; `where` says who asked. */
  static of(target: string, normalizer: NormalizerService, where = ""): UnknownTargetError {
    return new UnknownTargetError({
      target,
      message: `unknown target ${JSON.stringify(target)}${where}: expected one of ${[...normalizer.encoders.keys(), ...TABLE_TARGETS].join(", ")}`
    })
  }
}
