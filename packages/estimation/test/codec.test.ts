import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import {
  Catalogue,
  DecodeError,
  EncodeError,
  HUMAN_RANGES,
  MAX_NOTES,
  type MeasurementName,
  type Note,
  PROPORTIONS,
  type Path,
  Scan,
  type ScanInit,
  formatPath,
  makeScan
} from "@scanbridge/model"
import { LENGTH_UNIT_FLAG_AND_OPTION, previewValue } from "@scanbridge/model/adapter"
import {
  type EncodeOptions,
  FORMATS,
  type UnitOptions,
  Wire,
  decodeReadItemEither,
  decodeReadResponseEither,
  encodeReadResponseEither,
  estimationAdapter,
  estimationAdapterWith,
  estimationDialect
} from "../src/index.js"
import { BODY_FAT_SCALE_WAY_OUT, MUSCLE_MASS_UNIT_WAY_OUT } from "../src/codec.js"
import { lengthClue } from "../src/internal/inference.js"

// --- Helpers ------------------------------------------------------------------------------

const ok = <A, E>(result: Either.Either<A, E>): A => Either.getOrThrowWith(result, (e) => (e instanceof Error ? e : new Error(`unexpected Left: ${String(e)}`)))

const err = <A, E>(result: Either.Either<A, E>): E => Either.getOrThrowWith(Either.flip(result), (a) => new Error(`expected a Left, got ${JSON.stringify(a)}`))

const scanOf = (init: ScanInit): Scan => ok(makeScan(init))

type Obj = Record<string, unknown>

const decode = (json: unknown, options?: UnitOptions): Scan => ok(decodeReadItemEither(json, options))

/** The DecodeError of decoding one read item, checked to be one of the read item format. */
const decodeError = (json: unknown, options?: UnitOptions): DecodeError => {
  const e = err(decodeReadItemEither(json, options))
  expect(e).toBeInstanceOf(DecodeError)
  expect(e.format).toBe(FORMATS.readItem)
  expect(e.message.length).toBeGreaterThan(0)
  return e
}

const encode = (scan: Scan, options?: EncodeOptions) => ok(encodeReadResponseEither(scan, options))

const encodeError = (scan: Scan, options?: EncodeOptions): EncodeError => {
  const e = err(encodeReadResponseEither(scan, options))
  expect(e).toBeInstanceOf(EncodeError)
  expect(e.format).toBe(FORMATS.readResponse)
  return e
}

const noteAt = (notes: ReadonlyArray<Note>, kind: Note["kind"], path: string): Note => {
  const found = notes.filter((n) => n.kind === kind && n.path === path)
  if (found.length !== 1) throw new Error(`expected one ${kind} note at ${path}, got ${JSON.stringify(notes)}`)
  return found[0]!
}

const hasNoteAt = (notes: ReadonlyArray<Note>, path: string): boolean => notes.some((n) => n.path === path)

/** The encoded response, checked against the wire schema with no key it does not know. */
const validateWire = Schema.decodeUnknownSync(Wire.ReadResponse, { onExcessProperty: "error" })

const withoutNotes = (scan: Scan) => ({ ...scan, notes: [] })

// --- Fixtures -------------------------------------------------------------------------------

const INPUT = { age: 29, gender: "female", height: 1640, weight: 54000 } as const
const MEASUREMENT_MM = { bust_girth: 862, waist_girth: 701, hip_girth: 903, inside_leg_height: 740 } as const
const MEASUREMENT_CM = { bust_girth: 86, waist_girth: 70, hip_girth: 90, inside_leg_height: 74 } as const
const MEASURE = "estimation.result.measurement"
const FAT = "estimation.result.body_composition.body_fat_percentage"
const MUSCLE = "estimation.result.body_composition.skeletal_muscle_mass"

/** The object without its undefined keys: `{ input: undefined }` in a fixture means "no input". */
const defined = (o: Obj): Obj => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))

const result = (fields: Obj = {}): Obj => ({
  body_composition: { body_fat_percentage: 24, skeletal_muscle_mass: 25000 },
  measurement: MEASUREMENT_MM,
  status: "success",
  ...fields
})

/** A completed successful item, with `estimation` fields replaced or added. */
const success = (estimation: Obj = {}, item: Obj = {}): Obj => ({
  created_at: "2024-05-01T12:00:00.000Z",
  status: "completed",
  estimation_id: "est-1",
  estimation: defined({ code: 101, input: INPUT, result: result(), status: "success", ...estimation }),
  ...item
})

const failed = (estimation: Obj = {}, item: Obj = {}): Obj => ({
  created_at: "2024-05-01T12:00:00.000Z",
  status: "completed",
  estimation_id: "est-2",
  estimation: defined({ code: 306, input: INPUT, status: "fail", ...estimation }),
  ...item
})

const inProgress = (estimation: Obj = {}, item: Obj = {}): Obj => ({
  created_at: "2024-05-01T12:00:00.000Z",
  status: "in-progress",
  estimation_id: "est-3",
  estimation,
  ...item
})

const SUBJECT = { age: 29, gender: "female", heightMm: 1640, weightG: 54000 } as const
const SUCCESS_SCAN: ScanInit = {
  source: { api: "estimation", id: "est-1" },
  status: "success",
  createdAt: "2024-05-01T12:00:00.000Z",
  method: "photo",
  subject: SUBJECT,
  measurementsMm: { bustGirth: 862, waistGirth: 701, hipGirth: 903, insideLegHeight: 740 },
  composition: { bodyFatPercent: 24, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: 25000 }
}

// --- Wire.MEASUREMENT_KEYS ------------------------------------------------------------------

// Spec 02, part B: the `measurement` keys, as the spec lists them.
const SPEC_KEYS = [
  "across_back_shoulder_width",
  "back_neck_height",
  "back_neck_point_to_ground_contoured",
  "back_neck_point_to_waist",
  "back_neck_point_to_wrist_length_r",
  "belly_waist_girth",
  "belly_waist_height",
  "bust_girth",
  "bust_height",
  "calf_girth_r",
  "forearm_girth_r",
  "hip_girth",
  "hip_height",
  "inside_leg_height",
  "inside_leg_length_r",
  "knee_girth_r",
  "knee_height_r",
  "mid_thigh_girth_r",
  "neck_base_girth",
  "neck_girth",
  "outer_ankle_height_r",
  "outer_arm_length_r",
  "outseam_r",
  "outside_leg_length_r",
  "shoulder_to_elbow_r",
  "thigh_girth_r",
  "top_hip_girth",
  "top_hip_height",
  "under_bust_girth",
  "upper_arm_girth_r",
  "waist_girth",
  "waist_height",
  "wrist_girth_r"
]

describe("Wire.MEASUREMENT_KEYS", () => {
  it("holds exactly the 33 keys of spec 02, each to its canonical name", () => {
    expect(Wire.MEASUREMENT_KEYS.size).toBe(33)
    expect([...Wire.MEASUREMENT_KEYS.keys()].sort()).toEqual([...SPEC_KEYS].sort())
    expect(Wire.MEASUREMENT_KEYS.get("back_neck_point_to_wrist_length_r")).toBe("backNeckPointToWristLengthR")
    expect(Wire.MEASUREMENT_KEYS.get("waist_girth")).toBe("waistGirth")
    expect(Wire.MEASUREMENT_KEYS.get("outseam_r")).toBe("outseamR")
    expect([...Wire.MEASUREMENT_KEYS.values()]).not.toContain("bellyWaistDepth")
    expect([...Wire.MEASUREMENT_KEYS.values()]).not.toContain("bellyWaistWidth")
  })

  it("decodes all 33 keys to their canonical names", () => {
    const measurement = Object.fromEntries(SPEC_KEYS.map((key) => [key, Math.round(PROPORTIONS[Wire.MEASUREMENT_KEYS.get(key)!] * 1640)]))
    const scan = decode(success({ result: result({ measurement }) }))
    expect(Object.keys(scan.measurementsMm).length).toBe(33)
    for (const key of SPEC_KEYS) {
      const name = Wire.MEASUREMENT_KEYS.get(key)!
      expect(scan.measurementsMm[name]).toBe(measurement[key])
    }
  })
})

// --- Decode: the three states ---------------------------------------------------------------

