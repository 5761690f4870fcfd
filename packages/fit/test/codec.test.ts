import { isDecimal } from "../src/codec.js"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import {
  DecodeError,
  EncodeError,
  HUMAN_RANGES,
  LENGTH_UNITS_ACCEPTED,
  type MeasurementName,
  type Note,
  PROPORTIONS,
  type ProductId,
  type Proto3,
  Scan,
  type ScanInit,
  SizeDocument,
  makeScan
} from "@scanbridge/model"
import {
  FORMATS,
  type Recommended,
  type Rejected,
  type Supported,
  decodeCreateSessionResponseEither,
  decodeEstimationResultEither,
  decodeRecommendedSizeResponseEither,
  decodeSizeFittingEither,
  decodeSizeRecommendationsEither,
  encodeEstimationResultEither
} from "../src/codec.js"
import { fitAdapter } from "../src/adapter.js"
import { fitDialect, fittingPointDisplayName } from "../src/dialect.js"
import * as Wire from "../src/wire.js"

// --- Helpers ------------------------------------------------------------------------------

const ok = <A, E>(result: Either.Either<A, E>): A => Either.getOrThrowWith(result, (e) => (e instanceof Error ? e : new Error(`unexpected Left: ${String(e)}`)))

const err = <A, E>(result: Either.Either<A, E>): E => Either.getOrThrowWith(Either.flip(result), (a) => new Error(`expected a Left, got ${JSON.stringify(a)}`))

const scanOf = (init: ScanInit): Scan => ok(makeScan(init))

const noteAt = (notes: ReadonlyArray<Note>, kind: Note["kind"], path: string): Note => {
  const found = notes.filter((n) => n.kind === kind && n.path === path)
  if (found.length !== 1) throw new Error(`expected one ${kind} note at ${path}, found ${found.length} among ${JSON.stringify(notes)}`)
  return found[0]!
}

const kindsAndPaths = (notes: ReadonlyArray<Note>) => notes.map((n) => [n.kind, n.path] as const)

const validateSize = Schema.decodeUnknownSync(SizeDocument, { onExcessProperty: "error" })
const validateEstimation = Schema.decodeUnknownSync(Wire.EstimationResult, { onExcessProperty: "error" })

/** Checks a decoded document against the canonical schema and returns it. */
const checked = (document: SizeDocument): SizeDocument => {
  expect(() => validateSize(document)).not.toThrow()
  return document
}

type Obj = Record<string, unknown>

const MM = "MILLIMETERS"
const FIT_LENGTHS = fitDialect.measurementList.map(({ name, spelling }) => ({ name, fit: spelling.name }))
const FIT_STATS = fitDialect.statList.map((s) => ({ fit: s.spelling }))
/** The unit spec 03 gives an estimationType: the dialect's for stats, millimetres for lengths. */
const unitOf = (type: string): string => fitDialect.statBySpelling(type)?.spelling.unit ?? (fitDialect.measurementBySpelling(type) !== undefined ? MM : "?")

const estimation = (estimations: Obj): Obj => ({ estimations })
const withItems = (...measurements: ReadonlyArray<Obj>): Obj => estimation({ estimationToken: { token: "tok-1" }, measurements })
const item = (estimationType: string, value: string | number, unit: string = unitOf(estimationType)): Obj => ({ estimationType, value, unit })

const decode = (json: unknown): Scan => ok(decodeEstimationResultEither(json))

const decodeError = (json: unknown): DecodeError => {
  const e = err(decodeEstimationResultEither(json))
  expect(e).toBeInstanceOf(DecodeError)
  expect(e.format).toBe(FORMATS.estimationResult)
  return e
}

const itemPath = (i: number, ...rest: ReadonlyArray<string>) => ["estimations", "measurements", i, ...rest]

/** A length of a 1640 mm body, in whole millimetres: its typical share of that stature. */
const bodyMm = (name: MeasurementName): number => Math.round(PROPORTIONS[name] * 1640)

// --- Fixtures -------------------------------------------------------------------------------

const SPEC_ESTIMATION = {
  estimations: {
    estimationToken: { token: "tok-123" },
    measurements: [
      { estimationType: "AGE", value: "29", unit: "YEARS" },
      { estimationType: "GENDER", value: "2", unit: "GENDER" },
      { estimationType: "WEIGHT", value: "54000", unit: "GRAMS" },
      { estimationType: "HEIGHT", value: "1640", unit: MM },
      { estimationType: "BUST_GIRTH", value: "862", unit: MM },
      { estimationType: "WAIST_GIRTH", value: 701, unit: MM },
      { estimationType: "HIP_GIRTH", value: "903", unit: MM }
    ],
    avatarData: null,
    input: { preferredSystemOfMeasurement: "METRIC", tightness: 0, inputType: "CAMERA_FLOW" }
  }
}

const SPEC_BASE = { source: { api: "fit", id: "tok-123" }, status: "success", method: "photo" } as const
const SPEC_SUBJECT = { age: 29, gender: "female", heightMm: 1640, weightG: 54000 } as const
const SPEC_MEASUREMENTS = { bustGirth: 862, waistGirth: 701, hipGirth: 903 }

// --- decodeEstimationResultEither -----------------------------------------------------------

