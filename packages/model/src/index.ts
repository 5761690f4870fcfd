/**
 * @scanbridge/model: the canonical body-measurement model every adapter decodes into: the
 * measurement catalogue, branded units, the `scanbridge.scan/v1` Scan schema, the errors, and
 * what an adapter of one's own is made of (`Adapter`, a `Dialect`, `makeScan`, notes).
 * For code that does not use Effect, see `@scanbridge/model/plain`.
 */
export {
  type CanonicalTarget,
  Catalogue,
  editDistance,
  type FrontPostureName,
  HUMAN_RANGES,
  LENGTH_SPREAD,
  MEASUREMENTS,
  MEASUREMENT_NAMES,
  type MeasurementEntry,
  type MeasurementKind,
  type MeasurementName,
  OTHER_SPELLINGS,
  POSTURE_FRONT,
  POSTURE_RIGHT,
  PROPORTIONS,
  type Range,
  type RightPostureName,
  STATS,
  type Side,
  type StatEntry,
  type StatQuantity
} from "./catalogue.js"
export {
  type Alias,
  type Dialect,
  type DialectSpellings,
  type PostureSpellings,
  type SpelledMeasurement,
  type SpelledStat,
  type Spelling,
  makeDialect,
  snakeCase
} from "./dialect.js"
export { GENDER_CODES } from "./internal/codec.js"
export {
  ANGLE_UNITS,
  type AngleUnit,
  Centimetres,
  Degrees,
  GRAMS_PER_POUND,
  Grams,
  Inches,
  Kilograms,
  LENGTH_UNITS,
  LENGTH_UNITS_ACCEPTED,
  LENGTH_UNIT_LABELS,
  LENGTH_UNIT_NAMES,
  type LengthUnit,
  MASS_UNITS,
  MM_PER_INCH,
  type MassUnit,
  Millimetres,
  Percent,
  PercentE4,
  Pounds,
  Radians,
  Years,
  cmToMm,
  convertAngle,
  convertLength,
  convertMass,
  degreesToRadians,
  e4ToPercent,
  gToKg,
  gToLb,
  inchesToMm,
  isExactE4,
  kgToG,
  lbToG,
  lengthUnitOf,
  mmToCm,
  mmToInches,
  percentToE4,
  radiansToDegrees,
  round
} from "./units.js"
export {
  DecodeError,
  EncodeError,
  InvariantViolation,
  Issue,
  type IssueList,
  MAX_ISSUES,
  type Path,
  type PathSegment,
  type ScanbridgeFailure,
  UnknownFormatError,
  formatPath
} from "./errors.js"
export {
  Adjustment,
  AdjustmentParameter,
  AgeYears,
  AngleDegrees,
  Api,
  Avatar,
  Base64,
  Composition,
  type Encoded,
  Failure,
  FailureCategory,
  FrontPosture,
  GenderSchema,
  LengthMm,
  MAX_NOTES,
  MassG,
  MeasurementsMm,
  Method,
  Note,
  NoteKind,
  PercentValue,
  Point,
  Posture,
  RightPosture,
  SCAN_FORMAT,
  Scan,
  type ScanInit,
  type ScanJson,
  Source,
  Status,
  Subject,
  UtcTimestamp,
  makeNote,
  makeScan
} from "./scan.js"
export { decodeScan, decodeScanEither, encodeScan, parseScan, parseScanEither, readScanEither, stringifyScan } from "./canonical.js"
export { type LengthEvidence, type LengthVerdict, judgeLengths } from "./plausibility.js"
export * as Proto3 from "./proto3.js"
export type { Stats } from "./stats.js"
export {
  type DisplayStats,
  type ImperialDisplayStats,
  type MetricDisplayStats,
  SYSTEMS_OF_MEASUREMENT,
  type SystemOfMeasurement,
  fromDisplayStats,
  systemOf,
  toDisplayStats
} from "./display.js"
export { LOCALES, type Locale, checkLocale, isLocale, nearLocales } from "./locale.js"
export {
  FittingPointFit,
  ProductId,
  SIZE_FORMAT,
  SizeDocument,
  type SizeDocumentInit,
  type SizeDocumentJson,
  SizeFit,
  makeSizeDocument
} from "./size.js"
export type { Adapter, DecodeOptions, EncodeOptions, ScanEncoder, ScanFormat } from "./adapter.js"
export { isRecord } from "./json.js"
export * as Codegen from "./codegen.js"
