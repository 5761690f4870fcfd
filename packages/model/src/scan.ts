/**
 * The canonical scan, `scanbridge.scan/v1` (docs/canonical-model.md, "The contract"). The schema's
 * encoded side is that JSON exactly; its type side is the same shape with unit brands.
 * Every key is always present (null where unknown) except measurementsMm, which holds only
 * what the source gave. Unknown keys are rejected at any depth.
 */
import { boundedDecodeEither } from "./internal/bounded.js"
import { fastTest } from "./internal/fast.js"
import { digitsAt, isWallClock } from "./internal/time.js"
import { Either, Schema } from "effect"
import type { FastCheck } from "effect"
// makeLazy over the `fc` the annotation is given, not Arbitrary.make, which refers to effect's
// FastCheck: a bundle that uses Scan (the CLI's, which reads each barrel import as the module's
// own) then leaves fast-check out; Arbitrary's own walk stays in. Unbundled, Node loads
// fast-check whatever this file does: effect/Schema imports effect/FastCheck.
import { makeLazy } from "effect/Arbitrary"
import { Catalogue, HUMAN_RANGES, MEASUREMENT_NAMES, type MeasurementName, POSTURE_FRONT, POSTURE_RIGHT, PROPORTIONS } from "./catalogue.js"
import type { FrontPostureName, RightPostureName } from "./catalogue.js"
import { InvariantViolation, type Path, formatPath } from "./errors.js"

export const SCAN_FORMAT = "scanbridge.scan/v1"

// --- Quantities ---------------------------------------------------------------------------

const Finite = Schema.Number.pipe(Schema.finite())
const NonNegative = Finite.pipe(Schema.nonNegative())

export const LengthMm = NonNegative.pipe(Schema.brand("Millimetres")).annotations({ identifier: "LengthMm" })
export const MassG = NonNegative.pipe(Schema.brand("Grams")).annotations({ identifier: "MassG" })
export const AgeYears = NonNegative.pipe(Schema.int(), Schema.brand("Years")).annotations({ identifier: "AgeYears" })
export const PercentValue = Finite.pipe(Schema.between(0, 100), Schema.brand("Percent")).annotations({
  identifier: "Percent"
})
export const AngleDegrees = Finite.pipe(Schema.brand("Degrees")).annotations({ identifier: "AngleDegrees" })

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/**
 * Whether a string is a UtcTimestamp: Schema.is(UtcTimestamp) without the schema walk. The
 * shape ISO_UTC states, read by character, and the fields checked as a calendar would: cheaper
 * than a regex and a Date for every timestamp of a bulk migration, and the same answer as
 * round-tripping a Date (a property test holds the two together).
 */
export const isUtcTimestamp = (s: string): boolean => {
  if (s.length !== 24) return false
  // - - T : : . Z (charCodeAt inline: a helper closure here showed in a list page's profile)
  if (
    s.charCodeAt(4) !== 45 ||
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 84 ||
    s.charCodeAt(13) !== 58 ||
    s.charCodeAt(16) !== 58 ||
    s.charCodeAt(19) !== 46 ||
    s.charCodeAt(23) !== 90
  )
    return false
  return digitsAt(s, 20, 3) >= 0 && isWallClock(s)
}

/** Exactly the form of `Date.prototype.toISOString()`: one spelling per instant. */
export const UtcTimestamp = Schema.String.pipe(
  Schema.filter(isUtcTimestamp, {
    ...fastTest(isUtcTimestamp),
    message: () => "Expected an ISO-8601 UTC timestamp with milliseconds, like 2026-01-02T03:04:05.000Z",
    jsonSchema: { pattern: ISO_UTC.source },
    arbitrary: () => (fc) =>
      fc.date({ min: new Date("1970-01-01T00:00:00.000Z"), max: new Date("2199-12-31T23:59:59.999Z"), noInvalidDate: true }).map((d) => d.toISOString())
  })
).annotations({ identifier: "UtcTimestamp" })

// Avatars are megabytes of base64. A regex with a repeated group, like the JSON Schema pattern
// below, overflows V8's stack on them; a flat character class plus the length rule does not.
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/
const BASE64_PATTERN = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"

/** Whether a string is Base64: Schema.is(Base64) without the schema walk. */
export const isBase64 = (s: string): boolean => s.length % 4 === 0 && BASE64_CHARS.test(s)

/** Whether base64 text starts with a JPEG's first bytes, FF D8 FF (`/9j/` in base64). */
export const startsAsJpeg = (base64: string): boolean => base64.startsWith("/9j/")

/** RFC 4648 base64, standard alphabet, padded. */
export const Base64 = Schema.String.pipe(
  Schema.filter(isBase64, {
    ...fastTest(isBase64),
    message: () => "Expected base64 (RFC 4648, padded)",
    jsonSchema: { pattern: BASE64_PATTERN },
    arbitrary: () => (fc) => fc.base64String()
  })
).annotations({ identifier: "Base64" })

