/**
 * Units as branded numbers, so a length in centimetres cannot be passed where millimetres are
 * expected. Each quantity has one conversion table; the branded functions and the plain
 * `convert*` functions both go through it.
 *
 * Exactness: powers of ten (mm <-> cm, g <-> kg) move the decimal point in the number's
 * shortest decimal form, so 1.15 cm is exactly 11.5 mm rather than 11.499999999999998. That is
 * exact, both ways, for any value of up to 15 significant digits (every real measurement);
 * 17-digit doubles and subnormals get the nearest double instead.
 * Inches, pounds and radians are exact by definition but not in binary floating point; the
 * result is the correctly rounded double of one multiplication or division, and callers that
 * need whole units round explicitly with `round`.
 */
import { Brand } from "effect"

export type Millimetres = number & Brand.Brand<"Millimetres">
export type Centimetres = number & Brand.Brand<"Centimetres">
export type Inches = number & Brand.Brand<"Inches">
export type Grams = number & Brand.Brand<"Grams">
export type Kilograms = number & Brand.Brand<"Kilograms">
export type Pounds = number & Brand.Brand<"Pounds">
/** A percentage on the 0-100 scale. */
export type Percent = number & Brand.Brand<"Percent">
/** The session API's PERCENTAGE_E4: an integer, percent times 10^4 (123456 = 12.3456 %). */
export type PercentE4 = number & Brand.Brand<"PercentE4">
export type Degrees = number & Brand.Brand<"Degrees">
export type Radians = number & Brand.Brand<"Radians">
export type Years = number & Brand.Brand<"Years">

export const Millimetres = Brand.nominal<Millimetres>()
export const Centimetres = Brand.nominal<Centimetres>()
export const Inches = Brand.nominal<Inches>()
export const Grams = Brand.nominal<Grams>()
export const Kilograms = Brand.nominal<Kilograms>()
export const Pounds = Brand.nominal<Pounds>()
export const Percent = Brand.nominal<Percent>()
export const Degrees = Brand.nominal<Degrees>()
export const Radians = Brand.nominal<Radians>()
export const Years = Brand.nominal<Years>()
/** Refuses a non-integer: E4 values only exist as int64 on the wire. */
export const PercentE4 = Brand.refined<PercentE4>(
  (n) => Number.isSafeInteger(n),
  (n) => Brand.error(`PERCENTAGE_E4 must be a safe integer, got ${n}`)
)

/** Exact by definition (international inch, 1959). */
export const MM_PER_INCH = 25.4
/** Exact by definition (international avoirdupois pound, 1959). */
export const GRAMS_PER_POUND = 453.59237

// Moves the decimal point in the number's shortest decimal form, adding no binary error: the
// double nearest to that decimal times 10^places. Printing and parsing cost a microsecond, and
// a bulk migration converts every measurement, so two cases are computed instead, each giving
// the same double as the printed form (a property test holds them to it):
// - a safe integer is its own shortest form, and 10^0..10^22 are exact doubles, so one
//   multiplication or division, correctly rounded, gives the double nearest to the decimal;
// - a value whose shift lands on an integer n below 10^15 that divides back to the value: a
//   decimal of 15 significant digits or fewer is the only one of that length its double
//   prints as, so the value's shortest form is n / 10^places, and the shift is n exactly.
/** @internal Exported for its property test. */
export const shiftDecimal = (value: number, places: number): number => {
  // String(-0) is "0": the printed form has no negative zero.
  if (value === 0) return 0
  if (places >= -22 && places <= 22) {
    if (Number.isSafeInteger(value)) return places >= 0 ? value * POW10[places]! : value / POW10[-places]!
    if (places > 0) {
      const n = Math.round(value * POW10[places]!)
      if (Math.abs(n) < 1e15 && n / POW10[places]! === value) return n
    }
  }
  return shiftPrinted(value, places)
}

