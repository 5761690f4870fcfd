import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "@effect/vitest"
import {
  Centimetres,
  Degrees,
  Grams,
  Inches,
  Kilograms,
  Millimetres,
  Percent,
  PercentE4,
  Pounds,
  Radians,
  cmToMm,
  convertLength,
  convertMass,
  degreesToRadians,
  e4ToPercent,
  gToKg,
  gToLb,
  inchesToMm,
  isExactE4,
  kgToG,
  lbToG,
  lengthUnitOf,
  mmToCm,
  mmToInches,
  percentToE4,
  radiansToDegrees,
  round
} from "../src/index.js"
import { shiftDecimal, shiftPrinted } from "../src/units.js"

const humanMm = fc.integer({ min: 0, max: 3000 })
const anyMm = fc.double({ min: 0, max: 1e7, noNaN: true })
/** Decimal values of up to 15 significant digits: the domain where decimal shifts are exact. */
const decimalValue = fc
  .tuple(fc.integer({ min: 0, max: 999_999_999_999 }), fc.integer({ min: 0, max: 6 }))
  .map(([digits, places]) => Number(`${digits}e-${places}`))

describe("lengths", () => {
  it.prop("mm -> in -> mm is within 0.5 mm", [anyMm], ([mm]) => {
    expect(Math.abs(inchesToMm(mmToInches(Millimetres(mm))) - mm)).toBeLessThanOrEqual(0.5)
  })

  it.prop("mm -> in rounded to 2 decimals -> mm rounds back to the same whole mm", [humanMm], ([mm]) => {
    const inches = Inches(round(mmToInches(Millimetres(mm)), 2))
    expect(round(inchesToMm(inches))).toBe(mm)
  })

  it.prop("mm -> cm -> mm is exact on decimals", [decimalValue], ([mm]) => {
    expect(cmToMm(mmToCm(Millimetres(mm)))).toBe(mm)
  })

  it.prop("cm with one decimal -> mm is the exact decimal", [fc.integer({ min: 0, max: 30000 })], ([tenths]) => {
    expect(cmToMm(Centimetres(tenths / 10))).toBe(tenths)
  })

  it("converts the documented examples", () => {
    expect(cmToMm(Centimetres(1.15))).toBe(11.5)
    expect(mmToCm(Millimetres(1640))).toBe(164)
    expect(inchesToMm(Inches(1))).toBe(25.4)
    expect(convertLength(175, "cm", "mm")).toBe(1750)
    expect(round(convertLength(70, "in", "cm"), 2)).toBe(177.8)
  })

  it("keeps units apart at compile time", () => {
    const cm = Centimetres(175)
    // @ts-expect-error a length in cm is not a length in mm
    mmToInches(cm)
    // @ts-expect-error a bare number is not a length in mm either
    mmToInches(1750)
    expect(mmToInches(cmToMm(cm))).toBeCloseTo(68.8976, 4)
  })
})

describe("lengthUnitOf", () => {
  // Written out here, not read from the module: the test holds the lookup to the documented spellings.
  const SPELLINGS = {
    mm: ["mm", "millimeter", "millimeters", "millimetre", "millimetres"],
    cm: ["cm", "centimeter", "centimeters", "centimetre", "centimetres"],
    in: ["in", "inch", "inches", '"']
  } as const
  const spelled = fc.constantFrom(...Object.entries(SPELLINGS).flatMap(([unit, names]) => names.map((name) => ({ unit, name }))))
  // Each letter in either case, or an "i" as "İ", which looks like one but lower-cases to two characters.
  const recased = (name: string) =>
    fc
      .array(fc.constantFrom("lower", "upper", "lookalike"), { minLength: name.length, maxLength: name.length })
      .map((cases) => [...name].map((c, i) => (cases[i] === "upper" ? c.toUpperCase() : cases[i] === "lookalike" && c === "i" ? "İ" : c)).join(""))

  it.prop(
    "reads every spelling in any case of its letters, and nothing else",
    [spelled.chain(({ unit, name }) => recased(name).map((text) => ({ unit, name, text })))],
    ([{ unit, name, text }]) => {
      const expected = text.toLowerCase() === name ? unit : undefined
      expect(lengthUnitOf(text)).toBe(expected)
    },
    { fastCheck: { seed: 34 } }
  )

  it("reads the cases records use and refuses near misses", () => {
    expect(["mm", "MILLIMETERS", "Millimetres", "CM", "centiMetres", "INCH", '"'].map(lengthUnitOf)).toEqual(["mm", "mm", "mm", "cm", "cm", "in", "in"])
    expect(["", "m", "MMS", "İnch", " mm", "millimetre "].map(lengthUnitOf)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined])
  })
})

describe("masses", () => {
  it.prop("g -> kg -> g is exact on decimals", [decimalValue], ([g]) => {
    expect(kgToG(gToKg(Grams(g)))).toBe(g)
  })

  it.prop("g -> lb -> g is within 1e-6 g", [fc.integer({ min: 0, max: 500_000 })], ([g]) => {
    expect(Math.abs(lbToG(gToLb(Grams(g))) - g)).toBeLessThan(1e-6)
  })

  it("converts the documented examples", () => {
    expect(kgToG(Kilograms(70))).toBe(70000)
    expect(kgToG(Kilograms(54.321))).toBe(54321)
    expect(lbToG(Pounds(1))).toBe(453.59237)
    expect(convertMass(70000, "g", "kg")).toBe(70)
  })
})