describe("decodeEstimationResultEither", () => {
  it("reads the spec's example to the canonical scan, with one dropped note for the request preferences", () => {
    const scan = decode(SPEC_ESTIMATION)
    expect({ ...scan, notes: [] }).toEqual(scanOf({ ...SPEC_BASE, subject: SPEC_SUBJECT, measurementsMm: SPEC_MEASUREMENTS }))
    expect(kindsAndPaths(scan.notes)).toEqual([["dropped", "estimations.input"]])
    expect(scan.notes[0]!.detail).toContain("preferredSystemOfMeasurement METRIC")
    expect(scan.notes[0]!.detail).toContain("tightness 0")
    expect(() => Schema.decodeUnknownSync(Scan)(scan)).not.toThrow()
  })

  it("reads a JSON text round trip of the example to the same scan", () => {
    expect(decode(JSON.parse(JSON.stringify(SPEC_ESTIMATION)))).toEqual(decode(SPEC_ESTIMATION))
  })

  it("takes the estimation token as the source id; an empty or missing token is null", () => {
    expect(decode(withItems()).source).toEqual({ api: "fit", id: "tok-1" })
    expect(decode(estimation({ estimationToken: { token: "" } })).source).toEqual({ api: "fit", id: null })
    expect(decode(estimation({ estimationToken: {} })).source).toEqual({ api: "fit", id: null })
    expect(decode(estimation({})).source).toEqual({ api: "fit", id: null })
    expect(decode(estimation({ estimationToken: null })).source).toEqual({ api: "fit", id: null })
  })

  it("is always a success with no failure, time or external id", () => {
    const scan = decode(estimation({}))
    expect(scan.status).toBe("success")
    expect(scan.failure).toBeNull()
    expect(scan.createdAt).toBeNull()
    expect(scan.expiresAt).toBeNull()
    expect(scan.externalId).toBeNull()
    expect(scan.composition).toBeNull()
    expect(scan.posture).toBeNull()
    expect(scan.adjustment).toBeNull()
    expect(scan.notes).toEqual([])
  })

  it("knows the 33 fit measurement types and reads each to its canonical name", () => {
    expect(FIT_LENGTHS).toHaveLength(33)
    // One body's lengths (1640 mm tall), so that the judgement of the lengths has nothing to say.
    const items = FIT_LENGTHS.map((e) => item(e.fit!, String(bodyMm(e.name))))
    const scan = decode(withItems(...items))
    const expected = Object.fromEntries(FIT_LENGTHS.map((e) => [e.name, bodyMm(e.name)]))
    expect(scan.measurementsMm).toEqual(expected)
    expect(scan.notes).toEqual([])
  })

  it.each(FIT_LENGTHS.map((e) => [e.fit!, e.name] as const))("reads %s to measurementsMm.%s", (type, name) => {
    const scan = decode(withItems(item(type, String(bodyMm(name)), MM)))
    expect(scan.measurementsMm).toEqual({ [name]: bodyMm(name) })
    expect(scan.notes).toEqual([])
    expect(scan.subject).toEqual({ age: null, gender: null, heightMm: null, weightG: null })
  })

  it("has fit units MILLIMETERS, GRAMS, YEARS and GENDER for the stats, as spec 03 gives them", () => {
    expect(Object.fromEntries(FIT_STATS.map((s) => [s.fit!.name, s.fit!.unit]))).toEqual({
      AGE: "YEARS",
      GENDER: "GENDER",
      WEIGHT: "GRAMS",
      HEIGHT: MM
    })
  })

  it.each([
    ["AGE", "41", { age: 41 }],
    ["GENDER", "1", { gender: "male" }],
    ["GENDER", "2", { gender: "female" }],
    ["WEIGHT", "72000", { weightG: 72000 }],
    ["HEIGHT", "1800", { heightMm: 1800 }]
  ] as const)("reads %s %s into the subject, in the catalogue's unit", (type, value, subject) => {
    const unit = fitDialect.statBySpelling(type)!.spelling.unit
    const scan = decode(withItems(item(type, value, unit)))
    expect(scan.subject).toEqual({ age: null, gender: null, heightMm: null, weightG: null, ...subject })
    expect(scan.measurementsMm).toEqual({})
    expect(scan.notes).toEqual([])
  })

  it.each(["0", "3", "-1", "1.5"])("refuses GENDER %s, naming the item's value", (value) => {
    const e = decodeError(withItems(item("HEIGHT", "1700"), item("GENDER", value)))
    expect(e.path).toEqual(itemPath(1, "value"))
    expect(e.value).toBe(value)
  })

  // HEIGHT in CENTIMETERS and HIP_GIRTH in millimeters were refused: another spelling of a length
  // unit is now honoured (see "lengths and their units" below).
  it.each([
    ["AGE", "MILLIMETERS"],
    ["GENDER", "YEARS"],
    ["WEIGHT", "KILOGRAMS"],
    ["HEIGHT", "GRAMS"],
    ["HIP_GIRTH", "GRAMS"],
    ["HIP_GIRTH", "furlongs"]
  ])("refuses %s in %s, at the item's unit", (type, unit) => {
    const e = decodeError(withItems(item("BUST_GIRTH", "900"), item(type, "100", unit)))
    expect(e.path).toEqual(itemPath(1, "unit"))
    expect(e.value).toBe(unit)
  })

  it("reads an item without a unit in the unit spec 03 gives it, with an assumed note", () => {
    const scan = decode(withItems({ estimationType: "HIP_GIRTH", value: "903" }, { estimationType: "WEIGHT", value: "54000", unit: "" }))
    expect(scan.measurementsMm).toEqual({ hipGirth: 903 })
    expect(scan.subject.weightG).toBe(54000)
    expect(kindsAndPaths(scan.notes)).toEqual([
      ["assumed", "estimations.measurements[0].unit"],
      ["assumed", "estimations.measurements[1].unit"]
    ])
    expect(scan.notes[0]!.detail).toContain(MM)
    expect(scan.notes[1]!.detail).toContain("GRAMS")
  })

  it("drops an unknown estimationType with a note, suggesting the fit name it probably means", () => {
    const scan = decode(withItems(item("HIP_GIRTH", "903"), { estimationType: "waist_girth", value: "700", unit: MM }))
    expect(scan.measurementsMm).toEqual({ hipGirth: 903 })
    const note = noteAt(scan.notes, "dropped", "estimations.measurements[1]")
    expect(note.detail).toContain("waist_girth")
    expect(note.detail).toContain("did you mean WAIST_GIRTH")
    expect(scan.notes).toHaveLength(1)
  })

  it("drops an unknown estimationType it cannot place, without a suggestion", () => {
    const scan = decode(withItems({ estimationType: "SHOE_SIZE", value: "42", unit: "EU" }))
    expect(scan.measurementsMm).toEqual({})
    const note = noteAt(scan.notes, "dropped", "estimations.measurements[0]")
    expect(note.detail).toContain("SHOE_SIZE")
    expect(note.detail).not.toContain("did you mean")
  })

  it("keeps the first of two items of one type and drops the second with a note", () => {
    const scan = decode(withItems(item("HIP_GIRTH", "903"), item("AGE", "30"), item("HIP_GIRTH", "950"), item("AGE", "31")))
    expect(scan.measurementsMm).toEqual({ hipGirth: 903 })
    expect(scan.subject.age).toBe(30)
    expect(kindsAndPaths(scan.notes)).toEqual([
      ["dropped", "estimations.measurements[2]"],
      ["dropped", "estimations.measurements[3]"]
    ])
  })

  it("reads values given as strings or numbers alike", () => {
    expect(decode(withItems(item("HIP_GIRTH", 903), item("AGE", 29)))).toEqual(decode(withItems(item("HIP_GIRTH", "903"), item("AGE", "29"))))
    expect(decode(withItems(item("HIP_GIRTH", "903.5"))).measurementsMm).toEqual({ hipGirth: 903.5 })
  })

  it.each(["12a", "", "abc", "1,5", " 12"])("refuses the value %j, naming the item's value", (value) => {
    const e = decodeError(withItems(item("HIP_GIRTH", "903"), item("WAIST_GIRTH", value)))
    expect(e.path).toEqual(itemPath(1, "value"))
    expect(e.value).toBe(value)
  })

  it("refuses an item without a value", () => {
    const e = decodeError(withItems({ estimationType: "HIP_GIRTH", unit: MM }))
    expect(e.path).toEqual(itemPath(0, "value"))
  })

  it.each([
    ["HIP_GIRTH", "-5"],
    ["HIP_GIRTH", -5],
    ["WEIGHT", "-1"],
    ["HEIGHT", -0.5],
    ["AGE", "-3"]
  ] as const)("refuses a negative %s %j", (type, value) => {
    const e = decodeError(withItems(item(type, value)))
    expect(e.path).toEqual(itemPath(0, "value"))
    expect(e.value).toBe(value)
  })

  it.each([
    ["CAMERA_FLOW", "photo"],
    ["SELFIE_FLOW", "selfie"],
    ["MANUAL_STATS", "stats"]
  ] as const)("reads inputType %s as method %s, with no note", (inputType, method) => {
    const scan = decode(estimation({ input: { inputType } }))
    expect(scan.method).toBe(method)
    expect(scan.notes).toEqual([])
  })

  it("reads INPUT_TYPE_UNSPECIFIED as a selfie, with an assumed note", () => {
    const scan = decode(estimation({ input: { inputType: "INPUT_TYPE_UNSPECIFIED" } }))
    expect(scan.method).toBe("selfie")
    expect(kindsAndPaths(scan.notes)).toEqual([["assumed", "estimations.input.inputType"]])
  })

  it.each(["VIDEO_FLOW", "camera_flow", "toString", "__proto__"])("reads the unknown inputType %s as no method, with a dropped note", (inputType) => {
    const scan = decode(estimation({ input: { inputType } }))
    expect(scan.method).toBeNull()
    expect(kindsAndPaths(scan.notes)).toEqual([["dropped", "estimations.input.inputType"]])
  })

  it("reads a missing inputType or input as no method, with no note", () => {
    expect(decode(estimation({ input: {} }))).toEqual(scanOf({ source: { api: "fit", id: null }, status: "success" }))
    expect(decode(estimation({})).method).toBeNull()
  })

  it("drops the request preferences with one note at estimations.input", () => {
    const both = decode(estimation({ input: { preferredSystemOfMeasurement: "IMPERIAL", tightness: 1.5, inputType: "SELFIE_FLOW" } }))
    expect(kindsAndPaths(both.notes)).toEqual([["dropped", "estimations.input"]])
    expect(both.notes[0]!.detail).toContain("IMPERIAL")
    expect(both.notes[0]!.detail).toContain("1.5")
    const onlyTightness = decode(estimation({ input: { tightness: 0 } }))
    expect(kindsAndPaths(onlyTightness.notes)).toEqual([["dropped", "estimations.input"]])
    const onlySystem = decode(estimation({ input: { preferredSystemOfMeasurement: "METRIC" } }))
    expect(kindsAndPaths(onlySystem.notes)).toEqual([["dropped", "estimations.input"]])
  })

  it("reads a null avatarData as no avatar, with no note", () => {
    const scan = decode(estimation({ avatarData: null }))
    expect(scan.avatar).toBeNull()
    expect(scan.notes).toEqual([])
  })

  it("reads a list of 3k finite numbers as a vertices avatar, with an assumed note", () => {
    const vertices = [0, 1, 2, 3.5, -4, 5e-3]
    const scan = decode(estimation({ avatarData: vertices }))
    expect(scan.avatar).toEqual({ format: "vertices", type: null, data: null, vertices })
    expect(kindsAndPaths(scan.notes)).toEqual([["assumed", "estimations.avatarData"]])
  })

  it.each([
    ["a list of 4 numbers", [1, 2, 3, 4]],
    ["a list with a string", [1, "2", 3]],
    ["a list with a null", [1, null, 3]],
    ["a string", "Z2xURgIAAAA="],
    ["an object", { format: "glb", data: "Z2xURgIAAAA=" }],
    ["a number", 3],
    ["a boolean", true]
  ])("drops avatarData that is %s, with a note", (_, avatarData) => {
    const scan = decode(estimation({ avatarData }))
    expect(scan.avatar).toBeNull()
    expect(kindsAndPaths(scan.notes)).toEqual([["dropped", "estimations.avatarData"]])
  })

  it("reads the snake_case keys with aliased notes at the camelCase paths, naming the snake key", () => {
    const scan = decode({
      estimations: {
        estimation_token: { token: "tok-9" },
        measurements: [{ estimation_type: "HIP_GIRTH", value: "903", unit: MM }],
        avatar_data: [0, 0, 0],
        input: { input_type: "MANUAL_STATS" }
      }
    })
    expect(scan.source).toEqual({ api: "fit", id: "tok-9" })
    expect(scan.measurementsMm).toEqual({ hipGirth: 903 })
    expect(scan.method).toBe("stats")
    expect(scan.avatar).toEqual({ format: "vertices", type: null, data: null, vertices: [0, 0, 0] })
    const aliased = scan.notes.filter((n) => n.kind === "aliased")
    expect(aliased.map((n) => n.path).sort()).toEqual(
      ["estimations.avatarData", "estimations.estimationToken", "estimations.input.inputType", "estimations.measurements[0].estimationType"].sort()
    )
    expect(noteAt(scan.notes, "aliased", "estimations.estimationToken").detail).toContain("estimation_token")
    expect(noteAt(scan.notes, "aliased", "estimations.measurements[0].estimationType").detail).toContain("estimation_type")
    expect(noteAt(scan.notes, "aliased", "estimations.avatarData").detail).toContain("avatar_data")
    expect(noteAt(scan.notes, "aliased", "estimations.input.inputType").detail).toContain("input_type")
    expect(scan.notes.filter((n) => n.kind !== "aliased").map((n) => [n.kind, n.path])).toEqual([["assumed", "estimations.avatarData"]])
  })

  it("reads the snake_case spelling of the example to the camelCase one, apart from the aliased notes", () => {
    const snake = {
      estimations: {
        estimation_token: SPEC_ESTIMATION.estimations.estimationToken,
        measurements: SPEC_ESTIMATION.estimations.measurements.map((m) => ({ estimation_type: m.estimationType, value: m.value, unit: m.unit })),
        avatar_data: null,
        input: { preferred_system_of_measurement: "METRIC", tightness: 0, input_type: "CAMERA_FLOW" }
      }
    }
    const scan = decode(snake)
    expect({ ...scan, notes: scan.notes.filter((n) => n.kind !== "aliased") }).toEqual(decode(SPEC_ESTIMATION))
    expect(scan.notes.filter((n) => n.kind === "aliased")).toHaveLength(4 + SPEC_ESTIMATION.estimations.measurements.length)
  })

  it("drops a key it does not know, with a note", () => {
    const scan = decode(estimation({ estimationToken: { token: "t" }, bodyShape: "pear" }))
    expect(kindsAndPaths(scan.notes)).toEqual([["dropped", "estimations.bodyShape"]])
  })

  it.each([
    ["no estimations", {}],
    ["estimations not an object", { estimations: [] }],
    ["measurements not a list", { estimations: { measurements: {} } }],
    ["a null item", { estimations: { measurements: [null] } }],
    ["a number", 42],
    ["null", null]
  ])("refuses %s with a DecodeError", (_, json) => {
    decodeError(json)
  })
})

