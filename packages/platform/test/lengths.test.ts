/**
 * A platform record's lengths: read in the unit each item states (any spelling lengthUnitOf
 * reads), or in the caller's lengthUnit, and judged against the body they belong to; other
 * spellings of a measurement read as the measurement they name.
 */
import { Arbitrary, Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "@effect/vitest"
import {
  DecodeError,
  LENGTH_UNITS_ACCEPTED,
  LENGTH_UNIT_LABELS,
  LENGTH_UNIT_NAMES,
  type LengthUnit,
  MEASUREMENT_NAMES,
  Scan,
  encodeScan,
  lengthUnitOf,
  makeScan
} from "@scanbridge/model"
import { FORMATS, type Wire, decodeEntryEither, decodeListPageEither, encodeEntryEither, platformAdapter, platformDialect } from "../src/index.js"
import { wholeStature } from "./bodies.js"

const ok = <A, E>(result: Either.Either<A, E>): A => Either.getOrThrowWith(result, (e) => (e instanceof Error ? e : new Error(`unexpected Left: ${String(e)}`)))

const refused = <A>(result: Either.Either<A, DecodeError>): DecodeError =>
  Either.getOrThrowWith(Either.flip(result), (a) => new Error(`expected a Left, got ${JSON.stringify(a)}`))

const STATS = { age: 29, gender: "female", height: 1640, weight: 54000 } as const

/** A stats entry of a 1640 mm subject with these measurement items. */
const entry = (measurements: ReadonlyArray<{ name: string; unit: string; value: number }>) => ({
  id: "scan_abc123",
  status: "success",
  input: { statsEstimations: STATS },
  measurements,
  avatar: null,
  bodyComposition: null,
  posture: null
})

// Her lengths in millimetres, and as an integrator's code that writes inches stores them.
const LENGTHS_MM = { bustGirth: 862, waistGirth: 701, hipGirth: 903, insideLegHeight: 742 } as const
const inches = (mm: number): number => Math.round((mm / 25.4) * 10) / 10
const items = (unit: string, value: (mm: number) => number = (mm) => mm) => Object.entries(LENGTHS_MM).map(([name, mm]) => ({ name, unit, value: value(mm) }))

describe("a platform record's length units", () => {
  it.each(["inch", "in", "INCHES", "Inch"])('reads "unit":"%s" as inches, converted with one note for the record', (unit) => {
    const scan = ok(decodeEntryEither(entry(items(unit, inches))))
    expect(scan.measurementsMm).toEqual({ bustGirth: 33.9 * 25.4, waistGirth: 27.6 * 25.4, insideLegHeight: 29.2 * 25.4, hipGirth: 35.6 * 25.4 })
    expect(scan.notes).toEqual([{ kind: "converted", path: "measurements", detail: "4 length(s) stated in inches, converted to millimetres" }])
  })

  it.each(["CENTIMETERS", "centimetres", "cm"])('reads "unit":"%s" as centimetres, and "MILLIMETERS" as millimetres without a note', (unit) => {
    const scan = ok(decodeEntryEither(entry(items(unit, (mm) => mm / 10))))
    expect(scan.measurementsMm).toEqual(LENGTHS_MM)
    expect(scan.notes).toEqual([{ kind: "converted", path: "measurements", detail: "4 length(s) stated in centimetres, converted to millimetres" }])
    const mm = ok(decodeEntryEither(entry(items("MILLIMETERS"))))
    expect(mm.measurementsMm).toEqual(LENGTHS_MM)
    expect(mm.notes).toEqual([])
  })

  it('refuses "unit":"furlong" at its path, naming the units it reads', () => {
    const error = refused(
      decodeEntryEither({
        entry: entry([
          { name: "hipGirth", unit: "mm", value: 903 },
          { name: "bustGirth", unit: "furlong", value: 0.004 }
        ])
      })
    )
    expect(error).toBeInstanceOf(DecodeError)
    expect(error.path).toEqual(["entry", "measurements", 1, "unit"])
    expect(error.value).toBe("furlong")
    expect(error.message).toContain(`a length unit: ${LENGTH_UNITS_ACCEPTED}`)
    expect(error.message).toContain('"furlong"')
  })

  it("refuses a record of inch values stated as mm for a 1640 mm subject, with the evidence and the way out", () => {
    const error = refused(decodeEntryEither({ entry: entry(items("mm", inches)) }))
    expect(error.format).toBe(FORMATS.entry)
    expect(error.path).toEqual(["entry", "measurements"])
    expect(error.message).toMatch(/plausible in inches and not in millimetres/)
    // The first implausible length in catalogue order, what it would be in inches, and the band for her stature.
    expect(error.message).toMatch(/bustGirth 33\.9 mm \(33\.9 in would be 861\.1 mm\), plausible 361-2255 mm: 0\.22-1\.375 x stature 1640 mm/)
    expect(error.message).toContain('--length-unit in (lengthUnit: "in")')
  })

  it('reads that record with lengthUnit "in", with an assumed note; the same through the adapter\'s formats', () => {
    const scan = ok(decodeEntryEither(entry(items("mm", inches)), { lengthUnit: "in" }))
    expect(scan.measurementsMm).toEqual(ok(decodeEntryEither(entry(items("in", inches)))).measurementsMm)
    expect(scan.notes).toEqual([
      { kind: "assumed", path: "measurements", detail: 'lengths read as inches, as the caller said (lengthUnit "in"), where the record states millimetres' }
    ])
    const format = platformAdapter.formats.find((f) => f.detect(entry([])))!
    expect(format.name).toBe(FORMATS.entry)
    expect(Either.map(format.decode(entry(items("mm", inches)), { lengthUnit: "in" }), (scans) => scans.map((s) => s.measurementsMm))).toEqual(
      Either.right([scan.measurementsMm])
    )
    expect(Either.isLeft(format.decode(entry(items("mm", inches))))).toBe(true)
  })

  it("refuses inch values under a caller's lengthUnit of mm too, and reads them in its envelope and as the client library's", () => {
    const error = refused(decodeEntryEither(entry(items("in", inches)), { lengthUnit: "mm" }))
    expect(error.message).toMatch(/as the caller said \(lengthUnit "mm"\)/)
    const client = { ...entry(items("inch", inches)), bodyComposition: { bodyFatPercentage: 21.5, skeletalMuscleMass: 31.2 } }
    const scan = ok(decodeEntryEither({ entry: client }))
    expect(scan.measurementsMm.hipGirth).toBeCloseTo(903, -1)
    expect(scan.notes.map((n) => [n.kind, n.path])).toContainEqual(["converted", "measurements"])
    expect(refused(decodeEntryEither({ entry: { ...client, measurements: items("mm", inches) } })).path).toEqual(["entry", "measurements"])
  })

  it("keeps a length plausible in no unit for this body, with an assumed note", () => {
    const scan = ok(decodeEntryEither(entry([...items("mm"), { name: "wristGirthR", unit: "mm", value: 900 }])))
    expect(scan.measurementsMm.wristGirthR).toBe(900)
    expect(scan.notes).toEqual([
      { kind: "assumed", path: "measurements", detail: expect.stringMatching(/^wristGirthR 900 mm is plausible in no unit for this body .*: kept as read$/) }
    ])
  })

  it("passes the caller's options through a list page, whose summaries hold no lengths", () => {
    const summary = { id: "scan_1", createdAt: 1767323045, status: "success", input: { statsEstimations: STATS } }
    const scans = ok(decodeListPageEither({ results: [summary] }, { lengthUnit: "in" }))
    expect(scans.map((s) => s.measurementsMm)).toEqual([{}])
    expect(scans[0]!.notes.map((n) => n.kind)).toEqual(["converted"])
  })
})

describe("a platform record's other spellings", () => {
  it("are each right-side name without its R (the vendor's public lists); a name within a typo is suggested", () => {
    const rightSide = MEASUREMENT_NAMES.filter((name) => name.endsWith("R"))
    expect(new Map(platformDialect.aliasList.map((a) => [a.alias, a.spelling.name]))).toEqual(new Map(rightSide.map((name) => [name.slice(0, -1), name])))
    expect(platformDialect.measurementByAlias("kneeHeight")?.name).toBe("kneeHeightR")
    expect(platformDialect.measurementByAlias("kneeHeightR")).toBeUndefined()
    expect(platformDialect.suggest("kneHeightR")?.name).toBe("kneeHeightR")
    expect(platformDialect.suggest("wingspan")).toBeUndefined()
  })

  it("reads kneeHeight as kneeHeightR, with an aliased note", () => {
    const scan = ok(decodeEntryEither(entry([...items("mm"), { name: "kneeHeight", unit: "mm", value: 459 }])))
    expect(scan.measurementsMm).toEqual({ ...LENGTHS_MM, kneeHeightR: 459 })
    expect(scan.notes).toEqual([{ kind: "aliased", path: "measurements[4]", detail: "kneeHeight read as kneeHeightR: another spelling of it" }])
  })

  it("keeps the first of kneeHeight and kneeHeightR, dropping the second with a note", () => {
    const aliasFirst = ok(
      decodeEntryEither(entry([{ name: "kneeHeight", unit: "mm", value: 459 }, ...items("mm"), { name: "kneeHeightR", unit: "mm", value: 460 }]))
    )
    expect(aliasFirst.measurementsMm.kneeHeightR).toBe(459)
    expect(aliasFirst.notes).toEqual([
      { kind: "aliased", path: "measurements[0]", detail: "kneeHeight read as kneeHeightR: another spelling of it" },
      { kind: "dropped", path: "measurements[5]", detail: "second kneeHeightR (460 mm); the first one is kept" }
    ])
    const documentedFirst = ok(
      decodeEntryEither(
        entry([
          { name: "kneeHeightR", unit: "mm", value: 460 },
          { name: "kneeHeight", unit: "mm", value: 459 }
        ])
      )
    )
    expect(documentedFirst.measurementsMm).toEqual({ kneeHeightR: 460 })
    expect(documentedFirst.notes).toEqual([
      { kind: "dropped", path: "measurements[1]", detail: "second kneeHeightR (kneeHeight 459 mm); the first one is kept" }
    ])
  })

  it("drops a typo of a name, suggesting the name", () => {
    const scan = ok(decodeEntryEither(entry([...items("mm"), { name: "kneHeightR", unit: "mm", value: 459 }])))
    expect(scan.measurementsMm).toEqual(LENGTHS_MM)
    expect(scan.notes).toEqual([{ kind: "dropped", path: "measurements[4]", detail: 'unknown measurement "kneHeightR" = 459 mm (did you mean kneeHeightR?)' }])
  })
})

// --- Properties ------------------------------------------------------------------------------

/**
 * Any valid scan of the model's Arbitrary that has lengths, made a successful stats scan with
 * the stats a platform entry needs (its age and weight, which no length depends on, fixed).
 */
const successful: fc.Arbitrary<Scan> = fc
  .record({ scan: Arbitrary.make(Scan), other: fc.nat() })
  .map(({ other, scan }) => {
    const s = scan.subject
    return ok(
      makeScan({
        ...encodeScan(scan),
        source: { api: "platform", id: "scan_prop" },
        status: "success",
        externalId: null,
        failure: null,
        method: "stats",
        adjustment: null,
        notes: [],
        subject: { age: 29, gender: s.gender ?? "female", heightMm: wholeStature(s.heightMm, other), weightG: 54000 }
      })
    )
  })
  .filter((scan) => Object.keys(scan.measurementsMm).length > 0)

/** The accepted spellings of a unit, in any case. */
const spellingOf = (unit: LengthUnit): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom(...LENGTH_UNIT_NAMES.filter((s) => lengthUnitOf(s) === unit)), fc.constantFrom("lower", "upper", "capital"))
    .map(([s, c]) => (c === "upper" ? s.toUpperCase() : c === "capital" ? s.charAt(0).toUpperCase() + s.slice(1) : s))

