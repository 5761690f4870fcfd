/**
 * Lengths in the unit their session record states (INCHES, CENTIMETERS, ...), or in the caller's
 * lengthUnit, judged against the body; other spellings of measurement names. A record whose items
 * said INCHES used to keep status success with every length dropped.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Arbitrary, Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { DecodeError, LENGTH_UNITS, type LengthUnit, type Note, Scan, judgeLengths } from "@scanbridge/model"
import { type DecodeOptions, FORMATS, Wire, decodeResultsEither, encodeResultsEither, sessionAdapter, sessionDialect } from "../src/index.js"

type Obj = Record<string, unknown>
type Item = { readonly measurementType?: unknown; readonly value?: unknown; readonly unit?: unknown }

const ok = <A, E>(result: Either.Either<A, E>): A => Either.getOrThrowWith(result, (e) => (e instanceof Error ? e : new Error(`unexpected Left: ${String(e)}`)))

const decode = (json: unknown, options?: DecodeOptions): Scan => ok(decodeResultsEither(json, options))

const decodeError = (json: unknown, options?: DecodeOptions): DecodeError => {
  const result = decodeResultsEither(json, options)
  if (Either.isRight(result)) throw new Error(`expected a DecodeError, got ${JSON.stringify(result.right)}`)
  expect(result.left).toBeInstanceOf(DecodeError)
  expect(result.left.format).toBe(FORMATS.results)
  return result.left
}

const kindsAndPaths = (notes: ReadonlyArray<Note>) => notes.map((n) => [n.kind, n.path] as const)

const MM = Wire.LENGTH_UNIT
const withItems = (...measurements: ReadonlyArray<Obj>): Obj => ({ scanningSessionId: "ssid-1", results: { measurements } })

const isLengthType = (type: unknown): boolean => typeof type === "string" && sessionDialect.measurementBySpelling(type) !== undefined
const isHeightType = (type: unknown): boolean => type === sessionDialect.stats["subject.heightMm"]!.name

/** A record's items rewritten: every length (and HEIGHT, when `height`) by `f`, the rest as they are. */
const rewriteLengths = (json: Obj, f: (item: Item) => Item, height = false): Obj => {
  const results = json["results"] as Obj
  const items = (results["measurements"] ?? []) as ReadonlyArray<Item>
  const measurements = items.map((i) => (isLengthType(i.measurementType) || (height && isHeightType(i.measurementType)) ? f(i) : i))
  return { ...json, results: { ...results, measurements } }
}

/** The item's millimetres stated as whole `unit`s, under the spelling `name`. */
const inUnit =
  (unit: LengthUnit, name: string) =>
  (i: Item): Item => ({ ...i, value: String(Math.round(Number(i.value ?? "0") / LENGTH_UNITS[unit].toBase(1))), unit: name })

// Example record 1: a whole body (35 lengths, HEIGHT 1640 mm) as the legacy server printed it.
const EXAMPLE = (
  JSON.parse(readFileSync(fileURLToPath(new URL("../../../examples/export/session/results.json", import.meta.url)), "utf8")) as ReadonlyArray<Obj>
)[0]!
const EXAMPLE_SCAN = decode(EXAMPLE)
const HEIGHT_INDEX = ((EXAMPLE["results"] as Obj)["measurements"] as ReadonlyArray<Item>).findIndex((i) => isHeightType(i.measurementType))

