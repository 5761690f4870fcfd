import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import {
  Adjustment,
  DecodeError,
  EncodeError,
  type FailureCategory,
  LENGTH_UNITS_ACCEPTED,
  MEASUREMENT_NAMES,
  type MeasurementName,
  type Note,
  PROPORTIONS,
  type Path,
  Scan,
  type ScanInit,
  type ScanJson,
  decodeScanEither,
  encodeScan,
  formatPath,
  makeScan,
  stringifyScan
} from "@scanbridge/model"
import { FORMATS, Wire, decodeEntryEither, decodeListPageEither, decodeSummaryEither, encodeEntryEither } from "../src/index.js"
import { pathsOf, valueAt, withValueAt } from "../../model/test/json-paths.js"
import { wholeStature } from "./bodies.js"

// --- Helpers ------------------------------------------------------------------------------

/** The Right of an Either, or the Left thrown as it is (DecodeError and EncodeError are Errors). */
const ok = <A, E>(result: Either.Either<A, E>): A => Either.getOrThrowWith(result, (e) => (e instanceof Error ? e : new Error(`unexpected Left: ${String(e)}`)))

/** The Left of an Either; a Right fails the test, showing what was decoded instead. */
const err = <A, E>(result: Either.Either<A, E>): E => Either.getOrThrowWith(Either.flip(result), (a) => new Error(`expected a Left, got ${JSON.stringify(a)}`))

const scanOf = (init: ScanInit): Scan => ok(makeScan(init))

/** Notes as [kind, path] pairs, which is what most assertions care about. */
const kindsAndPaths = (notes: ReadonlyArray<Note>): ReadonlyArray<readonly [string, string]> => notes.map((n) => [n.kind, n.path])

const noteAt = (notes: ReadonlyArray<Note>, kind: Note["kind"], path: string): Note => {
  const found = notes.find((n) => n.kind === kind && n.path === path)
  if (found === undefined) throw new Error(`no ${kind} note at ${path} among ${JSON.stringify(notes)}`)
  return found
}

/** JSON cannot carry -0; compare scans that went through JSON text as JSON does. */
const withoutNegativeZero = (value: unknown): unknown =>
  Object.is(value, -0)
    ? 0
    : Array.isArray(value)
      ? value.map(withoutNegativeZero)
      : typeof value === "object" && value !== null
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutNegativeZero(v)]))
        : value

const expectDecodeError = (error: unknown): DecodeError => {
  expect(error).toBeInstanceOf(DecodeError)
  const e = error as DecodeError
  expect(Array.isArray(e.path)).toBe(true)
  expect(typeof e.message).toBe("string")
  expect(e.message.length).toBeGreaterThan(0)
  expect(e.issues.length).toBeGreaterThan(0)
  return e
}

/** A wire JSON value, for building inputs: what `JSON.parse` can give. */
type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

// Object.hasOwn, not `FAILURE_CODES[code] ?? "unknown"`: a code is any string the vendor sends,
// and "constructor" or "__proto__" must not find Object.prototype's members.
const categoryOf = (code: string): FailureCategory => (Object.hasOwn(Wire.FAILURE_CODES, code) ? Wire.FAILURE_CODES[code]! : "unknown")

// --- Arbitraries ----------------------------------------------------------------------------

/** Whole numbers, exact in JSON, as the platform writes them; never -0, which no JSON number is. */
const whole = (n: number): number => Math.min(Math.round(n) || 0, Number.MAX_SAFE_INTEGER)

const PROTOTYPE_KEYS = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"] as const

const failureCode = fc.oneof(fc.constantFrom(...Object.keys(Wire.FAILURE_CODES)), fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ minLength: 1 }))

const integerLengths = (m: ScanJson["measurementsMm"]): ScanJson["measurementsMm"] =>
  Object.fromEntries(
    MEASUREMENT_NAMES.flatMap((name) => {
      const v = m[name]
      return v === undefined ? [] : [[name, whole(v)]]
    })
  )

/**
 * Canonical scans that a platform entry can hold without a note: every part the entry has a
 * place for, in the units and shapes it writes. Derived from the model's own Arbitrary, then
 * narrowed to what the platform can say.
 */
const platformHoldable: fc.Arbitrary<Scan> = fc
  .record({
    scan: Arbitrary.make(Scan),
    id: fc.string({ minLength: 1 }),
    status: fc.constantFrom("success" as const, "failure" as const),
    method: fc.constantFrom("stats" as const, "photo" as const, "adjusted" as const),
    subject: fc.record({ age: fc.nat(), gender: fc.constantFrom("male" as const, "female" as const), weightG: fc.nat() }),
    otherStature: fc.nat(),
    adjustment: Arbitrary.make(Adjustment),
    outputWeightG: fc.option(fc.nat(), { nil: null }),
    code: failureCode,
    message: fc.option(fc.string(), { nil: null })
  })
  .map(({ adjustment, code, id, message, method, otherStature, outputWeightG, scan, status, subject }) => {
    const json = encodeScan(scan)
    return scanOf({
      source: { api: "platform", id },
      status,
      externalId: json.externalId?.slice(0, Wire.MAX_CUSTOM_SCAN_ID) ?? null,
      method,
      subject: { ...subject, heightMm: wholeStature(scan.subject.heightMm, otherStature) },
      measurementsMm: integerLengths(json.measurementsMm),
      composition: json.composition === null ? null : { ...json.composition, skeletalMuscleMassG: null },
      posture: json.posture,
      avatar: json.avatar === null || json.avatar.format === "vertices" ? null : json.avatar,
      adjustment: method === "adjusted" ? { ...adjustment, outputWeightG } : null,
      failure: status === "failure" ? { code, category: categoryOf(code), message } : null
    })
  })

/** The entry as the REST API writes it: its avatar is always obj (spec 01, Avatar). */
const restEntry: fc.Arbitrary<Wire.EntryJson> = platformHoldable.map((scan) => {
  const { value } = ok(encodeEntryEither(scan))
  return value.avatar ? { ...value, avatar: { ...value.avatar, format: "obj" } } : value
})

// --- Fixtures from the spec ----------------------------------------------------------------

const STATS = { age: 29, gender: "female", height: 1640, weight: 54000 } as const
const SUBJECT = { age: 29, gender: "female", heightMm: 1640, weightG: 54000 } as const
const OBJ_AVATAR = { data: "diAwIDAgMAo=", format: "obj", type: "highResolution" } as const

const STATS_ENTRY = {
  id: "scan_abc123",
  status: "success",
  customScanId: "order-1234",
  input: { statsEstimations: STATS },
  measurements: [
    { name: "bustGirth", unit: "mm", value: 862 },
    { name: "waistGirth", unit: "mm", value: 701 },
    { name: "hipGirth", unit: "mm", value: 903 }
  ],
  avatar: OBJ_AVATAR,
  bodyComposition: null,
  posture: null,
  error: null
} as const