describe("decode: status", () => {
  it("in-progress is a pending scan", () => {
    const scan = decode(inProgress())
    expect(scan).toEqual(scanOf({ source: { api: "estimation", id: "est-3" }, status: "pending", createdAt: "2024-05-01T12:00:00.000Z", method: "photo" }))
  })

  it("in-progress with a result drops the result with a note", () => {
    const scan = decode(inProgress({ result: result() }))
    expect(scan.status).toBe("pending")
    expect(scan.measurementsMm).toEqual({})
    expect(scan.composition).toBeNull()
    noteAt(scan.notes, "dropped", "estimation.result")
  })

  it("in-progress with job bookkeeping does not lose it silently", () => {
    // Design rule 1: nothing is lost silently. A completed item notes code/version/work_id.
    const scan = decode(inProgress({ code: 100, version: "1.2", work_id: "w-9" }))
    expect(scan.status).toBe("pending")
    const note = noteAt(scan.notes, "dropped", "estimation")
    expect(note.detail).toContain("w-9")
  })

  it("completed + success is a successful scan with subject, measurements in mm and composition", () => {
    const scan = decode(success())
    expect(withoutNotes(scan)).toEqual(withoutNotes(scanOf(SUCCESS_SCAN)))
    expect(scan.notes.map((n) => [n.kind, n.path])).toEqual([
      ["dropped", "estimation"],
      ["assumed", MEASURE],
      ["assumed", FAT],
      ["assumed", MUSCLE]
    ])
    const lengths = noteAt(scan.notes, "assumed", MEASURE).detail
    expect(lengths).toContain("millimetres")
    // The evidence names a decisive value.
    expect(lengths).toMatch(/bust_girth 862|waist_girth 701|hip_girth 903|inside_leg_height 740/)
    expect(noteAt(scan.notes, "assumed", FAT).detail).toContain("percent")
    expect(noteAt(scan.notes, "assumed", MUSCLE).detail).toContain("grams")
  })

  it("completed + fail is a failure with the code as a string and category estimation", () => {
    const scan = decode(failed())
    expect(scan.status).toBe("failure")
    expect(scan.failure).toEqual({ code: "306", category: "estimation", message: null })
    expect(scan.subject).toEqual(SUBJECT)
    expect(scan.measurementsMm).toEqual({})
    expect(scan.composition).toBeNull()
  })

  it("a failure without a code is recorded with code unknown and an assumed note", () => {
    const scan = decode(failed({ code: undefined }))
    expect(scan.failure).toEqual({ code: "unknown", category: "estimation", message: null })
    noteAt(scan.notes, "assumed", "estimation.code")
  })

  it("a failure with a result drops the result with a note", () => {
    const scan = decode(failed({ result: result() }))
    expect(scan.status).toBe("failure")
    expect(scan.measurementsMm).toEqual({})
    noteAt(scan.notes, "dropped", "estimation.result")
  })

  it("completed without estimation.status is a DecodeError at estimation.status", () => {
    const e = decodeError(success({ status: undefined }))
    expect(e.path).toEqual(["estimation", "status"])
  })

  it("success without a result is a DecodeError at estimation.result", () => {
    expect(decodeError(success({ result: undefined })).path).toEqual(["estimation", "result"])
    expect(decodeError(success({ result: null })).path).toEqual(["estimation", "result"])
  })

  it("a result whose status is not success is a DecodeError at estimation.result.status", () => {
    const e = decodeError(success({ result: result({ status: "fail" }) }))
    expect(e.path).toEqual(["estimation", "result", "status"])
    expect(e.value).toBe("fail")
  })

  it("a result without its own status is read", () => {
    const { status: _, ...rest } = result()
    expect(decode(success({ result: rest })).status).toBe("success")
  })

  it("an item the wire schema refuses is a DecodeError naming the path", () => {
    expect(decodeError(success({}, { status: "done" })).path).toEqual(["status"])
    expect(decodeError(success({ result: result({ measurement: { waist_girth: -1 } }) })).path).toEqual(["estimation", "result", "measurement", "waist_girth"])
    expect(decodeError(success({ input: { ...INPUT, gender: "x" } })).path).toEqual(["estimation", "input", "gender"])
  })
})

// --- Decode: subject --------------------------------------------------------------------------

describe("decode: subject", () => {
  it("reads estimation.input as height in mm and weight in g", () => {
    expect(decode(success()).subject).toEqual(SUBJECT)
  })

  it("no input gives a subject of nulls", () => {
    expect(decode(failed({ input: undefined })).subject).toEqual({ age: null, gender: null, heightMm: null, weightG: null })
  })

  it("a height in centimetres is a DecodeError that says so", () => {
    const e = decodeError(success({ input: { ...INPUT, height: 168 } }))
    expect(e.path).toEqual(["estimation", "input", "height"])
    expect(e.value).toBe(168)
    expect(e.message).toContain("looks like centimetres")
  })

  it("a weight in kilograms is a DecodeError that says so", () => {
    const e = decodeError(success({ input: { ...INPUT, weight: 54 } }))
    expect(e.path).toEqual(["estimation", "input", "weight"])
    expect(e.message).toContain("looks like kilograms")
  })

  it("a height outside every unit is a DecodeError without a guess", () => {
    const e = decodeError(failed({ input: { ...INPUT, height: 9_000_000 } }))
    expect(e.path).toEqual(["estimation", "input", "height"])
    expect(e.message).not.toContain("looks like")
  })

  it("the human range's bounds are accepted", () => {
    const { min, max } = HUMAN_RANGES.heightMm
    expect(decode(failed({ input: { ...INPUT, height: min } })).subject.heightMm).toBe(min)
    expect(decode(failed({ input: { ...INPUT, height: max } })).subject.heightMm).toBe(max)
    expect(decodeError(failed({ input: { ...INPUT, height: min - 1 } })).path).toEqual(["estimation", "input", "height"])
  })
})

// --- Decode: bookkeeping, created_at, unknown keys --------------------------------------------

describe("decode: notes", () => {
  it("job bookkeeping (code, version, work_id, result.version, result.work_id) is one dropped note at estimation", () => {
    const scan = decode(success({ version: "1.2", work_id: "w-1", result: result({ version: 7, work_id: "w-2" }) }))
    const dropped = scan.notes.filter((n) => n.path === "estimation")
    expect(dropped).toHaveLength(1)
    expect(dropped[0]!.kind).toBe("dropped")
    for (const text of ["code 101", "version", "w-1", "result.version 7", "w-2"]) expect(dropped[0]!.detail).toContain(text)
  })

  it.prop(
    "the job note lists what the job has, in order, each value as previewValue renders it",
    [
      fc.option(fc.integer(), { nil: undefined }),
      ...Array.from({ length: 4 }, () =>
        fc.option(fc.oneof(fc.string({ maxLength: 90 }), fc.stringMatching(/^[a-z0-9_.-]{0,80}$/), fc.double({ noNaN: true, noDefaultInfinity: true })), {
          nil: undefined
        })
      )
    ],
    ([code, version, work_id, resultVersion, resultWorkId]) => {
      const scan = decode(success({ code, version, work_id, result: result(defined({ version: resultVersion, work_id: resultWorkId })) }))
      const fields: ReadonlyArray<readonly [string, unknown]> = [
        ["version", version],
        ["work_id", work_id],
        ["result.version", resultVersion],
        ["result.work_id", resultWorkId]
      ]
      const parts = [...(code === undefined ? [] : [`code ${code}`]), ...fields.flatMap(([name, v]) => (v === undefined ? [] : [`${name} ${previewValue(v)}`]))]
      const notes = scan.notes.filter((n) => n.path === "estimation")
      expect(notes).toEqual(
        parts.length === 0
          ? []
          : [{ kind: "dropped", path: "estimation", detail: `${parts.join(", ")}: the canonical scan does not record the estimation job` }]
      )
    },
    { fastCheck: { numRuns: 2_000 } }
  )

  it("no bookkeeping, no note at estimation", () => {
    const { result: r, input } = { result: result(), input: INPUT }
    const scan = decode({ status: "completed", estimation_id: "e", estimation: { input, result: r, status: "success" } })
    expect(hasNoteAt(scan.notes, "estimation")).toBe(false)
  })

  it("created_at in canonical ISO form is kept without a note", () => {
    const scan = decode(success())
    expect(scan.createdAt).toBe("2024-05-01T12:00:00.000Z")
    expect(hasNoteAt(scan.notes, "created_at")).toBe(false)
  })

  it("created_at in another RFC 3339 form is converted, with a note", () => {
    const scan = decode(success({}, { created_at: "2024-05-01T14:00:00+02:00" }))
    expect(scan.createdAt).toBe("2024-05-01T12:00:00.000Z")
    expect(noteAt(scan.notes, "converted", "created_at").detail).toContain("2024-05-01T12:00:00.000Z")
  })

  it("created_at without a zone is read as UTC, with an assumed note", () => {
    for (const value of ["2024-05-01 12:00:00", "2024-05-01T12:00:00"]) {
      const scan = decode(success({}, { created_at: value }))
      expect(scan.createdAt).toBe("2024-05-01T12:00:00.000Z")
      expect(noteAt(scan.notes, "assumed", "created_at").detail).toContain("UTC")
    }
    expect(decode(success({}, { created_at: "2024-05-01 12:00:00.5" })).createdAt).toBe("2024-05-01T12:00:00.500Z")
  })

  it("created_at that is no date is dropped with a note", () => {
    for (const value of ["yesterday", "2024-13-01 12:00:00", ""]) {
      const scan = decode(success({}, { created_at: value }))
      expect(scan.createdAt).toBeNull()
      noteAt(scan.notes, "dropped", "created_at")
    }
  })

  it("no created_at gives createdAt null without a note", () => {
    const { created_at: _, ...item } = success()
    const scan = decode(item)
    expect(scan.createdAt).toBeNull()
    expect(hasNoteAt(scan.notes, "created_at")).toBe(false)
  })

  it("unknown keys at item, estimation and result level are dropped with notes", () => {
    const scan = decode(success({ extra: 1, result: result({ extra2: [1, 2] }) }, { extra0: "x" }))
    expect(noteAt(scan.notes, "dropped", "extra0").detail).toContain("extra0")
    noteAt(scan.notes, "dropped", "estimation.extra")
    noteAt(scan.notes, "dropped", "estimation.result.extra2")
    expect(scan.status).toBe("success")
  })

  it("unknown keys in estimation.input are not lost silently", () => {
    const scan = decode(success({ input: { ...INPUT, lang: "en" } }))
    noteAt(scan.notes, "dropped", "estimation.input.lang")
  })

  it("unknown keys in result.body_composition are not lost silently", () => {
    const scan = decode(success({ result: result({ body_composition: { body_fat_percentage: 24, bone_mass: 2900 } }) }))
    noteAt(scan.notes, "dropped", "estimation.result.body_composition.bone_mass")
  })

  it("unknown measurement keys are dropped, with a suggestion where the catalogue has one", () => {
    const measurement = { ...MEASUREMENT_MM, waistGirth: 701, WAIST_GIRTH: 702, belly_waist_depth: 230, foo_bar: 5 }
    const scan = decode(success({ result: result({ measurement }) }))
    expect(scan.measurementsMm).toEqual(scanOf(SUCCESS_SCAN).measurementsMm)
    expect(noteAt(scan.notes, "dropped", `${MEASURE}.waistGirth`).detail).toContain("did you mean waist_girth?")
    expect(noteAt(scan.notes, "dropped", `${MEASURE}.WAIST_GIRTH`).detail).toContain("did you mean waist_girth?")
    // bellyWaistDepth exists, but the estimation API has no key for it: nothing to suggest.
    expect(noteAt(scan.notes, "dropped", `${MEASURE}.belly_waist_depth`).detail).not.toContain("did you mean")
    expect(noteAt(scan.notes, "dropped", `${MEASURE}.foo_bar`).detail).not.toContain("did you mean")
  })

  // Timed generously: the property is the notes' count, not the time, and a loaded machine is slow.
  it("100,000 unknown keys in an item, or 10,000 in result.measurement, give MAX_NOTES notes and one that counts the rest", { timeout: 120_000 }, () => {
    const many = (prefix: string, count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, i]))
    for (const [item, at, count] of [
      [success({}, many("x", 100_000)), "x0", 100_000],
      [success({ result: result({ measurement: { ...MEASUREMENT_MM, ...many("m", 10_000) } }) }), `${MEASURE}.m0`, 10_000]
    ] as const) {
      const scan = decode(item)
      const all = decode(success()).notes.length + count
      expect(scan.notes).toHaveLength(MAX_NOTES + 1)
      expect(scan.notes.filter((n) => n.path === at)).toHaveLength(1)
      const last = scan.notes[MAX_NOTES]!
      expect(last.path).toBe("notes")
      expect(last.detail).toMatch(new RegExp(`^${all - MAX_NOTES} more note\\(s\\) left out after the first ${MAX_NOTES} \\(.*\\d+ dropped`))
      expect(scan.measurementsMm).toEqual(scanOf(SUCCESS_SCAN).measurementsMm)
    }
  })

  it("a result with only unknown measurement keys gives no measurements and no length inference", () => {
    const scan = decode(success({ result: result({ measurement: { foo: 1 } }) }))
    expect(scan.measurementsMm).toEqual({})
    expect(hasNoteAt(scan.notes, MEASURE)).toBe(false)
  })
})

