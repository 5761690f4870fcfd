/**
 * The deprecated session API's JSON (spec 02, part A), as a conforming proto3 server prints it:
 * lowerCamelCase keys, enum value names, int64 as decimal strings, RFC 3339 timestamps, and
 * fields at their default value left out. `Proto3.reader` derives from these schemas a reader
 * for every other spelling a proto3 parser accepts.
 *
 * Enum numbers come from the spec. UnitType and the posture name enums document no numbers
 * except 0, so those enums are read by name; a number there is left to the codec, which never
 * guesses which value it meant.
 */
import { Schema } from "effect"
import { POSTURE_FRONT, POSTURE_RIGHT, Proto3 } from "@scanbridge/model"
import { oneOfKeys } from "@scanbridge/model/adapter"
import { SESSION_ANGLE_UNITS, SESSION_MEASUREMENT_UNSPECIFIED, SESSION_POSTURE, SESSION_UNITS, sessionDialect } from "./dialect.js"

const { field } = Proto3

// --- Enums --------------------------------------------------------------------------------

const numbered = (entries: ReadonlyArray<{ readonly name: string; readonly number: number }>) =>
  Object.fromEntries([...entries].sort((a, b) => a.number - b.number).map((e) => [e.name, e.number]))

/** MeasurementType: the 35 lengths and the six stats, from the dialect. */
export const MEASUREMENT_TYPE = Proto3.enumType(
  "MeasurementType",
  numbered([SESSION_MEASUREMENT_UNSPECIFIED, ...sessionDialect.measurementList.map((e) => e.spelling), ...sessionDialect.statList.map((s) => s.spelling)])
)

const { unspecified, ...units } = SESSION_UNITS
/** UnitType: only UNIT_TYPE_UNSPECIFIED = 0 has a documented number. */
export const UNIT_TYPE = Proto3.enumType("UnitType", {
  [unspecified.name]: unspecified.number,
  ...Object.fromEntries(Object.values(units).map((u) => [u, null]))
})
export const UNIT_UNSPECIFIED = unspecified.name
export const LENGTH_UNIT = units.length

export const ANGLE_UNIT_TYPE = Proto3.enumType("AngleUnitType", numbered(SESSION_ANGLE_UNITS))
export const ANGLE_DEGREES = SESSION_ANGLE_UNITS[1].name
export const ANGLE_RADIANS = SESSION_ANGLE_UNITS[2].name

/** Front-view landmark names; only MEASUREMENT_NAME_NOT_SPECIFIED = 0 has a documented number. */
export const FRONT_NAME = Proto3.enumType("FrontPostureName", {
  MEASUREMENT_NAME_NOT_SPECIFIED: 0,
  ...Object.fromEntries(POSTURE_FRONT.map((p) => [SESSION_POSTURE.front[p.name], null]))
})

/** Right-view line names; the spec documents no numbers for them. */
export const RIGHT_NAME = Proto3.enumType("RightPostureName", Object.fromEntries(POSTURE_RIGHT.map((p) => [SESSION_POSTURE.right[p.name], null])))

/** Errors of create-session. */
export const CREATE_ERROR_TYPE = Proto3.enumType("CreateSessionErrorType", {
  ERROR_TYPE_UNSPECIFIED: 0,
  INVALID_CLIENT_ID: 1,
  INVALID_REDIRECT_URL: 2,
  MALFORMED_REQUEST_BODY: 3,
  INTERNAL_ERROR: 4
})
export type CreateErrorType = "ERROR_TYPE_UNSPECIFIED" | "INVALID_CLIENT_ID" | "INVALID_REDIRECT_URL" | "MALFORMED_REQUEST_BODY" | "INTERNAL_ERROR"

/** Spec 02 shows this value once, for MALFORMED_REQUEST_BODY; it is not in the enum. */
export const MALFORMED_REQUEST_ALIAS = "MALFORMED_REQUEST"

/** Errors of GET results. */
export const RESULTS_ERROR_TYPE = Proto3.enumType("ResultsErrorType", {
  ERROR_TYPE_UNSPECIFIED: 0,
  INVALID_USER_INPUT: 1,
  SESSION_EXPIRED: 2,
  USER_INPUT_NOT_SUBMITTED: 3,
  ABORTED: 4,
  INTERNAL_ERROR: 5,
  INVALID_SESSION_ID: 6
})
export type ResultsErrorType =
  | "ERROR_TYPE_UNSPECIFIED"
  | "INVALID_USER_INPUT"
  | "SESSION_EXPIRED"
  | "USER_INPUT_NOT_SUBMITTED"
  | "ABORTED"
  | "INTERNAL_ERROR"
  | "INVALID_SESSION_ID"

