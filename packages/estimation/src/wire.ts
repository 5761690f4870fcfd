/**
 * The deprecated estimation API's JSON (spec 02, part B), snake_case, as it travels. Response
 * schemas ignore keys they do not know, as a client of a live API must; the codec notes what
 * it drops. The API states no unit for `result.measurement` nor a scale for
 * `result.body_composition`: the schemas take any non-negative number, and the codec infers.
 */
import { Schema } from "effect"
import type { MeasurementName } from "@scanbridge/model"
import { estimationDialect } from "./dialect.js"

const NonNegative = Schema.Number.pipe(Schema.finite(), Schema.nonNegative())
const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())
const opt = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** The 33 `result.measurement` keys and the canonical name of each, from the dialect. */
export const MEASUREMENT_KEYS: ReadonlyMap<string, MeasurementName> = new Map(estimationDialect.measurementList.map((e) => [e.spelling.name, e.name] as const))

/** The code spec 02 shows on a completed success. */
export const SUCCESS_CODE = 101

export const Gender = Schema.Literal("male", "female")
export const Pattern = Schema.Literal("front", "right")
export type Pattern = typeof Pattern.Type

// --- Steps 1 to 3 -------------------------------------------------------------------------

/** GET {auth_url}/tokens/anonymous?client_id= */
export const AuthResponse = Schema.Struct({ uid: Schema.String, access_token: Schema.String })

/** Step 2's form (application/x-www-form-urlencoded): height in mm, weight in g. */
export const CreateForm = Schema.Struct({
  client_id: Schema.String,
  measurement_id: Schema.String,
  height: Schema.NumberFromString.pipe(Schema.int(), Schema.positive()),
  weight: Schema.NumberFromString.pipe(Schema.int(), Schema.positive()),
  age: Schema.NumberFromString.pipe(Schema.int(), Schema.positive()),
  gender: Gender,
  lang: opt(Schema.String)
})
export type CreateForm = typeof CreateForm.Encoded

export const CreateResponse = Schema.Struct({ created_at: Schema.String, estimation_id: Schema.String })

/** Step 3's response; `send_input_queue` is true once both photos are in and the job is scheduled. */
export const UploadResponse = Schema.Struct({
  created_at: Schema.String,
  estimation_id: Schema.String,
  message: Schema.String,
  send_input_queue: Schema.Boolean
})

// --- Step 4: the read response ------------------------------------------------------------

export const Input = Schema.Struct({ age: Count, gender: Gender, height: NonNegative, weight: NonNegative })
export type Input = typeof Input.Type

export const BodyComposition = Schema.Struct({
  body_fat_percentage: opt(Schema.NullOr(NonNegative)),
  skeletal_muscle_mass: opt(Schema.NullOr(NonNegative))
})
export type BodyComposition = typeof BodyComposition.Type

/** Version and job ids: their type is not shown, so any JSON value is kept. */
const Opaque = Schema.Union(Schema.String, Schema.Number)

/** `result.measurement`: any key (the codec notes the ones the catalogue does not name). */
export const Measurement = Schema.Record({ key: Schema.String, value: NonNegative })

/** `result.measurement` holding only keys the catalogue names: how most records are. */
export const KnownMeasurement = Schema.Struct(Object.fromEntries([...MEASUREMENT_KEYS.keys()].map((key) => [key, opt(NonNegative)])))

export const Result = Schema.Struct({
  body_composition: opt(Schema.NullOr(BodyComposition)),
  measurement: Measurement,
  status: opt(Schema.String),
  version: opt(Opaque),
  work_id: opt(Opaque)
})
export type Result = typeof Result.Type

/** `{}` while the job runs; the outcome once it completed. */
export const Estimation = Schema.Struct({
  code: opt(Schema.Number.pipe(Schema.int())),
  input: opt(Input),
  result: opt(Schema.NullOr(Result)),
  status: opt(Schema.Literal("success", "fail")),
  version: opt(Opaque),
  work_id: opt(Opaque)
})
export type Estimation = typeof Estimation.Type

export const ReadItem = Schema.Struct({
  created_at: opt(Schema.String),
  status: Schema.Literal("in-progress", "completed"),
  estimation_id: Schema.String,
  estimation: Estimation
})
export type ReadItem = typeof ReadItem.Type
export type ReadItemJson = typeof ReadItem.Encoded

export const ReadResponse = Schema.Struct({
  measurements: Schema.Array(ReadItem),
  message: opt(Schema.String),
  result: opt(Schema.Boolean)
})
export type ReadResponse = typeof ReadResponse.Type
export type ReadResponseJson = typeof ReadResponse.Encoded
