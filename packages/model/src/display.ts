/**
 * A subject's stats in the units a front end shows them in: the scanning widget's `userStats`
 * (document 2) and the hosted scanner's form parameters (document 1) take height and weight in
 * centimetres and kilograms, or in feet, inches and pounds.
 *
 * Rounding happens here, once: every figure is a whole number of its display unit, since a form
 * field is the one thing these values fill and neither document says a field takes a fraction.
 * So 1720 mm is 5 ft 8 in (67.7 inches rounded), not 5 ft 7.7 in, and a round trip through the
 * display units lands within half a display unit: 5 mm and 500 g metric, 12.7 mm and 226.8 g
 * imperial (and half a millimetre or gram more, canonical stats being whole numbers).
 */
import type { Stats } from "./stats.js"
import { GRAMS_PER_POUND, MM_PER_INCH } from "./units.js"

export type SystemOfMeasurement = "metric" | "imperial"

export const SYSTEMS_OF_MEASUREMENT: ReadonlyArray<SystemOfMeasurement> = ["metric", "imperial"]

export interface MetricDisplayStats {
  readonly heightCm: number
  readonly weightKg: number
  readonly age: number
  readonly gender: "male" | "female"
}

export interface ImperialDisplayStats {
  readonly heightFt: number
  /** 0 to 11: the inches beyond `heightFt`. */
  readonly heightIn: number
  readonly weightLbs: number
  readonly age: number
  readonly gender: "male" | "female"
}

export type DisplayStats = MetricDisplayStats | ImperialDisplayStats

/** The stats in `system`'s units, each a whole number (see above). */
export function toDisplayStats(stats: Stats, system: "metric"): MetricDisplayStats
export function toDisplayStats(stats: Stats, system: "imperial"): ImperialDisplayStats
export function toDisplayStats(stats: Stats, system: SystemOfMeasurement): DisplayStats
export function toDisplayStats(stats: Stats, system: SystemOfMeasurement): DisplayStats {
  const { age, gender } = stats
  if (system === "metric") return { heightCm: Math.round(stats.heightMm / 10), weightKg: Math.round(stats.weightG / 1000), age, gender }
  const inches = Math.round(stats.heightMm / MM_PER_INCH)
  return { heightFt: Math.floor(inches / 12), heightIn: inches % 12, weightLbs: Math.round(stats.weightG / GRAMS_PER_POUND), age, gender }
}

/** Which system display stats are in. */
export const systemOf = (stats: DisplayStats): SystemOfMeasurement => ("heightCm" in stats ? "metric" : "imperial")

/** Display stats as canonical stats, in whole millimetres and grams. */
export const fromDisplayStats = (stats: DisplayStats): Stats => {
  const { age, gender } = stats
  return "heightCm" in stats
    ? { age, gender, heightMm: Math.round(stats.heightCm * 10), weightG: Math.round(stats.weightKg * 1000) }
    : {
        age,
        gender,
        heightMm: Math.round((stats.heightFt * 12 + stats.heightIn) * MM_PER_INCH),
        weightG: Math.round(stats.weightLbs * GRAMS_PER_POUND)
      }
}