describe("a length read in the unit its item states", () => {
  it("reads a record whose items say INCHES as success with every length converted, one converted note for them and one for HEIGHT", () => {
    expect(Object.keys(EXAMPLE_SCAN.measurementsMm)).toHaveLength(35)
    expect(EXAMPLE_SCAN.notes).toEqual([])
    const scan = decode(rewriteLengths(EXAMPLE, inUnit("in", "INCHES"), true))
    expect(scan.status).toBe("success")
    expect(Object.keys(scan.measurementsMm).sort()).toEqual(Object.keys(EXAMPLE_SCAN.measurementsMm).sort())
    for (const [name, mm] of Object.entries(EXAMPLE_SCAN.measurementsMm)) {
      expect(Math.abs(scan.measurementsMm[name as keyof Scan["measurementsMm"]]! - mm), name).toBeLessThanOrEqual(12.7 + 1e-9)
    }
    // 65 in, the example's 1640 mm to the inch.
    expect(scan.subject.heightMm).toBeCloseTo(1651, 9)
    expect(kindsAndPaths(scan.notes)).toEqual([
      ["converted", `results.measurements[${HEIGHT_INDEX}]`],
      ["converted", "results.measurements"]
    ])
    expect(scan.notes[1]!.detail).toBe("35 length(s) stated in inches, converted to millimetres")
  })

  it.each<[string, LengthUnit]>([
    ["INCHES", "in"],
    ["inch", "in"],
    ["in", "in"],
    ["CENTIMETERS", "cm"],
    ["centimetres", "cm"],
    ["cm", "cm"],
    ["MILLIMETERS", "mm"],
    ["mm", "mm"]
  ])("reads lengths stated in %s", (name, unit) => {
    const scan = decode(
      withItems(
        { measurementType: "BUST_GIRTH", value: unit === "in" ? "34" : unit === "cm" ? "86" : "862", unit: name },
        { measurementType: "HIP_GIRTH", value: unit === "in" ? "36" : unit === "cm" ? "90" : "903", unit: name }
      )
    )
    const expected =
      unit === "in" ? { bustGirth: 34 * 25.4, hipGirth: 36 * 25.4 } : unit === "cm" ? { bustGirth: 860, hipGirth: 900 } : { bustGirth: 862, hipGirth: 903 }
    expect(scan.measurementsMm).toEqual(expected)
    expect(kindsAndPaths(scan.notes)).toEqual(unit === "mm" ? [] : [["converted", "results.measurements"]])
  })

  it("reads HEIGHT in its stated unit with a note, the caller's lengthUnit applying to the body lengths only", () => {
    const json = withItems({ measurementType: "HEIGHT", value: "164", unit: "CENTIMETERS" }, { measurementType: "HIP_GIRTH", value: "36", unit: MM })
    const scan = decode(json, { lengthUnit: "in" })
    expect(scan.subject.heightMm).toBe(1640)
    expect(scan.measurementsMm.hipGirth).toBeCloseTo(914.4, 9)
    expect(kindsAndPaths(scan.notes)).toEqual([
      ["converted", "results.measurements[0]"],
      ["assumed", "results.measurements"]
    ])
    expect(scan.notes[0]!.detail).toBe("HEIGHT 164 centimetres -> 1640 mm")
  })

  it.each(["FURLONGS", "CENTIMETRE_E2", ""])("refuses a length in the unknown unit %j, listing the units it accepts", (unit) => {
    const e = decodeError(withItems({ measurementType: "HIP_GIRTH", value: "903", unit: MM }, { measurementType: "WAIST_GIRTH", value: "28", unit }))
    expect(e.path).toEqual(["results", "measurements", 1, "unit"])
    expect(e.value).toBe(unit)
    for (const accepted of ["MILLIMETERS", "UNIT_TYPE_UNSPECIFIED", "INCHES", "cm", "centimetres"]) expect(e.message).toContain(accepted)
  })

  it("refuses a stat in an unknown unit, naming the one it is measured in, where it used to drop it", () => {
    const e = decodeError(withItems({ measurementType: "WEIGHT", value: "54", unit: "KILOGRAMS" }))
    expect(e.path).toEqual(["results", "measurements", 0, "unit"])
    expect(e.value).toBe("KILOGRAMS")
    expect(e.message).toContain("GRAMS")
  })

  it("refuses a length in a unit of another quantity, and a mass in a length unit", () => {
    expect(decodeError(withItems({ measurementType: "HIP_GIRTH", value: "903", unit: "GRAMS" })).path).toEqual(["results", "measurements", 0, "unit"])
    expect(decodeError(withItems({ measurementType: "HEIGHT", value: "1640", unit: "YEARS" })).path).toEqual(["results", "measurements", 0, "unit"])
    expect(decodeError(withItems({ measurementType: "WEIGHT", value: "54000", unit: "INCHES" })).value).toBe("INCHES")
  })

  it("refuses inches stated as MILLIMETERS with the evidence and the way out, and reads them with lengthUnit in", () => {
    const json = rewriteLengths(EXAMPLE, (i) => ({ ...inUnit("in", "INCHES")(i), unit: MM }))
    const e = decodeError(json)
    expect(e.path).toEqual(["results", "measurements"])
    expect(e.message).toContain("inches")
    expect(e.message).toContain("--length-unit in")
    const scan = decode(json, { lengthUnit: "in" })
    expect(scan.measurementsMm.hipGirth).toBeCloseTo(36 * 25.4, 9)
    expect(kindsAndPaths(scan.notes)).toEqual([["assumed", "results.measurements"]])
  })

  it("reads a lone length as stated where it fits the stated unit: one value is no evidence of another unit", () => {
    // 191 mm in inches, rounded: 8. Under MILLIMETERS, with no stature, it fits an ankle height of a
    // body of 500 mm (0.016 x stature), so nothing says it is not millimetres; in inches it fits too.
    const ankle = { measurementType: "OUTER_ANKLE_HEIGHT_R", value: "8", unit: MM }
    expect(judgeLengths({ outerAnkleHeightR: 8 }, null, "mm")._tag).toBe("Plausible")
    const scan = decode(withItems(ankle))
    expect(scan.measurementsMm).toEqual({ outerAnkleHeightR: 8 })
    expect(scan.notes).toEqual([])
    // One more length that only inches fit is the evidence: refused, with the way out.
    const e = decodeError(withItems(ankle, { measurementType: "HIP_GIRTH", value: "36", unit: MM }))
    expect(e.message).toContain("--length-unit in")
  })

  it("reads the caller's lengthUnit through the adapter's decode, as the normalizer passes it", () => {
    const json = withItems({ measurementType: "BUST_GIRTH", value: "34", unit: MM }, { measurementType: "HIP_GIRTH", value: "36", unit: MM })
    const [format] = sessionAdapter.formats
    expect(Either.isLeft(format!.decode(json))).toBe(true)
    const scans = ok(format!.decode(json, { lengthUnit: "in" }))
    expect(scans.map((s) => s.measurementsMm)).toEqual([{ bustGirth: 34 * 25.4, hipGirth: 36 * 25.4 }])
  })
})