const FRONT_LINES = {
  ear: [
    { x: 410, y: 220 },
    { x: 590, y: 224 }
  ],
  shoulder: [
    { x: 380, y: 400 },
    { x: 620, y: 398 }
  ],
  topHip: [
    { x: 420, y: 800 },
    { x: 580, y: 797 }
  ],
  foot: [
    { x: 400, y: 1800 },
    { x: 600, y: 1800 }
  ]
}
const RIGHT_LINES = {
  bodyLine: [
    { x: 500, y: 1780 },
    { x: 505, y: 1300 },
    { x: 498, y: 900 },
    { x: 495, y: 420 },
    { x: 510, y: 230 }
  ],
  backWaistLine: [
    { x: 440, y: 850 },
    { x: 445, y: 760 },
    { x: 450, y: 700 },
    { x: 452, y: 600 }
  ]
}
const FRONT_ANGLES = { ear: -1.2, shoulder: 0.4, topHip: 0.9, foot: 0 }
const RIGHT_ANGLES = { bodyLine: [1.5, -2, 3.25, 4], backWaistLine: [10, 12.5, -3] }

/** Spec 01 posture, with the unit of each angle chosen by the caller. */
const wirePosture = (unit: (index: number) => string) => ({
  front: {
    angles: Object.entries(FRONT_ANGLES).map(([name, value], i) => ({ name, unit: unit(i), value })),
    lines: Object.entries(FRONT_LINES).map(([name, points]) => ({ name, points }))
  },
  right: {
    angles: Object.entries(RIGHT_ANGLES).map(([name, angles], i) => ({ name, unit: unit(4 + i), angles })),
    lines: Object.entries(RIGHT_LINES).map(([name, points]) => ({ name, points }))
  }
})

const CANONICAL_POSTURE = {
  front: { angles: FRONT_ANGLES, lines: FRONT_LINES },
  right: { angles: RIGHT_ANGLES, lines: RIGHT_LINES }
}

/** The lengths of a body of the subject's stature, each its catalogue share of it. */
const PHOTO_LENGTHS = Object.fromEntries(MEASUREMENT_NAMES.map((name) => [name, Math.round(PROPORTIONS[name] * STATS.height)])) as Record<
  MeasurementName,
  number
>

const PHOTO_ENTRY = {
  id: "scan_photo1",
  status: "success",
  input: { photoScan: { ...STATS, frontPhoto: null, rightPhoto: null } },
  measurements: MEASUREMENT_NAMES.map((name) => ({ name, unit: "mm", value: PHOTO_LENGTHS[name] })),
  avatar: OBJ_AVATAR,
  bodyComposition: {
    bodyFatPercentage: { unit: "percent", value: 24.1 },
    bodyFatMass: { unit: "g", value: 13014 },
    leanMass: { unit: "g", value: 40986 }
  },
  posture: wirePosture(() => "degrees"),
  error: null
}

const FAILED_ENTRY = {
  id: "scan_failed1",
  status: "failure",
  input: { photoScan: { ...STATS, frontPhoto: null, rightPhoto: null } },
  measurements: null,
  avatar: null,
  bodyComposition: null,
  posture: null,
  error: { code: "rightPhotoFacingWrongDirection" }
}

const ADJUSTED_ENTRY = {
  id: "scan_adj1",
  status: "success",
  customScanId: "order-1234-slimmer",
  input: {
    adjustedScan: {
      baseScanId: "scan_photo1",
      baseScanType: "photo",
      ...STATS,
      parameters: [
        { name: "weight", percentage: -5 },
        { name: "waistGirth", percentage: 2.5 }
      ]
    }
  },
  measurements: [{ name: "waistGirth", unit: "mm", value: 719 }],
  outputStats: { weight: 51300 },
  avatar: OBJ_AVATAR
}

/** Spec 03: the client library's photo result. */
const CLIENT_PHOTO_ENTRY = {
  id: "scan_client1",
  status: "success",
  input: { photoScan: { ...STATS, frontPhoto: null, rightPhoto: null } },
  measurements: [{ name: "hipGirth", unit: "mm", value: 903 }],
  bodyComposition: { bodyFatPercentage: 21.5, skeletalMuscleMass: 31.2 },
  avatar: { data: "Z2xURgIAAAA=", format: "glb", type: "UPPER_BODY" },
  posture: null
}

const SUMMARY = {
  id: "scan_abc123",
  createdAt: 1767323045,
  status: "success",
  memberId: "key_42",
  customScanId: "order-1234",
  input: { photoScan: { ...STATS, frontPhoto: null, rightPhoto: null } }
}

// --- 1. Round trip -------------------------------------------------------------------------

describe("encode then decode", () => {
  it.prop("is the identity on what the platform can hold, and says nothing", [platformHoldable], ([scan]) => {
    const encoded = ok(encodeEntryEither(scan))
    expect(encoded.notes).toEqual([])
    expect(ok(decodeEntryEither(encoded.value))).toEqual(scan)
  })

  it.prop("is the identity through the {entry} envelope as JSON text", [platformHoldable], ([scan]) => {
    const { value } = ok(encodeEntryEither(scan))
    const json: unknown = JSON.parse(JSON.stringify({ entry: value }))
    expect(ok(decodeEntryEither(json))).toEqual(withoutNegativeZero(scan))
  })

  it.prop("writes an entry the platform's own schema accepts, for any canonical scan it encodes", [Arbitrary.make(Scan)], ([scan]) => {
    const result = encodeEntryEither(scan)
    if (Either.isLeft(result)) {
      expect(result.left).toBeInstanceOf(EncodeError)
      expect(result.left.path.length).toBeGreaterThan(0)
      return
    }
    expect(Either.isRight(Schema.decodeUnknownEither(Wire.Entry)(result.right.value))).toBe(true)
    expect(Either.isRight(decodeEntryEither(result.right.value))).toBe(true)
  })
})

// --- 2. Robustness -------------------------------------------------------------------------

type Decoder = (json: unknown) => Either.Either<unknown, DecodeError>

const DECODERS: ReadonlyArray<[string, Decoder]> = [
  ["decodeEntryEither", decodeEntryEither],
  ["decodeSummaryEither", decodeSummaryEither],
  ["decodeListPageEither", decodeListPageEither]
]

/** Objects with the entry's keys and anything in them: reaches further than fc.anything(). */
const entryShaped = fc.record(
  {
    id: fc.oneof(fc.string(), fc.anything()),
    status: fc.oneof(fc.constantFrom("success", "failure", "pending"), fc.anything()),
    input: fc.oneof(
      fc.record({ statsEstimations: fc.oneof(fc.constant(STATS), fc.anything()) }),
      fc.record({ photoScan: fc.anything(), adjustedScan: fc.anything() }, { requiredKeys: [] }),
      fc.anything()
    ),
    measurements: fc.oneof(fc.constant(null), fc.array(fc.record({ name: fc.string(), unit: fc.constantFrom("mm", "cm", "in", "%"), value: fc.double() }))),
    avatar: fc.oneof(fc.constant(null), fc.record({ data: fc.string(), format: fc.constantFrom("obj", "glb", "ply"), type: fc.string() }), fc.anything()),
    bodyComposition: fc.oneof(
      fc.constant(null),
      fc.record({ bodyFatPercentage: fc.oneof(fc.double(), fc.constant(null)), skeletalMuscleMass: fc.oneof(fc.double(), fc.constant(null)) }),
      fc.dictionary(fc.constantFrom("bodyFatPercentage", "bodyFatMass", "leanMass", "skeletalMuscleMass"), fc.anything()),
      fc.anything()
    ),
    posture: fc.oneof(fc.constant(null), fc.anything()),
    error: fc.anything(),
    outputStats: fc.anything(),
    createdAt: fc.oneof(fc.integer(), fc.double()),
    memberId: fc.anything()
  },
  { requiredKeys: [] }
)