// --- Decode: the read response -----------------------------------------------------------------

describe("decodeReadResponseEither", () => {
  it("gives one scan per measurements[] item", () => {
    const scans = ok(decodeReadResponseEither({ measurements: [success(), inProgress(), failed()], message: "ok", result: true }))
    expect(scans.map((s) => s.status)).toEqual(["success", "pending", "failure"])
    // Three items: the message belongs to none of them.
    expect(scans[2]!.failure!.message).toBeNull()
    expect(ok(decodeReadResponseEither({ measurements: [] }))).toEqual([])
  })

  it("the message of a response with exactly one failed item is the failure's message", () => {
    const [scan] = ok(decodeReadResponseEither({ measurements: [failed()], message: "arm angle too small", result: true }))
    expect(scan!.failure).toEqual({ code: "306", category: "estimation", message: "arm angle too small" })
    const [empty] = ok(decodeReadResponseEither({ measurements: [failed()], message: "", result: true }))
    expect(empty!.failure!.message).toBeNull()
  })

  it("unknown top-level keys are dropped with notes", () => {
    const [scan] = ok(decodeReadResponseEither({ measurements: [success()], message: "success", result: true, page: 2 }))
    expect(noteAt(scan!.notes, "dropped", "page").detail).toContain("page")
  })

  it("each item's scan notes its own unknown keys, from the item, and the response's", () => {
    const odd = success({ input: { ...INPUT, lang: "en" } })
    const scans = ok(decodeReadResponseEither({ measurements: [success(), odd], message: "success", result: true, page: 2 }))
    const unknown = (i: number) => scans[i]!.notes.filter((n) => n.detail.startsWith("unknown key")).map((n) => n.path)
    expect(unknown(0)).toEqual(["page"])
    expect(unknown(1)).toEqual(["estimation.input.lang", "page"])
  })

  it("the first bad item fails the response, naming its index", () => {
    const e = err(decodeReadResponseEither({ measurements: [success(), success({ input: { ...INPUT, height: 168 } })] }))
    expect(e).toBeInstanceOf(DecodeError)
    expect(e.format).toBe(FORMATS.readResponse)
    expect(e.path).toEqual(["measurements", 1, "estimation", "input", "height"])
    expect(e.message).toContain("looks like centimetres")
  })

  it("a response the wire schema refuses is a DecodeError", () => {
    expect(err(decodeReadResponseEither({ message: "x" }))).toBeInstanceOf(DecodeError)
    expect(err(decodeReadResponseEither({ measurements: [{ status: "completed" }] })).path[0]).toBe("measurements")
  })
})

// --- Decode: units ------------------------------------------------------------------------------