// --- Parts --------------------------------------------------------------------------------

/**
 * The API (or storage format) a scan was read from: the name of the adapter that decoded it.
 * Open, so that an integrator's adapter names its own; the built-in adapters are `platform`,
 * `session`, `estimation` and `fit`, the four names `scanbridge.scan/v1` files held when this
 * was a closed list, so every such file still decodes as it did.
 */
export const Api = Schema.String.pipe(Schema.minLength(1)).annotations({
  identifier: "Api",
  title: "API",
  description: "the name of the adapter that read the scan: platform, session, estimation, fit, or an integrator's own",
  examples: ["platform", "session", "estimation", "fit"],
  // Mostly the built-in names, whose codecs treat their own source apart, and some others.
  arbitrary: () => (fc) => fc.oneof(fc.constantFrom("platform", "session", "estimation", "fit"), fc.string({ minLength: 1, maxLength: 12 }))
})
export type Api = typeof Api.Type

export const Status = Schema.Literal("success", "failure", "pending")
export type Status = typeof Status.Type

export const Method = Schema.Literal("stats", "photo", "adjusted", "selfie")
export type Method = typeof Method.Type

export const GenderSchema = Schema.Literal("male", "female")

export const Source = Schema.Struct({ api: Api, id: Schema.NullOr(Schema.String) })

export const Subject = Schema.Struct({
  age: Schema.NullOr(AgeYears),
  gender: Schema.NullOr(GenderSchema),
  heightMm: Schema.NullOr(LengthMm),
  weightG: Schema.NullOr(MassG)
})
export interface Subject extends Schema.Schema.Type<typeof Subject> {}

type MeasurementFields = { readonly [K in MeasurementName]: Schema.optionalWith<typeof LengthMm, { exact: true }> }

// A struct of optional keys, not a Record keyed by a 35-member literal union: unknown names are
// excess properties (rejected), and decoding checks keys by property lookup.
export const MeasurementsMm = Schema.Struct(
  Object.fromEntries(MEASUREMENT_NAMES.map((name) => [name, Schema.optionalWith(LengthMm, { exact: true })])) as MeasurementFields
)
export type MeasurementsMm = typeof MeasurementsMm.Type

export const Composition = Schema.Struct({
  bodyFatPercent: Schema.NullOr(PercentValue),
  bodyFatMassG: Schema.NullOr(MassG),
  leanMassG: Schema.NullOr(MassG),
  skeletalMuscleMassG: Schema.NullOr(MassG)
})
export interface Composition extends Schema.Schema.Type<typeof Composition> {}

export const Point = Schema.Struct({ x: Finite, y: Finite })

const byName = <N extends string, S extends Schema.Schema.Any>(names: ReadonlyArray<N>, f: (name: N) => S) =>
  Schema.Struct(Object.fromEntries(names.map((n) => [n, f(n)])) as { readonly [K in N]: S })

const polyline = (points: number) => Schema.Array(Point).pipe(Schema.itemsCount(points))
const segmentAngles = (points: number) => Schema.Array(AngleDegrees).pipe(Schema.itemsCount(points - 1))
const rightPoints = (name: RightPostureName): number => Catalogue.rightPosturePoints(name)!
const frontNames: ReadonlyArray<FrontPostureName> = POSTURE_FRONT.map((p) => p.name)
const rightNames: ReadonlyArray<RightPostureName> = POSTURE_RIGHT.map((l) => l.name)

export const FrontPosture = Schema.Struct({
  angles: byName(frontNames, () => Schema.NullOr(AngleDegrees)),
  lines: byName(frontNames, () => Schema.NullOr(polyline(2)))
})

export const RightPosture = Schema.Struct({
  angles: byName(rightNames, (n) => Schema.NullOr(segmentAngles(rightPoints(n)))),
  lines: byName(rightNames, (n) => Schema.NullOr(polyline(rightPoints(n))))
})

export const Posture = Schema.Struct({ front: Schema.NullOr(FrontPosture), right: Schema.NullOr(RightPosture) })
export interface Posture extends Schema.Schema.Type<typeof Posture> {}

const finiteDouble = (fc: typeof FastCheck) => fc.double({ noNaN: true, noDefaultInfinity: true })

const AvatarFields = Schema.Struct({
  format: Schema.Literal("obj", "glb", "vertices"),
  type: Schema.NullOr(Schema.String),
  data: Schema.NullOr(Base64),
  vertices: Schema.NullOr(Schema.Array(Finite))
})
type AvatarFields = typeof AvatarFields.Type

