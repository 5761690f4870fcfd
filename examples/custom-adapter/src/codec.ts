/**
 * Tapeline fitting <-> canonical scan. Decoding keeps every reading the catalogue has a name for,
 * in millimetres, and notes the rest; encoding writes centimetres to one decimal, as Tapeline's
 * app does, and notes what a fitting has no place for.
 */
import { Either, Schema } from "effect"
import {
  DecodeError,
  EncodeError,
  type Encoded,
  type MeasurementName,
  type Note,
  type Scan,
  convertLength,
  makeNote,
  makeScan,
  round
} from "@scanbridge/model"
import { TAPELINE, tapelineDialect } from "./dialect.js"
import { FITTING_VERSION, Fitting } from "./wire.js"

/** The name of its one format, in reports and `{source, payload}` envelopes. */
export const FITTING_FORMAT = "tapeline fitting"

const decodeWire = Schema.decodeUnknownEither(Fitting, { errors: "all" })

const GENDER = { F: "female", M: "male" } as const
const SEX = { female: "F", male: "M" } as const

/** A fitting's keys: any other is dropped, with a note. */
const KEYS = new Set(Object.keys(Fitting.fields))

/** When a fitting was taken, in the contract's one spelling. */
const timestamp = (takenOn: string | null): Either.Either<string | null, DecodeError> => {
  if (takenOn === null) return Either.right(null)
  const t = new Date(takenOn)
  return Number.isNaN(t.getTime()) ? Either.left(DecodeError.at(FITTING_FORMAT, ["takenOn"], takenOn, "is not a date")) : Either.right(t.toISOString())
}

/** A stored fitting as a canonical scan. Never throws. */
export const decodeFittingEither = (json: unknown): Either.Either<Scan, DecodeError> =>
  Either.gen(function* () {
    const fitting = yield* Either.mapLeft(decodeWire(json), (e) => DecodeError.fromParseIssue(FITTING_FORMAT, e.issue))
    const notes: Array<Note> = []
    for (const key of Object.keys(json as object)) if (!KEYS.has(key)) notes.push(makeNote("dropped", [key], "a key Tapeline's fittings do not define"))
    const byName = new Map<string, number>()
    for (const [spelling, value] of Object.entries(fitting.tape)) {
      const measurement = tapelineDialect.measurementBySpelling(spelling)
      if (measurement === undefined) notes.push(makeNote("dropped", ["tape", spelling], `no catalogue measurement is Tapeline's ${JSON.stringify(spelling)} (${value} ${fitting.unit})`))
      else byName.set(measurement.name, convertLength(value, fitting.unit, "mm"))
    }
    // In catalogue order (the dialect's list is), as every adapter writes them.
    const measurementsMm = Object.fromEntries(tapelineDialect.measurementList.flatMap(({ name }) => (byName.has(name) ? [[name, byName.get(name)!]] : [])))
    if (fitting.unit === "in" && byName.size > 0) notes.push(makeNote("converted", ["measurementsMm"], "read in inches, 25.4 mm each"))
    const { customer } = fitting
    const scan = makeScan({
      source: { api: TAPELINE, id: fitting.ref },
      status: "success",
      createdAt: yield* timestamp(fitting.takenOn),
      externalId: customer.ref,
      subject: {
        gender: customer.sex === null ? null : GENDER[customer.sex],
        heightMm: customer.heightCm === undefined ? null : convertLength(customer.heightCm, "cm", "mm")
      },
      measurementsMm,
      notes
    })
    return yield* Either.mapLeft(scan, (v) => DecodeError.fromIssueList(FITTING_FORMAT, v))
  })

/** Millimetres as Tapeline's centimetres, with a note when the one decimal loses some. */
const centimetres = (mm: number, path: ReadonlyArray<string>, notes: Array<Note>): number => {
  const cm = round(convertLength(mm, "mm", "cm"), 1)
  if (convertLength(cm, "cm", "mm") !== mm) notes.push(makeNote("converted", path, `${mm} mm written as ${cm} cm`))
  return cm
}

/** A canonical scan as a Tapeline fitting, in centimetres, noting what the fitting cannot hold. */
export const encodeFittingEither = (scan: Scan): Either.Either<Encoded<Fitting>, EncodeError> => {
  if (scan.status !== "success") {
    return Either.left(EncodeError.at(FITTING_FORMAT, ["status"], scan.status, "a fitting holds taken measurements, which a pending or failed scan has not"))
  }
  const notes: Array<Note> = []
  const tape: Record<string, number> = {}
  for (const [name, mm] of Object.entries(scan.measurementsMm)) {
    const spelling = tapelineDialect.measurements[name as MeasurementName]?.name
    if (spelling === undefined) notes.push(makeNote("dropped", ["measurementsMm", name], "Tapeline has no name for it"))
    else tape[spelling] = centimetres(mm, ["measurementsMm", name], notes)
  }
  // A scan of another API keeps its id, prefixed with the API, so it can still be found.
  const ref = scan.source.api === TAPELINE && scan.source.id !== null ? scan.source.id : `${scan.source.api}:${scan.source.id ?? "(no id)"}`
  if (ref !== scan.source.id) notes.push(makeNote("converted", ["source", "id"], `written as the fitting's ref ${JSON.stringify(ref)}`))
  for (const key of ["age", "weightG"] as const) if (scan.subject[key] !== null) notes.push(makeNote("dropped", ["subject", key], "a fitting has no place for it"))
  for (const key of ["expiresAt", "method", "composition", "posture", "avatar", "adjustment"] as const) {
    if (scan[key] !== null) notes.push(makeNote("dropped", [key], "a fitting has no place for it"))
  }
  if (scan.notes.length > 0) notes.push(makeNote("dropped", ["notes"], "a fitting has no place for them"))
  const heightMm = scan.subject.heightMm
  const fitting: Fitting = {
    tapeline: FITTING_VERSION,
    ref,
    takenOn: scan.createdAt,
    unit: "cm",
    customer: {
      ref: scan.externalId,
      sex: scan.subject.gender === null ? null : SEX[scan.subject.gender],
      ...(heightMm === null ? {} : { heightCm: centimetres(heightMm, ["subject", "heightMm"], notes) })
    },
    tape
  }
  return Either.right({ value: fitting, notes })
}