describe("the decoders never throw", () => {
  describe.each(DECODERS)("%s", (_, decode) => {
    it.prop("on anything, and a Left is a DecodeError with a path and a message", [fc.anything()], ([json]) => {
      for (const input of [json, { entry: json }, { results: [json] }]) {
        const result = decode(input)
        expect(Either.isEither(result)).toBe(true)
        if (Either.isLeft(result)) expectDecodeError(result.left)
      }
    })

    it.prop("on any JSON value", [fc.jsonValue()], ([json]) => {
      const result = decode(json)
      if (Either.isLeft(result)) expectDecodeError(result.left)
    })

    it.prop("on objects shaped like entries and summaries", [entryShaped], ([json]) => {
      for (const input of [json, { entry: json }, { results: [json], nextOffsetId: "scan_x" }]) {
        const result = decode(input)
        expect(Either.isEither(result)).toBe(true)
        if (Either.isLeft(result)) expectDecodeError(result.left)
      }
    })
  })

  it.each<[string, unknown]>([
    ["null", null],
    ["undefined", undefined],
    ["a number", 0],
    ["an empty string", ""],
    ["an empty array", []],
    ["an empty object", {}],
    ["an envelope of null", { entry: null }],
    ["an envelope of undefined", { entry: undefined }],
    ["an envelope of an array", { entry: [] }]
  ])("gives a DecodeError for %s", (_, json) => {
    for (const [, decode] of DECODERS) expectDecodeError(err(decode(json)))
  })
})

/**
 * A value of another JSON type than `original`, that no field of the entry accepts where
 * `original` was. Objects become strings, not numbers or arrays: a Struct accepts an array,
 * and a number where an object was is the client library's bare body composition.
 */
const wrongTypeFor = (original: unknown, seed: number): unknown => {
  if (typeof original === "string") return [seed, true][seed % 2]
  if (typeof original === "number") return [`${seed}`, false][seed % 2]
  if (original === null) return [seed, true][seed % 2]
  return `not an ${Array.isArray(original) ? "array" : "object"}`
}

describe("a mutated entry", () => {
  // `error` is excluded: the client library's error "shape is not guaranteed", so any error
  // object is read, as that variant (see "error objects of odd shapes" below).
  const mutation = restEntry.chain((entry) => {
    const paths = pathsOf(entry).filter((p) => p.length > 0 && p[0] !== "error")
    return fc.record({ entry: fc.constant(entry), path: fc.constantFrom(...paths), seed: fc.nat() })
  })

  describe.each([
    ["bare", (entry: unknown): unknown => entry, [] as Path],
    ["in its envelope", (entry: unknown): unknown => ({ entry }), ["entry"] as Path]
  ])("%s", (_, wrap, base) => {
    it.prop("fails with a DecodeError at the path of the wrong value, holding that value", [mutation], ([{ entry, path, seed }]) => {
      const value = wrongTypeFor(valueAt(entry, path), seed)
      const error = expectDecodeError(err(decodeEntryEither(wrap(withValueAt(entry, path, value)))))
      expect(error.path.slice(0, base.length)).toEqual(base)
      const where = formatPath([...base, ...path])
      const issue = error.issues.find((i) => formatPath(i.path) === where)
      expect(issue, `${where} not among ${error.issues.map((i) => formatPath(i.path)).join(", ")}`).toBeDefined()
      expect(issue!.value).toEqual(value)
    })
  })

  it.prop("in a list page names the result's index", [restEntry, fc.nat(3)], ([entry, before]) => {
    const summary = { id: entry.id, createdAt: 1767323045, status: entry.status, input: entry.input }
    const results = [...Array.from({ length: before }, () => summary), { ...summary, createdAt: "yesterday" }]
    const error = expectDecodeError(err(decodeListPageEither({ results, nextOffsetId: "" })))
    expect(error.path).toEqual(["results", before, "createdAt"])
    expect(error.value).toBe("yesterday")
  })
})

// --- 3. Examples from the spec -------------------------------------------------------------

