import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { vi } from "vitest"
import {
  Catalogue,
  HUMAN_RANGES,
  LENGTH_UNIT_NAMES,
  MEASUREMENT_NAMES,
  MM_PER_INCH,
  type MeasurementsMm,
  SCAN_FORMAT,
  type ScanJson,
  judgeLengths,
  lengthUnitOf,
  makeDialect,
  readScanEither
} from "../src/index.js"
import { plausibleLengths } from "../src/scan.js"
import { LENGTH_UNIT_FLAG_AND_OPTION } from "../src/adapter-kit.js"

const { min, max } = HUMAN_RANGES.heightMm
const stature = fc.integer({ min, max })
/** A human stature and lengths of that body: at least `least` of them. */
const body = (least = 1) =>
  stature.chain((h) =>
    plausibleLengths(fc, h)
      .filter((m) => Object.keys(m).length >= least)
      .map((m) => ({ h, m }))
  )
const scaled = (m: MeasurementsMm, f: number): MeasurementsMm => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v * f])) as unknown as MeasurementsMm

const record = (measurementsMm: object, heightMm: number | null = 1640): ScanJson =>
  ({
    format: SCAN_FORMAT,
    source: { api: "platform", id: "scan-1" },
    status: "success",
    createdAt: null,
    expiresAt: null,
    externalId: null,
    method: null,
    subject: { age: 30, gender: "male", heightMm, weightG: 70000 },
    measurementsMm,
    composition: null,
    posture: null,
    avatar: null,
    adjustment: null,
    failure: null,
    notes: []
  }) as unknown as ScanJson

describe("judgeLengths, generated and made of closures", () => {
  // A second instance of the module, built where code is not generated: its lengths are judged by a
  // loop. The tests share their modules (isolate: false): later files get fresh ones, generating again.
  const loopedJudge = async () => {
    vi.resetModules()
    const codegen = await import("../src/codegen.js")
    codegen.configure({ jitless: true })
    try {
      const { judgeLengths } = await import("../src/plausibility.js")
      // Its judge is made on its first call, now, while code is not generated.
      judgeLengths({}, null, "mm")
      return judgeLengths
    } finally {
      codegen.configure({ jitless: false })
      vi.resetModules()
    }
  }
  // Lengths of a body, scaled as a record in another unit would hold them, or any at all.
  const lengths = fc.oneof(
    body().chain(({ h, m }) => fc.constantFrom(1, 10, MM_PER_INCH, 0.1, 1 / MM_PER_INCH).map((f) => ({ h, m: scaled(m, f) }))),
    fc.record({
      h: fc.oneof(stature, fc.constant(null), fc.integer({ min: 0, max: 99_999 })),
      m: fc.dictionary(fc.constantFrom(...MEASUREMENT_NAMES), fc.double({ min: 0, max: 1e5, noNaN: true }), { maxKeys: 8 }) as fc.Arbitrary<MeasurementsMm>
    })
  )

  it("give the same verdicts, evidence and all", async () => {
    const looped = await loopedJudge()
    fc.assert(
      fc.property(lengths, fc.constantFrom("mm" as const, "cm" as const, "in" as const), ({ h, m }, read) => {
        expect(judgeLengths(m, h, read)).toEqual(looped(m, h, read))
      }),
      { numRuns: 3000, seed: 34 }
    )
  })
})

