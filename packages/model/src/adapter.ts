/**
 * What an adapter offers the migration engine: the JSON shapes it reads, how to tell them from
 * the shape alone, how to decode them to canonical scans, and how to write a scan back in its
 * API's shape. Each adapter package exports one (`PlatformAdapter`, `SessionAdapter`, ...) as
 * a plain value and as a Context.Tag; an integrator's own storage format is one more.
 */
import type { Either } from "effect"
import type { DecodeError, EncodeError } from "./errors.js"
import type { Api, Encoded, Scan } from "./scan.js"

/** One JSON shape of one API. */
export interface ScanFormat {
  /** Stable and unique, for reports and `{source, payload}` envelopes: `session ScanningResults`. */
  readonly name: string
  /** null for the canonical form itself. */
  readonly api: Api | null
  /** From the shape alone, cheaply, without validating: is this JSON this format? */
  readonly detect: (json: unknown) => boolean
  /** Every scan the JSON holds (a list page holds several). Never throws. */
  readonly decode: (json: unknown) => Either.Either<ReadonlyArray<Scan>, DecodeError>
}

/** Writes a canonical scan in an API's shape, with a note for what the shape cannot hold. */
export interface ScanEncoder {
  /** The name a user picks it by: `platform`, `session`, `estimation`, `fit`. */
  readonly target: string
  readonly encode: (scan: Scan) => Either.Either<Encoded<unknown>, EncodeError>
}

export interface Adapter {
  readonly api: Api
  readonly formats: ReadonlyArray<ScanFormat>
  readonly encoder: ScanEncoder
}
