/**
 * The machinery every adapter codec shares: a decode walk that collects notes and stops at the
 * first value it cannot read (a DecodeError naming the input path and value), and an encode
 * walk that does the same for what a target format cannot hold (an EncodeError).
 */
import { boundedDecodeEither } from "./bounded.js"
import { type SchemaNarrowing, fastTest, lazyGuard } from "./fast.js"
import { type UnknownKey, unknownKeysOf } from "./keys.js"
import { BoundedNoteList } from "./notes.js"
import { Either, type Schema } from "effect"
import type { DecodeOptions } from "../adapter.js"
import { DecodeError, EncodeError, type Path, previewValue } from "../errors.js"
import { judgeLengths } from "../plausibility.js"
import { type Note, type Scan, type ScanInit, scanOf } from "../scan.js"
import { LENGTH_UNITS, LENGTH_UNIT_LABELS, type LengthUnit, MM_PER_UNIT, round } from "../units.js"

// A walk stops at the first value it cannot read or write; this carries the error out of it.
class Abort<E> {
  constructor(readonly error: E) {}
}

/** Runs a walk: its result, or the error a `fail` inside it carried out. Other throws pass. */
export const runWalk = <A, E>(f: () => A): Either.Either<A, E> => {
  try {
    return Either.right(f())
  } catch (e) {
    return aborted(e)
  }
}

/** What a walk that threw `e` answers: the error a `fail` carried out of it; any other throw passes. */
const aborted = <E>(e: unknown): Either.Either<never, E> => {
  if (e instanceof Abort) return Either.left(e.error as E)
  throw e
}

const samePath = (path: Path): Path => path

const NO_OPTIONS: DecodeOptions = {}

// Where a walk's lengths are until it reads one: shared, not an array made per record.
const NOWHERE: Path = []

/** The way out a length message names: the CLI's flag and the API's option. */
export const LENGTH_UNIT_FLAG_AND_OPTION = "--length-unit (lengthUnit in the plain and Effect APIs)"

/**
 * Collects notes while decoding, at most MAX_NOTES of them and a count of the rest (it is the
 * scan's BoundedNoteList, one object less per record); `fail` aborts the walk with a DecodeError
 * at base + path.
 */