/** How a writer states millimetres in `unit`: centimetres exactly, inches to a tenth. */
const WRITE: Readonly<Record<LengthUnit, (mm: number) => number>> = { mm: (mm) => mm, cm: (mm) => mm / 10, in: inches }

const rewritten = (value: Wire.EntryJson, unit: LengthUnit, spelling: string): Wire.EntryJson => ({
  ...value,
  measurements: value.measurements!.map((m) => ({ ...m, unit: spelling, value: WRITE[unit](m.value) }))
})

const stated = fc.constantFrom<LengthUnit>("cm", "in").chain((unit) => fc.tuple(fc.constant(unit), spellingOf(unit)))

describe("a platform entry rewritten in another unit", () => {
  it.prop(
    "decodes to the same canonical millimetres when the unit is stated, whatever its spelling, with one converted note",
    [successful, stated],
    ([scan, [unit, spelling]]) => {
      const { value } = ok(encodeEntryEither(scan))
      const inMm = ok(decodeEntryEither(value))
      const read = ok(decodeEntryEither(rewritten(value, unit, spelling)))
      expect(Object.keys(read.measurementsMm)).toEqual(Object.keys(inMm.measurementsMm))
      for (const item of rewritten(value, unit, spelling).measurements!) {
        const name = item.name as keyof typeof inMm.measurementsMm
        const mm = read.measurementsMm[name]!
        // What was written, converted; and that within the writer's rounding of the millimetres (half a tenth of an inch).
        expect(Math.abs(mm - item.value * (unit === "in" ? 25.4 : 10))).toBeLessThanOrEqual(0.05)
        expect(Math.abs(mm - inMm.measurementsMm[name]!)).toBeLessThanOrEqual(unit === "in" ? 1.27 + 1e-9 : 1e-9)
      }
      const count = Object.keys(inMm.measurementsMm).length
      expect(read.notes).toEqual([
        ...inMm.notes,
        { kind: "converted", path: "measurements", detail: `${count} length(s) stated in ${LENGTH_UNIT_LABELS[unit]}, converted to millimetres` }
      ])
      expect({ ...read, measurementsMm: {}, notes: [] }).toEqual({ ...inMm, measurementsMm: {}, notes: [] })
    }
  )

  it.prop(
    "in inches with mm claimed, is refused naming inches and --length-unit in, or flagged; never read as the inch numbers",
    [successful, spellingOf("mm")],
    ([scan, spelling]) => {
      const { value } = ok(encodeEntryEither(scan))
      const claimed = rewritten(value, "in", spelling)
      const result = decodeEntryEither(claimed)
      if (Either.isLeft(result)) {
        expect(result.left).toBeInstanceOf(DecodeError)
        expect(result.left.path).toEqual(["measurements"])
        expect(result.left.message).toMatch(/plausible in (centimetres or )?inches/)
        expect(result.left.message).toContain("--length-unit in")
      } else {
        expect(result.right.notes.filter((n) => n.path === "measurements").map((n) => n.kind)).toContain("assumed")
      }
      // The caller who knows the unit reads them as the record stating inches would have been read.
      const given = ok(decodeEntryEither(claimed, { lengthUnit: "in" }))
      expect(given.measurementsMm).toEqual(ok(decodeEntryEither(rewritten(value, "in", "in"))).measurementsMm)
      expect(given.notes.at(-1)).toEqual({
        kind: "assumed",
        path: "measurements",
        detail: 'lengths read as inches, as the caller said (lengthUnit "in"), where the record states millimetres'
      })
    }
  )
})