describe("decoding the spec's entries", () => {
  it("reads a stats-only success entry", () => {
    const scan = ok(decodeEntryEither({ entry: STATS_ENTRY }))
    expect(scan).toEqual(
      scanOf({
        source: { api: "platform", id: "scan_abc123" },
        status: "success",
        externalId: "order-1234",
        method: "stats",
        subject: SUBJECT,
        measurementsMm: { bustGirth: 862, waistGirth: 701, hipGirth: 903 },
        avatar: { format: "obj", type: "highResolution", data: "diAwIDAgMAo=", vertices: null }
      })
    )
    expect(scan.notes).toEqual([])
    // Bare or in its envelope: the same scan.
    expect(ok(decodeEntryEither(STATS_ENTRY))).toEqual(scan)
  })

  it("reads a photo entry with body composition and posture", () => {
    const scan = ok(decodeEntryEither({ entry: PHOTO_ENTRY }))
    expect(scan.method).toBe("photo")
    expect(scan.subject).toEqual(SUBJECT)
    expect(Object.keys(scan.measurementsMm)).toEqual(MEASUREMENT_NAMES)
    expect(scan.measurementsMm).toEqual(PHOTO_LENGTHS)
    expect(scan.measurementsMm.waistGirth).toBe(738)
    expect(scan.composition).toEqual({ bodyFatPercent: 24.1, bodyFatMassG: 13014, leanMassG: 40986, skeletalMuscleMassG: null })
    expect(scan.posture).toEqual(CANONICAL_POSTURE)
    expect(scan.notes).toEqual([])
  })

  it("looks posture entries up by name, not by position", () => {
    const p = PHOTO_ENTRY.posture
    const shuffled = {
      front: { angles: [...p.front.angles].reverse(), lines: [...p.front.lines].reverse() },
      right: { angles: [...p.right.angles].reverse(), lines: [...p.right.lines].reverse() }
    }
    expect(ok(decodeEntryEither({ ...PHOTO_ENTRY, posture: shuffled })).posture).toEqual(CANONICAL_POSTURE)
  })

  it('reads the angle unit "degree" as "degrees", with one aliased note for the whole posture', () => {
    const posture = wirePosture((i) => (i % 2 === 0 ? "degree" : "degrees"))
    const scan = ok(decodeEntryEither({ ...PHOTO_ENTRY, posture }))
    expect(scan.posture).toEqual(CANONICAL_POSTURE)
    expect(kindsAndPaths(scan.notes)).toEqual([["aliased", "posture"]])
    expect(scan.notes[0]!.detail).toMatch(/"degree" 3 time\(s\)/)
  })

  it("refuses an angle unit it cannot convert, at its path", () => {
    const posture = wirePosture((i) => (i === 5 ? "radians" : "degrees"))
    const error = expectDecodeError(err(decodeEntryEither({ entry: { ...PHOTO_ENTRY, posture } })))
    expect(error.path).toEqual(["entry", "posture", "right", "angles", 1, "unit"])
    expect(error.value).toBe("radians")
  })

  it("refuses a polyline with the wrong number of points, at its path", () => {
    const posture = {
      ...PHOTO_ENTRY.posture,
      right: { ...PHOTO_ENTRY.posture.right, lines: [{ name: "bodyLine", points: RIGHT_LINES.bodyLine.slice(0, 4) }] }
    }
    const error = expectDecodeError(err(decodeEntryEither({ ...PHOTO_ENTRY, posture })))
    expect(error.path).toEqual(["posture", "right", "lines", 0, "points"])
  })

  it("refuses a right angle with the wrong number of segment angles, at its path", () => {
    const [first, second] = PHOTO_ENTRY.posture.right.angles
    const posture = { ...PHOTO_ENTRY.posture, right: { ...PHOTO_ENTRY.posture.right, angles: [first, { ...second!, angles: [1] }] } }
    const error = expectDecodeError(err(decodeEntryEither({ ...PHOTO_ENTRY, posture })))
    expect(error.path).toEqual(["posture", "right", "angles", 1, "angles"])
    expect(error.value).toEqual([1])
  })

  it("drops posture parts it does not know, with a note each, even named like Object.prototype's members", () => {
    const posture = {
      front: {
        angles: [...PHOTO_ENTRY.posture.front.angles, { name: "chin", unit: "degrees", value: 3 }, { name: "toString", unit: "degrees", value: 4 }],
        lines: [...PHOTO_ENTRY.posture.front.lines, { name: "constructor", points: FRONT_LINES.ear }]
      },
      right: {
        angles: [...PHOTO_ENTRY.posture.right.angles, { name: "toString", unit: "degrees", angles: [1] }],
        lines: [...PHOTO_ENTRY.posture.right.lines, { name: "__proto__", points: [] }]
      }
    }
    const scan = ok(decodeEntryEither({ ...PHOTO_ENTRY, posture }))
    expect(scan.posture).toEqual(CANONICAL_POSTURE)
    expect(kindsAndPaths(scan.notes)).toEqual([
      ["dropped", "posture.front.angles[4]"],
      ["dropped", "posture.front.angles[5]"],
      ["dropped", "posture.front.lines[4]"],
      ["dropped", "posture.right.angles[2]"],
      ["dropped", "posture.right.lines[2]"]
    ])
  })

  it("reads a failed scan (HTTP 200, status failure) with its error code and category", () => {
    const scan = ok(decodeEntryEither({ entry: FAILED_ENTRY }))
    expect(scan).toEqual(
      scanOf({
        source: { api: "platform", id: "scan_failed1" },
        status: "failure",
        method: "photo",
        subject: SUBJECT,
        failure: { code: "rightPhotoFacingWrongDirection", category: "posing", message: null }
      })
    )
    expect(scan.notes).toEqual([])
  })

  it.each([
    ["rightPhotoFacingWrongDirection", "posing"],
    // Codes the simulator invents: the wire knows only what the vendor documents.
    ["personNotFound", "unknown"],
    ["frontPhotoNotJpeg", "unknown"],
    ["someFutureCode", "unknown"],
    ["constructor", "unknown"],
    ["__proto__", "unknown"],
    ["toString", "unknown"]
  ] as const)("gives error code %s the category %s", (code, category) => {
    const scan = ok(decodeEntryEither({ ...FAILED_ENTRY, error: { code, message: "m" } }))
    expect(scan.failure).toEqual({ code, category, message: "m" })
  })

  it("records a failed scan without an error code as code unknown, with a note", () => {
    for (const error of [null, undefined, { code: "" }]) {
      const scan = ok(decodeEntryEither({ ...FAILED_ENTRY, error }))
      expect(scan.failure).toEqual({ code: "unknown", category: "unknown", message: null })
      expect(kindsAndPaths(scan.notes)).toEqual([["assumed", "error"]])
    }
  })

  it("drops an error on a successful scan, with a note", () => {
    const scan = ok(decodeEntryEither({ ...STATS_ENTRY, error: { code: "photoTooDark" } }))
    expect(scan.failure).toBeNull()
    expect(kindsAndPaths(scan.notes)).toEqual([["dropped", "error"]])
  })

  it("reads an adjusted entry: input.adjustedScan and outputStats.weight", () => {
    const scan = ok(decodeEntryEither({ entry: ADJUSTED_ENTRY }))
    expect(scan).toEqual(
      scanOf({
        source: { api: "platform", id: "scan_adj1" },
        status: "success",
        externalId: "order-1234-slimmer",
        method: "adjusted",
        subject: SUBJECT,
        measurementsMm: { waistGirth: 719 },
        avatar: { format: "obj", type: "highResolution", data: "diAwIDAgMAo=", vertices: null },
        adjustment: {
          baseScanId: "scan_photo1",
          baseScanType: "photo",
          parameters: [
            { name: "weight", percentage: -5 },
            { name: "waistGirth", percentage: 2.5 }
          ],
          outputWeightG: 51300
        }
      })
    )
    expect(scan.notes).toEqual([])
  })

  it("drops an adjustment parameter that names no measurement, and outputStats on a scan that is not adjusted", () => {
    const adjusted = ADJUSTED_ENTRY.input.adjustedScan
    const withArm = { ...ADJUSTED_ENTRY, input: { adjustedScan: { ...adjusted, parameters: [...adjusted.parameters, { name: "armLength", percentage: 1 }] } } }
    const scan = ok(decodeEntryEither(withArm))
    expect(scan.adjustment?.parameters).toHaveLength(2)
    expect(kindsAndPaths(scan.notes)).toEqual([["dropped", "input.adjustedScan.parameters[2]"]])

    const stats = ok(decodeEntryEither({ ...STATS_ENTRY, outputStats: { weight: 51300 } }))
    expect(stats.adjustment).toBeNull()
    expect(kindsAndPaths(stats.notes)).toEqual([["dropped", "outputStats"]])
  })

  it("drops the submitted photos, with a note", () => {
    const scan = ok(decodeEntryEither({ ...PHOTO_ENTRY, input: { photoScan: { ...STATS, frontPhoto: "/9j/4AAQ", rightPhoto: "/9j/4AAQ" } } }))
    expect(scan.method).toBe("photo")
    expect(kindsAndPaths(scan.notes)).toEqual([["dropped", "input.photoScan"]])
  })

  it("refuses an input that is not exactly one of the three shapes", () => {
    for (const input of [{}, { statsEstimations: STATS, photoScan: { ...STATS, frontPhoto: null, rightPhoto: null } }]) {
      const error = expectDecodeError(err(decodeEntryEither({ entry: { ...STATS_ENTRY, input } })))
      expect(error.path).toEqual(["entry", "input"])
    }
  })

  it("converts measurements stated in cm or in, with one note for the record, and refuses other units at their path, naming those it reads", () => {
    const cm = ok(
      decodeEntryEither({
        ...STATS_ENTRY,
        measurements: [
          { name: "hipGirth", unit: "cm", value: 90.35 },
          { name: "neckGirth", unit: "cm", value: 38.1 }
        ]
      })
    )
    expect(cm.measurementsMm).toEqual({ hipGirth: 903.5, neckGirth: 381 })
    expect(cm.notes).toEqual([{ kind: "converted", path: "measurements", detail: "2 length(s) stated in centimetres, converted to millimetres" }])
    // Two units in one record: each length converted from its own, one note per unit.
    const mixed = ok(
      decodeEntryEither({
        ...STATS_ENTRY,
        measurements: [
          { name: "hipGirth", unit: "cm", value: 90.35 },
          { name: "neckGirth", unit: "in", value: 15 }
        ]
      })
    )
    expect(mixed.measurementsMm).toEqual({ hipGirth: 903.5, neckGirth: 381 })
    expect(mixed.notes).toEqual([
      { kind: "converted", path: "measurements", detail: "1 length(s) stated in centimetres, converted to millimetres" },
      { kind: "converted", path: "measurements", detail: "1 length(s) stated in inches, converted to millimetres" }
    ])
    const error = expectDecodeError(err(decodeEntryEither({ entry: { ...STATS_ENTRY, measurements: [{ name: "hipGirth", unit: "%", value: 9 }] } })))
    expect(error.path).toEqual(["entry", "measurements", 0, "unit"])
    expect(error.value).toBe("%")
    expect(error.message).toContain(LENGTH_UNITS_ACCEPTED)
  })

  it("drops unknown measurement names, suggesting the canonical name for another dialect's spelling", () => {
    const measurements = [
      { name: "waist_girth", unit: "mm", value: 701 },
      { name: "HIP_GIRTH", unit: "mm", value: 903 },
      { name: "wingspan", unit: "mm", value: 1700 },
      { name: "bustGirth", unit: "mm", value: 862 },
      { name: "bustGirth", unit: "mm", value: 870 }
    ]
    const scan = ok(decodeEntryEither({ ...STATS_ENTRY, measurements }))
    expect(scan.measurementsMm).toEqual({ bustGirth: 862 })
    expect(kindsAndPaths(scan.notes)).toEqual([
      ["dropped", "measurements[0]"],
      ["dropped", "measurements[1]"],
      ["dropped", "measurements[2]"],
      ["dropped", "measurements[4]"]
    ])
    expect(scan.notes[0]!.detail).toMatch(/"waist_girth".*did you mean waistGirth\?/)
    expect(scan.notes[1]!.detail).toMatch(/did you mean hipGirth\?/)
    expect(scan.notes[2]!.detail).not.toMatch(/did you mean/)
    expect(scan.notes[3]!.detail).toMatch(/the first one is kept/)
  })

  it("drops unknown top-level keys, with a note naming the key", () => {
    const scan = ok(decodeEntryEither({ entry: { ...STATS_ENTRY, requestId: "r-1", createdAt: 1767323045 } }))
    expect(kindsAndPaths(scan.notes)).toEqual([
      ["dropped", "requestId"],
      ["dropped", "createdAt"]
    ])
    expect(scan.createdAt).toBeNull()
  })

  it("drops an unknown key inside any object of an entry, with a note at its path naming the key", () => {
    const posture = wirePosture(() => "degrees")
    const front = posture.front!
    const [line, ...lines] = front.lines
    const [first, second] = line!.points
    const entry = {
      ...PHOTO_ENTRY,
      input: { photoScan: { ...PHOTO_ENTRY.input.photoScan, device: "x" }, via: 1 },
      measurements: [{ ...PHOTO_ENTRY.measurements[0]!, source: "ml" }, ...PHOTO_ENTRY.measurements.slice(1)],
      avatar: { ...OBJ_AVATAR, lod: 2 },
      bodyComposition: { ...PHOTO_ENTRY.bodyComposition, leanMass: { ...PHOTO_ENTRY.bodyComposition.leanMass, range: [1, 2] } },
      posture: {
        ...posture,
        front: {
          ...front,
          angles: [{ ...front.angles[0]!, confidence: 0.9 }, ...front.angles.slice(1)],
          lines: [{ ...line!, points: [first, { ...second!, z: 3 }] }, ...lines]
        }
      },
      outputStats: { weight: 54000, bmi: 20 }
    }
    const scan = ok(decodeEntryEither({ entry }))
    const dropped = (path: string) => scan.notes.find((n) => n.kind === "dropped" && n.path === path)?.detail
    expect(dropped("input.photoScan.device")).toBe('unknown key device = "x": the canonical scan has no place for it')
    expect(dropped("input.via")).toBe("unknown key via = 1: the canonical scan has no place for it")
    expect(dropped("measurements[0].source")).toMatch(/^unknown key source = "ml"/)
    expect(dropped("avatar.lod")).toMatch(/^unknown key lod = 2/)
    expect(dropped("bodyComposition.leanMass.range")).toMatch(/^unknown key range = \[1,2\]/)
    expect(dropped("posture.front.angles[0].confidence")).toMatch(/^unknown key confidence = 0.9/)
    expect(dropped("posture.front.lines[0].points[1].z")).toMatch(/^unknown key z = 3/)
    expect(dropped("outputStats.bmi")).toMatch(/^unknown key bmi = 20/)
    // Nothing of the unknown keys reaches the scan, which the strict canonical decoder reads back.
    expect(Either.isRight(decodeScanEither(JSON.parse(stringifyScan(scan))))).toBe(true)
    // The record without them reads to the same scan, notes aside.
    expect({ ...scan, notes: [] }).toEqual({ ...ok(decodeEntryEither({ entry: PHOTO_ENTRY })), notes: [] })
  })

  it("drops an avatar of a format the canonical model has no place for", () => {
    const scan = ok(decodeEntryEither({ ...STATS_ENTRY, avatar: { data: "AAAA", format: "ply" } }))
    expect(scan.avatar).toBeNull()
    expect(kindsAndPaths(scan.notes)).toEqual([["dropped", "avatar"]])
  })

  it("reads body composition masses in kg with a note, and refuses other mass or percent units", () => {
    const bodyComposition = { ...PHOTO_ENTRY.bodyComposition, leanMass: { unit: "kg", value: 40.986 } }
    const scan = ok(decodeEntryEither({ ...PHOTO_ENTRY, bodyComposition }))
    expect(scan.composition?.leanMassG).toBe(40986)
    expect(kindsAndPaths(scan.notes)).toEqual([["converted", "bodyComposition.leanMass"]])

    const lb = expectDecodeError(err(decodeEntryEither({ ...PHOTO_ENTRY, bodyComposition: { bodyFatMass: { unit: "lb", value: 28 } } })))
    expect(lb.path).toEqual(["bodyComposition", "bodyFatMass", "unit"])
    const fraction = expectDecodeError(err(decodeEntryEither({ ...PHOTO_ENTRY, bodyComposition: { bodyFatPercentage: { unit: "fraction", value: 0.24 } } })))
    expect(fraction.path).toEqual(["bodyComposition", "bodyFatPercentage", "unit"])
  })

  it("names the wire path, not the canonical one, for values the canonical scan refuses", () => {
    const fat = expectDecodeError(
      err(decodeEntryEither({ entry: { ...PHOTO_ENTRY, bodyComposition: { bodyFatPercentage: { unit: "percent", value: 124.1 } } } }))
    )
    expect(fat.path).toEqual(["entry", "bodyComposition", "bodyFatPercentage", "value"])
    expect(fat.value).toBe(124.1)

    const avatar = expectDecodeError(err(decodeEntryEither({ entry: { ...STATS_ENTRY, avatar: { ...OBJ_AVATAR, data: "not base64!" } } })))
    expect(avatar.path).toEqual(["entry", "avatar", "data"])
    expect(avatar.value).toBe("not base64!")
  })
})