const avatarIssue = (a: AvatarFields) => {
  if (a.format === "vertices") {
    if (a.vertices === null) return { path: ["vertices"], message: "a vertices avatar needs its vertices" }
    if (a.data !== null) return { path: ["data"], message: "a vertices avatar carries no model data" }
    if (a.vertices.length % 3 !== 0) return { path: ["vertices"], message: "vertices are x, y, z triples" }
    return undefined
  }
  if (a.data === null) return { path: ["data"], message: `an ${a.format} avatar needs its model data` }
  if (a.vertices !== null) return { path: ["vertices"], message: `an ${a.format} avatar carries no vertex list` }
  return undefined
}

/** A 3D avatar: a model file (obj, glb) in base64, or a flat vertex list (session API). */
export const Avatar = AvatarFields.pipe(
  Schema.filter((a) => avatarIssue(a), {
    ...fastTest((a: AvatarFields) => avatarIssue(a) === undefined),
    arbitrary: () => (fc) =>
      fc.oneof(
        fc.record({
          format: fc.constantFrom("obj" as const, "glb" as const),
          type: fc.option(fc.string(), { nil: null }),
          data: fc.base64String(),
          vertices: fc.constant(null)
        }),
        fc.record({
          format: fc.constant("vertices" as const),
          type: fc.constant(null),
          data: fc.constant(null),
          vertices: fc.array(fc.tuple(finiteDouble(fc), finiteDouble(fc), finiteDouble(fc)), { maxLength: 8 }).map((ts) => ts.flat())
        })
      )
  })
).annotations({ identifier: "Avatar" })
export interface Avatar extends Schema.Schema.Type<typeof Avatar> {}

export const AdjustmentParameter = Schema.Struct({
  name: Schema.Literal("weight", ...MEASUREMENT_NAMES),
  percentage: Finite
})

export const Adjustment = Schema.Struct({
  baseScanId: Schema.String,
  // The platform documents only "photo"; other values are "not shown", so any string is kept.
  baseScanType: Schema.NullOr(Schema.String),
  parameters: Schema.Array(AdjustmentParameter),
  outputWeightG: Schema.NullOr(MassG)
})
export interface Adjustment extends Schema.Schema.Type<typeof Adjustment> {}

export const FailureCategory = Schema.Literal("format", "quality", "face", "person", "posing", "session", "estimation", "unknown")
export type FailureCategory = typeof FailureCategory.Type

export const Failure = Schema.Struct({
  code: Schema.String.pipe(Schema.minLength(1)),
  category: FailureCategory,
  message: Schema.NullOr(Schema.String)
})
export interface Failure extends Schema.Schema.Type<typeof Failure> {}

export const NoteKind = Schema.Literal("assumed", "converted", "dropped", "aliased")
export type NoteKind = typeof NoteKind.Type

/**
 * The most notes an adapter gives one scan. Past it, the first MAX_NOTES are kept and one
 * `dropped` note at `notes` counts the others by kind: a record of a million unknown keys
 * would otherwise carry a million notes, many times its own size. A record as its API writes
 * it has a few dozen at most (one per measurement, say), so the limit leaves those whole.
 */
export const MAX_NOTES = 100

/** Says what was converted, assumed, renamed from an alias or dropped, where, and why. */
export const Note = Schema.Struct({ kind: NoteKind, path: Schema.String, detail: Schema.String })
export interface Note extends Schema.Schema.Type<typeof Note> {}

/**
 * A note whose path is written as every other path is (`measurementsMm.hipGirth`). A string is
 * a path formatted already (`formatPath`), as codecs keep their constant ones.
 */
export const makeNote = (kind: NoteKind, path: Path | string, detail: string): Note => ({
  kind,
  path: typeof path === "string" ? path : formatPath(path),
  detail
})

/** What an encoder wrote, with a note for everything the target format could not hold. */
export interface Encoded<A> {
  readonly value: A
  readonly notes: ReadonlyArray<Note>
}

// --- The scan -----------------------------------------------------------------------------

const ScanFields = Schema.Struct({
  format: Schema.Literal(SCAN_FORMAT),
  source: Source,
  status: Status,
  createdAt: Schema.NullOr(UtcTimestamp),
  expiresAt: Schema.NullOr(UtcTimestamp),
  externalId: Schema.NullOr(Schema.String),
  method: Schema.NullOr(Method),
  subject: Subject,
  measurementsMm: MeasurementsMm,
  composition: Schema.NullOr(Composition),
  posture: Schema.NullOr(Posture),
  avatar: Schema.NullOr(Avatar),
  adjustment: Schema.NullOr(Adjustment),
  failure: Schema.NullOr(Failure),
  notes: Schema.Array(Note)
})

/**
 * Lengths of one human body, for property tests: some of the measurements, each between half and
 * twice its share of the stature (`heightMm` where it is a human one, else any human stature).
 */
