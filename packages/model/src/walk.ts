/**
 * The machinery every adapter codec shares: a decode walk that collects notes and stops at the
 * first value it cannot read (a DecodeError naming the input path and value), and an encode
 * walk that does the same for what a target format cannot hold (an EncodeError).
 */
import { boundedDecodeEither } from "./bounded.js"
import { type Narrow, compileGuard } from "./fast.js"
import { Either, Schema } from "effect"
import { DecodeError, EncodeError, type Path, previewValue } from "./errors.js"
import { type Note, type NoteKind, type Scan, type ScanInit, makeNote, scanOf } from "./scan.js"
import { round } from "./units.js"

// A walk stops at the first value it cannot read or write; this carries the error out of it.
class Abort<E> {
  constructor(readonly error: E) {}
}

/** Runs a walk: its result, or the error a `fail` inside it carried out. Other throws pass. */
export const attempt = <A, E>(f: () => A): Either.Either<A, E> => {
  try {
    return Either.right(f())
  } catch (e) {
    if (e instanceof Abort) return Either.left(e.error as E)
    throw e
  }
}

const samePath = (path: Path): Path => path

/** Collects notes while decoding; `fail` aborts the walk with a DecodeError at base + path. */
export class DecodeWalk {
  readonly notes: Array<Note> = []
  constructor(
    readonly format: string,
    readonly base: Path = [],
    /** Turns a path the codec knows into the input's own spelling of it (proto3 field names). */
    readonly locate: (path: Path) => Path = samePath
  ) {}
  /** `path` as in `makeNote`: a string is a path formatted already. */
  note(kind: NoteKind, path: Path | string, detail: string): void {
    this.notes.push(makeNote(kind, path, detail))
  }
  fail(path: Path, value: unknown, message: string): never {
    throw new Abort(DecodeError.at(this.format, [...this.base, ...this.locate(path)], value, message))
  }
  /** A `dropped` note for every key of `json` outside `known`: nothing is lost silently. */
  noteUnknownKeys(path: Path, json: unknown, known: ReadonlySet<string>): void {
    if (typeof json !== "object" || json === null) return
    for (const key in json) {
      if (!known.has(key)) this.note("dropped", [...path, key], `unknown key ${key} = ${previewValue((json as Record<string, unknown>)[key])}: the canonical scan has no place for it`)
    }
  }
}

/** Collects notes while encoding; `fail` aborts the walk with an EncodeError. */
export class EncodeWalk {
  readonly notes: Array<Note> = []
  constructor(readonly format: string) {}
  note(kind: NoteKind, path: Path, detail: string): void {
    this.notes.push(makeNote(kind, path, detail))
  }
  fail(path: Path, value: unknown, reason: string): never {
    throw new Abort(EncodeError.at(this.format, path, value, reason))
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
 * A Schema filter: exactly one of `keys` is present (or, with `orNone`, at most one), as in a
 * protobuf oneof. The message lists what was found.
 */
export const oneOf =
  (keys: ReadonlyArray<string>, options: { readonly orNone?: boolean } = {}) =>
  (o: object): string | undefined => {
    const present = keys.filter((k) => (o as Record<string, unknown>)[k] !== undefined)
    if (present.length === 1 || (options.orNone === true && present.length === 0)) return undefined
    return `${options.orNone === true ? "at most" : "exactly"} one of ${keys.join(", ")} (found ${present.length === 0 ? "none" : present.join(", ")})`
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
  locate?: (path: Path) => Path
): Either.Either<Scan, DecodeError> => {
  const walk = new DecodeWalk(format, base, locate)
  return attempt<Scan, DecodeError>(() => scanOf(f(walk), walk.notes))
}

/** A Schema decoder whose failure is a DecodeError of `format`, with paths under `base`. */
export const schemaDecoder = <A, I>(schema: Schema.Schema<A, I>, format: string, base: Path = []) => {
  const decode = boundedDecodeEither(schema)
  return (json: unknown): Either.Either<A, DecodeError> => Either.mapLeft(decode(json, base), (list) => DecodeError.fromIssueList(format, list))
}

/**
 * `schemaDecoder` that also says whether the input has no key the schema does not name, at any
 * depth: a decoder that notes unknown keys need not look for them in such an input (most of a
 * bulk migration). A schema that transforms is never exact: its value is not its input.
 * `narrow` (as in `compileGuard`) can make exact stricter, say a record's keys a known few.
 */
export const exactSchemaDecoder = <A, I>(schema: Schema.Schema<A, I>, format: string, options: { readonly base?: Path; readonly narrow?: Narrow } = {}) => {
  const decode = schemaDecoder(schema, format, options.base)
  const exact = compileGuard(schema, "error", options.narrow === undefined ? {} : { narrow: options.narrow })
  return (json: unknown): Either.Either<{ readonly value: A; readonly exact: boolean }, DecodeError> =>
    exact?.(json) ? Either.right({ value: json, exact: true }) : Either.map(decode(json), (value) => ({ value, exact: false }))
}