describe("decoding the client library's entry (spec 03)", () => {
  it("reads bare-number body composition, skeletal muscle mass in kg with an assumed note, and a glb avatar", () => {
    const scan = ok(decodeEntryEither({ entry: CLIENT_PHOTO_ENTRY }))
    expect(scan).toEqual(
      scanOf({
        source: { api: "platform", id: "scan_client1" },
        status: "success",
        method: "photo",
        subject: SUBJECT,
        measurementsMm: { hipGirth: 903 },
        composition: { bodyFatPercent: 21.5, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: 31200 },
        avatar: { format: "glb", type: "UPPER_BODY", data: "Z2xURgIAAAA=", vertices: null },
        notes: [noteAt(scan.notes, "assumed", "bodyComposition.skeletalMuscleMass")]
      })
    )
    expect(scan.notes[0]!.detail).toMatch(/31\.2 read as kilograms \(31200 g\)/)
  })

  it("reads a skeletal muscle mass in grams as grams, with a note, and refuses one plausible in neither unit", () => {
    const grams = ok(decodeEntryEither({ ...CLIENT_PHOTO_ENTRY, bodyComposition: { bodyFatPercentage: 21.5, skeletalMuscleMass: 31200 } }))
    expect(grams.composition?.skeletalMuscleMassG).toBe(31200)
    expect(kindsAndPaths(grams.notes)).toEqual([["assumed", "bodyComposition.skeletalMuscleMass"]])

    const error = expectDecodeError(
      err(decodeEntryEither({ entry: { ...CLIENT_PHOTO_ENTRY, bodyComposition: { bodyFatPercentage: 21.5, skeletalMuscleMass: 500 } } }))
    )
    expect(error.format).toBe(FORMATS.clientLibraryEntry)
    expect(error.path).toEqual(["entry", "bodyComposition", "skeletalMuscleMass"])
    expect(error.value).toBe(500)
  })

  it("keeps the skeletal muscle mass when the body fat percentage is null", () => {
    const scan = ok(decodeEntryEither({ ...CLIENT_PHOTO_ENTRY, bodyComposition: { bodyFatPercentage: null, skeletalMuscleMass: 31.2 } }))
    expect(scan.composition).toEqual({ bodyFatPercent: null, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: 31200 })
    expect(kindsAndPaths(scan.notes)).toEqual([["assumed", "bodyComposition.skeletalMuscleMass"]])
  })

  it("refuses a body fat percentage over 100 at its wire path", () => {
    const error = expectDecodeError(err(decodeEntryEither({ ...CLIENT_PHOTO_ENTRY, bodyComposition: { bodyFatPercentage: 121.5, skeletalMuscleMass: null } })))
    expect(error.path).toEqual(["bodyComposition", "bodyFatPercentage"])
  })

  it("reads the stats example (obj, highResolution, composition and posture null) as the REST entry", () => {
    const entry = { ...STATS_ENTRY, bodyComposition: null, posture: null }
    expect(ok(decodeEntryEither({ entry }))).toEqual(ok(decodeEntryEither(STATS_ENTRY)))
  })

  const failed = { ...CLIENT_PHOTO_ENTRY, status: "failure", measurements: null, bodyComposition: null, avatar: null, posture: null }

  it.each<[string, unknown, { code: string; category: FailureCategory; message: string | null }, boolean]>([
    ["a code as a string", "rightPhotoFacingWrongDirection", { code: "rightPhotoFacingWrongDirection", category: "posing", message: null }, false],
    ["an unlisted string", "SOMETHING_ELSE", { code: "SOMETHING_ELSE", category: "unknown", message: null }, false],
    ["an empty object", {}, { code: "unknown", category: "unknown", message: "{}" }, true],
    ["an object without a code", { reason: "x" }, { code: "unknown", category: "unknown", message: '{"reason":"x"}' }, true],
    ["a message without a code", { message: "the photo is blurred" }, { code: "unknown", category: "unknown", message: "the photo is blurred" }, true],
    ["a numeric code", { code: 306 }, { code: "unknown", category: "unknown", message: '{"code":306}' }, true],
    ["a number", 306, { code: "unknown", category: "unknown", message: "306" }, true],
    ["an array", ["a", "b"], { code: "unknown", category: "unknown", message: '["a","b"]' }, true],
    ["an empty string", "", { code: "unknown", category: "unknown", message: null }, true],
    ["a code and a message", { code: "photoTooDark", message: "too dark" }, { code: "photoTooDark", category: "unknown", message: "too dark" }, false]
  ])("reads an error object of an odd shape on failure: %s", (_, error, failure, noted) => {
    const scan = ok(decodeEntryEither({ entry: { ...failed, error } }))
    expect(scan.status).toBe("failure")
    expect(scan.failure).toEqual(failure)
    expect(kindsAndPaths(scan.notes)).toEqual(noted ? [["assumed", "error"]] : [])
  })

  it("drops the keys of an error object other than its code and message, with a note", () => {
    const scan = ok(decodeEntryEither({ entry: { ...failed, error: { code: "photoTooDark", message: "too dark", traceId: "t-1" } } }))
    expect(scan.failure).toEqual({ code: "photoTooDark", category: "unknown", message: "too dark" })
    expect(scan.notes).toEqual([{ kind: "dropped", path: "error.traceId", detail: 'unknown key traceId = "t-1": the canonical scan has no place for it' }])
    const uncoded = ok(decodeEntryEither({ entry: { ...failed, error: { message: "too dark", traceId: "t-1" } } }))
    expect(uncoded.failure).toEqual({ code: "unknown", category: "unknown", message: "too dark" })
    expect(kindsAndPaths(uncoded.notes)).toEqual([
      ["assumed", "error"],
      ["dropped", "error.traceId"]
    ])
  })

  it("reads a failure without any error as code unknown", () => {
    const scan = ok(decodeEntryEither(failed))
    expect(scan.failure).toEqual({ code: "unknown", category: "unknown", message: null })
    expect(kindsAndPaths(scan.notes)).toEqual([["assumed", "error"]])
  })

  it("drops an odd error on a successful scan, with a note", () => {
    const scan = ok(decodeEntryEither({ ...CLIENT_PHOTO_ENTRY, error: "stale" }))
    expect(scan.failure).toBeNull()
    expect(kindsAndPaths(scan.notes)).toContainEqual(["dropped", "error"])
  })

  it("reports a broken client-library entry as one", () => {
    const error = expectDecodeError(err(decodeEntryEither({ ...CLIENT_PHOTO_ENTRY, bodyComposition: { bodyFatPercentage: "21.5", skeletalMuscleMass: 31.2 } })))
    expect(error.format).toBe(FORMATS.clientLibraryEntry)
    expect(error.path).toEqual(["bodyComposition", "bodyFatPercentage"])
  })
})

