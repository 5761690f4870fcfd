import { readFileSync } from "node:fs"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { EncodeError, GRAMS_PER_POUND, MM_PER_INCH, type Note, Scan } from "@scanbridge/model"
import { type FhirOptions, decodeBundleEither, encodeBundleEither } from "../src/index.js"
import { noteOfText } from "../src/decode.js"
import { noteText } from "../src/codec.js"

const RUNS = { fastCheck: { numRuns: 300 } }

const EXAMPLE = JSON.parse(readFileSync(new URL("../../../examples/canonical/photo-scan.json", import.meta.url), "utf8")) as Scan

// codec.ts's PLACES writes [in_i] and [lb_av] to a hundredth: a value read back is within half
// of that of the scan's, in millimetres or grams. Metric is the value with its point moved: exact.
const IMPERIAL_PLACES = 2
const HALF_STEP = 0.5 * 10 ** -IMPERIAL_PLACES
const TOLERANCE = { cm: { mm: 0, g: 0 }, in: { mm: HALF_STEP * MM_PER_INCH, g: HALF_STEP * GRAMS_PER_POUND } } as const

const NO_SUBJECT = { age: null, gender: null, heightMm: null, weightG: null }

/**
 * What a scan reads back as: the scan, less what the encoder's notes say FHIR does not hold (a
 * blank id, externalId or failure message is none; a failure code that is no FHIR code is
 * unknown). Whatever else differs is lost silently, and fails the comparison.
 */
const expectedOf = (scan: Scan, written: ReadonlyArray<Note>) => {
  const dropped = new Set(written.filter((n) => n.kind === "dropped").map((n) => n.path))
  const success = scan.status === "success"
  const composition = scan.composition
  const failure = scan.failure
  return {
    ...scan,
    source: { api: scan.source.api, id: dropped.has("source.id") ? null : scan.source.id },
    expiresAt: null,
    externalId: dropped.has("externalId") ? null : scan.externalId,
    subject: success ? scan.subject : NO_SUBJECT,
    measurementsMm: success ? scan.measurementsMm : {},
    // A composition of nulls has no member to write: nothing known, as null says.
    composition: success && composition !== null && Object.values(composition).some((v) => v !== null) ? composition : null,
    posture: null,
    avatar: null,
    adjustment: null,
    failure:
      failure === null
        ? null
        : {
            ...failure,
            code: dropped.has("failure.code") ? "unknown" : failure.code,
            message: dropped.has("failure.message") ? null : failure.message
          },
    notes: scan.notes
  }
}

/** The parts the encoder must note as dropped, known from the scan alone: FHIR has no place for them. */
const droppedPaths = (scan: Scan): ReadonlyArray<string> => [
  ...(scan.source.id === "" ? ["source.id"] : []),
  ...(scan.externalId === "" ? ["externalId"] : []),
  ...(scan.expiresAt !== null ? ["expiresAt"] : []),
  ...(scan.posture !== null ? ["posture"] : []),
  ...(scan.avatar !== null ? ["avatar"] : []),
  ...(scan.adjustment !== null ? ["adjustment"] : []),
  ...(scan.failure?.message === "" ? ["failure.message"] : []),
  ...(scan.status !== "success" &&
  (Object.keys(scan.measurementsMm).length > 0 || Object.values(scan.subject).some((v) => v !== null) || scan.composition !== null)
    ? ["subject"]
    : [])
]

/** The numbers of `expected` that `back` differs from by more than `tolerance` of their unit, by path. */
const numbersApart = (expected: unknown, back: unknown, tolerance: { readonly mm: number; readonly g: number }, at = ""): Array<string> => {
  if (typeof expected === "number" && typeof back === "number") {
    const step = at.endsWith("Mm") || at.startsWith("measurementsMm.") ? tolerance.mm : at.endsWith("G") ? tolerance.g : 0
    // The relative slack is the binary arithmetic of the conversion, nothing of the unit's.
    return Math.abs(expected - back) <= step + 1e-12 * Math.abs(expected) ? [] : [`${at}: ${expected} -> ${back}`]
  }
  if (typeof expected === "object" && expected !== null && typeof back === "object" && back !== null) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(back)])
    return [...keys].flatMap((k) =>
      numbersApart((expected as Record<string, unknown>)[k], (back as Record<string, unknown>)[k], tolerance, at === "" ? k : `${at}.${k}`)
    )
  }
  return Object.is(expected, back) ? [] : [`${at}: ${JSON.stringify(expected)} -> ${JSON.stringify(back)}`]
}

const options = fc.record({
  units: fc.constantFrom("cm" as const, "in" as const),
  patientSystem: fc.option(fc.constantFrom("https://hospital.example/patients", "urn:oid:1.2.36.146.595.217.0.1"), { nil: undefined })
})

/** The scan written as a bundle and read back through JSON text; an EncodeError for a scan FHIR cannot hold. */
const roundTrip = (scan: Scan, o: FhirOptions) => {
  const encoded = encodeBundleEither(scan, o)
  if (Either.isLeft(encoded)) return { encoded }
  const decoded = decodeBundleEither(JSON.parse(JSON.stringify(encoded.right.value)))
  return { encoded, decoded }
}