describe("decode: unit inference", () => {
  it("centimetre measurements are read as centimetres and converted to mm", () => {
    const scan = decode(success({ result: result({ measurement: MEASUREMENT_CM }) }))
    expect(scan.measurementsMm).toEqual({ bustGirth: 860, waistGirth: 700, hipGirth: 900, insideLegHeight: 740 })
    expect(noteAt(scan.notes, "assumed", MEASURE).detail).toContain("centimetres")
  })

  it("a value that fits no unit is a DecodeError at its path, naming it and the lengthUnit option", () => {
    const e = decodeError(success({ result: result({ measurement: { waist_girth: 20 } }) }))
    expect(e.path).toEqual(["estimation", "result", "measurement", "waist_girth"])
    expect(e.value).toBe(20)
    expect(e.message).toContain("waist_girth 20")
    expect(e.message).toContain(`; state the unit with ${LENGTH_UNIT_FLAG_AND_OPTION}`)
  })

  it("values in mm and in cm in one record are a contradiction naming both", () => {
    const e = decodeError(success({ result: result({ measurement: { bust_girth: 862, waist_girth: 70 } }) }))
    expect(e.path).toEqual(["estimation", "result", "measurement", "waist_girth"])
    expect(e.value).toBe(70)
    expect(e.message).toContain("waist_girth 70")
    expect(e.message).toContain("bust_girth 862")
    expect(e.message).toContain(`; state the unit with ${LENGTH_UNIT_FLAG_AND_OPTION}`)
  })

  it("without a stature, values that fit both units are undecided: a DecodeError at the measurement", () => {
    // A small child's measurements, no input: 225 mm or 225 cm are both human.
    const e = decodeError(success({ input: undefined, result: result({ body_composition: null, measurement: { waist_girth: 225 } }) }))
    expect(e.path).toEqual(["estimation", "result", "measurement"])
    expect(e.value).toEqual([225])
    expect(e.message).toContain("millimetres")
    expect(e.message).toContain("centimetres")
    expect(e.message).toContain(`; state the unit with ${LENGTH_UNIT_FLAG_AND_OPTION}`)
  })

  it("without a stature, a value outside the cm band still decides", () => {
    const scan = decode(success({ input: undefined, result: result({ body_composition: null, measurement: { waist_girth: 701 } }) }))
    expect(scan.measurementsMm).toEqual({ waistGirth: 701 })
    expect(noteAt(scan.notes, "assumed", MEASURE).detail).toContain("millimetres")
  })

  it("lengthUnit given skips inference and says so; the lengths are then judged against the body", () => {
    const cm = decode(success({ result: result({ measurement: { waist_girth: 70 } }) }), { lengthUnit: "cm" })
    expect(cm.measurementsMm).toEqual({ waistGirth: 700 })
    expect(noteAt(cm.notes, "assumed", MEASURE).detail).toBe("result.measurement read as centimetres: given by the caller (lengthUnit)")
    expect(noteAt(cm.notes, "converted", MEASURE).detail).toBe("1 length(s) stated in centimetres, converted to millimetres")
    // 8620 mm is no bust in any unit: kept as the caller said, with a note that says so.
    const forced = decode(success({ result: result({ measurement: { bust_girth: 862, waist_girth: 70 } }) }), { lengthUnit: "cm" })
    expect(forced.measurementsMm).toEqual({ bustGirth: 8620, waistGirth: 700 })
    const assumed = forced.notes.filter((n) => n.kind === "assumed" && n.path === MEASURE).map((n) => n.detail)
    expect(assumed).toHaveLength(2)
    expect(assumed[1]).toContain("plausible in no unit")
    expect(assumed[1]).toContain("kept as read")
    const mm = decode(success({ result: result({ measurement: { waist_girth: 701 } }) }), { lengthUnit: "mm" })
    expect(mm.measurementsMm).toEqual({ waistGirth: 701 })
    expect(noteAt(mm.notes, "assumed", MEASURE).detail).toContain("millimetres")
    // Changed on purpose: a given unit no longer passes lengths plausible only in another one.
    // 20 "mm" is no waist of a 1640 mm body; 20 in (508 mm) is.
    const e = decodeError(success({ result: result({ measurement: { waist_girth: 20 } }) }), { lengthUnit: "mm" })
    expect(e.path).toEqual(["estimation", "result", "measurement"])
    expect(e.value).toBe(20)
    expect(e.message).toContain("plausible in inches and not in millimetres")
    expect(e.message).toContain(LENGTH_UNIT_FLAG_AND_OPTION)
  })

  it("body fat in percent x 10^4 is read as e4", () => {
    const scan = decode(success({ result: result({ body_composition: { body_fat_percentage: 241000 } }) }))
    expect(scan.composition).toEqual({ bodyFatPercent: 24.1, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: null })
    expect(noteAt(scan.notes, "assumed", FAT).detail).toContain("10^4")
  })

  it("body fat that fits neither scale is a DecodeError at body_fat_percentage", () => {
    for (const value of [1, 71, 1000, 700_001]) {
      const e = decodeError(success({ result: result({ body_composition: { body_fat_percentage: value } }) }))
      expect(e.path).toEqual(["estimation", "result", "body_composition", "body_fat_percentage"])
      expect(e.value).toBe(value)
      expect(e.message).toContain(`; state the unit with ${BODY_FAT_SCALE_WAY_OUT}`)
    }
  })

  it("bodyFatScale given skips inference; a percentage over 100 is a DecodeError", () => {
    const e4 = decode(success({ result: result({ body_composition: { body_fat_percentage: 1 } }) }), { bodyFatScale: "e4" })
    expect(e4.composition!.bodyFatPercent).toBe(0.0001)
    expect(noteAt(e4.notes, "assumed", FAT).detail).toContain("given by the caller")
    const e = decodeError(success({ result: result({ body_composition: { body_fat_percentage: 241000 } }) }), { bodyFatScale: "percent" })
    expect(e.path).toEqual(["estimation", "result", "body_composition", "body_fat_percentage"])
  })

  it("muscle mass in kg is read as kg against the weight", () => {
    const scan = decode(success({ result: result({ body_composition: { skeletal_muscle_mass: 25 } }) }))
    expect(scan.composition!.skeletalMuscleMassG).toBe(25000)
    expect(noteAt(scan.notes, "assumed", MUSCLE).detail).toContain("kilograms")
  })

  it("muscle mass outside 10-65 % of the weight in either unit is a DecodeError", () => {
    // 40 g is under 5.4 kg; 40 kg is over 65 % of 54 kg.
    const e = decodeError(success({ result: result({ body_composition: { skeletal_muscle_mass: 40 } }) }))
    expect(e.path).toEqual(["estimation", "result", "body_composition", "skeletal_muscle_mass"])
    expect(e.message).toContain(`; state the unit with ${MUSCLE_MASS_UNIT_WAY_OUT}`)
  })

  it("muscle mass without a weight is judged against 2-100 kg", () => {
    const noInput = (muscle: number) =>
      success({ input: undefined, result: result({ measurement: { foo: 1 }, body_composition: { skeletal_muscle_mass: muscle } }) })
    expect(decode(noInput(30)).composition!.skeletalMuscleMassG).toBe(30000)
    expect(decode(noInput(30000)).composition!.skeletalMuscleMassG).toBe(30000)
    expect(decodeError(noInput(150)).path).toEqual(["estimation", "result", "body_composition", "skeletal_muscle_mass"])
  })

  it("muscleMassUnit given skips inference", () => {
    const scan = decode(success({ result: result({ body_composition: { skeletal_muscle_mass: 40 } }) }), { muscleMassUnit: "kg" })
    expect(scan.composition!.skeletalMuscleMassG).toBe(40000)
    expect(noteAt(scan.notes, "assumed", MUSCLE).detail).toContain("given by the caller")
  })

  it("a body composition that is null, empty or all null is no composition", () => {
    for (const body_composition of [null, {}, { body_fat_percentage: null, skeletal_muscle_mass: null }]) {
      const scan = decode(success({ result: result({ body_composition }) }))
      expect(scan.composition).toBeNull()
      expect(hasNoteAt(scan.notes, FAT) || hasNoteAt(scan.notes, MUSCLE)).toBe(false)
    }
    const { body_composition: _, ...noBody } = result()
    expect(decode(success({ result: noBody })).composition).toBeNull()
  })
})

// --- Decode: the ways out, the units a caller gives, other spellings -----------------------------

const inches = (mm: number) => Math.round((mm / 25.4) * 100) / 100
const MEASUREMENT_IN = Object.fromEntries(Object.entries(MEASUREMENT_MM).map(([k, mm]) => [k, inches(mm)]))
const KNEE_MM = Math.round(PROPORTIONS.kneeHeightR * 1640)

describe("decode: the way out each message names", () => {
  it("a record in inches, read as it is, is refused naming --length-unit (lengthUnit in the plain and Effect APIs)", () => {
    const e = decodeError(success({ result: result({ measurement: MEASUREMENT_IN }) }))
    expect(e.path.slice(0, 3)).toEqual(["estimation", "result", "measurement"])
    expect(e.message).toMatch(
      /^estimation read item: .*plausible in none of millimetres, centimetres; state the unit with --length-unit \(lengthUnit in the plain and Effect APIs\)/
    )
    expect(e.message).not.toContain("option")
  })

  it("undecided lengths, body fat and muscle mass name their flags and options", () => {
    const undecided = decodeError(success({ input: undefined, result: result({ body_composition: null, measurement: { waist_girth: 225 } }) }))
    expect(undecided.message).toContain(
      "every value fits millimetres and centimetres alike; state the unit with --length-unit (lengthUnit in the plain and Effect APIs)"
    )
    const fat = decodeError(success({ result: result({ body_composition: { body_fat_percentage: 1000 } }) }))
    expect(fat.message).toContain("; state the unit with --body-fat-scale (bodyFatScale in the plain and Effect APIs)")
    const muscle = decodeError(success({ result: result({ body_composition: { skeletal_muscle_mass: 40 } }) }))
    expect(muscle.message).toContain("; state the unit with --muscle-mass-unit (muscleMassUnit in the plain and Effect APIs)")
    const over = decodeError(success({ result: result({ body_composition: { body_fat_percentage: 241000 } }) }), { bodyFatScale: "percent" })
    expect(over.message).toContain(
      "a percentage up to 100; if the values are percent x 10^4, state the scale with --body-fat-scale (bodyFatScale in the plain and Effect APIs)"
    )
  })

  it("inches under a given mm are refused with the evidence and the way out", () => {
    const e = decodeError(success({ result: result({ measurement: MEASUREMENT_IN }) }), { lengthUnit: "mm" })
    expect(e.path).toEqual(["estimation", "result", "measurement"])
    expect(e.message).toContain('lengths read as millimetres (as the caller said (lengthUnit "mm")) are plausible in')
    expect(e.message).toContain("inches")
    expect(e.message).toContain(`pass the unit they are in with ${LENGTH_UNIT_FLAG_AND_OPTION}`)
  })
})

describe("decode: the units a caller gives", () => {
  it("lengthUnit in reads a record in inches as millimetres, with the notes that say so", () => {
    const scan = decode(success({ result: result({ measurement: MEASUREMENT_IN }) }), { lengthUnit: "in" })
    const expected = scanOf(SUCCESS_SCAN).measurementsMm
    expect(Object.keys(scan.measurementsMm).sort()).toEqual(Object.keys(expected).sort())
    for (const [name, mm] of Object.entries(expected)) expect(Math.abs(scan.measurementsMm[name as MeasurementName]! - mm)).toBeLessThanOrEqual(0.127)
    expect(noteAt(scan.notes, "assumed", MEASURE).detail).toBe("result.measurement read as inches: given by the caller (lengthUnit)")
    expect(noteAt(scan.notes, "converted", MEASURE).detail).toBe("4 length(s) stated in inches, converted to millimetres")
  })

  it("auto, as leaving the option out, infers", () => {
    const auto = decode(success({ result: result({ measurement: MEASUREMENT_CM }) }), { lengthUnit: "auto", bodyFatScale: "auto", muscleMassUnit: "auto" })
    expect(withoutNotes(auto)).toEqual(withoutNotes(decode(success({ result: result({ measurement: MEASUREMENT_CM }) }))))
    expect(noteAt(auto.notes, "assumed", MEASURE).detail).toContain("(the API states no unit)")
  })

  it("the options of a decode win over the adapter's units; one left out or auto is the adapter's", () => {
    const adapter = estimationAdapterWith({ lengthUnit: "cm", muscleMassUnit: "kg" })
    const item = adapter.formats.find((f) => f.name === FORMATS.readItem)!
    const read = (json: unknown, options?: UnitOptions) => ok(item.decode(json, options))[0]!
    const cm = success({ result: result({ measurement: MEASUREMENT_CM, body_composition: { skeletal_muscle_mass: 25 } }) })
    for (const options of [undefined, {}, { lengthUnit: "auto" as const, muscleMassUnit: "auto" as const }]) {
      const scan = read(cm, options)
      expect(scan.measurementsMm).toEqual({ bustGirth: 860, waistGirth: 700, hipGirth: 900, insideLegHeight: 740 })
      expect(scan.composition!.skeletalMuscleMassG).toBe(25000)
      expect(noteAt(scan.notes, "assumed", MEASURE).detail).toContain("given by the caller")
    }
    const inchesRead = read(success({ result: result({ measurement: MEASUREMENT_IN, body_composition: { skeletal_muscle_mass: 25000 } }) }), {
      lengthUnit: "in",
      muscleMassUnit: "g"
    })
    expect(inchesRead.measurementsMm.waistGirth).toBeCloseTo(701, 0)
    expect(inchesRead.composition!.skeletalMuscleMassG).toBe(25000)
    // The plain adapter infers unless a decode's options say otherwise.
    const plain = estimationAdapter.formats.find((f) => f.name === FORMATS.readItem)!
    expect(ok(plain.decode(cm))[0]!.measurementsMm.waistGirth).toBe(700)
    expect(
      ok(plain.decode(success({ result: result({ body_composition: { body_fat_percentage: 1 } }) }), { bodyFatScale: "e4" }))[0]!.composition!.bodyFatPercent
    ).toBe(0.0001)
  })
})