describe("decoding list summaries and pages", () => {
  it("reads a summary: createdAt seconds to ISO with a note, memberId dropped with a note", () => {
    const scan = ok(decodeSummaryEither(SUMMARY))
    expect(scan).toEqual(
      scanOf({
        source: { api: "platform", id: "scan_abc123" },
        status: "success",
        createdAt: "2026-01-02T03:04:05.000Z",
        externalId: "order-1234",
        method: "photo",
        subject: SUBJECT,
        notes: scan.notes
      })
    )
    expect(kindsAndPaths(scan.notes)).toEqual([
      ["converted", "createdAt"],
      ["dropped", "memberId"]
    ])
    expect(noteAt(scan.notes, "converted", "createdAt").detail).toBe("UNIX seconds 1767323045 -> 2026-01-02T03:04:05.000Z")
    expect(noteAt(scan.notes, "dropped", "memberId").detail).toMatch(/key_42/)
  })

  it("reads a page with nextOffsetId, one scan per summary, in order", () => {
    const failed = { id: "scan_2", createdAt: 1767323000, status: "failure", input: { statsEstimations: STATS } }
    const page = { results: [SUMMARY, failed], nextOffsetId: "scan_2" }
    const scans = ok(decodeListPageEither(page))
    expect(scans.map((s) => s.source.id)).toEqual(["scan_abc123", "scan_2"])
    expect(scans[1]!.status).toBe("failure")
    expect(scans[1]!.failure).toEqual({ code: "unknown", category: "unknown", message: null })
    expect(scans[1]!.externalId).toBeNull()
    expect(kindsAndPaths(scans[1]!.notes)).toEqual([
      ["converted", "createdAt"],
      ["assumed", "status"]
    ])
  })

  it("reads a last page whose nextOffsetId is missing, null or empty, and an empty page", () => {
    for (const next of [{}, { nextOffsetId: null }, { nextOffsetId: "" }]) {
      expect(ok(decodeListPageEither({ results: [SUMMARY], ...next }))).toHaveLength(1)
    }
    expect(ok(decodeListPageEither({ results: [] }))).toEqual([])
  })

  it("reads an empty customScanId as an empty external id", () => {
    expect(ok(decodeSummaryEither({ ...SUMMARY, customScanId: "" })).externalId).toBe("")
  })

  it("drops an unknown key of a summary, with a note", () => {
    const scan = ok(decodeSummaryEither({ ...SUMMARY, measurements: [] }))
    expect(kindsAndPaths(scan.notes)).toContainEqual(["dropped", "measurements"])
  })

  it("drops the unknown keys of a page and of its summaries: each scan notes its own and the page's", () => {
    const odd = { ...SUMMARY, input: { photoScan: { ...SUMMARY.input.photoScan, device: "x" } } }
    const scans = ok(decodeListPageEither({ results: [SUMMARY, odd], total: 2 }))
    const unknown = (notes: ReadonlyArray<Note>) => kindsAndPaths(notes.filter((n) => n.detail.startsWith("unknown key")))
    expect(unknown(scans[0]!.notes)).toEqual([["dropped", "total"]])
    expect(unknown(scans[1]!.notes)).toEqual([
      ["dropped", "input.photoScan.device"],
      ["dropped", "total"]
    ])
  })

  it("refuses a createdAt that is not a whole number of seconds, or past year 9999, at its path", () => {
    const fractional = expectDecodeError(err(decodeListPageEither({ results: [SUMMARY, { ...SUMMARY, createdAt: 1767323045.5 }] })))
    expect(fractional.path).toEqual(["results", 1, "createdAt"])
    for (const createdAt of [1e12, -1e12, 1e300]) {
      const error = expectDecodeError(err(decodeListPageEither({ results: [{ ...SUMMARY, createdAt }] })))
      expect(error.path).toEqual(["results", 0, "createdAt"])
      expect(error.value).toBe(createdAt)
      expect(expectDecodeError(err(decodeSummaryEither({ ...SUMMARY, createdAt }))).path).toEqual(["createdAt"])
    }
    // The edges of four-digit years: the first and last second read, one second past either refused.
    expect(ok(decodeSummaryEither({ ...SUMMARY, createdAt: -62_167_219_200 })).createdAt).toBe("0000-01-01T00:00:00.000Z")
    expect(ok(decodeSummaryEither({ ...SUMMARY, createdAt: 253_402_300_799 })).createdAt).toBe("9999-12-31T23:59:59.000Z")
    for (const createdAt of [-62_167_219_201, 253_402_300_800]) {
      expect(expectDecodeError(err(decodeSummaryEither({ ...SUMMARY, createdAt }))).value).toBe(createdAt)
    }
  })

  it("refuses a page without results", () => {
    const error = expectDecodeError(err(decodeListPageEither({ nextOffsetId: "scan_2" })))
    expect(error.path).toEqual(["results"])
  })
})