describe("other spellings of measurement names", () => {
  it.each(sessionDialect.aliasList.map((a) => [a.alias, a.spelling.name, a.name] as const))("reads %s as %s with an aliased note", (alias, name, canonical) => {
    const scan = decode(withItems({ measurementType: alias, value: String(EXAMPLE_SCAN.measurementsMm[canonical]), unit: MM }))
    expect(scan.measurementsMm).toEqual({ [canonical]: EXAMPLE_SCAN.measurementsMm[canonical] })
    expect(kindsAndPaths(scan.notes)).toEqual([["aliased", "results.measurements[0].measurementType"]])
    expect(scan.notes[0]!.detail).toBe(`${alias} read as ${name}: another spelling of it`)
  })

  it("reads KNEE_HEIGHT in inches as KNEE_HEIGHT_R, and keeps the first when both spellings come", () => {
    const scan = decode(
      withItems({ measurementType: "KNEE_HEIGHT", value: "18", unit: "INCHES" }, { measurementType: "KNEE_HEIGHT_R", value: "18", unit: "INCHES" })
    )
    expect(scan.measurementsMm).toEqual({ kneeHeightR: 457.2 })
    expect(kindsAndPaths(scan.notes)).toEqual([
      ["aliased", "results.measurements[0].measurementType"],
      ["dropped", "results.measurements[1]"],
      ["converted", "results.measurements"]
    ])
  })

  it.each([
    ["KNEE_HIEGHT_R", "KNEE_HEIGHT_R"],
    ["HIP_GRITH", "HIP_GIRTH"],
    ["waist girth", "WAIST_GIRTH"]
  ])("drops %s with a note that asks: did you mean %s?", (typo, name) => {
    const scan = decode(withItems({ measurementType: typo, value: "903", unit: MM }))
    expect(scan.measurementsMm).toEqual({})
    expect(kindsAndPaths(scan.notes)).toEqual([["dropped", "results.measurements[0].measurementType"]])
    expect(scan.notes[0]!.detail).toContain(`did you mean ${name}?`)
  })
})