describe("decode: other spellings of the API's keys", () => {
  it("knee_height is read as knee_height_r with an aliased note", () => {
    const scan = decode(success({ result: result({ measurement: { ...MEASUREMENT_MM, knee_height: KNEE_MM } }) }))
    expect(scan.measurementsMm).toEqual({ ...scanOf(SUCCESS_SCAN).measurementsMm, kneeHeightR: KNEE_MM })
    expect(noteAt(scan.notes, "aliased", `${MEASURE}.knee_height`).detail).toBe("knee_height read as knee_height_r: another spelling of it")
  })

  it("each right-side key without its _r is another spelling of it", () => {
    for (const { key, name } of ESTIMATION.filter((m) => m.key.endsWith("_r"))) {
      const alias = key.slice(0, -2)
      const scan = decode(success({ result: result({ measurement: { [alias]: Math.round(PROPORTIONS[name] * 1640) } }) }))
      expect(scan.measurementsMm).toEqual({ [name]: Math.round(PROPORTIONS[name] * 1640) })
      noteAt(scan.notes, "aliased", `${MEASURE}.${alias}`)
    }
  })

  it("another spelling counts in the unit inference like any length, and an error names it as the record spells it", () => {
    const cm = decode(success({ result: result({ measurement: { knee_height: KNEE_MM / 10 } }) }))
    expect(cm.measurementsMm).toEqual({ kneeHeightR: KNEE_MM })
    expect(noteAt(cm.notes, "assumed", MEASURE).detail).toContain("centimetres")
    const e = decodeError(success({ result: result({ measurement: { bust_girth: 862, knee_height: Math.round(KNEE_MM / 10) } }) }))
    expect(e.path).toEqual(["estimation", "result", "measurement", "knee_height"])
    expect(e.message).toContain(`knee_height ${Math.round(KNEE_MM / 10)}`)
    expect(e.message).toContain(LENGTH_UNIT_FLAG_AND_OPTION)
  })

  it("another spelling beside the key itself is dropped, the key kept", () => {
    const scan = decode(success({ result: result({ measurement: { ...MEASUREMENT_MM, knee_height_r: KNEE_MM, knee_height: KNEE_MM + 10 } }) }))
    expect(scan.measurementsMm.kneeHeightR).toBe(KNEE_MM)
    expect(noteAt(scan.notes, "dropped", `${MEASURE}.knee_height`).detail).toContain("knee_height_r too, which is kept")
  })

  it("another spelling read with a given unit goes through the same judgement", () => {
    const scan = decode(success({ result: result({ measurement: { knee_height: inches(KNEE_MM) } }) }), { lengthUnit: "in" })
    expect(scan.measurementsMm.kneeHeightR).toBeCloseTo(KNEE_MM, 0)
    expect(decodeError(success({ result: result({ measurement: { knee_height: inches(KNEE_MM) } }) }), { lengthUnit: "mm" }).message).toContain("inches")
  })

  it("a key within a typo of the API's, or in another case, is dropped with a did-you-mean", () => {
    const scan = decode(success({ result: result({ measurement: { ...MEASUREMENT_MM, waist_grith: 700, KNEE_HEIGHT: KNEE_MM } }) }))
    expect(scan.measurementsMm).toEqual(scanOf(SUCCESS_SCAN).measurementsMm)
    expect(noteAt(scan.notes, "dropped", `${MEASURE}.waist_grith`).detail).toBe("unknown measurement waist_grith = 700 (did you mean waist_girth?)")
    expect(noteAt(scan.notes, "dropped", `${MEASURE}.KNEE_HEIGHT`).detail).toContain("(did you mean knee_height_r?)")
  })
})

// --- Encode -------------------------------------------------------------------------------------

