/**
 * Tapeline fitting <-> canonical scan, written with the adapter kit (`@scanbridge/model/adapter`).
 * Decoding keeps every reading the catalogue has a name for, in millimetres, judged against the
 * body as every format's lengths are, and notes the rest; encoding writes centimetres to one
 * decimal, as Tapeline's app does, and notes what a fitting has no place for.
 */
import { Either } from "effect"
import { type DecodeError, type DecodeOptions, type EncodeError, type Encoded, type MeasurementName, type Scan, convertLength, round } from "@scanbridge/model"
import { type DecodeWalk, EncodeWalk, MeasurementsBuilder, exactSchemaDecoder, isUtcTimestamp, runWalk, sourceIdFor, walkScan } from "@scanbridge/model/adapter"
import { TAPELINE, tapelineDialect } from "./dialect.js"
import { FITTING_VERSION, Fitting } from "./wire.js"

/** The name of its one format, in reports and `{source, payload}` envelopes. */
export const FITTING_FORMAT = "tapeline fitting"

// Bounded (a fitting with a million bad readings costs a few issues, not a million), and it
// lists the keys Fitting does not name, at any depth, for the walk to note as dropped.
const decodeWire = exactSchemaDecoder(Fitting, FITTING_FORMAT)

const GENDER = { F: "female", M: "male" } as const
const SEX = { female: "F", male: "M" } as const

/** Where a fitting's lengths are: what the walk's notes and length messages name. */
const TAPE = ["tape"]

/** Millimetres a double can hold: a reading near the largest double is past it once converted. */
const finite = (w: DecodeWalk, mm: number, path: ReadonlyArray<string>, raw: number): number =>
  Number.isFinite(mm) ? mm : w.fail(path, raw, "is too large to be a length in millimetres")

/**
 * A stored fitting as a canonical scan. Its readings are in the unit the fitting states, or in
 * `options.lengthUnit` where the caller gives one (`--length-unit`), and a fitting whose lengths
 * are plausible only in another unit is refused with that evidence. Never throws.
 */
export const decodeFittingEither = (json: unknown, options?: DecodeOptions): Either.Either<Scan, DecodeError> => {
  const read = decodeWire(json)
  if (Either.isLeft(read)) return Either.left(read.left)
  const { value: fitting, unknownKeys } = read.right
  return walkScan(
    FITTING_FORMAT,
    [],
    (w) => {
      w.noteUnknownKeys([], unknownKeys)
      const measurements = new MeasurementsBuilder()
      for (const [spelling, value] of Object.entries(fitting.tape)) {
        const measurement = tapelineDialect.measurementBySpelling(spelling)
        if (measurement === undefined)
          w.note("dropped", [...TAPE, spelling], `no catalogue measurement is Tapeline's ${JSON.stringify(spelling)} (${value} ${fitting.unit})`)
        else measurements.set(measurement.name, finite(w, w.lengthMm(value, fitting.unit, TAPE), [...TAPE, spelling], value))
      }
      const { customer, takenOn } = fitting
      // Any form `Date` reads, written as the contract's one spelling (a year past 9999 has none).
      const createdAt = takenOn === null ? null : new Date(takenOn)
      const iso = createdAt === null || Number.isNaN(createdAt.getTime()) ? undefined : createdAt.toISOString()
      if (createdAt !== null && (iso === undefined || !isUtcTimestamp(iso))) w.fail(["takenOn"], takenOn, "is not a date")
      return {
        source: { api: TAPELINE, id: fitting.ref },
        status: "success",
        createdAt: iso ?? null,
        externalId: customer.ref,
        subject: {
          age: null,
          gender: customer.sex === null ? null : GENDER[customer.sex],
          // Always centimetres, whatever the tape's unit: a stature, not a reading.
          heightMm:
            customer.heightCm === undefined ? null : finite(w, convertLength(customer.heightCm, "cm", "mm"), ["customer", "heightCm"], customer.heightCm),
          weightG: null
        },
        measurementsMm: measurements.build()
      }
    },
    undefined,
    options
  )
}

/** Millimetres as Tapeline's centimetres, with a note when the one decimal loses some. */
const centimetres = (w: EncodeWalk, mm: number, path: ReadonlyArray<string>): number => {
  const cm = round(convertLength(mm, "mm", "cm"), 1)
  if (convertLength(cm, "cm", "mm") !== mm) w.note("converted", path, `${mm} mm written as ${cm} cm`)
  return cm
}

/** How the ref of a fitting written from another API's scan is derived (`api:id`, with a note). */
const REF = { api: TAPELINE, field: "ref", notA: "a Tapeline ref", required: "a fitting needs its ref", emptyIsNone: true } as const

/** A canonical scan as a Tapeline fitting, in centimetres, noting what the fitting cannot hold. */
export const encodeFittingEither = (scan: Scan): Either.Either<Encoded<Fitting>, EncodeError> => {
  const w = new EncodeWalk(FITTING_FORMAT)
  return runWalk(() => {
    if (scan.status !== "success") w.fail(["status"], scan.status, "a fitting holds taken measurements, which a pending or failed scan has not")
    const tape: Record<string, number> = {}
    for (const [name, mm] of Object.entries(scan.measurementsMm)) {
      const spelling = tapelineDialect.measurements[name as MeasurementName]?.name
      if (spelling === undefined) w.note("dropped", ["measurementsMm", name], "Tapeline has no name for it")
      else tape[spelling] = centimetres(w, mm, ["measurementsMm", name])
    }
    // A scan of another API keeps its id, prefixed with the API, so it can still be found.
    const ref = sourceIdFor(w, scan, REF)
    for (const key of ["age", "weightG"] as const) w.dropIf(scan.subject[key] !== null, ["subject", key], "a fitting has no place for it")
    for (const key of ["expiresAt", "method", "composition", "posture", "avatar", "adjustment"] as const) {
      w.dropIf(scan[key] !== null, [key], "a fitting has no place for it")
    }
    w.dropIf(scan.notes.length > 0, ["notes"], "a fitting has no place for them")
    const heightMm = scan.subject.heightMm
    const fitting: Fitting = {
      tapeline: FITTING_VERSION,
      ref,
      takenOn: scan.createdAt,
      unit: "cm",
      customer: {
        ref: scan.externalId,
        sex: scan.subject.gender === null ? null : SEX[scan.subject.gender],
        ...(heightMm === null ? {} : { heightCm: centimetres(w, heightMm, ["subject", "heightMm"]) })
      },
      tape
    }
    return { value: fitting, notes: w.notes }
  })
}