// --- encodeEstimationResultEither -----------------------------------------------------------

const SPEC_SCAN = scanOf({ ...SPEC_BASE, subject: SPEC_SUBJECT, measurementsMm: SPEC_MEASUREMENTS })

const encode = (scan: Scan) => ok(encodeEstimationResultEither(scan))
const itemsOf = (json: ReturnType<typeof encode>["value"]) => json.estimations.measurements!
const byType = (json: ReturnType<typeof encode>["value"]) => Object.fromEntries(itemsOf(json).map((i) => [i.estimationType, i]))

describe("encodeEstimationResultEither", () => {
  it("writes the example's scan as the client library's result, camelCase, with no note", () => {
    const encoded = encode(SPEC_SCAN)
    expect(encoded.notes).toEqual([])
    expect(() => validateEstimation(encoded.value)).not.toThrow()
    const { measurements, ...rest } = encoded.value.estimations
    expect(rest).toEqual({
      estimationToken: { token: "tok-123" },
      avatarData: null,
      input: { preferredSystemOfMeasurement: "METRIC", tightness: 0, inputType: "CAMERA_FLOW" }
    })
    expect(Object.keys(encoded.value)).toEqual(["estimations"])
    expect(measurements).toHaveLength(7)
    expect(byType(encoded.value)).toEqual(
      Object.fromEntries(SPEC_ESTIMATION.estimations.measurements.map((m) => [m.estimationType, { ...m, value: String(m.value) }]))
    )
  })

  it("writes every value as a string and every unit as the catalogue gives it", () => {
    const all = scanOf({
      ...SPEC_BASE,
      subject: { age: 40, gender: "male", heightMm: 1800, weightG: 80000 },
      measurementsMm: Object.fromEntries(FIT_LENGTHS.map((e, i) => [e.name, 500 + i]))
    })
    const encoded = encode(all)
    expect(encoded.notes).toEqual([])
    const items = itemsOf(encoded.value)
    expect(items).toHaveLength(37)
    expect(new Set(items.map((i) => i.estimationType)).size).toBe(37)
    for (const i of items) {
      expect(typeof i.value).toBe("string")
      expect(Object.keys(i).sort()).toEqual(["estimationType", "unit", "value"])
      const stat = fitDialect.statBySpelling(i.estimationType!)
      expect(i.unit, i.estimationType).toBe(stat !== undefined ? stat.spelling.unit : MM)
    }
    expect(byType(encoded.value)["GENDER"]).toEqual({ estimationType: "GENDER", value: "1", unit: "GENDER" })
    expect(byType(encoded.value)["AGE"]).toEqual({ estimationType: "AGE", value: "40", unit: "YEARS" })
    expect(byType(encoded.value)["WEIGHT"]).toEqual({ estimationType: "WEIGHT", value: "80000", unit: "GRAMS" })
    expect(byType(encoded.value)["HEIGHT"]).toEqual({ estimationType: "HEIGHT", value: "1800", unit: MM })
    for (const [e, i] of FIT_LENGTHS.map((e, i) => [e, i] as const)) {
      expect(byType(encoded.value)[e.fit!]).toEqual({ estimationType: e.fit, value: String(500 + i), unit: MM })
    }
    expect(() => validateEstimation(encoded.value)).not.toThrow()
  })

  it("leaves out what the scan does not have", () => {
    const encoded = encode(scanOf({ ...SPEC_BASE }))
    expect(itemsOf(encoded.value)).toEqual([])
    expect(encoded.notes).toEqual([])
  })

  it.each([
    ["session", "ssid-1", "session:ssid-1"],
    ["platform", "scan_x", "platform:scan_x"],
    ["estimation", "est-7", "estimation:est-7"]
  ] as const)("derives the token of a %s scan as <api>:<id>, with a converted note", (api, id, token) => {
    const encoded = encode(scanOf({ ...SPEC_BASE, source: { api, id } }))
    expect(encoded.value.estimations.estimationToken).toEqual({ token })
    expect(kindsAndPaths(encoded.notes)).toEqual([["converted", "source.id"]])
  })

  it("refuses a fit scan without its estimation token", () => {
    const e = err(encodeEstimationResultEither(scanOf({ ...SPEC_BASE, source: { api: "fit", id: null } })))
    expect(e).toBeInstanceOf(EncodeError)
    expect(e.format).toBe(FORMATS.estimationResult)
    expect(e.path).toEqual(["source", "id"])
    expect(e.value).toBeNull()
  })

  it.each([
    ["photo", "CAMERA_FLOW"],
    ["selfie", "SELFIE_FLOW"],
    ["stats", "MANUAL_STATS"]
  ] as const)("writes method %s as inputType %s, with no note", (method, inputType) => {
    const encoded = encode(scanOf({ ...SPEC_BASE, method }))
    expect(encoded.value.estimations.input!.inputType).toBe(inputType)
    expect(encoded.notes).toEqual([])
  })

  it("writes an adjusted scan as MANUAL_STATS, with a converted note", () => {
    const encoded = encode(scanOf({ ...SPEC_BASE, method: "adjusted" }))
    expect(encoded.value.estimations.input!.inputType).toBe("MANUAL_STATS")
    expect(kindsAndPaths(encoded.notes)).toEqual([["converted", "method"]])
  })

  it("writes no method as INPUT_TYPE_UNSPECIFIED, with an assumed note", () => {
    const encoded = encode(scanOf({ ...SPEC_BASE, method: null }))
    expect(encoded.value.estimations.input!.inputType).toBe("INPUT_TYPE_UNSPECIFIED")
    expect(kindsAndPaths(encoded.notes)).toEqual([["assumed", "method"]])
  })

  it.each([
    ["pending", scanOf({ source: { api: "fit", id: "t" }, status: "pending" })],
    ["failure", scanOf({ source: { api: "fit", id: "t" }, status: "failure", failure: { code: "X", category: "unknown", message: null } })]
  ])("refuses a %s scan with an EncodeError at status", (status, scan) => {
    const e = err(encodeEstimationResultEither(scan))
    expect(e).toBeInstanceOf(EncodeError)
    expect(e.path).toEqual(["status"])
    expect(e.value).toBe(status)
  })

  it("drops what the fit estimation cannot hold, each with a note", () => {
    const scan = scanOf({
      ...SPEC_BASE,
      createdAt: "2026-01-02T03:04:05.000Z",
      externalId: "order-1",
      measurementsMm: { hipGirth: 903, bellyWaistDepth: 250, bellyWaistWidth: 320 },
      composition: { bodyFatPercent: 24.1, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: null },
      posture: { front: null, right: null },
      avatar: { format: "vertices", type: null, data: null, vertices: [0, 1, 2] },
      adjustment: { baseScanId: "scan_x", baseScanType: "photo", parameters: [{ name: "weight", percentage: -5 }], outputWeightG: null },
      notes: [{ kind: "assumed", path: "$", detail: "an earlier note" }]
    })
    const encoded = encode(scan)
    expect(encoded.notes.every((n) => n.kind === "dropped")).toBe(true)
    expect(encoded.notes.map((n) => n.path).sort()).toEqual(
      [
        "measurementsMm.bellyWaistDepth",
        "measurementsMm.bellyWaistWidth",
        "composition",
        "posture",
        "avatar",
        "adjustment",
        "createdAt",
        "externalId",
        "notes"
      ].sort()
    )
    expect(itemsOf(encoded.value)).toEqual([{ estimationType: "HIP_GIRTH", value: "903", unit: MM }])
    expect(encoded.value.estimations.avatarData).toBeNull()
    expect(() => validateEstimation(encoded.value)).not.toThrow()
  })

  it("rounds fractional values half away from zero, with converted notes", () => {
    const scan = scanOf({ ...SPEC_BASE, subject: { heightMm: 1640.5, weightG: 54000.4 }, measurementsMm: { hipGirth: 902.5, waistGirth: 700.49 } })
    const encoded = encode(scan)
    expect(byType(encoded.value)).toEqual({
      HEIGHT: { estimationType: "HEIGHT", value: "1641", unit: MM },
      WEIGHT: { estimationType: "WEIGHT", value: "54000", unit: "GRAMS" },
      HIP_GIRTH: { estimationType: "HIP_GIRTH", value: "903", unit: MM },
      WAIST_GIRTH: { estimationType: "WAIST_GIRTH", value: "700", unit: MM }
    })
    expect(encoded.notes.every((n) => n.kind === "converted")).toBe(true)
    expect(encoded.notes.map((n) => n.path).sort()).toEqual(["measurementsMm.hipGirth", "measurementsMm.waistGirth", "subject.heightMm", "subject.weightG"])
  })

  it.each([2 ** 53, 1e21, 1.7e308])("refuses a length of %d, past the exact integers", (hipGirth) => {
    const e = err(encodeEstimationResultEither(scanOf({ ...SPEC_BASE, measurementsMm: { hipGirth } })))
    expect(e).toBeInstanceOf(EncodeError)
    expect(e.path).toEqual(["measurementsMm", "hipGirth"])
  })
})