describe("encodeReadResponseEither", () => {
  it("a pending scan is an in-progress item with an empty estimation", () => {
    const encoded = encode(scanOf({ source: { api: "estimation", id: "est-3" }, status: "pending", createdAt: "2024-05-01T12:00:00.000Z", method: "photo" }))
    expect(encoded.value).toEqual({
      measurements: [{ created_at: "2024-05-01T12:00:00.000Z", estimation_id: "est-3", status: "in-progress", estimation: {} }],
      message: "success",
      result: true
    })
    expect(encoded.notes).toEqual([])
    validateWire(encoded.value)
  })

  it("a pending scan's subject and results are dropped with notes", () => {
    const encoded = encode(scanOf({ source: { api: "estimation", id: "e" }, status: "pending", subject: SUBJECT, measurementsMm: { waistGirth: 700 } }))
    expect(encoded.value.measurements[0]!.estimation).toEqual({})
    noteAt(encoded.notes, "dropped", "subject")
    noteAt(encoded.notes, "dropped", "measurementsMm")
  })

  it("a success is a completed item with code 101, input, result in mm, percent and g", () => {
    const encoded = encode(scanOf(SUCCESS_SCAN))
    expect(encoded.notes).toEqual([])
    expect(encoded.value).toEqual({
      measurements: [
        {
          created_at: "2024-05-01T12:00:00.000Z",
          estimation_id: "est-1",
          status: "completed",
          estimation: {
            code: 101,
            input: INPUT,
            result: {
              body_composition: { body_fat_percentage: 24, skeletal_muscle_mass: 25000 },
              measurement: MEASUREMENT_MM,
              status: "success"
            },
            status: "success"
          }
        }
      ],
      message: "success",
      result: true
    })
    validateWire(encoded.value)
  })

  it("without a created_at, the item has none", () => {
    const encoded = encode(scanOf({ ...SUCCESS_SCAN, createdAt: null }))
    expect(encoded.value.measurements[0]).not.toHaveProperty("created_at")
  })

  it("a success without all four stats is an EncodeError at subject", () => {
    for (const missing of ["age", "gender", "heightMm", "weightG"] as const) {
      const e = encodeError(scanOf({ ...SUCCESS_SCAN, subject: { ...SUBJECT, [missing]: null } }))
      expect(e.path).toEqual(["subject"])
    }
  })

  it("writes lengths in cm when asked, rounding with a converted note", () => {
    const encoded = encode(scanOf(SUCCESS_SCAN), { lengthUnit: "cm" })
    const r = encoded.value.measurements[0]!.estimation.result!
    expect(r.measurement).toEqual({ bust_girth: 86, waist_girth: 70, hip_girth: 90, inside_leg_height: 74 })
    noteAt(encoded.notes, "converted", "measurementsMm.bustGirth")
    noteAt(encoded.notes, "converted", "measurementsMm.hipGirth")
    expect(hasNoteAt(encoded.notes, "measurementsMm.insideLegHeight")).toBe(false)
  })

  it("writes body fat as e4 and muscle mass as kg when asked", () => {
    const scan = scanOf({ ...SUCCESS_SCAN, composition: { bodyFatPercent: 24.1, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: 25000 } })
    const encoded = encode(scan, { bodyFatScale: "e4", muscleMassUnit: "kg" })
    expect(encoded.value.measurements[0]!.estimation.result!.body_composition).toEqual({ body_fat_percentage: 241000, skeletal_muscle_mass: 25 })
    expect(encoded.notes).toEqual([])
  })

  it("rounds fractional values to integers with converted notes", () => {
    const scan = scanOf({
      ...SUCCESS_SCAN,
      subject: { ...SUBJECT, heightMm: 1640.4, weightG: 54000.5 },
      measurementsMm: { bustGirth: 862.5 },
      composition: { bodyFatPercent: 24.1, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: 25100 }
    })
    const encoded = encode(scan, { muscleMassUnit: "kg" })
    const e = encoded.value.measurements[0]!.estimation
    expect(e.input).toEqual({ ...INPUT, height: 1640, weight: 54001 })
    expect(e.result!.measurement).toEqual({ bust_girth: 863 })
    expect(e.result!.body_composition).toEqual({ body_fat_percentage: 24, skeletal_muscle_mass: 25 })
    for (const path of ["subject.heightMm", "subject.weightG", "measurementsMm.bustGirth", "composition.bodyFatPercent", "composition.skeletalMuscleMassG"]) {
      noteAt(encoded.notes, "converted", path)
    }
    validateWire(encoded.value)
  })

  it("a body fat percent with more decimals than e4 holds is not rounded silently", () => {
    // 24.12345 % is 241234.5 x 10^-4: percentToE4 rounds it to 241235, a loss the caller must hear of.
    const scan = scanOf({ ...SUCCESS_SCAN, composition: { bodyFatPercent: 24.12345, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: null } })
    const encoded = encode(scan, { bodyFatScale: "e4" })
    expect(encoded.value.measurements[0]!.estimation.result!.body_composition).toEqual({ body_fat_percentage: 241235 })
    noteAt(encoded.notes, "converted", "composition.bodyFatPercent")
  })

  it("a value past the exact integers is an EncodeError naming it", () => {
    const e = encodeError(scanOf({ ...SUCCESS_SCAN, measurementsMm: { waistGirth: 2 ** 60 } }))
    expect(e.path).toEqual(["measurementsMm", "waistGirth"])
  })

  it("a failure is a completed item with status fail, the numeric code, the input and the message", () => {
    const scan = scanOf({
      source: { api: "estimation", id: "est-2" },
      status: "failure",
      method: "photo",
      subject: SUBJECT,
      failure: { code: "306", category: "estimation", message: "arm angle too small" }
    })
    const encoded = encode(scan)
    expect(encoded.notes).toEqual([])
    expect(encoded.value).toEqual({
      measurements: [{ estimation_id: "est-2", status: "completed", estimation: { code: 306, input: INPUT, status: "fail" } }],
      message: "arm angle too small",
      result: true
    })
    validateWire(encoded.value)
    const noMessage = encode(scanOf({ ...scan, subject: {}, failure: { code: "306", category: "estimation", message: null } }))
    expect(noMessage.value.message).toBe("")
    expect(noMessage.value.measurements[0]!.estimation).toEqual({ code: 306, status: "fail" })
  })

  it("a numeric failure code with leading zeros is not changed silently", () => {
    // "0306" passes the numeric check and is written as 306: the code reads back as "306".
    const scan = scanOf({ source: { api: "estimation", id: "e" }, status: "failure", failure: { code: "0306", category: "estimation", message: null } })
    const encoded = encode(scan)
    const back = ok(decodeReadResponseEither(encoded.value))[0]!
    if (back.failure!.code !== "0306") noteAt(encoded.notes, "converted", "failure.code")
  })

  it("a failure with an incomplete subject drops it with a note", () => {
    const scan = scanOf({
      source: { api: "estimation", id: "e" },
      status: "failure",
      subject: { age: 30 },
      failure: { code: "306", category: "estimation", message: null }
    })
    const encoded = encode(scan)
    expect(encoded.value.measurements[0]!.estimation).not.toHaveProperty("input")
    noteAt(encoded.notes, "dropped", "subject")
  })

  it("a non-numeric failure code is written as 0, with a converted note and the code kept in the message", () => {
    const scan = scanOf({
      source: { api: "session", id: "ssid-1" },
      status: "failure",
      failure: { code: "SESSION_EXPIRED", category: "session", message: "too late" }
    })
    const encoded = encode(scan)
    expect(encoded.value.measurements[0]!.estimation.code).toBe(0)
    expect(encoded.value.message).toBe("SESSION_EXPIRED: too late")
    noteAt(encoded.notes, "converted", "failure.code")
    const bare = encode(scanOf({ ...scan, failure: { code: "SESSION_EXPIRED", category: "session", message: null } }))
    expect(bare.value.message).toBe("SESSION_EXPIRED")
  })

  it("a failed scan's results are dropped with a note", () => {
    const scan = scanOf({
      source: { api: "estimation", id: "e" },
      status: "failure",
      measurementsMm: { waistGirth: 700 },
      failure: { code: "306", category: "estimation", message: null }
    })
    const encoded = encode(scan)
    expect(encoded.value.measurements[0]!.estimation).not.toHaveProperty("result")
    noteAt(encoded.notes, "dropped", "measurementsMm")
  })

  it("what the estimation API has no place for is dropped, each with a note", () => {
    const scan = scanOf({
      ...SUCCESS_SCAN,
      externalId: "order-1",
      expiresAt: "2024-05-02T12:00:00.000Z",
      method: "stats",
      measurementsMm: { waistGirth: 701, bellyWaistDepth: 230, bellyWaistWidth: 300 },
      composition: { bodyFatPercent: 24, bodyFatMassG: 13000, leanMassG: 41000, skeletalMuscleMassG: null },
      posture: { front: null, right: null },
      avatar: { format: "vertices", type: null, data: null, vertices: [0, 1, 2] },
      adjustment: { baseScanId: "scan_x", baseScanType: null, parameters: [], outputWeightG: null },
      notes: [{ kind: "assumed", path: "x", detail: "y" }]
    })
    const encoded = encode(scan)
    for (const path of [
      "externalId",
      "expiresAt",
      "method",
      "posture",
      "avatar",
      "adjustment",
      "notes",
      "measurementsMm.bellyWaistDepth",
      "measurementsMm.bellyWaistWidth",
      "composition.bodyFatMassG",
      "composition.leanMassG"
    ]) {
      noteAt(encoded.notes, "dropped", path)
    }
    expect(encoded.notes).toHaveLength(11)
    expect(encoded.value.measurements[0]!.estimation.result!.measurement).toEqual({ waist_girth: 701 })
    expect(encoded.value.measurements[0]!.estimation.result!.body_composition).toEqual({ body_fat_percentage: 24 })
    validateWire(encoded.value)
  })

  it("another API's scan gets estimation_id <api>:<id> with a converted note", () => {
    const encoded = encode(scanOf({ ...SUCCESS_SCAN, source: { api: "platform", id: "scan_x" } }))
    expect(encoded.value.measurements[0]!.estimation_id).toBe("platform:scan_x")
    expect(noteAt(encoded.notes, "converted", "source.id").detail).toContain("platform:scan_x")
    const noId = encode(scanOf({ source: { api: "session", id: null }, status: "pending" }))
    expect(noId.value.measurements[0]!.estimation_id).toBe("session:unknown")
  })

  it("an estimation scan without an id is an EncodeError at source.id", () => {
    expect(encodeError(scanOf({ source: { api: "estimation", id: null }, status: "pending" })).path).toEqual(["source", "id"])
  })
})

// --- Properties -----------------------------------------------------------------------------------

const RUNS = { fastCheck: { numRuns: 300 } }

/** The 33 measurements the estimation API has, in catalogue order. */
const ESTIMATION = estimationDialect.measurementList.map(({ name, spelling }) => ({ key: spelling.name, name, kind: Catalogue.entry(name).kind }))
const BREADTH = new Set(["girth", "width", "depth"])
const INDICES = ESTIMATION.map((_, i) => i)

const gender = fc.constantFrom("male" as const, "female" as const)

/** A body: stature, build (girths, widths and depths) and the jitter of each measurement. */
const body = fc.record({
  stature: fc.integer({ min: HUMAN_RANGES.heightMm.min, max: HUMAN_RANGES.heightMm.max }),
  build: fc.double({ min: 0.75, max: 1.45, noNaN: true }),
  jitter: fc.array(fc.double({ min: 0.85, max: 1.15, noNaN: true }), { minLength: ESTIMATION.length, maxLength: ESTIMATION.length })
})
type Body = typeof body extends fc.Arbitrary<infer A> ? A : never

/** The true millimetres of measurement i of a body (not rounded). */
const trueMm = (b: Body, i: number): number => {
  const m = ESTIMATION[i]!
  return PROPORTIONS[m.name] * b.stature * (BREADTH.has(m.kind) ? b.build : 1) * b.jitter[i]!
}

const written = (mm: number, unit: "mm" | "cm"): number => (unit === "mm" ? Math.round(mm) : Math.round(mm / 10))

const FACTOR = { mm: 1, cm: 10 } as const
const inBand = (raw: number, factor: number, range: { readonly min: number; readonly max: number }) => raw * factor >= range.min && raw * factor <= range.max

const record = fc.record({
  body,
  picked: fc.shuffledSubarray(INDICES, { minLength: 1 }),
  unit: fc.constantFrom("mm" as const, "cm" as const),
  age: fc.integer({ min: 1, max: 100 }),
  gender,
  weight: fc.integer({ min: HUMAN_RANGES.weightG.min, max: HUMAN_RANGES.weightG.max })
})

interface Generated {
  readonly json: Obj
  readonly values: ReadonlyArray<{ readonly key: string; readonly name: MeasurementName; readonly raw: number }>
}

const buildRecord = (
  r: { body: Body; picked: ReadonlyArray<number>; unit: "mm" | "cm"; age: number; gender: "male" | "female"; weight: number },
  withInput: boolean
): Generated => {
  const values = r.picked.map((i) => ({ key: ESTIMATION[i]!.key, name: ESTIMATION[i]!.name, raw: written(trueMm(r.body, i), r.unit) }))
  const estimation: Obj = {
    code: 101,
    ...(withInput ? { input: { age: r.age, gender: r.gender, height: r.body.stature, weight: r.weight } } : {}),
    result: { measurement: Object.fromEntries(values.map((v) => [v.key, v.raw])), status: "success" },
    status: "success"
  }
  return { json: { status: "completed", estimation_id: "gen", estimation }, values }
}

