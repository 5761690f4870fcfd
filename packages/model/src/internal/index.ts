/**
 * @scanbridge/model/internal: what Scanbridge's own packages (the adapters, the migration
 * engine, the simulator) share with the model: the codecs' walks, the hot-path measurement
 * builders, the unknown-key survey, the stats check and the error helpers.
 *
 * For Scanbridge's own packages only, versioned in lockstep with them: no semver promise. Any
 * release may change or remove what is here. An adapter of one's own uses `@scanbridge/model`.
 */
export {
  type FrontView,
  type Gender,
  type IdField,
  type PostureNames,
  type PostureView,
  type RightView,
  type ScanInitJson,
  type WrittenPosture,
  emptyFrontView,
  emptyRightView,
  genderOfCode,
  postureNames,
  sourceIdFor,
  writePosture
} from "./codec.js"
export { inputErrorFields, previewKey, previewValue, previewsQuoted, unreadableReason, collectIssues } from "../errors.js"
export { isBase64, isUtcTimestamp, startsAsJpeg } from "../scan.js"
export { hasOnlyKey, hasOnlyKeysIn } from "../json.js"
export { type Mistake, type StatProblem, checkStats, expectedBodyFatPercent, humanStats, likelyMistake, mistakeHint } from "../stats.js"
export { type Narrow } from "./fast.js"
export { isoOfMillis } from "./time.js"
export { countSlowPaths, decodeCounted, slowPaths } from "./slow.js"
export { type UnknownKey, unknownKeysOf, unknownKeysOfItem } from "./keys.js"
export { MeasurementsBuilder, measurementBit, measurementIndex, measurementValues, measurementsFrom } from "./measurements.js"
export { NoteList, OMITTED_PATH, boundNotes } from "./notes.js"
export { LENGTH_UNIT_WAY_OUT, DecodeWalk, EncodeWalk, type ExactRead, attempt, exactSchemaDecoder, oneOf, oneScan, schemaDecoder, walkScan } from "./walk.js"