// --- decodeCreateSessionResponseEither ------------------------------------------------------

const PRODUCT: ProductId = { brandId: "brand-1", garmentSku: "SKU-1" }
const PRODUCT_2: ProductId = { brandId: "brand-1", garmentSku: "SKU-2" }

const createSession = (json: unknown) => ok(decodeCreateSessionResponseEither(json))
const support = (supported: unknown): Obj => ({ support: { productId: PRODUCT, supported, sessionId: "sess-1" } })

const asSupport = (o: Supported | Rejected): Supported => {
  if (o._tag !== "Support") throw new Error(`expected Support, got ${JSON.stringify(o)}`)
  return o
}
const asRejected = (o: Supported | Rejected | Recommended): Rejected => {
  if (o._tag !== "Rejected") throw new Error(`expected Rejected, got ${JSON.stringify(o)}`)
  return o
}

describe("decodeCreateSessionResponseEither", () => {
  it("reads a support answer", () => {
    expect(createSession(support("SUPPORTED"))).toEqual({
      _tag: "Support",
      status: "SUPPORTED",
      supported: true,
      sessionId: "sess-1",
      product: PRODUCT,
      notes: []
    })
  })

  it.each([
    ["SUPPORTED", "SUPPORTED", true],
    [2, "SUPPORTED", true],
    ["UNSUPPORTED", "UNSUPPORTED", false],
    [1, "UNSUPPORTED", false],
    ["SUPPORT_STATUS_UNSPECIFIED", "SUPPORT_STATUS_UNSPECIFIED", false],
    [0, "SUPPORT_STATUS_UNSPECIFIED", false]
  ] as const)("reads supported %j as %s (supported: %s), with no note", (wire, status, supported) => {
    const s = asSupport(createSession(support(wire)))
    expect(s.status).toBe(status)
    expect(s.supported).toBe(supported)
    expect(s.notes).toEqual([])
  })

  it("reads a missing status as SUPPORT_STATUS_UNSPECIFIED, proto3's default", () => {
    const s = asSupport(createSession({ support: { sessionId: "s" } }))
    expect(s.status).toBe("SUPPORT_STATUS_UNSPECIFIED")
    expect(s.supported).toBe(false)
    expect(s.product).toBeNull()
  })

  it.each([["MAYBE"], [7], ["supported"]])("reads the unknown status %j as SUPPORT_STATUS_UNSPECIFIED, with an assumed note", (wire) => {
    const s = asSupport(createSession(support(wire)))
    expect(s.status).toBe("SUPPORT_STATUS_UNSPECIFIED")
    expect(s.supported).toBe(false)
    expect(kindsAndPaths(s.notes)).toEqual([["assumed", "support.supported"]])
  })

  it("reads an empty or missing session id as null", () => {
    expect(asSupport(createSession({ support: { supported: "SUPPORTED", sessionId: "" } })).sessionId).toBeNull()
    expect(asSupport(createSession({ support: { supported: "SUPPORTED" } })).sessionId).toBeNull()
  })

  it.each(Object.entries(Wire.CREATE_SESSION_ERROR_TYPE.numbers).flatMap(([name, n]) => [[name, name] as const, [n!, name] as const]))(
    "reads errorType %j as %s",
    (wire, name) => {
      const r = asRejected(createSession({ error: { errorType: wire, message: "no" } }))
      expect(r).toEqual({ _tag: "Rejected", errorType: name, wireValue: name, message: "no", notes: [] })
    }
  )

  it("has the documented CreateSession error numbers", () => {
    expect(Wire.CREATE_SESSION_ERROR_TYPE.numbers).toEqual({
      ERROR_TYPE_UNSPECIFIED: 0,
      INTERNAL_ERROR: 1,
      INVALID_CLIENT_KEY: 2,
      INVALID_PRODUCT_ID: 3,
      MALFORMED_REQUEST: 4
    })
    expect(asRejected(createSession({ error: { errorType: 2 } })).errorType).toBe("INVALID_CLIENT_KEY")
  })

  it.each([
    ["TEAPOT", "TEAPOT"],
    ["PRODUCT_NOT_FOUND", "PRODUCT_NOT_FOUND"], // a GetRecommendedSize name, not a CreateSession one
    [5, 5],
    [99, 99]
  ] as const)("reads the unknown errorType %j as ERROR_TYPE_UNSPECIFIED, keeping the wire value, with an assumed note", (wire, kept) => {
    const r = asRejected(createSession({ error: { errorType: wire, message: "m" } }))
    expect(r.errorType).toBe("ERROR_TYPE_UNSPECIFIED")
    expect(r.wireValue).toBe(kept)
    expect(kindsAndPaths(r.notes)).toEqual([["assumed", "error.errorType"]])
  })

  it("reads an error without a type or message as ERROR_TYPE_UNSPECIFIED with no message", () => {
    expect(createSession({ error: {} })).toEqual({
      _tag: "Rejected",
      errorType: "ERROR_TYPE_UNSPECIFIED",
      wireValue: "ERROR_TYPE_UNSPECIFIED",
      message: null,
      notes: []
    })
  })

  it("reads error_type with an aliased note", () => {
    const r = asRejected(createSession({ error: { error_type: "INVALID_CLIENT_KEY", message: "bad key" } }))
    expect(r.errorType).toBe("INVALID_CLIENT_KEY")
    expect(r.message).toBe("bad key")
    expect(kindsAndPaths(r.notes)).toEqual([["aliased", "error.errorType"]])
    expect(r.notes[0]!.detail).toContain("error_type")
  })

  it.each([
    ["neither", {}],
    ["neither (both null)", { support: null, error: null }],
    ["both", { ...support("SUPPORTED"), error: { errorType: "INTERNAL_ERROR" } }],
    ["not an object", []]
  ])("refuses %s of support and error with a DecodeError", (_, json) => {
    const e = err(decodeCreateSessionResponseEither(json))
    expect(e).toBeInstanceOf(DecodeError)
    expect(e.format).toBe(FORMATS.createSession)
  })
})

// --- decodeRecommendedSizeResponseEither -----------------------------------------------------

const recommended = (json: unknown, context?: Parameters<typeof decodeRecommendedSizeResponseEither>[1]) =>
  ok(decodeRecommendedSizeResponseEither(json, context))

const asRecommended = (o: Recommended | Rejected): Recommended => {
  if (o._tag !== "Recommended") throw new Error(`expected Recommended, got ${JSON.stringify(o)}`)
  return o
}

