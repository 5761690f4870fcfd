/**
 * Reading and writing canonical scan JSON. The decoder is strict: it is for files Scanbridge
 * (or an integrator) wrote in the canonical format, so anything off-contract is an error that
 * names the path and the value.
 */
import { boundedDecodeEither } from "./internal/bounded.js"
import { walkScan } from "./internal/walk.js"
import { type Effect, Either } from "effect"
import type { DecodeOptions } from "./adapter.js"
import { Catalogue, MEASUREMENT_NAMES, type MeasurementName } from "./catalogue.js"
import { DecodeError, type Issue } from "./errors.js"
import { isRecord } from "./json.js"
import { judgeLengths } from "./plausibility.js"
import { SCAN_FORMAT, Scan, type ScanJson } from "./scan.js"

const decode = boundedDecodeEither(Scan, { onExcessProperty: "error" })

// An unknown key in measurementsMm is most often another dialect's spelling: say which.
const explain = (issue: Issue): Issue => {
  const [parent, key] = issue.path
  if (parent !== "measurementsMm" || typeof key !== "string" || issue.path.length !== 2 || Catalogue.isMeasurementName(key)) {
    return issue
  }
  const known = Catalogue.suggest(key)
  const hint = known === undefined ? "" : `; did you mean ${known.name}?`
  return { ...issue, message: `is not a canonical measurement name${hint}` }
}

/** Validates a parsed JSON value as a canonical scan. */
export const decodeScanEither = (json: unknown): Either.Either<Scan, DecodeError> => {
  // Not Either.mapLeft: its dual dispatch reads `arguments`, once per record of a migration.
  const decoded = decode(json)
  // A Right holds no left value: the decoded one is the answer as it is, without a copy.
  return Either.isLeft(decoded)
    ? Either.left(DecodeError.fromIssues(SCAN_FORMAT, decoded.left.issues.map(explain), decoded.left.omitted))
    : (decoded as Either.Either<Scan, never>)
}

export const decodeScan = (json: unknown): Effect.Effect<Scan, DecodeError> => decodeScanEither(json)

/** The other spellings (`kneeHeight`) among a record's measurementsMm keys, with what they stand for, when every unknown key is one. */
const otherSpellings = (json: unknown): ReadonlyArray<readonly [string, MeasurementName]> | undefined => {
  const m = isRecord(json) ? json["measurementsMm"] : undefined
  if (!isRecord(m)) return undefined
  const found: Array<readonly [string, MeasurementName]> = []
  for (const key of Object.keys(m)) {
    if (Catalogue.isMeasurementName(key)) continue
    const entry = Catalogue.byOtherSpelling(key)
    // Both spellings at once: which one holds the length is in doubt, and the strict error says so.
    if (entry === undefined || Object.hasOwn(m, entry.name)) return undefined
    found.push([key, entry.name])
  }
  return found.length === 0 ? undefined : found
}

/**
 * A canonical record as integrators' stores hold it: `decodeScanEither`, and then what a record
 * written by hand or by other code needs. A measurement under another spelling (`kneeHeight`) is
 * read as the one it stands for, with an `aliased` note. The lengths are millimetres, as the
 * format states, unless the caller gives their unit (`lengthUnit`); either way they are judged
 * against the body (`judgeLengths`), and a record whose lengths are plausible only in another
 * unit is refused with that evidence.
 */
export const readScanEither = (json: unknown, options: DecodeOptions = {}): Either.Either<Scan, DecodeError> => {
  let decoded = decodeScanEither(json)
  const renamed = Either.isLeft(decoded) ? otherSpellings(json) : undefined
  if (renamed !== undefined) {
    const m = { ...((json as Record<string, unknown>)["measurementsMm"] as Record<string, unknown>) }
    for (const [other, name] of renamed) {
      m[name] = m[other]
      delete m[other]
    }
    decoded = decodeScanEither({ ...(json as object), measurementsMm: m })
  }
  if (Either.isLeft(decoded)) return decoded
  const scan = decoded.right
  const given = options.lengthUnit === undefined || options.lengthUnit === "auto" ? "mm" : options.lengthUnit
  // The common case costs one judgement: millimetres as stated, plausible, nothing renamed.
  if (renamed === undefined && given === "mm" && judgeLengths(scan.measurementsMm, scan.subject.heightMm, "mm")._tag === "Plausible") return decoded
  return walkScan(
    SCAN_FORMAT,
    [],
    (w) => {
      for (const note of scan.notes) w.add(note)
      for (const [other, name] of renamed ?? []) w.aliased(["measurementsMm", other], other, name)
      // In catalogue order, as every reader writes them, wherever a renamed one stood.
      const measurementsMm: Record<string, number> = {}
      for (const name of MEASUREMENT_NAMES) {
        const mm = scan.measurementsMm[name]
        if (mm !== undefined) measurementsMm[name] = w.lengthMm(mm, "mm", ["measurementsMm"])
      }
      return { ...scan, measurementsMm }
    },
    undefined,
    options
  )
}

/** Parses and validates one canonical scan from JSON text (a file, or one NDJSON line). */
export const parseScanEither = (text: string): Either.Either<Scan, DecodeError> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    return Either.left(DecodeError.at(SCAN_FORMAT, [], text, `not JSON: ${(e as Error).message}`))
  }
  return decodeScanEither(json)
}

export const parseScan = (text: string): Effect.Effect<Scan, DecodeError> => parseScanEither(text)

/**
 * The JSON form of a scan. The type side differs from the encoded side only by unit brands,
 * which exist only for the compiler, and a Scan can only be had through validation.
 */
export const encodeScan = (scan: Scan): ScanJson => scan

/** One NDJSON line (no trailing newline). Key order is the contract's, so output is stable. */
export const stringifyScan = (scan: Scan): string => JSON.stringify(encodeScan(scan))