// --- 4. Encoding ---------------------------------------------------------------------------

const BASE: ScanInit = {
  source: { api: "platform", id: "scan_1" },
  status: "success",
  method: "stats",
  subject: SUBJECT,
  measurementsMm: { bustGirth: 862 }
}

const encoded = (over: Partial<ScanInit>) => ok(encodeEntryEither(scanOf({ ...BASE, ...over })))
const encodeError = (over: Partial<ScanInit>): EncodeError => {
  const error = err(encodeEntryEither(scanOf({ ...BASE, ...over })))
  expect(error).toBeInstanceOf(EncodeError)
  expect(error.format).toBe(FORMATS.entry)
  return error
}

describe("encoding", () => {
  it("writes the entry the REST API would have sent, with no notes", () => {
    expect(encoded({ externalId: "order-1234" })).toEqual({
      value: {
        id: "scan_1",
        status: "success",
        customScanId: "order-1234",
        input: { statsEstimations: STATS },
        measurements: [{ name: "bustGirth", unit: "mm", value: 862 }],
        avatar: null,
        bodyComposition: null,
        posture: null
      },
      notes: []
    })
  })

  it("writes the spec's photo entry back as it came", () => {
    const { notes, value } = ok(encodeEntryEither(ok(decodeEntryEither(PHOTO_ENTRY))))
    expect(notes).toEqual([])
    expect(value).toEqual({ ...PHOTO_ENTRY, error: undefined })
    expect("error" in value).toBe(false)
  })

  it("refuses a pending scan, naming status", () => {
    const error = encodeError({ source: { api: "session", id: "SSID" }, status: "pending" })
    expect(error.path).toEqual(["status"])
    expect(error.value).toBe("pending")
    expect(error.message).toMatch(/status/)
  })

  it.each(["age", "gender", "heightMm", "weightG"] as const)("refuses a subject without %s, naming it", (key) => {
    const error = encodeError({ subject: { ...SUBJECT, [key]: null } })
    expect(error.path).toEqual(["subject", key])
    expect(error.value).toBeNull()
  })

  it("refuses a platform scan without an id, an adjusted scan without its adjustment, and a customScanId over 512 characters", () => {
    expect(encodeError({ source: { api: "platform", id: null } }).path).toEqual(["source", "id"])
    expect(encodeError({ method: "adjusted" }).path).toEqual(["adjustment"])
    expect(encodeError({ externalId: "x".repeat(513) }).path).toEqual(["externalId"])
    expect(encoded({ externalId: "x".repeat(512) }).value.customScanId).toHaveLength(512)
  })

  it("refuses an integer past 2^53, which JSON cannot carry exactly, naming it", () => {
    const height = encodeError({ subject: { ...SUBJECT, heightMm: 2 ** 53 } })
    expect(height.path).toEqual(["subject", "heightMm"])
    expect(height.value).toBe(2 ** 53)
    expect(encodeError({ measurementsMm: { hipGirth: 1e300 } }).path).toEqual(["measurementsMm", "hipGirth"])
    expect(encoded({ measurementsMm: { hipGirth: Number.MAX_SAFE_INTEGER } }).notes).toEqual([])
  })

  it("drops a skeletal muscle mass, with a note", () => {
    const { notes, value } = encoded({ composition: { bodyFatPercent: 20, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: 31200 } })
    expect(value.bodyComposition).toEqual({ bodyFatPercentage: { unit: "percent", value: 20 } })
    expect(kindsAndPaths(notes)).toEqual([["dropped", "composition.skeletalMuscleMassG"]])
  })

  it("drops a vertices avatar, with a note, and writes avatar null", () => {
    const { notes, value } = encoded({ avatar: { format: "vertices", type: null, data: null, vertices: [0, 1, 2, 3, 4, 5] } })
    expect(value.avatar).toBeNull()
    expect(kindsAndPaths(notes)).toEqual([["dropped", "avatar"]])
    expect(notes[0]!.detail).toMatch(/6 coordinates/)
  })

  it("rounds fractional lengths and masses to the integers the platform writes, with a note each", () => {
    const { notes, value } = encoded({
      subject: { ...SUBJECT, heightMm: 1640.4, weightG: 54000.5 },
      measurementsMm: { hipGirth: 903.6, bustGirth: 862 },
      method: "adjusted",
      adjustment: { baseScanId: "scan_0", baseScanType: null, parameters: [], outputWeightG: 51300.5 }
    })
    expect(value.input).toEqual({ adjustedScan: { baseScanId: "scan_0", ...STATS, height: 1640, weight: 54001, parameters: [] } })
    expect(value.measurements).toEqual([
      { name: "bustGirth", unit: "mm", value: 862 },
      { name: "hipGirth", unit: "mm", value: 904 }
    ])
    expect(value.outputStats).toEqual({ weight: 51301 })
    expect(kindsAndPaths(notes)).toEqual([
      ["converted", "subject.heightMm"],
      ["converted", "subject.weightG"],
      ["converted", "measurementsMm.hipGirth"],
      ["converted", "adjustment.outputWeightG"]
    ])
    expect(noteAt(notes, "converted", "measurementsMm.hipGirth").detail).toMatch(/903\.6 mm rounded to 904 mm/)
  })

  it("derives an id for a scan from another API, with a note on source.id", () => {
    const session = encoded({ source: { api: "session", id: "SSID" } })
    expect(session.value.id).toBe("session:SSID")
    expect(kindsAndPaths(session.notes)).toEqual([["converted", "source.id"]])
    expect(encoded({ source: { api: "estimation", id: null } }).value.id).toBe("estimation:unknown")
  })

  it("writes a selfie scan as photoScan, with a note, and a scan without a method as statsEstimations, with a note", () => {
    const selfie = encoded({ method: "selfie" })
    expect(selfie.value.input).toEqual({ photoScan: { ...STATS, frontPhoto: null, rightPhoto: null } })
    expect(kindsAndPaths(selfie.notes)).toEqual([["converted", "method"]])

    const none = encoded({ method: null })
    expect(none.value.input).toEqual({ statsEstimations: STATS })
    expect(kindsAndPaths(none.notes)).toEqual([["assumed", "method"]])
  })

  it("drops what an entry has no place for, with a note each", () => {
    const { notes, value } = encoded({
      createdAt: "2026-01-02T03:04:05.000Z",
      expiresAt: "2026-01-03T03:04:05.000Z",
      adjustment: { baseScanId: "scan_0", baseScanType: "photo", parameters: [], outputWeightG: 1 },
      status: "failure",
      failure: { code: "306", category: "estimation", message: "no person" },
      notes: [{ kind: "assumed", path: "$", detail: "from the session API" }]
    })
    expect(value.error).toEqual({ code: "306", message: "no person" })
    expect(value.outputStats).toBeUndefined()
    expect(kindsAndPaths(notes)).toEqual([
      ["dropped", "createdAt"],
      ["dropped", "expiresAt"],
      ["dropped", "adjustment"],
      ["dropped", "failure.category"],
      ["dropped", "notes"]
    ])
  })

  it("writes measurements null on a failure without measurements, and [] on a success without", () => {
    const failure = encoded({ status: "failure", measurementsMm: {}, failure: { code: "rightPhotoFacingWrongDirection", category: "posing", message: null } })
    expect(failure.value.measurements).toBeNull()
    expect(failure.value.error).toEqual({ code: "rightPhotoFacingWrongDirection" })
    expect(failure.notes).toEqual([])
    expect(encoded({ measurementsMm: {} }).value.measurements).toEqual([])
  })

  it("writes posture angles in degrees, leaving out what the canonical scan does not know", () => {
    const { value } = encoded({
      method: "photo",
      posture: {
        front: { angles: { ...FRONT_ANGLES, foot: null }, lines: { ...FRONT_LINES, ear: null } },
        right: null
      }
    })
    expect(value.posture).toEqual({
      front: {
        angles: [
          { name: "ear", unit: "degrees", value: -1.2 },
          { name: "shoulder", unit: "degrees", value: 0.4 },
          { name: "topHip", unit: "degrees", value: 0.9 }
        ],
        lines: [
          { name: "shoulder", points: FRONT_LINES.shoulder },
          { name: "topHip", points: FRONT_LINES.topHip },
          { name: "foot", points: FRONT_LINES.foot }
        ]
      },
      right: null
    })
  })
})

// The fixtures above are typed loosely (as const); make sure they are what the wire schemas say.
describe("fixtures", () => {
  it.each<[string, Json]>([
    ["stats", STATS_ENTRY],
    ["photo", PHOTO_ENTRY],
    ["failed", FAILED_ENTRY],
    ["adjusted", ADJUSTED_ENTRY]
  ])("the %s entry is a Wire.Entry", (_, entry) => {
    expect(Either.isRight(Schema.decodeUnknownEither(Wire.Entry)(entry))).toBe(true)
  })

  it("the client-library entry is a Wire.ClientLibraryEntry and not a Wire.Entry", () => {
    expect(Either.isRight(Schema.decodeUnknownEither(Wire.ClientLibraryEntry)(CLIENT_PHOTO_ENTRY))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(Wire.Entry)(CLIENT_PHOTO_ENTRY))).toBe(true)
  })

  it("the summary is a Wire.Summary", () => {
    expect(Either.isRight(Schema.decodeUnknownEither(Wire.Summary)(SUMMARY))).toBe(true)
  })
})