describe("decodeRecommendedSizeResponseEither", () => {
  it("reads a recommendation as a scanbridge.size/v1 document with the request's token and product", () => {
    const r = asRecommended(recommended({ recommendation: { recommendedSize: "M" } }, { estimationToken: "tok-1", product: PRODUCT }))
    expect(checked(r.document)).toEqual({
      format: "scanbridge.size/v1",
      source: { api: "fit", estimationToken: "tok-1" },
      product: PRODUCT,
      recommendedSize: "M",
      sizes: [],
      notes: []
    })
  })

  it("leaves the token and product null without a context", () => {
    const r = asRecommended(recommended({ recommendation: { recommendedSize: "XXS" } }))
    expect(checked(r.document)).toEqual({
      format: "scanbridge.size/v1",
      source: { api: "fit", estimationToken: null },
      product: null,
      recommendedSize: "XXS",
      sizes: [],
      notes: []
    })
  })

  it("reads recommended_size with an aliased note", () => {
    const r = asRecommended(recommended({ recommendation: { recommended_size: "L" } }, { estimationToken: "tok-1", product: PRODUCT }))
    const doc = checked(r.document)
    expect(doc.recommendedSize).toBe("L")
    expect(kindsAndPaths(doc.notes)).toEqual([["aliased", "recommendation.recommendedSize"]])
    expect(doc.notes[0]!.detail).toContain("recommended_size")
  })

  it.each([
    ["an empty size", { recommendation: { recommendedSize: "" } }, ["recommendation", "recommendedSize"]],
    ["an empty recommended_size", { recommendation: { recommended_size: "" } }, ["recommendation", "recommended_size"]],
    ["no size", { recommendation: {} }, ["recommendation", "recommendedSize"]]
  ])("refuses %s with a DecodeError at the size", (_, json, path) => {
    const e = err(decodeRecommendedSizeResponseEither(json))
    expect(e).toBeInstanceOf(DecodeError)
    expect(e.format).toBe(FORMATS.recommendedSize)
    expect(e.path).toEqual(path)
  })

  it.each(Object.entries(Wire.RECOMMENDED_SIZE_ERROR_TYPE.numbers).flatMap(([name, n]) => [[name, name] as const, [n!, name] as const]))(
    "reads errorType %j as %s",
    (wire, name) => {
      const r = asRejected(recommended({ error: { errorType: wire, message: "m" } }))
      expect(r).toEqual({ _tag: "Rejected", errorType: name, wireValue: name, message: "m", notes: [] })
    }
  )

  it.each([
    [3, "INVALID_ESTIMATION_TOKEN"],
    [5, "PRODUCT_NOT_FOUND"],
    [6, "MALFORMED_REQUEST"],
    [4, "INVALID_PRODUCT_ID"],
    [2, "INVALID_CLIENT_KEY"]
  ] as const)("reads the GetRecommendedSize errorType number %d as %s", (n, name) => {
    expect(asRejected(recommended({ error: { errorType: n } })).errorType).toBe(name)
  })

  it("reads error_type with an aliased note and an unknown type with an assumed note", () => {
    const r = asRejected(recommended({ error: { error_type: 42, message: "?" } }))
    expect(r.errorType).toBe("ERROR_TYPE_UNSPECIFIED")
    expect(r.wireValue).toBe(42)
    expect(kindsAndPaths(r.notes)).toEqual([
      ["aliased", "error.errorType"],
      ["assumed", "error.errorType"]
    ])
  })

  it.each([
    ["neither", {}],
    ["both", { recommendation: { recommendedSize: "M" }, error: { errorType: "INTERNAL_ERROR" } }]
  ])("refuses %s of recommendation and error with a DecodeError", (_, json) => {
    const e = err(decodeRecommendedSizeResponseEither(json))
    expect(e).toBeInstanceOf(DecodeError)
    expect(e.format).toBe(FORMATS.recommendedSize)
  })
})

// --- decodeSizeRecommendationsEither --------------------------------------------------------

describe("decodeSizeRecommendationsEither", () => {
  it("reads one document per item, in the order of the products", () => {
    const docs = ok(
      decodeSizeRecommendationsEither([{ recommendation: { recommendedSize: "S" } }, { recommendation: { recommendedSize: "XL" } }], {
        estimationToken: "tok-5",
        products: [PRODUCT, PRODUCT_2]
      })
    )
    expect(docs.map(checked)).toEqual([
      { format: "scanbridge.size/v1", source: { api: "fit", estimationToken: "tok-5" }, product: PRODUCT, recommendedSize: "S", sizes: [], notes: [] },
      { format: "scanbridge.size/v1", source: { api: "fit", estimationToken: "tok-5" }, product: PRODUCT_2, recommendedSize: "XL", sizes: [], notes: [] }
    ])
  })

  it("puts an item's aliased note in that item's document only", () => {
    const docs = ok(
      decodeSizeRecommendationsEither([{ recommendation: { recommendedSize: "S" } }, { recommendation: { recommended_size: "M" } }], {
        products: [PRODUCT, PRODUCT_2]
      })
    )
    docs.forEach(checked)
    expect(docs[1]!.recommendedSize).toBe("M")
    expect(docs[0]!.notes).toEqual([])
    expect(kindsAndPaths(docs[1]!.notes)).toEqual([["aliased", "[1].recommendation.recommendedSize"]])
  })

  it("reads an empty list as no documents", () => {
    expect(ok(decodeSizeRecommendationsEither([], { products: [] }))).toEqual([])
  })

  it.each([
    ["fewer items than products", [{ recommendation: { recommendedSize: "S" } }], [PRODUCT, PRODUCT_2]],
    ["more items than products", [{ recommendation: { recommendedSize: "S" } }, { recommendation: { recommendedSize: "M" } }], [PRODUCT]]
  ])("refuses %s with a DecodeError", (_, json, products) => {
    const e = err(decodeSizeRecommendationsEither(json, { estimationToken: "t", products }))
    expect(e).toBeInstanceOf(DecodeError)
    expect(e.format).toBe(FORMATS.sizeRecommendations)
  })

  it("refuses what is not a list", () => {
    expect(err(decodeSizeRecommendationsEither({ recommendation: { recommendedSize: "S" } }))).toBeInstanceOf(DecodeError)
  })
})

// --- decodeSizeFittingEither ----------------------------------------------------------------

const sizeItem = (name: string, index: number, rank: number, points: ReadonlyArray<readonly [string, number]>, tightness = 0.5, neutral = rank): Obj => ({
  size: { index, name },
  recommendationRank: rank,
  fittingPoints: points.map(([fittingPoint, t]) => ({ fittingPoint, tightness: t })),
  tightness,
  neutralRecommendationRank: neutral
})

const FITTING = [
  {
    result: {
      estimationToken: { token: "tok-9" },
      sizes: [
        sizeItem(
          "S",
          0,
          2,
          [
            ["CHEST", -1.5],
            ["HIP", -0.5]
          ],
          -1,
          3
        ),
        sizeItem(
          "M",
          1,
          1,
          [
            ["CHEST", 0.5],
            ["DRESS_LENGTH", 0.25]
          ],
          0.25,
          1
        ),
        sizeItem("L", 2, 3, [["ELBOW_WIDTH", 2]], 1.5, 2)
      ],
      sizeGroups: []
    }
  }
]

const fitting = (json: unknown, products?: ReadonlyArray<ProductId>) =>
  ok(decodeSizeFittingEither(json, products === undefined ? {} : { products })).map(checked)