describe("judgeLengths", () => {
  it.prop("finds the lengths of any human body plausible in millimetres, with or without its stature", [body()], ([{ h, m }]) => {
    expect(judgeLengths(m, h, "mm")._tag).toBe("Plausible")
    expect(judgeLengths(m, null, "mm")._tag).toBe("Plausible")
  })

  it.prop("never finds inches read as millimetres plausible, and names inches when the stature is known", [body()], ([{ h, m }]) => {
    const inches = scaled(m, 1 / MM_PER_INCH)
    const known = judgeLengths(inches, h, "mm")
    expect(known._tag).toBe("OtherUnit")
    if (known._tag === "OtherUnit") expect(known.units).toContain("in")
    expect(judgeLengths(inches, null, "mm")._tag).not.toBe("Plausible")
    // Read in the unit they are in, the same numbers are plausible.
    expect(judgeLengths(m, h, "in")._tag).toBe("Plausible")
  })

  it.prop("finds centimetres read as millimetres plausible only in centimetres against the stature", [body()], ([{ h, m }]) => {
    const verdict = judgeLengths(scaled(m, 1 / 10), h, "mm")
    expect(verdict._tag).toBe("OtherUnit")
    if (verdict._tag === "OtherUnit") expect(verdict.units).toContain("cm")
  })

  it("says which length shows it, and what would have been plausible for it", () => {
    const verdict = judgeLengths({ backNeckHeight: 54.6 } as MeasurementsMm, 1640, "mm")
    expect(verdict).toEqual({
      _tag: "OtherUnit",
      units: ["in"],
      evidence: { name: "backNeckHeight", mm: 54.6, plausible: "554-3464 mm: 0.338-2.113 x stature 1640 mm" }
    })
  })

  it("calls a length no part of the body in any unit implausible, not another unit", () => {
    // A hip girth of 5 m on a 1.64 m body: no unit makes it one.
    expect(judgeLengths({ hipGirth: 900, waistGirth: 5_000_000 } as MeasurementsMm, 1640, "mm")._tag).toBe("Implausible")
  })

  it("judges against the other lengths when the stature is not a human one", () => {
    expect(judgeLengths({ backNeckHeight: 1386, waistGirth: 738 } as MeasurementsMm, 64.6, "mm")._tag).toBe("Plausible")
    expect(judgeLengths({ backNeckHeight: 54.6, waistGirth: 29 } as MeasurementsMm, null, "mm")._tag).toBe("OtherUnit")
  })
})

describe("lengthUnitOf", () => {
  it.prop("reads every spelling it lists, in any case, and nothing else", [fc.constantFrom(...LENGTH_UNIT_NAMES), fc.boolean()], ([name, upper]) => {
    expect(lengthUnitOf(upper ? name.toUpperCase() : name)).toBeDefined()
    expect(lengthUnitOf(`${name}x`)).toBeUndefined()
  })

  it("reads the vendor's and integrators' spellings as their units", () => {
    expect(["mm", "MILLIMETERS", "millimetres", "cm", "CENTIMETERS", "in", "inch", "INCHES"].map(lengthUnitOf)).toEqual([
      "mm",
      "mm",
      "mm",
      "cm",
      "cm",
      "in",
      "in",
      "in"
    ])
    expect(lengthUnitOf("furlong")).toBeUndefined()
  })
})

