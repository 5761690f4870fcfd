/**
 * What an adapter offers the migration engine: its API's name, the JSON shapes it reads, how to
 * tell them from the shape alone, how to decode them to canonical scans, and how to write a scan
 * back in its API's shape. Each adapter package exports one (`platformAdapter`,
 * `sessionAdapter`, ...) as a plain value; an integrator's own storage
 * format is one more, in a package of its own (docs/adapters.md).
 */
import type { Either } from "effect"
import type { Dialect } from "./dialect.js"
import type { DecodeError, EncodeError } from "./errors.js"
import type { Api, Encoded, Scan } from "./scan.js"
import type { LengthUnit } from "./units.js"

/**
 * What the caller of a decode knows that the records do not say. Every format's `decode` takes
 * it; an adapter of one's own may ignore what it has no use for.
 */
export interface DecodeOptions {
  /**
   * The unit of the body lengths (the measurements), for records that state none or state it
   * wrongly. `auto` (the default): each length is read in the unit its record states, or, where a
   * format states none, the unit the record's evidence shows; a record whose lengths are plausible
   * only in another unit is rejected with that evidence. A unit given here is the unit of every
   * length of the input, noted on each scan where the record states another, and checked all the
   * same: a record whose lengths are plausible only in another unit is still rejected.
   */
  readonly lengthUnit?: LengthUnit | "auto"
  /**
   * The scale of body-fat values whose records state none: `percent` (12.5), `e4` (percent x
   * 10^4, the session API's PERCENTAGE_E4: 125000), or `auto` (the default: the scale the value
   * shows, or a rejection that says why it cannot tell).
   */
  readonly bodyFatScale?: "percent" | "e4" | "auto"
  /** The unit of skeletal-muscle masses whose records state none; `auto` (the default) as for body fat. */
  readonly muscleMassUnit?: "g" | "kg" | "auto"
}

/** One JSON shape of one API. */
export interface ScanFormat {
  /** Stable and unique, for reports and `{source, payload}` envelopes: `session ScanningResults`. */
  readonly name: string
  /** Its adapter's `name`; null for the canonical form itself. */
  readonly api: Api | null
  /** What `detect` looks for, in a few words, for the docs' table of formats. */
  readonly shape?: string
  /** From the shape alone, cheaply, without validating: is this JSON this format? */
  readonly detect: (json: unknown) => boolean
  /** Every scan the JSON holds (a list page holds several). Never throws. */
  readonly decode: (json: unknown, options?: DecodeOptions) => Either.Either<ReadonlyArray<Scan>, DecodeError>
}

/**
 * What the caller of an encode chooses that the scan does not say. Every encoder takes it; one
 * that offers no choice ignores it (its `units` are absent, and a run refuses `units` for it).
 */
export interface EncodeOptions {
  /** For a target that offers a choice (`ScanEncoder.units`), the unit of its lengths, and with them of its masses (`in`: pounds). */
  readonly units?: LengthUnit
  /**
   * For a target that names a patient (`fhir`): the identifier system in which the scans'
   * `externalId` is the patient's identifier. Without it, no patient is named.
   */
  readonly patientSystem?: string
}

/** Writes a canonical scan in an API's shape, with a note for what the shape cannot hold. */
export interface ScanEncoder {
  /** The name a user picks it by (`--to`): `platform`, `session`, `estimation`, `fit`, `fhir`, or an integrator's own. */
  readonly target: string
  /** The length units it can write, its default first; absent for a target whose units are its own. */
  readonly units?: ReadonlyArray<LengthUnit>
  /** Whether it names a patient (`fhir`): only such a target takes `EncodeOptions.patientSystem`, which a run refuses for any other. */
  readonly namesPatient?: boolean
  readonly encode: (scan: Scan, options?: EncodeOptions) => Either.Either<Encoded<unknown>, EncodeError>
}

export interface Adapter {
  /**
   * The API's name, unique in a collection: what the scans it decodes hold in `source.api`, what
   * every one of its formats names as `api`, and what a `{source, payload}` envelope names.
   */
  readonly name: Api
  readonly formats: ReadonlyArray<ScanFormat>
  readonly encoder: ScanEncoder
  /** Its spellings of the catalogue's names (`makeDialect`), for an API that has its own; its `api` is `name`. */
  readonly dialect?: Dialect
}
