/**
 * The Scan Platform REST API's JSON exactly as it travels (spec 01), and the client library's
 * variant of the scan entry (spec 03). Response schemas ignore keys they do not know, as a
 * client of a live API must; the codec notes what it drops.
 */
import { Schema } from "effect"
import { Catalogue, type FailureCategory, type MeasurementName } from "@scanbridge/model"
import { oneOfKeys } from "@scanbridge/model/adapter"
import { PLATFORM_UNITS } from "./dialect.js"

const Int = Schema.Number.pipe(Schema.int())
const Count = Int.pipe(Schema.nonNegative())
const Finite = Schema.Number.pipe(Schema.finite())

/**
 * Scan-level error codes the vendor documents, and their categories (spec 01, Errors: "Full
 * list of scan-level error codes: not shown"). Any other code reads with category `unknown`.
 * Without a prototype, so that `FAILURE_CODES[code]` of a code like "constructor" or
 * "__proto__" is undefined.
 */
export const FAILURE_CODES: Readonly<Record<string, FailureCategory>> = Object.assign(Object.create(null) as Record<string, FailureCategory>, {
  rightPhotoFacingWrongDirection: "posing"
} satisfies Record<string, FailureCategory>)

export const MAX_CUSTOM_SCAN_ID = 512
export const MAX_TOKEN_LIFETIME_S = 31_536_000
export const DEFAULT_LIST_LIMIT = 30

export const SCOPES = {
  create: "api.platform.vendor.com/scans:create",
  read: "api.platform.vendor.com/scans:read"
} as const

export const CustomScanId = Schema.String.pipe(Schema.maxLength(MAX_CUSTOM_SCAN_ID))

// --- Inputs -------------------------------------------------------------------------------

export const Gender = Schema.Literal("male", "female")

const statsFields = { age: Count, gender: Gender, height: Count, weight: Count }

export const StatsEstimations = Schema.Struct(statsFields)
export interface StatsEstimations extends Schema.Schema.Type<typeof StatsEstimations> {}

export const PhotoScan = Schema.Struct({
  ...statsFields,
  frontPhoto: Schema.NullOr(Schema.String),
  rightPhoto: Schema.NullOr(Schema.String)
})
export interface PhotoScan extends Schema.Schema.Type<typeof PhotoScan> {}

/** What an adjust parameter may name: `weight` or a measurement. */
export const isAdjustable = (name: string): name is "weight" | MeasurementName => name === "weight" || Catalogue.isMeasurementName(name)

export const AdjustParameter = Schema.Struct({ name: Schema.String, percentage: Finite })
export interface AdjustParameter extends Schema.Schema.Type<typeof AdjustParameter> {}

export const AdjustedScan = Schema.Struct({
  baseScanId: Schema.String,
  // Only "photo" is documented; other values are "not shown", so any string is read.
  baseScanType: Schema.optionalWith(Schema.String, { exact: true }),
  ...statsFields,
  parameters: Schema.Array(AdjustParameter)
})
export interface AdjustedScan extends Schema.Schema.Type<typeof AdjustedScan> {}

const INPUT_KEYS = ["statsEstimations", "photoScan", "adjustedScan"] as const

/** The stats a scan was created with: exactly one of the three shapes. */
export const EntryInput = Schema.Struct({
  statsEstimations: Schema.optionalWith(StatsEstimations, { exact: true }),
  photoScan: Schema.optionalWith(PhotoScan, { exact: true }),
  adjustedScan: Schema.optionalWith(AdjustedScan, { exact: true })
}).pipe(Schema.filter(...oneOfKeys(INPUT_KEYS)))
export type EntryInput = typeof EntryInput.Type

// --- Results ------------------------------------------------------------------------------

export const MeasurementItem = Schema.Struct({ name: Schema.String, unit: Schema.String, value: Finite.pipe(Schema.nonNegative()) })
export interface MeasurementItem extends Schema.Schema.Type<typeof MeasurementItem> {}