// --- create-session -----------------------------------------------------------------------

/** The language of instructions and messages when a session names none or an unsupported one. */
export const DEFAULT_LANGUAGE = "en"

export const ScanningConfig = Schema.Struct({
  /** ISO 639-1; the server falls back to `en` when absent or unsupported. */
  languageCode: field(Schema.String),
  include3dAvatarInResults: field(Schema.Boolean)
})

export const CreateScanningSessionRequest = Schema.Struct({
  /** Required by the API; proto3 cannot say so, so a missing one is the server's INVALID_CLIENT_ID. */
  clientId: field(Schema.String),
  clientScanningId: field(Schema.String),
  scanningConfig: field(ScanningConfig)
})
export type CreateScanningSessionRequest = typeof CreateScanningSessionRequest.Type

export const ScanningSession = Schema.Struct({
  scanningSessionId: field(Schema.String),
  clientScanningId: field(Schema.String),
  expireAtTimestamp: field(Proto3.Timestamp)
})

export const ErrorDetail = (type: Proto3.EnumType) => Schema.Struct({ errorType: field(Proto3.Enum(type)), message: field(Schema.String) })

export const CreateSessionError = ErrorDetail(CREATE_ERROR_TYPE)

export const CreateScanningSessionResponse = Schema.Struct({
  scanningSession: field(ScanningSession),
  error: field(CreateSessionError)
}).pipe(Schema.filter(...oneOfKeys(["scanningSession", "error"])))
export type CreateScanningSessionResponse = typeof CreateScanningSessionResponse.Type

// --- results ------------------------------------------------------------------------------

export const MeasurementItem = Schema.Struct({
  measurementType: field(Proto3.Enum(MEASUREMENT_TYPE)),
  value: field(Proto3.Int64),
  unit: field(Proto3.Enum(UNIT_TYPE))
})
export type MeasurementItem = typeof MeasurementItem.Type

export const Avatar = Schema.Struct({
  /** A flat x, y, z list of an indexed triangle mesh whose indices are supplied separately. */
  meshVerticesOnly: field(Schema.Struct({ vertices: field(Schema.Array(Proto3.Double)) }))
})

export const Point = Schema.Struct({ x: field(Proto3.Double), y: field(Proto3.Double) })
export type Point = typeof Point.Type

const Line = (names: Proto3.EnumType) => Schema.Struct({ name: field(Proto3.Enum(names)), points: field(Schema.Array(Point)) })

/** Counterclockwise angle of a landmark pair from horizontal. */
export const FrontAngle = Schema.Struct({
  name: field(Proto3.Enum(FRONT_NAME)),
  value: field(Proto3.Double),
  unit: field(Proto3.Enum(ANGLE_UNIT_TYPE))
})

/** Clockwise angles of connected landmarks (lower to higher) from vertical. */
export const RightAngle = Schema.Struct({
  name: field(Proto3.Enum(RIGHT_NAME)),
  angles: field(Schema.Array(Proto3.Double)),
  unit: field(Proto3.Enum(ANGLE_UNIT_TYPE))
})

export const Posture = Schema.Struct({
  front: field(Schema.Struct({ angles: field(Schema.Array(FrontAngle)), lines: field(Schema.Array(Line(FRONT_NAME))) })),
  right: field(Schema.Struct({ angles: field(Schema.Array(RightAngle)), lines: field(Schema.Array(Line(RIGHT_NAME))) }))
})
export type Posture = typeof Posture.Type

export const ScanningMeasurementResults = Schema.Struct({
  measurements: field(Schema.Array(MeasurementItem)),
  avatar: field(Avatar),
  posture: field(Posture)
})

export const Pending = Schema.Struct({ expireAtTimestamp: field(Proto3.Timestamp) })

export const ResultsError = ErrorDetail(RESULTS_ERROR_TYPE)

/** GET results: at most one of results (success), pending, error. */
export const ScanningResults = Schema.Struct({
  scanningSessionId: field(Schema.String),
  clientScanningId: field(Schema.String),
  results: field(ScanningMeasurementResults),
  pending: field(Pending),
  error: field(ResultsError)
}).pipe(Schema.filter(...oneOfKeys(["results", "pending", "error"], { orNone: true })))
export type ScanningResults = typeof ScanningResults.Type
/** The same message in its JSON form; identical here, since every field is printed as it is held. */
export type ScanningResultsJson = typeof ScanningResults.Encoded