export const plausibleLengths = (fc: typeof FastCheck, heightMm: number | null): FastCheck.Arbitrary<MeasurementsMm> => {
  const { min, max } = HUMAN_RANGES.heightMm
  const stature = heightMm !== null && heightMm >= min && heightMm <= max ? fc.constant(heightMm) : fc.integer({ min, max })
  return stature.chain((h) =>
    fc
      .subarray([...MEASUREMENT_NAMES])
      .chain((names) =>
        fc
          .tuple(
            ...names.map((n) => fc.double({ min: (PROPORTIONS[n] * h) / 2, max: PROPORTIONS[n] * h * 2, noNaN: true }).map((v) => Math.round(v * 10) / 10))
          )
          .map((values) => Object.fromEntries(names.map((n, i) => [n, values[i]!])) as unknown as MeasurementsMm)
      )
  )
}

const statusIssue = (s: typeof ScanFields.Type) =>
  s.status === "failure"
    ? s.failure === null
      ? { path: ["failure"], message: "a scan with status failure needs its failure" }
      : undefined
    : s.failure !== null
      ? { path: ["failure"], message: `a scan with status ${s.status} has no failure` }
      : undefined

export const Scan = ScanFields.pipe(
  Schema.filter((s) => statusIssue(s), {
    ...fastTest((s: typeof ScanFields.Type) => statusIssue(s) === undefined),
    // Generate consistent scans instead of filtering two thirds of them away, with lengths of
    // one human body (a scan's lengths are judged against its stature when read).
    arbitrary: () => (fc) =>
      fc
        .tuple(makeLazy(ScanFields)(fc), makeLazy(Failure)(fc))
        .chain(([s, failure]) =>
          plausibleLengths(fc, s.subject.heightMm).map((measurementsMm) => ({ ...s, measurementsMm, failure: s.status === "failure" ? failure : null }))
        )
  })
).annotations({
  identifier: "Scan",
  title: SCAN_FORMAT,
  parseOptions: { onExcessProperty: "error" }
})

export interface Scan extends Schema.Schema.Type<typeof Scan> {}
/** The JSON form, as written to files and NDJSON. */
export interface ScanJson extends Schema.Schema.Encoded<typeof Scan> {}

// --- Construction -------------------------------------------------------------------------

type Json<S extends Schema.Schema.Any> = Schema.Schema.Encoded<S>

/** What a caller must say to build a scan; every other key defaults to null (or empty). */
export interface ScanInit {
  readonly source: Json<typeof Source>
  readonly status: Status
  readonly createdAt?: string | null
  readonly expiresAt?: string | null
  readonly externalId?: string | null
  readonly method?: Method | null
  readonly subject?: Partial<Json<typeof Subject>>
  readonly measurementsMm?: Json<typeof MeasurementsMm>
  readonly composition?: Json<typeof Composition> | null
  readonly posture?: Json<typeof Posture> | null
  readonly avatar?: Json<typeof Avatar> | null
  readonly adjustment?: Json<typeof Adjustment> | null
  readonly failure?: Json<typeof Failure> | null
  readonly notes?: ReadonlyArray<Note>
}

const validate = boundedDecodeEither(Scan, { onExcessProperty: "error" })

// The plain JSON object of a ScanInit with every default filled in, before validation.
const scanJsonOf = (init: ScanInit, notes: ReadonlyArray<Note> = init.notes ?? []): ScanJson => ({
  format: SCAN_FORMAT,
  source: init.source,
  status: init.status,
  createdAt: init.createdAt ?? null,
  expiresAt: init.expiresAt ?? null,
  externalId: init.externalId ?? null,
  method: init.method ?? null,
  subject: {
    age: init.subject?.age ?? null,
    gender: init.subject?.gender ?? null,
    heightMm: init.subject?.heightMm ?? null,
    weightG: init.subject?.weightG ?? null
  },
  measurementsMm: init.measurementsMm ?? {},
  composition: init.composition ?? null,
  posture: init.posture ?? null,
  avatar: init.avatar ?? null,
  adjustment: init.adjustment ?? null,
  failure: init.failure ?? null,
  notes
})

/** @internal A walk's scan, unvalidated: see walkScan. */
export const scanOf = (init: ScanInit, notes: ReadonlyArray<Note>): Scan => scanJsonOf(init, notes) as unknown as Scan

/**
 * Builds a canonical scan, or says which invariant the input breaks and where: no negative or
 * non-finite quantity, gender male or female, only the contract's keys and measurement names,
 * a failure exactly when the status is failure. The result is an Either, which is also an
 * Effect, so `yield* makeScan(...)` works inside Effect.gen.
 */
export const makeScan = (init: ScanInit): Either.Either<Scan, InvariantViolation> =>
  Either.mapLeft(validate(scanJsonOf(init)), InvariantViolation.fromIssueList)