export const Avatar = Schema.Struct({
  data: Schema.String,
  format: Schema.String,
  type: Schema.optionalWith(Schema.String, { exact: true })
})
export interface Avatar extends Schema.Schema.Type<typeof Avatar> {}

export const UnitValue = Schema.Struct({ unit: Schema.String, value: Finite.pipe(Schema.nonNegative()) })

export const BodyComposition = Schema.Struct({
  bodyFatPercentage: Schema.optionalWith(Schema.NullOr(UnitValue), { exact: true }),
  bodyFatMass: Schema.optionalWith(Schema.NullOr(UnitValue), { exact: true }),
  leanMass: Schema.optionalWith(Schema.NullOr(UnitValue), { exact: true })
})
export interface BodyComposition extends Schema.Schema.Type<typeof BodyComposition> {}

/** Spec 03: the client library's photo result carries two bare numbers. */
export const ClientLibraryBodyComposition = Schema.Struct({
  bodyFatPercentage: Schema.NullOr(Finite.pipe(Schema.nonNegative())),
  skeletalMuscleMass: Schema.NullOr(Finite.pipe(Schema.nonNegative()))
})
export interface ClientLibraryBodyComposition extends Schema.Schema.Type<typeof ClientLibraryBodyComposition> {}

export const Point = Schema.Struct({ x: Finite, y: Finite })

export const FrontAngle = Schema.Struct({ name: Schema.String, unit: Schema.String, value: Finite })
export const RightAngle = Schema.Struct({ name: Schema.String, unit: Schema.String, angles: Schema.Array(Finite) })
export const PostureLine = Schema.Struct({ name: Schema.String, points: Schema.Array(Point) })

const view = <A extends Schema.Schema.Any>(angle: A) => Schema.Struct({ angles: Schema.Array(angle), lines: Schema.Array(PostureLine) })

export const Posture = Schema.Struct({
  front: Schema.optionalWith(Schema.NullOr(view(FrontAngle)), { exact: true }),
  right: Schema.optionalWith(Schema.NullOr(view(RightAngle)), { exact: true })
})
export interface Posture extends Schema.Schema.Type<typeof Posture> {}

/** `error` of a failed scan: `code` is documented; other fields are "not shown". */
export const EntryError = Schema.Struct({ code: Schema.String, message: Schema.optionalWith(Schema.String, { exact: true }) })
export interface EntryError extends Schema.Schema.Type<typeof EntryError> {}

const entryFields = {
  id: Schema.String,
  status: Schema.Literal("success", "failure"),
  customScanId: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  input: EntryInput,
  measurements: Schema.NullOr(Schema.Array(MeasurementItem)),
  avatar: Schema.optionalWith(Schema.NullOr(Avatar), { exact: true }),
  posture: Schema.optionalWith(Schema.NullOr(Posture), { exact: true }),
  outputStats: Schema.optionalWith(Schema.NullOr(Schema.Struct({ weight: Count })), { exact: true })
}

/** A scan as the REST API returns it inside `{entry}`. */
export const Entry = Schema.Struct({
  ...entryFields,
  bodyComposition: Schema.optionalWith(Schema.NullOr(BodyComposition), { exact: true }),
  error: Schema.optionalWith(Schema.NullOr(EntryError), { exact: true })
})
export interface Entry extends Schema.Schema.Type<typeof Entry> {}
export interface EntryJson extends Schema.Schema.Encoded<typeof Entry> {}

/**
 * The entry as the client library returns it (spec 03): bodyComposition as two bare numbers,
 * avatar glb/UPPER_BODY in the photo example, and an error object of any shape.
 */
export const ClientLibraryEntry = Schema.Struct({
  ...entryFields,
  bodyComposition: Schema.optionalWith(Schema.NullOr(ClientLibraryBodyComposition), { exact: true }),
  error: Schema.optionalWith(Schema.Unknown, { exact: true })
})
export interface ClientLibraryEntry extends Schema.Schema.Type<typeof ClientLibraryEntry> {}