describe("decodeSizeFittingEither", () => {
  it("maps the sizes, their fitting points and display names, and takes rank 1 as the recommended size", () => {
    const [doc, ...rest] = fitting(FITTING, [PRODUCT])
    expect(rest).toEqual([])
    expect(doc).toEqual({
      format: "scanbridge.size/v1",
      source: { api: "fit", estimationToken: "tok-9" },
      product: PRODUCT,
      recommendedSize: "M",
      sizes: [
        {
          index: 0,
          name: "S",
          rank: 2,
          neutralRank: 3,
          tightness: -1,
          fittingPoints: [
            { point: "CHEST", displayName: "Chest Width", tightness: -1.5 },
            { point: "HIP", displayName: "Hips", tightness: -0.5 }
          ]
        },
        {
          index: 1,
          name: "M",
          rank: 1,
          neutralRank: 1,
          tightness: 0.25,
          fittingPoints: [
            { point: "CHEST", displayName: "Chest Width", tightness: 0.5 },
            { point: "DRESS_LENGTH", displayName: "Length", tightness: 0.25 }
          ]
        },
        { index: 2, name: "L", rank: 3, neutralRank: 2, tightness: 1.5, fittingPoints: [{ point: "ELBOW_WIDTH", displayName: null, tightness: 2 }] }
      ],
      notes: expect.any(Array)
    })
    expect(kindsAndPaths(doc!.notes).sort()).toEqual(
      [
        ["assumed", "[0].result.sizes"],
        ["assumed", "[0].result.sizes[2].fittingPoints[0]"]
      ].sort()
    )
    expect(noteAt(doc!.notes, "assumed", "[0].result.sizes").detail).toContain("M")
    expect(noteAt(doc!.notes, "assumed", "[0].result.sizes[2].fittingPoints[0]").detail).toContain("ELBOW_WIDTH")
  })

  it.each([
    ["NECK_GIRTH", "Neck"],
    ["SHOULDER_WIDTH", "Shoulders"],
    ["SLEEVE_LENGTH_CENTER_BACK", "Sleeve"],
    ["SLEEVE_LENGTH", "Sleeve"],
    ["CHEST", "Chest Width"],
    ["BODY_WIDTH", "Chest Width"],
    ["WAIST", "Waist"],
    ["HIP", "Hips"],
    ["INSEAM", "Inseam"],
    ["THIGH_GIRTH", "Thigh"],
    ["DRESS_LENGTH", "Length"],
    ["SKIRT_LENGTH", "Length"],
    ["MINISKIRT_LENGTH", "Length"],
    ["HALF_CALF_SKIRT_LENGTH", "Length"],
    ["ANKLE_SKIRT_LENGTH", "Length"],
    ["ANKLE_DRESS_LENGTH", "Length"],
    ["BODY_LENGTH", "Length"],
    ["UNDERBUST", "Underbust"]
  ] as const)("names the fitting point %s %j, as the catalogue does, with no note", (point, displayName) => {
    expect(fittingPointDisplayName(point)).toBe(displayName)
    const [doc] = fitting([{ result: { sizes: [sizeItem("M", 0, 2, [[point, 0.5]])] } }])
    expect(doc!.sizes[0]!.fittingPoints).toEqual([{ point, displayName, tightness: 0.5 }])
    expect(doc!.notes).toEqual([])
  })

  it.each([
    ["no size of rank 1", [sizeItem("S", 0, 2, []), sizeItem("M", 1, 3, [])]],
    ["two sizes of rank 1", [sizeItem("S", 0, 1, []), sizeItem("M", 1, 1, [])]],
    ["no size at all", []]
  ])("recommends no size when there is %s", (_, sizes) => {
    const [doc] = fitting([{ result: { estimationToken: { token: "t" }, sizes, sizeGroups: [] } }])
    expect(doc!.recommendedSize).toBeNull()
    expect(doc!.notes.filter((n) => n.kind === "assumed")).toEqual([])
    expect(doc!.sizes.map((s) => s.name)).toEqual(sizes.map((s) => (s["size"] as Obj)["name"]))
  })

  it("drops size groups with a note", () => {
    const [doc] = fitting([{ result: { estimationToken: { token: "t" }, sizes: [sizeItem("M", 0, 1, [])], sizeGroups: [{ name: "regular" }, {}] } }])
    expect(kindsAndPaths(doc!.notes)).toEqual([
      ["dropped", "[0].result.sizeGroups"],
      ["assumed", "[0].result.sizes"]
    ])
    expect(doc!.recommendedSize).toBe("M")
  })

  it("takes each document's token from its result; an empty or missing token is null", () => {
    const docs = fitting(
      [{ result: { estimationToken: { token: "a" }, sizes: [] } }, { result: { estimationToken: { token: "" } } }, { result: {} }, {}],
      [PRODUCT, PRODUCT_2, PRODUCT, PRODUCT_2]
    )
    expect(docs.map((d) => d.source.estimationToken)).toEqual(["a", null, null, null])
    expect(docs.map((d) => d.product)).toEqual([PRODUCT, PRODUCT_2, PRODUCT, PRODUCT_2])
    expect(docs.map((d) => d.sizes)).toEqual([[], [], [], []])
  })

  it("keeps each item's notes in its own document", () => {
    const docs = fitting([{ result: { sizes: [sizeItem("S", 0, 1, [["KNEE", 0]])] } }, { result: { sizes: [sizeItem("M", 0, 2, [["WRIST", 1]])] } }])
    expect(kindsAndPaths(docs[0]!.notes).sort()).toEqual(
      [
        ["assumed", "[0].result.sizes"],
        ["assumed", "[0].result.sizes[0].fittingPoints[0]"]
      ].sort()
    )
    expect(kindsAndPaths(docs[1]!.notes)).toEqual([["assumed", "[1].result.sizes[0].fittingPoints[0]"]])
  })

  it("reads the snake_case spelling to the same documents, apart from aliased notes naming the snake keys", () => {
    const snakeFitting = [
      {
        result: {
          estimation_token: { token: "tok-9" },
          sizes: FITTING[0]!.result.sizes.map((s) => ({
            size: s["size"],
            recommendation_rank: s["recommendationRank"],
            fitting_points: (s["fittingPoints"] as ReadonlyArray<Obj>).map((p) => ({ fitting_point: p["fittingPoint"], tightness: p["tightness"] })),
            tightness: s["tightness"],
            neutral_recommendation_rank: s["neutralRecommendationRank"]
          })),
          size_groups: []
        }
      }
    ]
    const [camel] = fitting(FITTING, [PRODUCT])
    const [snake] = fitting(snakeFitting, [PRODUCT])
    expect({ ...snake!, notes: snake!.notes.filter((n) => n.kind !== "aliased") }).toEqual(camel)
    const aliased = snake!.notes.filter((n) => n.kind === "aliased")
    // estimation_token, size_groups, and per size: recommendation_rank, fitting_points,
    // neutral_recommendation_rank and one fitting_point per point (2 + 2 + 1).
    expect(aliased).toHaveLength(2 + 3 * 3 + 5)
    expect(noteAt(aliased, "aliased", "[0].result.estimationToken").detail).toContain("estimation_token")
    expect(noteAt(aliased, "aliased", "[0].result.sizes[1].fittingPoints[1].fittingPoint").detail).toContain("fitting_point")
  })

  it.each([
    ["a fractional size index", (s: Obj) => ({ ...s, size: { index: 1.5, name: "M" } })],
    ["a NaN rank", (s: Obj) => ({ ...s, recommendationRank: "NaN" })]
  ])("refuses %s with a DecodeError", (_, change) => {
    const e = err(decodeSizeFittingEither([{ result: { sizes: [change(sizeItem("M", 1, 1, []))] } }]))
    expect(e).toBeInstanceOf(DecodeError)
    expect(e.format).toBe(FORMATS.sizeFitting)
  })

  // src bug: codec.ts `sizeDocument` prefixes the document's own path (sizes[j].index) with the
  // item index, which names no place in the input; a DecodeError's path is a path into the input.
  it("names the input's path and value when a size's index is not an integer", () => {
    const e = err(decodeSizeFittingEither([{ result: { sizes: [sizeItem("M", 1.5, 2, [])] } }]))
    expect(e.value).toBe(1.5)
    expect(e.path).toEqual([0, "result", "sizes", 0, "size", "index"])
  })

  it("refuses what is not a list of results", () => {
    expect(err(decodeSizeFittingEither({ result: {} }))).toBeInstanceOf(DecodeError)
    expect(err(decodeSizeFittingEither([{ result: { sizes: {} } }]))).toBeInstanceOf(DecodeError)
  })
})

// --- Properties -----------------------------------------------------------------------------

const RUNS = { fastCheck: { numRuns: 300 } }

/** Coin flips drawn by fast-check, so a failing case shrinks and replays. */
const coins = (flips: fc.Stream<boolean>) => (): boolean => flips.next().value as boolean
const optional = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: null })

const FIT_NAMES: ReadonlyArray<MeasurementName> = FIT_LENGTHS.map((e) => e.name)

/**
 * Whole millimetres of one human body of stature `h` (within twice its share of it, either way,
 * inside the judgement's 2.5), some of the fit lengths.
 */
const bodyLengths = (h: number): fc.Arbitrary<Partial<Record<MeasurementName, number>>> =>
  fc.record(
    Object.fromEntries(FIT_NAMES.map((n) => [n, fc.integer({ min: Math.ceil((PROPORTIONS[n] * h) / 2), max: Math.floor(PROPORTIONS[n] * h * 2) })])) as Record<
      MeasurementName,
      fc.Arbitrary<number>
    >,
    { requiredKeys: [] }
  )

const STATURE = fc.integer({ min: HUMAN_RANGES.heightMm.min, max: HUMAN_RANGES.heightMm.max })

/** Canonical scans the client library's estimation result holds exactly: their lengths one body's. */
const fitScan: fc.Arbitrary<Scan> = fc
  .record({
    token: fc.string({ minLength: 1 }),
    method: fc.constantFrom("photo" as const, "selfie" as const, "stats" as const),
    stature: STATURE,
    subject: fc.record({
      age: optional(fc.nat({ max: 200 })),
      gender: optional(fc.constantFrom("male" as const, "female" as const)),
      weightG: optional(fc.maxSafeNat())
    }),
    statureStated: fc.boolean()
  })
  .chain((g) =>
    bodyLengths(g.stature).map((measurementsMm) =>
      scanOf({
        source: { api: "fit", id: g.token },
        status: "success",
        method: g.method,
        subject: { ...g.subject, heightMm: g.statureStated ? g.stature : null },
        measurementsMm
      })
    )
  )

// The spellings a proto3 parser accepts for these messages: snake_case keys, enum numbers.
const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

interface Respelled {
  readonly json: unknown
  /** Printed path and the snake key used there, for every key written in snake case. */
  readonly aliases: ReadonlyArray<readonly [string, string]>
}

const respell = (enums: Readonly<Record<string, Proto3.EnumType>>, json: unknown, coin: () => boolean): Respelled => {
  const aliases: Array<readonly [string, string]> = []
  const walk = (v: unknown, path: string): unknown => {
    if (Array.isArray(v)) return v.map((e, i) => walk(e, `${path}[${i}]`))
    if (typeof v !== "object" || v === null) return v
    const out: Obj = {}
    for (const [k, x] of Object.entries(v)) {
      const at = path === "" ? k : `${path}.${k}`
      const snake = snakeCase(k)
      const key = snake !== k && coin() ? snake : k
      if (key !== k) aliases.push([at, key])
      const type = enums[k]
      const n = type !== undefined && typeof x === "string" ? type.numbers[x] : undefined
      out[key] = typeof n === "number" && coin() ? n : walk(x, at)
    }
    return out
  }
  return { json: walk(json, ""), aliases }
}

const enumValue = (type: Proto3.EnumType) =>
  fc.oneof(fc.constantFrom(...type.names), fc.constantFrom("NOT_A_VALUE", "unsupported"), fc.integer({ min: 0, max: 40 }))
const wireProduct = fc.record({ brandId: fc.string(), garmentSku: fc.string() }, { requiredKeys: [] })

const createSessionWire = fc.oneof(
  fc.record({
    support: fc.record({ productId: wireProduct, supported: enumValue(Wire.SUPPORT_STATUS), sessionId: fc.string() }, { requiredKeys: [] })
  }),
  fc.record({ error: fc.record({ errorType: enumValue(Wire.CREATE_SESSION_ERROR_TYPE), message: fc.string() }, { requiredKeys: [] }) })
)