// --- Properties ------------------------------------------------------------------------------

const RUNS = { fastCheck: { numRuns: 200 } }

/** Any valid scan with lengths, as the session server prints it, and the scan that reads back from it. */
const encodedScan = Arbitrary.make(Scan)
  .filter((s) => s.status === "success" && Object.keys(s.measurementsMm).length > 0)
  .map((s) => encodeResultsEither(s))
  .filter(Either.isRight)
  .map((e) => {
    const json = JSON.parse(JSON.stringify(e.right.value)) as Obj
    return { json, scan: decode(json) }
  })

const SPELLINGS: ReadonlyArray<readonly [LengthUnit, string]> = [
  ["cm", "CENTIMETERS"],
  ["cm", "cm"],
  ["cm", "Centimetres"],
  ["in", "INCHES"],
  ["in", "inch"],
  ["in", "in"]
]

describe("properties", () => {
  it.prop(
    "any valid scan with its lengths restated in centimetres or inches, unit stated, reads to the same millimetres within rounding",
    [encodedScan, fc.constantFrom(...SPELLINGS)],
    ([{ json, scan }, [unit, name]]) => {
      const read = decode(rewriteLengths(json, inUnit(unit, name), true))
      // Within half a unit (the restating rounds to whole units), and the few units in the last
      // place that dividing and multiplying back cost near 2^53 (a HEIGHT of 8e15 mm is 1 apart there).
      const within = (mm: number) => LENGTH_UNITS[unit].toBase(1) / 2 + 4 * Math.abs(mm) * Number.EPSILON + 1e-9
      expect(Object.keys(read.measurementsMm).sort()).toEqual(Object.keys(scan.measurementsMm).sort())
      for (const [n, mm] of Object.entries(scan.measurementsMm))
        expect(Math.abs(read.measurementsMm[n as keyof Scan["measurementsMm"]]! - mm), n).toBeLessThanOrEqual(within(mm))
      if (scan.subject.heightMm !== null) {
        expect(Math.abs(read.subject.heightMm! - scan.subject.heightMm)).toBeLessThanOrEqual(within(scan.subject.heightMm))
      }
      const count = Object.keys(scan.measurementsMm).length
      expect(read.notes).toContainEqual({
        kind: "converted",
        path: "results.measurements",
        detail: `${count} length(s) stated in ${unit === "in" ? "inches" : "centimetres"}, converted to millimetres`
      })
    },
    RUNS
  )

  it.prop(
    "the same lengths in inches under MILLIMETERS are refused with the evidence, read with a note, or read as stated only where millimetres fit the body",
    [encodedScan],
    ([{ json }]) => {
      const result = decodeResultsEither(rewriteLengths(json, (i) => ({ ...inUnit("in", "INCHES")(i), unit: MM })))
      if (Either.isLeft(result)) {
        expect(result.left.path).toEqual(["results", "measurements"])
        expect(result.left.message).toContain("inches")
        expect(result.left.message).toContain("--length-unit in")
      } else if (!result.right.notes.some((n) => n.kind === "assumed" && n.path === "results.measurements")) {
        // Silent only where the stated unit is plausible: the lengths as millimetres fit this body
        // (a lone 8 "mm" ankle height and no stature fits a body of 500 mm, see the example above).
        expect(judgeLengths(result.right.measurementsMm, result.right.subject.heightMm, "mm")._tag).toBe("Plausible")
      }
    },
    RUNS
  )
})