/** The record's JSON with each length rewritten by `f`. */
const rewritten = (g: Generated, f: (raw: number) => number): Obj => {
  const estimation = g.json["estimation"] as Obj
  const measurement = Object.fromEntries(g.values.map((v) => [v.key, f(v.raw)]))
  return { ...g.json, estimation: { ...estimation, result: { ...(estimation["result"] as Obj), measurement } } }
}

/** Checks a decoded record against the unit it was written in: never the other one. */
const checkRecord = (g: Generated, unit: "mm" | "cm", stature: number | null) => {
  const other = unit === "mm" ? "cm" : "mm"
  const clues = g.values.map((v) => lengthClue(["m", v.key], v.key, v.name, v.raw, stature))
  const allFitWritten = clues.every((k) => inBand(k.raw, FACTOR[unit], k.range))
  const otherRuledOut = clues.some((k) => !inBand(k.raw, FACTOR[other], k.range))
  const otherFitsAll = clues.every((k) => inBand(k.raw, FACTOR[other], k.range))
  // The bands themselves never make the wrong unit the only survivor.
  expect(otherFitsAll && !allFitWritten).toBe(false)
  const expectDecided = allFitWritten && otherRuledOut
  const decoded = decodeReadItemEither(g.json)
  if (Either.isLeft(decoded)) {
    expect(decoded.left).toBeInstanceOf(DecodeError)
    expect(expectDecided, decoded.left.message).toBe(false)
    return "failed" as const
  }
  expect(expectDecided).toBe(true)
  const scan = decoded.right
  const detail = noteAt(scan.notes, "assumed", MEASURE).detail
  expect(detail).toContain(unit === "mm" ? "read as millimetres" : "read as centimetres")
  expect(detail).not.toContain(unit === "mm" ? "read as centimetres" : "read as millimetres")
  expect(Object.keys(scan.measurementsMm).length).toBe(g.values.length)
  for (const v of g.values) expect(scan.measurementsMm[v.name]).toBe(unit === "mm" ? v.raw : v.raw * 10)
  return "decided" as const
}

// --- Canonical scans the estimation format holds -------------------------------------------------

const isoMs = fc.date({ min: new Date("1970-01-01T00:00:00.000Z"), max: new Date("2199-12-31T23:59:59.999Z"), noInvalidDate: true }).map((d) => d.toISOString())
const optional = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: null })

type Variant = "mm" | "cm" | "e4kg"

const representable = (variant: Variant): fc.Arbitrary<Scan> =>
  fc
    .record({
      id: fc.string({ minLength: 1 }),
      createdAt: optional(isoMs),
      status: fc.constantFrom("success" as const, "pending" as const, "failure" as const),
      body,
      picked: fc.subarray(INDICES),
      age: fc.integer({ min: HUMAN_RANGES.age.min, max: HUMAN_RANGES.age.max }),
      gender,
      weight: fc.integer({ min: HUMAN_RANGES.weightG.min, max: HUMAN_RANGES.weightG.max }),
      fatPercent: optional(fc.integer({ min: 3, max: 60 })),
      fatE4: optional(fc.integer({ min: 30_000, max: 600_000 })),
      muscleShare: optional(fc.double({ min: 0.15, max: 0.5, noNaN: true })),
      hasComposition: fc.boolean(),
      code: fc.nat({ max: 999_999 }).map(String),
      message: optional(fc.string({ minLength: 1 })),
      failureSubject: fc.boolean()
    })
    .map((g): Scan => {
      const base = { source: { api: "estimation" as const, id: g.id }, createdAt: g.createdAt, method: "photo" as const }
      const subject = { age: g.age, gender: g.gender, heightMm: g.body.stature, weightG: g.weight }
      if (g.status === "pending") return scanOf({ ...base, status: "pending" })
      if (g.status === "failure") {
        return scanOf({
          ...base,
          status: "failure",
          subject: g.failureSubject ? subject : {},
          failure: { code: g.code, category: "estimation", message: g.message }
        })
      }
      const measurementsMm = Object.fromEntries(
        g.picked.map((i) => {
          const mm = trueMm(g.body, i)
          return [ESTIMATION[i]!.name, variant === "cm" ? Math.round(mm / 10) * 10 : Math.round(mm)]
        })
      )
      const fat = variant === "e4kg" ? (g.fatE4 === null ? null : g.fatE4 / 10_000) : g.fatPercent
      const muscle =
        g.muscleShare === null
          ? null
          : variant === "e4kg"
            ? // Whole kilograms from 15 to 50 % of the weight: at least 2-5 kg at 10 kg.
              Math.min(Math.floor((0.5 * g.weight) / 1000), Math.max(Math.ceil((0.15 * g.weight) / 1000), Math.round((g.muscleShare * g.weight) / 1000))) * 1000
            : Math.round(g.muscleShare * g.weight)
      const composition =
        !g.hasComposition || (fat === null && muscle === null)
          ? null
          : { bodyFatPercent: fat, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: muscle }
      return scanOf({ ...base, status: "success", subject, measurementsMm, composition })
    })

const roundTrip = (scan: Scan, options: EncodeOptions) => {
  const encoded = encode(scan, options)
  expect(encoded.notes).toEqual([])
  validateWire(encoded.value)
  const text = JSON.parse(JSON.stringify(encoded.value))
  const decoded = ok(decodeReadResponseEither(text))
  expect(decoded).toHaveLength(1)
  expect(withoutNotes(decoded[0]!)).toEqual(withoutNotes(scan))
}

/** The scan with its lengths and masses brought under 10^6, so that more of them are writable. */
const tame = (scan: Scan): Scan => {
  const small = (n: number) => n % 1e6
  const c = scan.composition
  return scanOf({
    ...scan,
    measurementsMm: Object.fromEntries(Object.entries(scan.measurementsMm).map(([k, v]) => [k, small(v)])),
    composition:
      c === null
        ? null
        : {
            ...c,
            bodyFatMassG: c.bodyFatMassG === null ? null : small(c.bodyFatMassG),
            leanMassG: c.leanMassG === null ? null : small(c.leanMassG),
            skeletalMuscleMassG: c.skeletalMuscleMassG === null ? null : small(c.skeletalMuscleMassG)
          }
  })
}

