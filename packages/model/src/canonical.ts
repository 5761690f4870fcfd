/**
 * Reading and writing canonical scan JSON. The decoder is strict: it is for files Scanbridge
 * (or an integrator) wrote in the canonical format, so anything off-contract is an error that
 * names the path and the value.
 */
import { boundedDecodeEither } from "./internal/bounded.js"
import { Effect, Either } from "effect"
import { Catalogue } from "./catalogue.js"
import { DecodeError, type Issue } from "./errors.js"
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
  return Either.isLeft(decoded) ? Either.left(DecodeError.fromIssues(SCAN_FORMAT, decoded.left.issues.map(explain), decoded.left.omitted)) : (decoded as Either.Either<Scan, never>)
}

export const decodeScan = (json: unknown): Effect.Effect<Scan, DecodeError> => decodeScanEither(json)

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