describe("a scan written as a FHIR bundle reads back", () => {
  it.prop(
    "every valid scan survives the bundle and back, in cm and in in, with and without a patient system: equal but for what the encoder notes, within the unit's rounding",
    [Arbitrary.make(Scan), options],
    ([scan, { units, patientSystem }]) => {
      const o: FhirOptions = patientSystem === undefined ? { units } : { units, patientSystem }
      const { encoded, decoded } = roundTrip(scan, o)
      if (Either.isLeft(encoded)) {
        // Only a BMI past a double's range (a stature of a few micrometres) is refused, at its path.
        expect(encoded.left).toBeInstanceOf(EncodeError)
        expect(encoded.left.path).toEqual(["subject"])
        return
      }
      const writtenNotes = encoded.right.notes.map((n) => n.path)
      for (const path of droppedPaths(scan)) expect(writtenNotes, path).toContain(path)
      expect(Either.isRight(decoded!), Either.isLeft(decoded!) ? decoded.left.message : "").toBe(true)
      const [back, ...others] = Either.getOrThrow(decoded!)
      expect(others).toEqual([])
      const expected = expectedOf(scan, encoded.right.notes)
      // The scan's own notes come first, as they were; the decoder adds only its conversions, and
      // says it recorded code unknown where the encoder left out a failure code.
      expect(back!.notes.slice(0, scan.notes.length)).toEqual(scan.notes)
      const added = back!.notes.slice(scan.notes.length)
      const codeLeftOut = expected.failure?.code === "unknown" && scan.failure?.code !== "unknown"
      expect(added.filter((n) => n.kind !== "converted").map((n) => n.detail)).toEqual(codeLeftOut ? [expect.stringContaining("code unknown")] : [])
      expect(numbersApart({ ...expected, notes: [] }, { ...back!, notes: [] }, TOLERANCE[units])).toEqual([])
    },
    RUNS
  )

  it.prop(
    "a success scan's stats, measurements and composition are all read back, none left out (the property above is not vacuous)",
    [
      Arbitrary.make(Scan).filter((s) => s.status === "success" && s.subject.heightMm !== null && Object.keys(s.measurementsMm).length > 0),
      fc.constantFrom("cm" as const, "in" as const)
    ],
    ([scan, units]) => {
      const { decoded } = roundTrip(scan, { units })
      const back = Either.getOrThrow(decoded!)[0]!
      expect(Object.keys(back.measurementsMm)).toEqual(Object.keys(scan.measurementsMm))
      expect(back.subject.heightMm).not.toBeNull()
      expect(numbersApart(scan.measurementsMm, back.measurementsMm, TOLERANCE[units], "measurementsMm")).toEqual([])
    },
    RUNS
  )

  it("the imperial tolerance is no wider than the rounding: a height of 1700.2 mm reads back within 0.127 mm, not exactly", () => {
    const scan = Schema.decodeUnknownSync(Scan)({ ...EXAMPLE, subject: { ...EXAMPLE.subject, heightMm: 1700.2 } })
    const bundle = Either.getOrThrow(encodeBundleEither(scan, { units: "in" }))
    const back = Either.getOrThrow(decodeBundleEither(JSON.parse(JSON.stringify(bundle.value))))[0]!
    // 1700.2 mm is 66.937 in, written 66.94: 1700.276 mm.
    expect(back.subject.heightMm).toBeCloseTo(1700.276, 9)
    const apart = (tolerance: { readonly mm: number; readonly g: number }) =>
      numbersApart({ subject: { heightMm: 1700.2 } }, { subject: { heightMm: back.subject.heightMm } }, tolerance)
    expect(apart(TOLERANCE.in)).toEqual([])
    expect(apart(TOLERANCE.cm)).toEqual(["subject.heightMm: 1700.2 -> 1700.2759999999998"])
  })
})

describe("a scan's notes in a panel", () => {
  it.prop(
    "read back as they were written, whatever their path and detail",
    [fc.constantFrom<Note["kind"]>("assumed", "converted", "dropped", "aliased"), fc.string(), fc.string()],
    ([kind, path, detail]) => {
      const note: Note = { kind, path, detail }
      expect(noteOfText(noteText(note))).toEqual(note)
    }
  )

  it.prop("with any unicode, quotes and backslashes in the path", [fc.fullUnicodeString(), fc.fullUnicodeString()], ([path, detail]) => {
    const note: Note = { kind: "dropped", path, detail }
    expect(noteOfText(noteText(note))).toEqual(note)
  })

  it("are told apart from other text: a free annotation is no note", () => {
    for (const text of ["", "dropped", "dropped x: y", 'noted "a": b', 'dropped "a" b', 'dropped "a', 'dropped "\\": x', "dropped 5: x"])
      expect(noteOfText(text), text).toBeUndefined()
    expect(noteOfText('dropped "a\\"b": c: d')).toEqual({ kind: "dropped", path: 'a"b', detail: "c: d" })
  })
})
