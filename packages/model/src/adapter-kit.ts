/**
 * @scanbridge/model/adapter: the kit an adapter is written with, the one Scanbridge's own four
 * adapters use: a decode walk that collects bounded notes, converts and judges the record's
 * lengths as every format's are and stops at the first value it cannot read with a typed error;
 * bounded Schema decoders and the survey of keys a wire schema does not name; the parts every
 * codec builds a scan from; and the checks and previews an adapter's messages are made of.
 *
 * Covered by semver as `@scanbridge/model` is: a minor release adds names here and changes none
 * of these signatures; a change to one is a major release. The types (`Adapter`, `ScanFormat`,
 * `DecodeOptions`), `makeScan`, `makeNote`, the catalogue, units and errors stay in
 * `@scanbridge/model`. docs/adapters.md walks through an adapter written with this kit.
 */

// --- Decoding a record --------------------------------------------------------------------
export { DecodeWalk, LENGTH_UNIT_FLAG_AND_OPTION, oneScan, runWalk, walkScan } from "./internal/walk.js"

// --- Encoding a scan ----------------------------------------------------------------------
export { EncodeWalk } from "./internal/walk.js"
export { type IdField, isAbsoluteUri, sourceIdFor } from "./internal/codec.js"

// --- Wire schemas and their keys ----------------------------------------------------------
export { type ExactRead, exactSchemaDecoder, oneOfKeys, schemaDecoder } from "./internal/walk.js"
export type { SchemaNarrowing } from "./internal/fast.js"
export { type UnknownKey, unknownKeysOf, unknownKeysOfItem } from "./internal/keys.js"
export { hasOnlyKey, hasOnlyKeysIn } from "./json.js"

// --- Notes --------------------------------------------------------------------------------
export { BoundedNoteList } from "./internal/notes.js"

// --- The parts of a scan ------------------------------------------------------------------
export {
  type FrontView,
  type FullScanInit,
  type PostureNames,
  type PostureView,
  type RightView,
  type WrittenPosture,
  emptyFrontView,
  emptyRightView,
  genderOfCode,
  postureNames,
  writePosture
} from "./internal/codec.js"
export { MeasurementsBuilder, emptyMeasurementValues, measurementBit, measurementIndex, measurementsFrom } from "./internal/measurements.js"

// --- Values and messages ------------------------------------------------------------------
export { inputErrorFields, isShortPlainString, previewKey, previewValue } from "./errors.js"
export { isBase64, isUtcTimestamp, startsAsJpeg } from "./scan.js"
export { utcTimestampOfMillis } from "./internal/time.js"

// --- A subject's stats --------------------------------------------------------------------
export { type StatProblem, type UnitMistake, checkHumanStats, likelyUnitMistake, unitMistakeHint } from "./stats.js"