describe("properties", () => {
  it.prop(
    "(a) a realistic record written in mm or cm decodes in the unit it was written in, and decides whenever the bands allow",
    [record],
    ([r]) => {
      const g = buildRecord(r, true)
      const outcome = checkRecord(g, r.unit, r.body.stature)
      // With the stature known, a value of either unit rules the other out: always decided.
      expect(outcome).toBe("decided")
      const scan = ok(decodeReadItemEither(g.json))
      expect(scan.subject).toEqual({ age: r.age, gender: r.gender, heightMm: r.body.stature, weightG: r.weight })
    },
    RUNS
  )

  it.prop(
    "(a') without a stature, a record decodes in its own unit or fails (Undecided), never in the other unit",
    [record],
    ([r]) => {
      checkRecord(buildRecord(r, false), r.unit, null)
    },
    RUNS
  )

  it.prop(
    "(b) an mm record with one value rewritten in cm is always a DecodeError inside estimation.result.measurement",
    [record.filter((r) => r.picked.length >= 2), fc.nat()],
    ([r, which]) => {
      const mmRecord = buildRecord({ ...r, unit: "mm" }, true)
      const target = which % mmRecord.values.length
      const values = mmRecord.values.map((v, i) => (i === target ? { ...v, raw: written(trueMm(r.body, r.picked[i]!), "cm") } : v))
      const clues = values.map((v) => lengthClue(["m", v.key], v.key, v.name, v.raw, r.body.stature))
      const fitsOnly = (k: (typeof clues)[number], unit: "mm" | "cm") =>
        inBand(k.raw, FACTOR[unit], k.range) && !inBand(k.raw, FACTOR[unit === "mm" ? "cm" : "mm"], k.range)
      // The rewritten value fits only cm and another fits only mm: the clues contradict.
      fc.pre(fitsOnly(clues[target]!, "cm") && clues.some((k, i) => i !== target && fitsOnly(k, "mm")))
      // The clue at which the candidates run out, in record order.
      let alive: ReadonlyArray<"mm" | "cm"> = ["mm", "cm"]
      let blamed: (typeof values)[number] | undefined
      for (const [i, k] of clues.entries()) {
        alive = alive.filter((u) => inBand(k.raw, FACTOR[u], k.range))
        if (alive.length === 0) {
          blamed = values[i]
          break
        }
      }
      expect(blamed).toBeDefined()
      const estimation = {
        ...(mmRecord.json.estimation as Obj),
        result: { measurement: Object.fromEntries(values.map((v) => [v.key, v.raw])), status: "success" }
      }
      const e = err(decodeReadResponseEither({ measurements: [{ ...mmRecord.json, estimation }], message: "success", result: true }))
      expect(e).toBeInstanceOf(DecodeError)
      expect(e.path).toEqual(["measurements", 0, "estimation", "result", "measurement", blamed!.key])
      expect(e.value).toBe(blamed!.raw)
      expect(e.message).toContain(`; state the unit with ${LENGTH_UNIT_FLAG_AND_OPTION}`)
      expect(e.message).toContain(`${values[target]!.key} ${values[target]!.raw}`)
    },
    RUNS
  )

  it.prop(
    "(f) any valid record rewritten in inches and read with lengthUnit in gives the same millimetres, within the inches' rounding",
    [record, fc.boolean()],
    ([r, withInput]) => {
      const g = buildRecord({ ...r, unit: "mm" }, withInput)
      const scan = ok(decodeReadItemEither(rewritten(g, inches), { lengthUnit: "in" }))
      expect(Object.keys(scan.measurementsMm)).toHaveLength(g.values.length)
      // Inches to two decimals: within 0.005 in, 0.127 mm.
      for (const v of g.values) expect(Math.abs(scan.measurementsMm[v.name]! - v.raw)).toBeLessThanOrEqual(0.127 + 1e-9)
      expect(noteAt(scan.notes, "converted", MEASURE).detail).toBe(`${g.values.length} length(s) stated in inches, converted to millimetres`)
      expect(scan.notes.some((n) => n.detail.includes("kept as read"))).toBe(false)
    },
    RUNS
  )

  it.prop(
    "(g) any valid record rewritten in centimetres (to the millimetre) reads, inferred, as the same millimetres",
    [record],
    ([r]) => {
      const g = buildRecord({ ...r, unit: "mm" }, true)
      const scan = ok(decodeReadItemEither(rewritten(g, (mm) => mm / 10)))
      expect(noteAt(scan.notes, "assumed", MEASURE).detail).toContain("read as centimetres")
      for (const v of g.values) expect(scan.measurementsMm[v.name]).toBeCloseTo(v.raw, 6)
    },
    RUNS
  )

  it.prop(
    "(c) encode then decode is the identity (notes aside) on scans the estimation format holds",
    [representable("mm")],
    ([scan]) => roundTrip(scan, {}),
    RUNS
  )

  it.prop("(c) ... written in cm, for mm values that are multiples of 10", [representable("cm")], ([scan]) => roundTrip(scan, { lengthUnit: "cm" }), RUNS)

  it.prop(
    "(c) ... with body fat in percent x 10^4 and muscle mass in kg, where exact",
    [representable("e4kg")],
    ([scan]) => roundTrip(scan, { bodyFatScale: "e4", muscleMassUnit: "kg" }),
    RUNS
  )

  it.prop(
    "(d) encoding any canonical scan never throws: a valid read response, or an EncodeError",
    [
      // Arbitrary scans rarely have all four stats, which a success needs: complete half of them.
      fc
        .tuple(
          Arbitrary.make(Scan),
          fc.option(
            fc.record({
              age: fc.nat({ max: 200 }),
              gender,
              heightMm: fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.double({ min: 0, noNaN: true, noDefaultInfinity: true })),
              weightG: fc.oneof(fc.integer({ min: 0, max: 300_000 }), fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }))
            }),
            { nil: null }
          )
        )
        .map(([scan, subject]) => (subject === null ? scan : tame(scanOf({ ...scan, subject })))),
      fc.record({
        lengthUnit: fc.constantFrom("mm" as const, "cm" as const),
        bodyFatScale: fc.constantFrom("percent" as const, "e4" as const),
        muscleMassUnit: fc.constantFrom("g" as const, "kg" as const)
      })
    ],
    ([scan, options]) => {
      // A throw here fails the property: the codec promises an Either.
      const result = encodeReadResponseEither(scan, options)
      if (Either.isLeft(result)) {
        expect(result.left).toBeInstanceOf(EncodeError)
        return
      }
      expect(() => validateWire(result.right.value)).not.toThrow()
      // Decoding what was written never throws either: scans or a DecodeError.
      const decoded = decodeReadResponseEither(result.right.value)
      if (Either.isLeft(decoded)) expect(decoded.left).toBeInstanceOf(DecodeError)
    },
    RUNS
  )
})

// --- Whatever is written reads back ---------------------------------------------------------------

/** Each leaf of a scan's JSON (notes aside) by its path as notes write it. */
const leavesOf = (value: unknown, at: Path = [], out = new Map<string, unknown>()): Map<string, unknown> => {
  if (typeof value === "object" && value !== null && (!Array.isArray(value) || value.length > 0)) {
    for (const [k, v] of Object.entries(value)) leavesOf(v, [...at, Array.isArray(value) ? Number(k) : k], out)
  } else if (at[0] !== "notes") out.set(formatPath(at), value)
  return out
}

// A derived id also stands for the source it was derived from, and a code kept in the message
// for the message: each note is at the one field, and covers its part.
const COVERS: Readonly<Record<string, string>> = { "source.id": "source", "failure.code": "failure" }

/**
 * The paths where `back` differs from `scan` and no note of the encoder's says why: a dropped
 * part, or a converted number within `step / 2` of what was written (a whole unit, rounded).
 */
const unnoted = (scan: Scan, back: Scan, notes: ReadonlyArray<Note>, step: (path: string) => number): Array<string> => {
  const before = leavesOf(scan)
  const after = leavesOf(back)
  const noteAt = (path: string) =>
    notes.find((n) => {
      const p = COVERS[n.path] ?? n.path
      return path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`)
    })
  return [...new Set([...before.keys(), ...after.keys()])].filter((path) => {
    const a = before.get(path)
    const b = after.get(path)
    // A part that is null and one whose every field is null say the same: nothing known.
    if (Object.is(a, b) || (a === 0 && b === 0) || (a == null && b == null)) return false
    const note = noteAt(path)
    if (note === undefined) return true
    if (note.kind === "converted" && typeof a === "number" && typeof b === "number") return Math.abs(a - b) > step(path) / 2 + 1e-9 * Math.abs(a)
    return false
  })
}

const nearHuman = (range: { readonly min: number; readonly max: number }) =>
  fc.oneof(fc.integer({ min: range.min, max: range.max }), fc.double({ min: 0, max: range.max * 2, noNaN: true }), fc.constant(0))

/**
 * Canonical scans around what the estimation reader takes and past it: the model's own, with a
 * subject near the people's ranges and lengths from none to several times their share of stature.
 */
const aroundReadable = fc
  .tuple(
    Arbitrary.make(Scan),
    fc.record({ age: fc.nat({ max: 150 }), gender, heightMm: nearHuman(HUMAN_RANGES.heightMm), weightG: nearHuman(HUMAN_RANGES.weightG) }),
    fc.dictionary(fc.constantFrom(...ESTIMATION.map((m) => m.name)), fc.oneof(fc.double({ min: 0, max: 4, noNaN: true }), fc.constant(0))),
    fc.option(fc.record({ fat: fc.double({ min: 0, max: 100, noNaN: true }), muscle: fc.double({ min: 0, max: 1, noNaN: true }) }), { nil: null }),
    fc.constantFrom("success" as const, "success" as const, "failure" as const, "pending" as const)
  )
  .map(([scan, subject, shares, composition, status]) =>
    scanOf({
      ...scan,
      status,
      failure: status === "failure" ? (scan.failure ?? { code: "306", category: "estimation", message: null }) : null,
      subject,
      measurementsMm: Object.fromEntries(
        Object.entries(shares).map(([name, share]) => [name, share * PROPORTIONS[name as MeasurementName] * subject.heightMm])
      ),
      composition:
        composition === null
          ? scan.composition
          : { bodyFatPercent: composition.fat, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: composition.muscle * subject.weightG }
    })
  )

describe("what the encoder writes reads back", () => {
  it.prop(
    "(e) encoding any canonical scan is an EncodeError naming a path and its value, or a response that decodes to the scan, but for what its notes say",
    [fc.oneof(aroundReadable, Arbitrary.make(Scan)), fc.constantFrom<EncodeOptions>({}, { lengthUnit: "cm" }, { bodyFatScale: "e4", muscleMassUnit: "kg" })],
    ([scan, options]) => {
      const result = encodeReadResponseEither(scan, options)
      if (Either.isLeft(result)) {
        expect(result.left).toBeInstanceOf(EncodeError)
        expect(result.left.path.length, result.left.message).toBeGreaterThan(0)
        expect(result.left.value).toBeDefined()
        return
      }
      const { notes, value } = result.right
      const decoded = decodeReadResponseEither(JSON.parse(JSON.stringify(value)))
      expect(Either.isRight(decoded), Either.isLeft(decoded) ? decoded.left.message : "").toBe(true)
      const [back] = ok(decoded)
      // Read with the units it was written in given, it is judged as every format's lengths are,
      // and reads back the same.
      const given = decodeReadResponseEither(JSON.parse(JSON.stringify(value)), {
        lengthUnit: options.lengthUnit ?? "mm",
        bodyFatScale: options.bodyFatScale ?? "percent",
        muscleMassUnit: options.muscleMassUnit ?? "g"
      })
      expect(Either.isRight(given), Either.isLeft(given) ? given.left.message : "").toBe(true)
      expect(withoutNotes(ok(given)[0]!)).toEqual(withoutNotes(back!))
      // The estimation API runs photo estimations only: that is what it reads back as.
      const expected = scanOf({ ...scan, method: scan.method ?? "photo" })
      const step = (path: string) =>
        path.startsWith("measurementsMm.") && options.lengthUnit === "cm"
          ? 10
          : path === "composition.skeletalMuscleMassG" && options.muscleMassUnit === "kg"
            ? 1000
            : 1
      expect(unnoted(expected, back!, notes, step), JSON.stringify({ scan, notes, back })).toEqual([])
    },
    { fastCheck: { numRuns: 1000 } }
  )
})