const recommendedSizeWire = fc.oneof(
  fc.record({ recommendation: fc.record({ recommendedSize: fc.string({ minLength: 1, maxLength: 6 }) }) }),
  fc.record({ error: fc.record({ errorType: enumValue(Wire.RECOMMENDED_SIZE_ERROR_TYPE), message: fc.string() }, { requiredKeys: [] }) })
)

const notesOf = (o: Supported | Rejected | Recommended): ReadonlyArray<Note> => (o._tag === "Recommended" ? o.document.notes : o.notes)
const withoutAliases = (o: Supported | Rejected | Recommended): unknown =>
  o._tag === "Recommended"
    ? { ...o, document: { ...o.document, notes: o.document.notes.filter((n) => n.kind !== "aliased") } }
    : { ...o, notes: o.notes.filter((n) => n.kind !== "aliased") }

/** The aliased notes list exactly the snake keys the input used, at their camelCase paths. */
const expectAliases = (o: Supported | Rejected | Recommended, aliases: ReadonlyArray<readonly [string, string]>) => {
  const aliased = notesOf(o).filter((n) => n.kind === "aliased")
  expect(aliased.map((n) => n.path).sort()).toEqual(aliases.map(([path]) => path).sort())
  for (const [path, snake] of aliases) expect(noteAt(aliased, "aliased", path).detail).toContain(snake)
}

/** Encoding never throws: a valid result that decodes again, or an EncodeError. */
const encodesOrRefuses = (scan: Scan): void => {
  const result = encodeEstimationResultEither(scan)
  if (Either.isLeft(result)) {
    expect(result.left).toBeInstanceOf(EncodeError)
    expect(result.left.format).toBe(FORMATS.estimationResult)
    return
  }
  expect(scan.status).toBe("success")
  expect(() => validateEstimation(result.right.value)).not.toThrow()
  for (const i of itemsOf(result.right.value)) expect(typeof i.value).toBe("string")
  const decoded = decodeEstimationResultEither(result.right.value)
  expect(Either.isRight(decoded), Either.isLeft(decoded) ? decoded.left.message : "").toBe(true)
}

/** A success with a token and quantities a person could have, so that it encodes. */
const tame = (s: Scan): Scan => {
  const cap = (v: number) => v % 100_000
  return scanOf({
    ...(s as ScanInit),
    source: { api: s.source.api, id: s.source.id || "tok" },
    status: "success",
    failure: null,
    subject: {
      age: s.subject.age === null ? null : s.subject.age % 130,
      gender: s.subject.gender,
      heightMm: s.subject.heightMm === null ? null : cap(s.subject.heightMm),
      weightG: s.subject.weightG === null ? null : cap(s.subject.weightG)
    },
    measurementsMm: Object.fromEntries(Object.entries(s.measurementsMm).map(([n, v]) => [n, cap(v)]))
  })
}

describe("properties", () => {
  it.prop(
    "decode after encode is the identity on scans the fit format holds, apart from the one note for the input preferences",
    [fitScan],
    ([scan]) => {
      const encoded = ok(encodeEstimationResultEither(scan))
      expect(encoded.notes).toEqual([])
      expect(() => validateEstimation(encoded.value)).not.toThrow()
      const decoded = ok(decodeEstimationResultEither(JSON.parse(JSON.stringify(encoded.value))))
      expect({ ...decoded, notes: [] }).toEqual(scan)
      expect(kindsAndPaths(decoded.notes)).toEqual([["dropped", "estimations.input"]])
    },
    RUNS
  )

  it.prop(
    "encoding any canonical scan never throws: a valid estimation result that decodes, or an EncodeError",
    [Arbitrary.make(Scan)],
    ([scan]) => encodesOrRefuses(scan),
    RUNS
  )

  it.prop(
    "a success scan of plausible size encodes, and decodes to its fit measurements and stats rounded to whole units",
    [Arbitrary.make(Scan)],
    ([arbitrary]) => {
      const scan = tame(arbitrary)
      encodesOrRefuses(scan)
      const encoded = ok(encodeEstimationResultEither(scan))
      const decoded = ok(decodeEstimationResultEither(JSON.parse(JSON.stringify(encoded.value))))
      const rounded = Object.fromEntries(
        Object.entries(scan.measurementsMm)
          .filter(([name]) => fitDialect.measurements[name as MeasurementName] !== null)
          .map(([name, v]) => [name, Math.round(v)])
      )
      expect(decoded.measurementsMm).toEqual(rounded)
      const r = (v: number | null) => (v === null ? null : Math.round(v))
      expect(decoded.subject).toEqual({
        age: scan.subject.age,
        gender: scan.subject.gender,
        heightMm: r(scan.subject.heightMm),
        weightG: r(scan.subject.weightG)
      })
      expect(decoded.method).toBe(scan.method === null ? "selfie" : scan.method === "adjusted" ? "stats" : scan.method)
      const roundedPaths = [
        ...Object.entries(scan.measurementsMm)
          .filter(([name, v]) => fitDialect.measurements[name as MeasurementName] !== null && !Number.isInteger(v))
          .map(([name]) => `measurementsMm.${name}`),
        ...(["heightMm", "weightG"] as const).filter((k) => scan.subject[k] !== null && !Number.isInteger(scan.subject[k])).map((k) => `subject.${k}`)
      ]
      expect(
        encoded.notes
          .filter((n) => n.kind === "converted" && n.path !== "source.id" && n.path !== "method")
          .map((n) => n.path)
          .sort()
      ).toEqual(roundedPaths.sort())
    },
    RUNS
  )

  it.prop(
    "every spelling of a CreateSession response decodes to the same outcome, apart from the aliased notes for its snake keys",
    [createSessionWire, fc.infiniteStream(fc.boolean())],
    ([json, flips]) => {
      const original = ok(decodeCreateSessionResponseEither(json))
      const { json: respelled, aliases } = respell({ supported: Wire.SUPPORT_STATUS, errorType: Wire.CREATE_SESSION_ERROR_TYPE }, json, coins(flips))
      const decoded = ok(decodeCreateSessionResponseEither(respelled))
      expect(notesOf(original).filter((n) => n.kind === "aliased")).toEqual([])
      expect(withoutAliases(decoded), JSON.stringify(respelled)).toEqual(withoutAliases(original))
      expectAliases(decoded, aliases)
    },
    RUNS
  )

  it.prop(
    "every spelling of a GetRecommendedSize response decodes to the same outcome, apart from the aliased notes for its snake keys",
    [recommendedSizeWire, fc.infiniteStream(fc.boolean()), optional(fc.string({ minLength: 1 }))],
    ([json, flips, token]) => {
      const context = { estimationToken: token, product: PRODUCT }
      const original = ok(decodeRecommendedSizeResponseEither(json, context))
      const { json: respelled, aliases } = respell({ errorType: Wire.RECOMMENDED_SIZE_ERROR_TYPE }, json, coins(flips))
      const decoded = ok(decodeRecommendedSizeResponseEither(respelled, context))
      expect(notesOf(original).filter((n) => n.kind === "aliased")).toEqual([])
      expect(withoutAliases(decoded), JSON.stringify(respelled)).toEqual(withoutAliases(original))
      expectAliases(decoded, aliases)
      if (decoded._tag === "Recommended") checked(decoded.document)
    },
    RUNS
  )
})

describe("values the canonical model cannot hold exactly", () => {
  const result = (items: ReadonlyArray<Obj>) => ({ estimations: { estimationToken: { token: "et_1" }, measurements: items } })

  it("refuses a fractional age at the input's path", () => {
    const e = err(decodeEstimationResultEither(result([{ estimationType: "AGE", value: "29.5", unit: "YEARS" }])))
    expect(e.path).toEqual(["estimations", "measurements", 0, "value"])
    expect(e.value).toBe("29.5")
  })

  it("refuses a value past 2^53 instead of rounding it", () => {
    const e = err(decodeEstimationResultEither(result([{ estimationType: "HIP_GIRTH", value: "99999999999999999999", unit: "MILLIMETERS" }])))
    expect(e.path).toEqual(["estimations", "measurements", 0, "value"])
  })

  it("reads an empty avatarData list as no avatar", () => {
    expect(ok(decodeEstimationResultEither({ estimations: { estimationToken: { token: "et_1" }, avatarData: [] } })).avatar).toBeNull()
  })

  it("checks the product count of a size fitting result and notes a product without a recommendation", () => {
    const fitting = [{ result: { sizes: [] } }]
    expect(
      Either.isLeft(
        decodeSizeFittingEither(fitting, {
          products: [
            { brandId: "a", garmentSku: "1" },
            { brandId: "a", garmentSku: "2" }
          ]
        })
      )
    ).toBe(true)
    const [doc] = ok(decodeSizeRecommendationsEither([{ recommendation: {} }], {}))
    expect(doc!.recommendedSize).toBeNull()
    expect(doc!.notes).toEqual([{ kind: "assumed", path: "[0].recommendation", detail: "no recommended size for this product: recorded as null" }])
  })
})

describe("isDecimal", () => {
  it("accepts exactly what /^-?\\d+(\\.\\d+)?$/ accepts", () => {
    const chars = fc.constantFrom("0", "1", "9", "-", ".", "e", " ", "x", "")
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(chars, { maxLength: 8 }).map((c) => c.join("")),
          fc.string()
        ),
        (s) => {
          expect(isDecimal(s)).toBe(/^-?\d+(\.\d+)?$/.test(s))
        }
      ),
      { numRuns: 5_000 }
    )
  })
})

// --- Lengths and their units ------------------------------------------------------------------

