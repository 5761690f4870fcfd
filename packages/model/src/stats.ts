/**
 * A subject's stats as clients send them, and the check that runs before a request: the
 * vendor's APIs do not reject wrong units, so a height in centimetres would spend quota on a
 * nonsense scan. A refusal names the field and the unit the caller probably used.
 */
import { Either, type FastCheck } from "effect"
import { HUMAN_RANGES, type Range } from "./catalogue.js"
import type { Path } from "./errors.js"
import { GRAMS_PER_POUND, MM_PER_INCH, round } from "./units.js"

export interface Stats {
  readonly age: number
  readonly gender: "male" | "female"
  readonly heightMm: number
  readonly weightG: number
}

/** What is wrong with a stat: where, the value, and a message that names the likely mistake. */
export interface StatProblem {
  readonly path: Path
  readonly value: unknown
  readonly message: string
}

/** A unit people send instead of the expected one, and how many expected units one of it is. */
export interface UnitMistake {
  readonly unit: string
  readonly factor: number
}

// Units people send instead of the canonical one, tried in this order.
const LENGTH_MISTAKES: ReadonlyArray<UnitMistake> = [
  { unit: "centimetres", factor: 10 },
  { unit: "inches", factor: MM_PER_INCH },
  { unit: "metres", factor: 1000 }
]
const MASS_MISTAKES: ReadonlyArray<UnitMistake> = [
  { unit: "kilograms", factor: 1000 },
  { unit: "pounds", factor: GRAMS_PER_POUND }
]

const inRange = (v: number, r: Range) => v >= r.min && v <= r.max

const problem = (field: string, value: unknown, message: string): Either.Either<never, StatProblem> =>
  Either.left({ path: [field], value, message: `${field}: ${message}` })

/** "; 168 looks like centimetres (send 1680)": the `mistakes` that bring `value` into `range`, or "". */
export const unitMistakeHint = (value: number, range: Range, mistakes: ReadonlyArray<UnitMistake>): string => {
  const likely = mistakes.filter((m) => inRange(value * m.factor, range)).map((m) => `${m.unit} (send ${round(value * m.factor)})`)
  return likely.length > 0 ? `; ${value} looks like ${likely.join(" or ")}` : ""
}

/** `unitMistakeHint` for a length in mm or a mass in g. */
export const likelyUnitMistake = (value: number, range: Range, quantity: "length" | "mass"): string =>
  unitMistakeHint(value, range, quantity === "length" ? LENGTH_MISTAKES : MASS_MISTAKES)

const checkQuantity = (field: string, value: number, unit: string, range: Range, quantity: "length" | "mass") => {
  if (!Number.isFinite(value)) return problem(field, value, `expected a number of ${unit}`)
  if (inRange(value, range) && Number.isInteger(value)) return Either.right(value)
  if (inRange(value, range)) return problem(field, value, `expected a whole number of ${unit}; send ${round(value)}`)
  return problem(field, value, `${value} is outside the human range ${range.min}-${range.max} ${unit}${likelyUnitMistake(value, range, quantity)}`)
}

/** Refuses stats outside human ranges (HUMAN_RANGES), naming the unit the caller probably used. */
export const checkHumanStats = (stats: Stats): Either.Either<Stats, StatProblem> => {
  const { age, gender, heightMm, weightG } = stats
  if (gender !== "male" && gender !== "female") return problem("gender", gender, "expected male or female")
  if (!Number.isInteger(age) || !inRange(age, HUMAN_RANGES.age)) {
    return problem("age", age, `expected whole years, ${HUMAN_RANGES.age.min}-${HUMAN_RANGES.age.max}`)
  }
  return Either.all([
    checkQuantity("heightMm", heightMm, "mm", HUMAN_RANGES.heightMm, "length"),
    checkQuantity("weightG", weightG, "g", HUMAN_RANGES.weightG, "mass")
  ]).pipe(Either.map(() => stats))
}

/**
 * Body fat percent expected from BMI, age and sex (Deurenberg, Weststrate and Seidell 1991,
 * standard error about 4 points). Evidence for a reading, never a measurement.
 */
export const expectedBodyFatPercent = (stats: Stats): number => {
  const bmi = stats.weightG / 1000 / (stats.heightMm / 1000) ** 2
  return 1.2 * bmi + 0.23 * stats.age - 10.8 * (stats.gender === "male" ? 1 : 0) - 5.4
}

/**
 * Every human subject `HUMAN_RANGES` allows, in whole millimetres, grams and years, for property
 * tests. Given fast-check rather than importing it, so a bundle that never tests keeps none.
 */
export const humanStats = (fc: typeof FastCheck): FastCheck.Arbitrary<Stats> =>
  fc.record({
    age: fc.integer(HUMAN_RANGES.age),
    gender: fc.constantFrom("male" as const, "female" as const),
    heightMm: fc.integer(HUMAN_RANGES.heightMm),
    weightG: fc.integer(HUMAN_RANGES.weightG)
  })