export const EntryEnvelope = Schema.Struct({ entry: Entry })
export const ClientLibraryEnvelope = Schema.Struct({ entry: ClientLibraryEntry })

/** A list item: no results, photos always null, createdAt in UNIX seconds. */
export const Summary = Schema.Struct({
  id: Schema.String,
  createdAt: Int,
  status: Schema.Literal("success", "failure"),
  memberId: Schema.optionalWith(Schema.String, { exact: true }),
  customScanId: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  input: EntryInput
})
export interface Summary extends Schema.Schema.Type<typeof Summary> {}

/** A missing, null or empty `nextOffsetId` all mean the last page. */
export const ListPage = Schema.Struct({
  results: Schema.Array(Summary),
  nextOffsetId: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true })
})
export interface ListPage extends Schema.Schema.Type<typeof ListPage> {}

// --- Requests -----------------------------------------------------------------------------

/**
 * POST /scans: exactly one of statsEstimations or photoScan. `customScanId` is the
 * integrator's own id, stored and echoed: spec 01 leaves open whether create takes it, the
 * vendor's public examples send it.
 */
export const CreateScanRequest = Schema.Struct({
  statsEstimations: Schema.optionalWith(StatsEstimations, { exact: true }),
  photoScan: Schema.optionalWith(Schema.Struct({ ...statsFields, frontPhoto: Schema.String, rightPhoto: Schema.String }), { exact: true }),
  customScanId: Schema.optionalWith(CustomScanId, { exact: true })
}).pipe(Schema.filter(...oneOfKeys(["statsEstimations", "photoScan"])))
export type CreateScanRequest = typeof CreateScanRequest.Type

/** GET /scans: `customScanId` keeps only the scans created with exactly that id. */
export const ListQuery = Schema.Struct({
  limit: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.positive()), { exact: true }),
  direction: Schema.optionalWith(Schema.Literal("ascending", "descending"), { exact: true }),
  after: Schema.optionalWith(Schema.String, { exact: true }),
  customScanId: Schema.optionalWith(CustomScanId, { exact: true })
})
export type ListQuery = typeof ListQuery.Type

export const AdjustRequest = Schema.Struct({
  parameters: Schema.Array(AdjustParameter),
  customScanId: Schema.optionalWith(CustomScanId, { exact: true })
})
export interface AdjustRequest extends Schema.Schema.Type<typeof AdjustRequest> {}

export const DeleteResponse = Schema.Struct({ id: Schema.String })
export interface DeleteResponse extends Schema.Schema.Type<typeof DeleteResponse> {}

export const ScanTokenRequest = Schema.Struct({
  scope: Schema.Array(Schema.String).pipe(Schema.filter((s) => s.includes(SCOPES.create) || `must include ${SCOPES.create}`)),
  lifetime: Schema.optionalWith(Int.pipe(Schema.between(1, MAX_TOKEN_LIFETIME_S)), { exact: true }),
  customScanId: Schema.optionalWith(CustomScanId, { exact: true })
})
export interface ScanTokenRequest extends Schema.Schema.Type<typeof ScanTokenRequest> {}

export const ScanTokenResponse = Schema.Struct({ token: Schema.String, expiresAt: Int })
export interface ScanTokenResponse extends Schema.Schema.Type<typeof ScanTokenResponse> {}

/** The body of a non-2xx response, "where available". */
export const ErrorBody = Schema.Struct({ message: Schema.String })
export interface ErrorBody extends Schema.Schema.Type<typeof ErrorBody> {}

// --- Units as this API writes them ----------------------------------------------------------

export const UNITS = PLATFORM_UNITS

/** The posture unit: `degrees`, or `degree` as the endpoint conventions table writes it. */
export const isDegrees = (unit: string): boolean => unit === UNITS.angle || (UNITS.angleAliases as ReadonlyArray<string>).includes(unit)