const LENGTHS = "estimations.measurements"
const HEIGHT_1640 = item("HEIGHT", "1640")

describe("lengths and their units", () => {
  it("honours a stated length unit in another spelling, converting it with one note for the record", () => {
    const scan = decode(withItems(HEIGHT_1640, item("HIP_GIRTH", "35.55", "INCHES"), item("WAIST_GIRTH", "27.6", "inch")))
    expect(scan.measurementsMm.hipGirth).toBeCloseTo(902.97, 6)
    expect(scan.measurementsMm.waistGirth).toBeCloseTo(701.04, 6)
    expect(noteAt(scan.notes, "converted", LENGTHS).detail).toBe("2 length(s) stated in inches, converted to millimetres")
    const cm = decode(withItems(HEIGHT_1640, item("WAIST_GIRTH", "70.1", "centimetres")))
    expect(cm.measurementsMm.waistGirth).toBeCloseTo(701, 6)
    expect(noteAt(cm.notes, "converted", LENGTHS).detail).toBe("1 length(s) stated in centimetres, converted to millimetres")
    for (const mm of ["mm", "millimeters", "MILLIMETRES"]) {
      const same = decode(withItems(HEIGHT_1640, item("HIP_GIRTH", "903", mm)))
      expect(same.measurementsMm).toEqual({ hipGirth: 903 })
      expect(same.notes).toEqual([])
    }
  })

  it("refuses a unit that is no length unit, saying which ones it reads", () => {
    const e = decodeError(withItems(item("HIP_GIRTH", "903", "furlongs")))
    expect(e.path).toEqual(itemPath(0, "unit"))
    expect(e.message).toContain(`a length unit for HIP_GIRTH: ${LENGTH_UNITS_ACCEPTED}`)
  })

  it("converts a HEIGHT stated in another length unit, with a note", () => {
    const scan = decode(withItems(item("HEIGHT", "164", "CENTIMETERS"), item("HIP_GIRTH", "903")))
    expect(scan.subject.heightMm).toBe(1640)
    expect(noteAt(scan.notes, "converted", "estimations.measurements[0].value").detail).toBe("HEIGHT 164 CENTIMETERS converted to 1640 mm")
  })

  it("refuses inches under MILLIMETERS, with the evidence and the way out", () => {
    const e = decodeError(withItems(HEIGHT_1640, item("HIP_GIRTH", "35.55"), item("WAIST_GIRTH", "27.6")))
    expect(e.path).toEqual(["estimations", "measurements"])
    expect(e.message).toContain("lengths read as millimetres (the unit the record states) are plausible in")
    expect(e.message).toContain('--length-unit in (lengthUnit: "in")')
  })

  it("reads every length in the caller's lengthUnit, noting the unit the record states", () => {
    const scan = ok(decodeEstimationResultEither(withItems(HEIGHT_1640, item("HIP_GIRTH", "35.55"), item("WAIST_GIRTH", "27.6")), { lengthUnit: "in" }))
    expect(scan.measurementsMm.hipGirth).toBeCloseTo(902.97, 6)
    expect(scan.subject.heightMm).toBe(1640)
    expect(noteAt(scan.notes, "assumed", LENGTHS).detail).toBe(
      'lengths read as inches, as the caller said (lengthUnit "in"), where the record states millimetres'
    )
    // auto reads the record's own unit.
    expect(err(decodeEstimationResultEither(withItems(HEIGHT_1640, item("HIP_GIRTH", "35.55")), { lengthUnit: "auto" })).message).toContain("--length-unit in")
  })

  it("the adapter passes a decode's options through", () => {
    const json = withItems(HEIGHT_1640, item("HIP_GIRTH", "35.55"))
    expect(Either.isLeft(fitAdapter.formats[0]!.decode(json))).toBe(true)
    expect(ok(fitAdapter.formats[0]!.decode(json, { lengthUnit: "in" }))[0]!.measurementsMm.hipGirth).toBeCloseTo(902.97, 6)
  })

  it("reads lengths of one record stated in two units, each from its own, with one note per unit", () => {
    const json = withItems(HEIGHT_1640, item("HIP_GIRTH", "903", "mm"), item("WAIST_GIRTH", "27.6", "INCHES"))
    const scan = decode(json)
    expect(scan.measurementsMm.hipGirth).toBe(903)
    expect(scan.measurementsMm.waistGirth).toBeCloseTo(701.04, 6)
    expect(scan.notes.filter((n) => n.kind === "converted").map((n) => n.detail)).toContain("1 length(s) stated in inches, converted to millimetres")
    // The caller's unit is the unit of every length: 27.6 mm is no waist of this body, and is noted as such.
    const given = ok(decodeEstimationResultEither(json, { lengthUnit: "mm" }))
    expect(given.measurementsMm).toEqual({ hipGirth: 903, waistGirth: 27.6 })
    expect(given.notes.some((n) => n.kind === "assumed" && n.detail.includes("plausible in no unit"))).toBe(true)
  })

  it("reads each right-side type without its _R as the type, with an aliased note", () => {
    for (const { name, fit } of FIT_LENGTHS.filter((e) => e.fit!.endsWith("_R"))) {
      const alias = fit!.slice(0, -2)
      const scan = decode(withItems(item(alias, String(bodyMm(name)), MM)))
      expect(scan.measurementsMm).toEqual({ [name]: bodyMm(name) })
      expect(noteAt(scan.notes, "aliased", "estimations.measurements[0].estimationType").detail).toBe(`${alias} read as ${fit}: another spelling of it`)
    }
  })

  it("keeps the first of a type and its other spelling, dropping the second", () => {
    const scan = decode(withItems(item("KNEE_HEIGHT_R", String(bodyMm("kneeHeightR"))), item("KNEE_HEIGHT", "999", MM)))
    expect(scan.measurementsMm).toEqual({ kneeHeightR: bodyMm("kneeHeightR") })
    expect(noteAt(scan.notes, "dropped", "estimations.measurements[1]").detail).toContain("second KNEE_HEIGHT_R")
  })

  it("drops a type within a typo of a fit type, with a did-you-mean", () => {
    const scan = decode(withItems(item("HIP_GIRTH", "903"), { estimationType: "WAIST_GRITH", value: "701", unit: MM }))
    expect(scan.measurementsMm).toEqual({ hipGirth: 903 })
    expect(noteAt(scan.notes, "dropped", "estimations.measurements[1]").detail).toBe('unknown estimationType "WAIST_GRITH" (did you mean WAIST_GIRTH?)')
  })
})

const LENGTH_SPELLINGS = {
  mm: ["MILLIMETERS", "mm", "millimetres"],
  cm: ["CENTIMETERS", "cm", "Centimetre"],
  in: ["INCHES", "in", "inch"]
} as const
const FACTOR = { mm: 1, cm: 10, in: 25.4 } as const

/** The scan's fit result, its length items rewritten in `unit`, spelt `spelling`. */
const rewrittenIn = (scan: Scan, unit: keyof typeof FACTOR, spelling: string, claimed: string = spelling): Obj => {
  const json = ok(encodeEstimationResultEither(scan)).value
  const measurements = itemsOf(json).map((i) =>
    fitDialect.measurementBySpelling(i.estimationType!) === undefined ? i : { ...i, value: (Number(i.value) / FACTOR[unit]).toFixed(4), unit: claimed }
  )
  return { estimations: { ...json.estimations, measurements } }
}

describe("lengths and their units: properties", () => {
  it.prop(
    "lengths stated in any unit and spelling read as the same millimetres, within the rounding of the value written",
    [fitScan, fc.constantFrom("mm" as const, "cm" as const, "in" as const), fc.nat({ max: 2 })],
    ([scan, unit, which]) => {
      const read = ok(decodeEstimationResultEither(rewrittenIn(scan, unit, LENGTH_SPELLINGS[unit][which]!)))
      const names = Object.keys(scan.measurementsMm) as Array<MeasurementName>
      expect(Object.keys(read.measurementsMm).sort()).toEqual([...names].sort())
      for (const n of names) expect(Math.abs(read.measurementsMm[n]! - scan.measurementsMm[n]!)).toBeLessThanOrEqual(FACTOR[unit] * 0.00005 + 1e-9)
      const converted = read.notes.filter((n) => n.kind === "converted" && n.path === LENGTHS)
      expect(converted).toEqual(
        unit === "mm" || names.length === 0
          ? []
          : [
              {
                kind: "converted",
                path: LENGTHS,
                detail: `${names.length} length(s) stated in ${unit === "cm" ? "centimetres" : "inches"}, converted to millimetres`
              }
            ]
      )
      expect(read.notes.some((n) => n.detail.includes("kept as read"))).toBe(false)
    },
    RUNS
  )

  it.prop(
    "inches under a claimed MILLIMETERS are never read silently: refused naming --length-unit, or kept with a note that says so",
    [fitScan.filter((s) => Object.keys(s.measurementsMm).length > 0)],
    ([scan]) => {
      const result = decodeEstimationResultEither(rewrittenIn(scan, "in", "INCHES", MM))
      if (Either.isLeft(result)) {
        expect(result.left.path).toEqual(["estimations", "measurements"])
        expect(result.left.message).toContain("--length-unit")
        expect(result.left.message).toContain("inches")
      } else {
        expect(noteAt(result.right.notes, "assumed", LENGTHS).detail).toContain("kept as read")
      }
    },
    RUNS
  )
})
