/**
 * Tapeline's stored fitting, exactly as its app writes it: one JSON object per fitting, taken with
 * a tape measure in centimetres or inches.
 *
 * ```json
 * { "tapeline": "fitting/2", "ref": "F-1042", "takenOn": "2025-11-02T10:00:00Z", "unit": "cm",
 *   "customer": { "ref": "C-77", "sex": "F", "heightCm": 164 },
 *   "tape": { "chest": 86.2, "waist": 70.1, "hips": 94, "inseam": 76.5 } }
 * ```
 */
import { Schema } from "effect"

/** The version tag every fitting carries: what tells a fitting from any other JSON. */
export const FITTING_VERSION = "fitting/2"

export const TapeUnit = Schema.Literal("cm", "in")
export type TapeUnit = typeof TapeUnit.Type

const Length = Schema.Number.pipe(Schema.finite(), Schema.nonNegative())

export const Customer = Schema.Struct({
  ref: Schema.NullOr(Schema.String),
  sex: Schema.NullOr(Schema.Literal("F", "M")),
  /** Always centimetres, whatever the tape's unit. */
  heightCm: Schema.optionalWith(Length, { exact: true })
})

export const Fitting = Schema.Struct({
  tapeline: Schema.Literal(FITTING_VERSION),
  ref: Schema.String.pipe(Schema.minLength(1)),
  /** When it was taken, as the app's clock wrote it (any form `Date` reads). */
  takenOn: Schema.NullOr(Schema.String),
  unit: TapeUnit,
  customer: Customer,
  /** Tape readings in `unit`, by Tapeline's own names (dialect.ts). */
  tape: Schema.Record({ key: Schema.String, value: Length })
})
export type Fitting = typeof Fitting.Type