describe("readScanEither (a canonical record as stores hold it)", () => {
  it("refuses inches stored as millimetres, with the evidence and a way out that exists", () => {
    const read = readScanEither(record({ backNeckHeight: 54.6, waistGirth: 29 }))
    expect(Either.isLeft(read)).toBe(true)
    const error = Either.getLeft(read).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
    expect(error.path).toEqual(["measurementsMm"])
    expect(error.message).toContain("plausible in inches and not in millimetres")
    expect(error.message).toContain("backNeckHeight 54.6 mm (54.6 in would be 1386.8 mm)")
    expect(error.message).toContain('--length-unit in (lengthUnit: "in")')
  })

  it.prop("reads any valid record's lengths given in inches as the same millimetres, with a note, when the caller says so", [body(1)], ([{ h, m }]) => {
    const inches = scaled(m, 1 / MM_PER_INCH)
    const read = readScanEither(record(inches, h), { lengthUnit: "in" })
    if (Either.isLeft(read)) throw new Error(read.left.message)
    for (const [name, mm] of Object.entries(m)) expect(read.right.measurementsMm[name as keyof MeasurementsMm]).toBeCloseTo(mm, 6)
    expect(read.right.notes.map((n) => n.kind)).toEqual(["assumed"])
  })

  it("still refuses what the caller's unit makes implausible", () => {
    const read = readScanEither(record({ backNeckHeight: 1386, waistGirth: 738 }), { lengthUnit: "in" })
    expect(Either.isLeft(read) && read.left.message).toContain(`pass the unit they are in with ${LENGTH_UNIT_FLAG_AND_OPTION}`)
  })

  it("reads another spelling as the measurement it stands for, with an aliased note, in catalogue order", () => {
    const read = readScanEither(record({ waistGirth: 738, kneeHeight: 459 }))
    if (Either.isLeft(read)) throw new Error(read.left.message)
    expect(Object.keys(read.right.measurementsMm)).toEqual(["kneeHeightR", "waistGirth"])
    expect(read.right.notes).toEqual([{ kind: "aliased", path: "measurementsMm.kneeHeight", detail: "kneeHeight read as kneeHeightR: another spelling of it" }])
  })

  it("refuses both spellings at once, and an unknown name with a did-you-mean", () => {
    const both = readScanEither(record({ kneeHeight: 459, kneeHeightR: 460 }))
    expect(Either.isLeft(both) && both.left.message).toContain("did you mean kneeHeightR?")
    const typo = readScanEither(record({ waistGrith: 738 }))
    expect(Either.isLeft(typo) && typo.left.message).toContain("did you mean waistGirth?")
  })

  it("keeps a plausible record as it is: the same object", () => {
    const json = record({ backNeckHeight: 1386, waistGirth: 738 })
    const read = readScanEither(json)
    expect(Either.isRight(read) && read.right).toEqual(json)
  })
})

describe("other spellings and did-you-mean", () => {
  it("knows every right-side measurement by its name without the R", () => {
    for (const name of MEASUREMENT_NAMES.filter((n) => Catalogue.entry(n).side === "right"))
      expect(Catalogue.byOtherSpelling(name.slice(0, -1))?.name).toBe(name)
    expect(Catalogue.byOtherSpelling("waistGirt")).toBeUndefined()
  })

  it.prop("suggests the measurement a name with one typo means", [fc.constantFrom(...MEASUREMENT_NAMES), fc.nat()], ([name, at]) => {
    const i = 1 + (at % (name.length - 2))
    // A swap of two neighbouring letters, the commonest typo.
    const typo = name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2)
    const suggested = Catalogue.suggest(typo)
    if (suggested !== undefined) expect(suggested.name).toBe(name)
    if (name[i] !== name[i + 1]) expect(suggested?.name).toBe(name)
  })

  it("gives a dialect its own counterparts of the other spellings, and never a typo for a measurement it lacks", () => {
    const snake = (n: string) => n.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
    const dialect = makeDialect({
      api: "snake",
      measurements: Object.fromEntries(MEASUREMENT_NAMES.map((n) => [n, n === "bellyWaistDepth" ? null : { name: snake(n) }])) as never,
      stats: {
        "composition.skeletalMuscleMassG": null,
        "composition.bodyFatPercent": null,
        "subject.weightG": null,
        "subject.age": null,
        "subject.gender": null,
        "subject.heightMm": null
      },
      aliases: { knee_h: "kneeHeightR" }
    })
    expect(dialect.measurementByAlias("knee_height")).toMatchObject({ alias: "knee_height", name: "kneeHeightR", spelling: { name: "knee_height_r" } })
    expect(dialect.measurementByAlias("knee_h")?.name).toBe("kneeHeightR")
    expect(dialect.measurementByAlias("knee_height_r")).toBeUndefined()
    expect(dialect.suggest("bellyWaistDepth")).toBeUndefined()
    expect(dialect.suggest("belly_waist_widht")?.name).toBe("belly_waist_width")
  })
})