export class DecodeWalk extends BoundedNoteList {
  // How the record's lengths were read, for judgeLengths at the end of the walk, held in fields
  // rather than an object per record: the unit the first length's record stated (undefined
  // until a length is read), the unit it was read in (the caller's, or that one), where, and how
  // many lengths were converted from each stated unit other than millimetres (a record may mix them).
  private lengthsStated: LengthUnit | undefined = undefined
  private lengthsRead: LengthUnit = "mm"
  private lengthsAt: Path = NOWHERE
  private convertedCm = 0
  private convertedIn = 0
  /** The unit the caller gave for every body length (DecodeOptions.lengthUnit), or undefined for auto. */
  readonly givenLengthUnit: LengthUnit | undefined
  constructor(
    readonly format: string,
    readonly base: Path = [],
    /** Turns a path the codec knows into the input's own spelling of it (proto3 field names). */
    readonly locate: (path: Path) => Path = samePath,
    readonly options: DecodeOptions = NO_OPTIONS
  ) {
    super()
    const u = options.lengthUnit
    this.givenLengthUnit = u === undefined || u === "auto" ? undefined : u
  }
  /**
   * A body length in millimetres: `raw` in the unit its record states (the format's own unit
   * where it states none), or in the caller's `lengthUnit` where one was given. The record's
   * lengths are then judged together at the end of the walk (`judgeLengths`): a record whose
   * lengths are plausible only in another unit is refused with that evidence. `at` is where the
   * record's lengths are (the first call's is kept), for that message and the notes.
   */
  lengthMm(raw: number, stated: LengthUnit, at: Path): number {
    const unit = this.givenLengthUnit ?? stated
    if (this.lengthsStated === undefined) {
      this.lengthsStated = stated
      this.lengthsRead = unit
      this.lengthsAt = at
    }
    if (unit === "mm") return raw
    if (unit === stated) {
      if (unit === "cm") this.convertedCm++
      else this.convertedIn++
    }
    return LENGTH_UNITS[unit].toBase(raw)
  }
  /**
   * Notes how the lengths were read, and refuses them when they are plausible only in another
   * unit. Called by walkScan on the record's scan before it is built.
   */
  judgeLengths(init: ScanInit): void {
    const stated = this.lengthsStated
    if (stated === undefined || init.measurementsMm === undefined) return
    const given = this.givenLengthUnit
    const read = this.lengthsRead
    const path = this.lengthsAt
    if (given !== undefined && given !== stated) {
      this.note(
        "assumed",
        path,
        `lengths read as ${LENGTH_UNIT_LABELS[given]}, as the caller said (lengthUnit "${given}"), where the record states ${LENGTH_UNIT_LABELS[stated]}`
      )
    } else {
      this.noteConverted(this.convertedCm, "cm")
      this.noteConverted(this.convertedIn, "in")
    }
    const verdict = judgeLengths(init.measurementsMm, init.subject?.heightMm ?? null, read)
    if (verdict._tag === "Plausible") return
    const { name, mm, plausible } = verdict.evidence
    const raw = round(mm / MM_PER_UNIT[read], 6)
    const how = given !== undefined ? `as the caller said (lengthUnit "${given}")` : "the unit the record states"
    if (verdict._tag === "Implausible") {
      return this.note("assumed", path, `${name} ${raw} ${read} is plausible in no unit for this body (plausible ${plausible}): kept as read`)
    }
    const others = verdict.units
    const asOthers = others.map((u) => `${raw} ${u} would be ${round(raw * MM_PER_UNIT[u], 1)} mm`).join(", ")
    const labels = others.map((u) => LENGTH_UNIT_LABELS[u]).join(" or ")
    const wayOut =
      given !== undefined
        ? `pass the unit they are in with ${LENGTH_UNIT_FLAG_AND_OPTION}, or auto to read each in the unit its record states`
        : `if this input's lengths are in ${labels}, pass ${others.map((u) => `--length-unit ${u}`).join(" or ")} (lengthUnit: ${others.map((u) => `"${u}"`).join(" or ")})`
    this.fail(
      path,
      raw,
      `lengths read as ${LENGTH_UNIT_LABELS[read]} (${how}) are plausible in ${labels} and not in ${LENGTH_UNIT_LABELS[read]}: e.g. ${name} ${raw} ${read} (${asOthers}), plausible ${plausible}; ${wayOut}`
    )
  }
  private noteConverted(n: number, unit: "cm" | "in"): void {
    if (n > 0) this.note("converted", this.lengthsAt, `${n} length(s) stated in ${LENGTH_UNIT_LABELS[unit]}, converted to millimetres`)
  }
  /** What was noted so far, bounded. */
  get notes(): ReadonlyArray<Note> {
    return this.list()
  }
  /** The `aliased` note of a measurement read under another spelling of its name (`kneeHeight` for kneeHeightR). */
  aliased(path: Path | string, other: string, documented: string): void {
    this.note("aliased", path, `${other} read as ${documented}: another spelling of it`)
  }
  /** Stops the walk: `walkScan` (or `runWalk`) answers with a DecodeError naming `path` (under `base`), the value and why. */
  fail(path: Path, value: unknown, message: string): never {
    throw new Abort(DecodeError.at(this.format, [...this.base, ...this.locate(path)], value, message))
  }
  /** A `dropped` note for each key the wire schema does not name (`exactSchemaDecoder`'s), under `path`: nothing is lost silently. */
  noteUnknownKeys(path: Path, keys: ReadonlyArray<UnknownKey>): void {
    for (let i = 0; i < keys.length; i++) {
      // Past the limit the rest are only counted: previewing a million values is the cost.
      if (!this.keepsNextNote) return this.omit("dropped", keys.length - i)
      const { path: at, value } = keys[i]!
      this.note("dropped", [...path, ...at], `unknown key ${String(at[at.length - 1])} = ${previewValue(value)}: the canonical scan has no place for it`)
    }
  }
}

/** Collects notes while encoding (bounded as a DecodeWalk's); `fail` aborts the walk with an EncodeError. */
export class EncodeWalk extends BoundedNoteList {
  constructor(readonly format: string) {
    super()
  }
  /** What was noted so far, bounded as a DecodeWalk's. */
  get notes(): ReadonlyArray<Note> {
    return this.list()
  }
  /** Stops the walk: `runWalk` answers with an EncodeError naming the scan's `path`, the value and why the target cannot hold it. */
  fail(path: Path, value: unknown, reason: string): never {
    throw new Abort(EncodeError.at(this.format, path, value, reason))
  }
  /** What the target has no place for, when the scan has it: left out, with a `dropped` note. */
  dropIf(present: boolean, path: Path, why: string): void {
    if (present) this.note("dropped", path, why)
  }
  /**
   * A whole number as the target writes it: rounded with a `converted` note, and refused past
   * 2^53 - 1, where a double is no longer the number written (no decoder could read it back).
   */
  integer(path: Path, value: number, unit: string): number {
    const n = round(value)
    if (!Number.isSafeInteger(n)) this.fail(path, value, `${this.format} holds whole numbers, and ${value} ${unit} is past the exact ones (2^53 - 1)`)
    if (n !== value) this.note("converted", path, `${value} ${unit} rounded to ${n} ${unit}: ${this.format} holds whole numbers`)
    return n
  }
}