const POW10: ReadonlyArray<number> = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`))

/** @internal shiftDecimal by its definition: the shortest decimal form, its exponent moved, parsed. */
export const shiftPrinted = (value: number, places: number): number => {
  const [mantissa, exponent = "0"] = String(value).split("e")
  return Number(`${mantissa}e${Number(exponent) + places}`)
}

/**
 * Rounds half away from zero to `decimals` places. Working in decimal keeps 1.005 -> 1.01,
 * where `Math.round(x * 100) / 100` gives 1.
 */
export const round = (value: number, decimals = 0): number => {
  if (!Number.isFinite(value)) return value
  const sign = value < 0 ? -1 : 1
  const rounded = Math.round(shiftDecimal(Math.abs(value), decimals))
  // `|| 0` turns -0 into 0.
  return sign * shiftDecimal(rounded, -decimals) || 0
}

interface Scale {
  readonly toBase: (value: number) => number
  readonly fromBase: (value: number) => number
}
const identity: Scale = { toBase: (v) => v, fromBase: (v) => v }
const decimal = (places: number): Scale => ({
  toBase: (v) => shiftDecimal(v, places),
  fromBase: (v) => shiftDecimal(v, -places)
})
const factor = (f: number): Scale => ({ toBase: (v) => v * f, fromBase: (v) => v / f })

/** Length units; the base is millimetres. */
export const LENGTH_UNITS = { mm: identity, cm: decimal(1), in: factor(MM_PER_INCH) } as const
/** Mass units; the base is grams. */
export const MASS_UNITS = { g: identity, kg: decimal(3), lb: factor(GRAMS_PER_POUND) } as const
/** Angle units; the base is degrees. */
export const ANGLE_UNITS = {
  deg: identity,
  rad: { toBase: (v) => (v * 180) / Math.PI, fromBase: (v) => (v * Math.PI) / 180 } satisfies Scale
} as const

export type LengthUnit = keyof typeof LENGTH_UNITS
export type MassUnit = keyof typeof MASS_UNITS
export type AngleUnit = keyof typeof ANGLE_UNITS

const converter =
  <U extends string>(table: Record<U, Scale>) =>
  (value: number, from: U, to: U): number =>
    from === to ? value : table[to].fromBase(table[from].toBase(value))

export const convertLength = converter<LengthUnit>(LENGTH_UNITS)
export const convertMass = converter<MassUnit>(MASS_UNITS)
export const convertAngle = converter<AngleUnit>(ANGLE_UNITS)

export const mmToCm = (mm: Millimetres): Centimetres => Centimetres(convertLength(mm, "mm", "cm"))
export const cmToMm = (cm: Centimetres): Millimetres => Millimetres(convertLength(cm, "cm", "mm"))
export const mmToInches = (mm: Millimetres): Inches => Inches(convertLength(mm, "mm", "in"))
export const inchesToMm = (inches: Inches): Millimetres => Millimetres(convertLength(inches, "in", "mm"))

export const gToKg = (g: Grams): Kilograms => Kilograms(convertMass(g, "g", "kg"))
export const kgToG = (kg: Kilograms): Grams => Grams(convertMass(kg, "kg", "g"))
export const gToLb = (g: Grams): Pounds => Pounds(convertMass(g, "g", "lb"))
export const lbToG = (lb: Pounds): Grams => Grams(convertMass(lb, "lb", "g"))

export const radiansToDegrees = (rad: Radians): Degrees => Degrees(convertAngle(rad, "rad", "deg"))
export const degreesToRadians = (deg: Degrees): Radians => Radians(convertAngle(deg, "deg", "rad"))

// Percentages. E4 -> percent is a decimal shift, so the result is the double nearest the
// decimal the wire meant, and percent -> E4 recovers the integer exactly. A percent with more
// than four decimals has no exact E4: it rounds half away from zero, and `isExactE4` tells a
// caller that must note the loss.
export const e4ToPercent = (e4: PercentE4): Percent => Percent(shiftDecimal(e4, -4))
export const percentToE4 = (percent: Percent): PercentE4 => round(shiftDecimal(percent, 4)) as PercentE4
export const isExactE4 = (percent: Percent): boolean => e4ToPercent(percentToE4(percent)) === percent

/**
 * How records state a length unit, folded to lower case: the platform's `mm`, the session
 * API's `MILLIMETERS`, and what integrators' own code writes (`inch`, `INCHES`, `centimetres`).
 */
const LENGTH_UNIT_SPELLINGS: ReadonlyMap<string, LengthUnit> = new Map<string, LengthUnit>([
  ...["mm", "millimeter", "millimeters", "millimetre", "millimetres"].map((s) => [s, "mm"] as const),
  ...["cm", "centimeter", "centimeters", "centimetre", "centimetres"].map((s) => [s, "cm"] as const),
  ...["in", "inch", "inches", '"'].map((s) => [s, "in"] as const)
])

/** Every spelling `lengthUnitOf` reads, for messages that say what is accepted. */
export const LENGTH_UNIT_NAMES: ReadonlyArray<string> = [...LENGTH_UNIT_SPELLINGS.keys()]

// The spellings as written in lower and in upper case, the cases records use: found without
// toLowerCase, whose new string (hashed anew by the lookup) was most of a fit record's unit reads.
const CASED_SPELLINGS: ReadonlyMap<string, LengthUnit> = new Map(
  [...LENGTH_UNIT_SPELLINGS].flatMap(([spelling, unit]) => [[spelling, unit] as const, [spelling.toUpperCase(), unit] as const])
)

/** The unit a record's spelling of it names, whatever its case (`INCHES`, `Inch`, `cm`), or undefined. */
export const lengthUnitOf = (spelling: string): LengthUnit | undefined => CASED_SPELLINGS.get(spelling) ?? LENGTH_UNIT_SPELLINGS.get(spelling.toLowerCase())

/** What `lengthUnitOf` accepts, for a message: `mm, cm or in (any case; also millimetres, inches, ...)`. */
export const LENGTH_UNITS_ACCEPTED = "mm, cm or in (in any case, or spelt out: millimetres, MILLIMETERS, centimetres, inch, INCHES, ...)"

/** Millimetres in one of each length unit. */
export const MM_PER_UNIT: Readonly<Record<LengthUnit, number>> = { mm: 1, cm: LENGTH_UNITS.cm.toBase(1), in: MM_PER_INCH }

/** A length's unit as people name it in a message: `millimetres`. */
export const LENGTH_UNIT_LABELS: Readonly<Record<LengthUnit, string>> = { mm: "millimetres", cm: "centimetres", in: "inches" }