describe("percentages", () => {
  it.prop("E4 -> percent -> E4 is exact on integers", [fc.integer({ min: -(2 ** 50), max: 2 ** 50 })], ([e4]) => {
    expect(percentToE4(e4ToPercent(PercentE4(e4)))).toBe(e4)
  })

  it.prop("E4 -> percent gives the decimal the wire meant", [fc.integer({ min: 0, max: 1_000_000 })], ([e4]) => {
    const s = String(e4).padStart(5, "0")
    expect(e4ToPercent(PercentE4(e4))).toBe(Number(`${s.slice(0, -4)}.${s.slice(-4)}`))
  })

  it.prop("a percent with at most 4 decimals is exact in E4", [fc.integer({ min: 0, max: 1_000_000 })], ([e4]) => {
    expect(isExactE4(Percent(e4 / 10_000))).toBe(true)
  })

  it("rounds a percent past 4 decimals half away from zero, and says it is not exact", () => {
    expect(e4ToPercent(PercentE4(123456))).toBe(12.3456)
    expect(percentToE4(Percent(12.34565))).toBe(123457)
    expect(percentToE4(Percent(-12.34565))).toBe(-123457)
    expect(isExactE4(Percent(12.34565))).toBe(false)
  })

  it("refuses a non-integer E4", () => {
    const result = PercentE4.either(1.5)
    expect(Either.isLeft(result) && result.left[0]?.message).toMatch(/safe integer, got 1.5/)
    expect(PercentE4.is(123456)).toBe(true)
  })
})

describe("angles", () => {
  const degrees = fc.double({ min: -720, max: 720, noNaN: true })
  const radians = fc.double({ min: -4 * Math.PI, max: 4 * Math.PI, noNaN: true })

  it.prop("degrees -> radians -> degrees within 1e-9", [degrees], ([deg]) => {
    expect(Math.abs(radiansToDegrees(degreesToRadians(Degrees(deg))) - deg)).toBeLessThan(1e-9)
  })

  it.prop("radians -> degrees -> radians within 1e-9", [radians], ([rad]) => {
    expect(Math.abs(degreesToRadians(radiansToDegrees(Radians(rad))) - rad)).toBeLessThan(1e-9)
  })

  it("converts a right angle", () => {
    expect(radiansToDegrees(Radians(Math.PI / 2))).toBe(90)
  })
})

describe("round", () => {
  const decimals = fc.integer({ min: 0, max: 6 })
  it.prop("is within half a unit of the last place", [fc.double({ min: -1e9, max: 1e9, noNaN: true }), decimals], ([x, d]) => {
    expect(Math.abs(round(x, d) - x)).toBeLessThanOrEqual(0.5 * 10 ** -d * (1 + 1e-9) + Math.abs(x) * 1e-15)
  })

  it.prop("is odd: round(-x) = -round(x)", [fc.double({ min: -1e9, max: 1e9, noNaN: true }), decimals], ([x, d]) => {
    expect(round(-x, d)).toBe(-round(x, d) || 0)
  })

  it("rounds halves away from zero, in decimal", () => {
    expect([round(2.5), round(-2.5), round(1.005, 2), round(1e-7, 9), round(0.5e-7, 7)]).toEqual([3, -3, 1.01, 1e-7, 1e-7])
  })
})

describe("shiftDecimal", () => {
  const places = fc.integer({ min: -25, max: 25 })
  // Same double as the printed definition, negative zero included (Object.is), NaN and infinities too.
  const same = (value: number, p: number): void => {
    expect(Object.is(shiftDecimal(value, p), shiftPrinted(value, p)), `${value} e${p}`).toBe(true)
  }

  it.prop("is the printed form's shift on any double", [fc.double(), places], ([x, p]) => {
    same(x, p)
  })
  it.prop("is the printed form's shift on decimals of up to 15 digits", [decimalValue, fc.boolean(), places], ([x, negative, p]) => {
    same(negative ? -x : x, p)
  })
  it.prop("is the printed form's shift on integers", [fc.maxSafeInteger(), places], ([n, p]) => {
    same(n, p)
  })
  it.prop(
    "is the printed form's shift on measurement-like values",
    [fc.integer({ min: -100_000, max: 100_000 }), fc.integer({ min: 0, max: 4 }), places],
    ([n, d, p]) => {
      same(n / 10 ** d, p)
    }
  )

  it("keeps the awkward cases of the printed form", () => {
    for (const [x, p] of [
      [-0, 1],
      [0, -3],
      [1.15, 1],
      [0.1, 1],
      [0.3, 1],
      [2 ** 60, 2],
      [1e21, -1],
      [123456, -4],
      [5e-324, 3],
      [Number.MAX_VALUE, 1],
      [-Number.MAX_VALUE, -400]
    ] as const)
      same(x, p)
  })
})