/**
 * A Schema filter's two arguments, to spread into `Schema.filter(...oneOfKeys(keys))`: exactly one of
 * `keys` is present (or, with `orNone`, at most one), as in a protobuf oneof; the message lists
 * what was found. The second is the filter's `fastTest`, so that compiled guards count the keys
 * without the filter's Option and issue machinery, which every pending session record would pay.
 */
export const oneOfKeys = (
  keys: ReadonlyArray<string>,
  options: { readonly orNone?: boolean } = {}
): readonly [(o: object) => string | undefined, Schema.Annotations.Filter<object>] => {
  const orNone = options.orNone === true
  const holds = (o: object): boolean => {
    let present = 0
    for (let i = 0; i < keys.length; i++) if ((o as Record<string, unknown>)[keys[i]!] !== undefined) present++
    return present === 1 || (orNone && present === 0)
  }
  const message = (o: object): string | undefined => {
    if (holds(o)) return undefined
    const present = keys.filter((k) => (o as Record<string, unknown>)[k] !== undefined)
    return `${orNone ? "at most" : "exactly"} one of ${keys.join(", ")} (found ${present.length === 0 ? "none" : present.join(", ")})`
  }
  return [message, fastTest(holds)] as const
}

/**
 * Decodes to a canonical scan: runs the walk and builds the scan with the walk's notes, without
 * validating it again. Decoders validate their wire input, and property tests that feed every
 * decoder mutated records check that whatever it builds is a valid scan.
 */
export const walkScan = (
  format: string,
  base: Path,
  f: (walk: DecodeWalk) => ScanInit,
  locate?: (path: Path) => Path,
  options?: DecodeOptions
): Either.Either<Scan, DecodeError> => {
  const walk = new DecodeWalk(format, base, locate, options)
  // runWalk's work without its closure: this runs once for every scan a migration reads.
  let scan: Scan
  try {
    const init = f(walk)
    walk.judgeLengths(init)
    scan = scanOf(init, walk.notes)
  } catch (e) {
    return aborted(e)
  }
  return Either.right(scan)
}

/**
 * A decoder's one scan as the list a format's decode answers with. Not `Either.map`, nor
 * `flatMap` or `mapLeft` on the paths every record takes: their dual dispatch reads `arguments`,
 * an allocation per call, once per record of a migration.
 */
export const oneScan = <E>(result: Either.Either<Scan, E>): Either.Either<ReadonlyArray<Scan>, E> =>
  Either.isLeft(result) ? Either.left(result.left) : Either.right([result.right])

/** A Schema decoder whose failure is a DecodeError of `format`, with paths under `base`. */
export const schemaDecoder = <A, I>(schema: Schema.Schema<A, I>, format: string, base: Path = []) => {
  const decode = boundedDecodeEither(schema)
  return (json: unknown): Either.Either<A, DecodeError> => {
    const decoded = decode(json, base)
    // A Right holds no left value: the decoded one is the answer as it is, without a copy.
    return Either.isLeft(decoded) ? Either.left(DecodeError.fromIssueList(format, decoded.left)) : (decoded as Either.Either<A, never>)
  }
}

/** What `exactSchemaDecoder` read: the value, and the keys of the input its schema does not name. */
export interface ExactRead<A> {
  readonly value: A
  /** The input has no key the schema does not name, at any depth (and passes `narrow`). */
  readonly exact: boolean
  /** Each key of the input the schema does not name, at any depth: none when exact. */
  readonly unknownKeys: ReadonlyArray<UnknownKey>
}

const NO_KEYS: ReadonlyArray<UnknownKey> = []

/**
 * `schemaDecoder` that also finds the keys of the input the schema does not name, at any depth,
 * for the codec to note as dropped. An input the schema's exact guard accepts has none and is
 * not walked (most of a bulk migration); any other is walked along the schema (`unknownKeysOf`).
 * A schema that transforms is never exact: its value is not its input. `narrow` (as in
 * `compileGuard`) can make exact stricter, say a record's keys a known few; the walk does not
 * narrow (those keys are the codec's to read).
 */
export const exactSchemaDecoder = <A, I>(
  schema: Schema.Schema<A, I>,
  format: string,
  options: { readonly base?: Path; readonly narrow?: SchemaNarrowing } = {}
) => {
  const decode = schemaDecoder(schema, format, options.base)
  const exact = lazyGuard(schema, "error", options.narrow === undefined ? {} : { narrow: options.narrow })
  const unknownKeys = unknownKeysOf(schema)
  return (json: unknown): Either.Either<ExactRead<A>, DecodeError> => {
    if (exact(json)) return Either.right({ value: json, exact: true, unknownKeys: NO_KEYS })
    const decoded = decode(json)
    return Either.isLeft(decoded) ? Either.left(decoded.left) : Either.right({ value: decoded.right, exact: false, unknownKeys: unknownKeys(json) })
  }
}
