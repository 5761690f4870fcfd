/**
 * Estimation wire <-> canonical Scan. A read item becomes a pending, successful or failed
 * scan. The units the API does not state are inferred per record (see internal/inference.ts)
 * and the decision is recorded, with its evidence, as an `assumed` note; options state them
 * instead.
 */
import { Either, Option, type SchemaAST } from "effect"
import {
  Catalogue,
  type DecodeError,
  type DecodeOptions,
  type EncodeError,
  type Encoded,
  HUMAN_RANGES,
  LENGTH_UNITS,
  LENGTH_UNIT_LABELS,
  type Path,
  Proto3,
  type Range,
  type Scan,
  type ScanInit,
  convertLength,
  convertMass,
  e4ToPercent,
  isExactE4,
  percentToE4,
  formatPath
} from "@scanbridge/model"
import {
  type DecodeWalk,
  EncodeWalk,
  LENGTH_UNIT_FLAG_AND_OPTION,
  type FullScanInit,
  runWalk,
  likelyUnitMistake,
  emptyMeasurementValues,
  measurementsFrom,
  isShortPlainString,
  previewValue,
  exactSchemaDecoder,
  type UnknownKey,
  unknownKeysOfItem,
  sourceIdFor,
  walkScan
} from "@scanbridge/model/adapter"
import type { Percent, PercentE4 } from "@scanbridge/model"
import { type BodyFatScale, type LengthUnit, type MuscleMassUnit, estimationDialect } from "./dialect.js"
import {
  BODY_FAT_CANDIDATES,
  type Candidate,
  type Clue,
  type Inference,
  LENGTH_CANDIDATES,
  type LengthTarget,
  MUSCLE_CANDIDATES,
  compileLengthSurvey,
  inferBodyFat,
  inferLength,
  inferMuscleMass,
  bodyFatClue,
  lengthClue,
  lengthTarget,
  muscleClue,
  plausibleIn
} from "./internal/inference.js"
import * as Wire from "./wire.js"

export const FORMATS = {
  readItem: "estimation read item",
  readResponse: "estimation read response"
} as const

/**
 * Units to read with instead of inferring them: DecodeOptions' three. Each one given skips its
 * inference; `auto`, like leaving it out, infers. A length unit is given for every length
 * (inches too, which are never inferred) and the lengths are then judged against the body as
 * every format's are (`DecodeWalk.lengthMm`).
 */
export type UnitOptions = DecodeOptions

/** UnitOptions with `auto` left out: what the codec reads with. */
export interface Units {
  readonly lengthUnit?: "mm" | "cm" | "in"
  readonly bodyFatScale?: BodyFatScale
  readonly muscleMassUnit?: MuscleMassUnit
}

const stated = <U extends string>(u: U | "auto" | undefined): U | undefined => (u === "auto" ? undefined : u)

/**
 * The units `given` states, each falling back to the one `defaults` states where `given` leaves
 * it out or says `auto` (an adapter's units under the options of one decode).
 */
export const unitsWith = (defaults: UnitOptions, given: UnitOptions = {}): Units => {
  const lengthUnit = stated(given.lengthUnit) ?? stated(defaults.lengthUnit)
  const bodyFatScale = stated(given.bodyFatScale) ?? stated(defaults.bodyFatScale)
  const muscleMassUnit = stated(given.muscleMassUnit) ?? stated(defaults.muscleMassUnit)
  return {
    ...(lengthUnit === undefined ? {} : { lengthUnit }),
    ...(bodyFatScale === undefined ? {} : { bodyFatScale }),
    ...(muscleMassUnit === undefined ? {} : { muscleMassUnit })
  }
}

// --- Decode: parts ------------------------------------------------------------------------

const ZONELESS = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)$/

/** created_at's format is not shown: RFC 3339, or a date and time without a zone (read as UTC). */
const readCreatedAt = (w: DecodeWalk, value: string | undefined): string | null => {
  if (value === undefined) return null
  if (Proto3.isCanonicalTimestamp(value)) return value
  const path = ["created_at"]
  const rfc = Proto3.parseTimestamp(value)
  if (Option.isSome(rfc)) {
    if (rfc.value.iso !== value) w.note("converted", path, `${value} -> ${rfc.value.iso}`)
    return rfc.value.iso
  }
  const zoneless = ZONELESS.exec(value)
  const utc = zoneless === null ? Option.none() : Proto3.parseTimestamp(`${zoneless[1]}T${zoneless[2]}Z`)
  if (Option.isSome(utc)) {
    w.note("assumed", path, `${value} has no time zone: read as UTC, ${utc.value.iso}`)
    return utc.value.iso
  }
  w.note("dropped", path, `${previewValue(value)} is no date and time Scanbridge can read`)
  return null
}

const isHuman = (value: number, range: Range): boolean => value >= range.min && value <= range.max

const checkHuman = (w: DecodeWalk, path: Path, value: number, unit: string, range: Range, quantity: "length" | "mass") => {
  if (!isHuman(value, range)) {
    w.fail(path, value, `${unit} of a person, ${range.min}-${range.max}${likelyUnitMistake(value, range, quantity)}`)
  }
  return value
}

const HEIGHT_PATH = ["estimation", "input", "height"]
const WEIGHT_PATH = ["estimation", "input", "weight"]

/** The subject as the create form sent it: height in mm, weight in g (spec 02, step 2). */
const readSubject = (w: DecodeWalk, input: Wire.Input | undefined): FullScanInit["subject"] => {
  if (input === undefined) return { age: null, gender: null, heightMm: null, weightG: null }
  return {
    age: input.age,
    gender: input.gender,
    heightMm: checkHuman(w, HEIGHT_PATH, input.height, "millimetres", HUMAN_RANGES.heightMm, "length"),
    weightG: checkHuman(w, WEIGHT_PATH, input.weight, "grams", HUMAN_RANGES.weightG, "mass")
  }
}

/** A path the codec notes at: as it is, for errors, and formatted once, for notes. */
interface Place {
  readonly path: Path
  readonly text: string
}
const place = (path: Path): Place => ({ path, text: formatPath(path) })

/** A quantity whose unit is inferred: its field as notes name it, the option that states it, its candidates. */
interface Quantity<U extends string> {
  readonly what: string
  readonly option: keyof UnitOptions
  /** The flag and option a message names to state the unit: "--length-unit (lengthUnit in the plain and Effect APIs)". */
  readonly wayOut: string
  readonly candidates: ReadonlyArray<Candidate<U>>
  /** "body_fat_percentage read as percent (the API states no unit): ", by candidate: written once. */
  readonly heads: ReadonlyArray<string>
}

const quantity = <U extends string>(what: string, option: keyof UnitOptions, wayOut: string, candidates: ReadonlyArray<Candidate<U>>): Quantity<U> => ({
  what,
  option,
  wayOut,
  candidates,
  heads: candidates.map((c) => `${what} read as ${c.label} (the API states no unit): `)
})

// The way out every message names: the CLI's flag and the plain and Effect APIs' option, as
// LENGTH_UNIT_FLAG_AND_OPTION names the length unit's.
/** @internal */
export const BODY_FAT_SCALE_WAY_OUT = "--body-fat-scale (bodyFatScale in the plain and Effect APIs)"
/** @internal */
export const MUSCLE_MASS_UNIT_WAY_OUT = "--muscle-mass-unit (muscleMassUnit in the plain and Effect APIs)"

const LENGTH = quantity("result.measurement", "lengthUnit", LENGTH_UNIT_FLAG_AND_OPTION, LENGTH_CANDIDATES)
const BODY_FAT = quantity("body_fat_percentage", "bodyFatScale", BODY_FAT_SCALE_WAY_OUT, BODY_FAT_CANDIDATES)
const MUSCLE_MASS = quantity("skeletal_muscle_mass", "muscleMassUnit", MUSCLE_MASS_UNIT_WAY_OUT, MUSCLE_CANDIDATES)

/** The unit of a quantity as the caller gave it, noted. */
const given = <U extends string>(w: DecodeWalk, at: Place, q: Quantity<U>, unit: U): Candidate<U> => {
  const c = q.candidates.find((k) => k.unit === unit)!
  w.note("assumed", at.text, `${q.what} read as ${c.label}: given by the caller (${q.option})`)
  return c
}

/** The unit the record's evidence allows, noted with that evidence, or an error that says why there is none. */
const decided = <U extends string>(w: DecodeWalk, at: Place, q: Quantity<U>, result: Inference<U>): Candidate<U> => {
  if (result._tag === "Contradiction") {
    return w.fail(result.clue.path, result.clue.raw, `${q.what}: ${result.explanation}; state the unit with ${q.wayOut}`)
  }
  if (result._tag === "Undecided") return w.fail(at.path, result.values, `${q.what}: ${result.explanation}; state the unit with ${q.wayOut}`)
  const i = q.candidates.findIndex((k) => k.unit === result.unit)
  w.note("assumed", at.text, q.heads[i] + result.evidence)
  return q.candidates[i]!
}

const RESULT = ["estimation", "result"]

const MEASUREMENT = place([...RESULT, "measurement"])
const COMPOSITION_PATH = [...RESULT, "body_composition"]
const FAT = place([...COMPOSITION_PATH, "body_fat_percentage"])
const MUSCLE = place([...COMPOSITION_PATH, "skeletal_muscle_mass"])

// Every result.measurement key: its canonical name, band and catalogue position.
const TARGETS: ReadonlyArray<LengthTarget> = [...Wire.MEASUREMENT_KEYS].map(([key, name]) => lengthTarget(key, name))
const surveyLengths = compileLengthSurvey(TARGETS)
// Each catalogue position a key fills, once: a record's other spelling stands at its key's.
const TARGET_INDICES: ReadonlyArray<number> = TARGETS.map((t) => t.index)

/** Each length read replaced, in place, by `toMm` of it: a plain loop, no iterator or destructuring per key. */
const convertLengths = (values: Array<number | undefined>, toMm: (raw: number) => number): void => {
  for (let i = 0; i < TARGET_INDICES.length; i++) {
    const at = TARGET_INDICES[i]!
    const raw = values[at]
    if (raw !== undefined) values[at] = toMm(raw)
  }
}
// And the other spellings records are known to hold (`knee_height`), weighed like any length: a
// survey of their own, for the rare record that has one.
const WITH_OTHER_SPELLINGS: ReadonlyArray<LengthTarget> = [...TARGETS, ...estimationDialect.aliasList.map((a) => lengthTarget(a.alias, a.name))]
const surveyWithOtherSpellings = compileLengthSurvey(WITH_OTHER_SPELLINGS)

/**
 * The keys of `m` that are not the API's: another spelling of one of its keys is read as that key
 * with an `aliased` note (unless the record has the key too: then it is dropped, the key kept);
 * any other key is dropped with a did-you-mean. Returns the lengths to read, in the record's
 * order, when some other spelling is among them.
 */
const readOtherKeys = (w: DecodeWalk, m: Readonly<Record<string, number>>): Record<string, number> | undefined => {
  let renamed = false
  for (const key in m) {
    if (Wire.MEASUREMENT_KEYS.has(key)) continue
    const alias = estimationDialect.measurementByAlias(key)
    const path = [...MEASUREMENT.path, key]
    if (alias === undefined) {
      // Past the notes' limit the note is only counted: no guess to make for it.
      const guess = w.keepsNextNote ? estimationDialect.suggest(key) : undefined
      w.note("dropped", path, `unknown measurement ${key} = ${m[key]}${guess ? ` (did you mean ${guess.name}?)` : ""}`)
    } else if (Object.hasOwn(m, alias.spelling.name)) {
      w.note("dropped", path, `${key} = ${m[key]}, another spelling of ${alias.spelling.name}: the record has ${alias.spelling.name} too, which is kept`)
    } else {
      w.aliased(path, key, alias.spelling.name)
      renamed = true
    }
  }
  if (!renamed) return undefined
  const read: Record<string, number> = {}
  for (const key in m) {
    const alias = Wire.MEASUREMENT_KEYS.has(key) ? undefined : estimationDialect.measurementByAlias(key)
    if (Wire.MEASUREMENT_KEYS.has(key) || (alias !== undefined && !Object.hasOwn(m, alias.spelling.name))) read[key] = m[key]!
  }
  return read
}

const readMeasurements = (w: DecodeWalk, result: Wire.Result, statureMm: number | null, exact: boolean) => {
  const m = result.measurement
  const values = emptyMeasurementValues()
  const low = statureMm ?? HUMAN_RANGES.heightMm.min
  const high = statureMm ?? HUMAN_RANGES.heightMm.max
  let survey = surveyLengths(m, low, high, values)
  let targets = TARGETS
  let record: object = m
  // Any other key is unknown or another spelling. That is rare, so the keys are searched only when the counts differ.
  if (!exact && survey.count !== Object.keys(m).length) {
    const read = readOtherKeys(w, m)
    if (read !== undefined) {
      targets = WITH_OTHER_SPELLINGS
      record = read
      survey = surveyWithOtherSpellings(read, low, high, values)
    }
  }
  if (survey.count === 0) return {}
  const givenUnit = w.givenLengthUnit
  if (givenUnit !== undefined) {
    // The caller's unit, inches too: read through the walk, which judges the lengths against the
    // body as every format's, and refuses them, with that evidence, where they are plausible only
    // in another unit.
    w.note("assumed", MEASUREMENT.text, `${LENGTH.what} read as ${LENGTH_UNIT_LABELS[givenUnit]}: given by the caller (lengthUnit)`)
    convertLengths(values, (raw) => w.lengthMm(raw, givenUnit, MEASUREMENT.path))
    return measurementsFrom(values, survey.set)
  }
  const unit = decided(w, MEASUREMENT, LENGTH, inferLength(targets, values, survey, statureMm, MEASUREMENT.path, record))
  // Millimetres are the base unit: toBase is convertLength to mm without its lookups per value.
  if (unit.unit !== "mm") convertLengths(values, LENGTH_UNITS[unit.unit].toBase)
  return measurementsFrom(values, survey.set)
}

const readComposition = (w: DecodeWalk, c: Wire.BodyComposition | null | undefined, weightG: number | null, options: Units) => {
  if (c === null || c === undefined) return null
  const fat = c.body_fat_percentage ?? null
  const muscle = c.skeletal_muscle_mass ?? null
  if (fat === null && muscle === null) return null
  let bodyFatPercent: number | null = null
  if (fat !== null) {
    const scale = options.bodyFatScale !== undefined ? given(w, FAT, BODY_FAT, options.bodyFatScale) : decided(w, FAT, BODY_FAT, inferBodyFat(FAT.path, fat))
    // E4 is a decimal shift: exact, where fat x 1e-4 would add binary error.
    bodyFatPercent = scale.unit === "e4" ? e4ToPercent(fat as PercentE4) : fat
    if (bodyFatPercent > 100) w.fail(FAT.path, fat, `a percentage up to 100; if the values are percent x 10^4, state the scale with ${BODY_FAT.wayOut}`)
  }
  let skeletalMuscleMassG: number | null = null
  if (muscle !== null) {
    const unit =
      options.muscleMassUnit !== undefined
        ? given(w, MUSCLE, MUSCLE_MASS, options.muscleMassUnit)
        : decided(w, MUSCLE, MUSCLE_MASS, inferMuscleMass(MUSCLE.path, muscle, weightG))
    skeletalMuscleMassG = convertMass(muscle, unit.unit, "g")
  }
  return { bodyFatPercent, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG }
}

// "a, b": one list built in place, without a closure.
const listed = (parts: string, name: string, value: unknown): string =>
  value === undefined ? parts : parts === "" ? `${name} ${previewValue(value)}` : `${parts}, ${name} ${previewValue(value)}`

const JOB_DROPPED = ": the canonical scan does not record the estimation job"

// The job's own bookkeeping has no place in a canonical scan: one note keeps it.
const noteJob = (w: DecodeWalk, e: Wire.Estimation): void => {
  const result = e.result
  const { code, version, work_id } = e
  // A completed job as the API writes it: all five, each string one previewValue quotes as it is.
  // One template gives the text the general case below would (a property test holds them).
  if (
    code !== undefined &&
    result !== undefined &&
    result !== null &&
    isShortPlainString(version) &&
    isShortPlainString(work_id) &&
    isShortPlainString(result.version) &&
    isShortPlainString(result.work_id)
  ) {
    const text = `code ${code}, version "${version}", work_id "${work_id}", result.version "${result.version}", result.work_id "${result.work_id}"`
    return w.note("dropped", "estimation", text + JOB_DROPPED)
  }
  let parts = code === undefined ? "" : `code ${code}`
  parts = listed(parts, "version", version)
  parts = listed(parts, "work_id", work_id)
  if (result !== undefined && result !== null) {
    parts = listed(parts, "result.version", result.version)
    parts = listed(parts, "result.work_id", result.work_id)
  }
  if (parts !== "") w.note("dropped", "estimation", parts + JOB_DROPPED)
}

/**
 * `exact`: the item has no key its schema does not name, and its result.measurement no key the
 * catalogue does not name, so there is nothing to look for.
 */
const readItem = (
  w: DecodeWalk,
  item: Wire.ReadItem,
  unknownKeys: ReadonlyArray<UnknownKey>,
  options: Units,
  message: string | null,
  exact: boolean
): ScanInit => {
  w.noteUnknownKeys([], unknownKeys)
  const e = item.estimation
  // Locals, not an object copied into each outcome's literal. The estimation API takes a front
  // and a right photo; it has no other method.
  const source = { api: "estimation" as const, id: item.estimation_id }
  const createdAt = readCreatedAt(w, item.created_at)
  const method = "photo" as const
  const subject = readSubject(w, e.input)
  noteJob(w, e)
  if (item.status === "in-progress") {
    if (e.result !== undefined && e.result !== null) w.note("dropped", RESULT, "a result on an estimation still in progress")
    if (e.status !== undefined) w.note("dropped", ["estimation", "status"], `outcome ${e.status} on an estimation still in progress`)
    return { source, createdAt, method, subject, status: "pending" }
  }
  if (e.status === undefined) return w.fail(["estimation", "status"], undefined, "a completed estimation's outcome: success or fail")
  if (e.status === "fail") {
    if (e.result !== undefined && e.result !== null) w.note("dropped", RESULT, "a result on a failed estimation")
    if (e.code === undefined) w.note("assumed", ["estimation", "code"], "a failed estimation without a code: recorded with code unknown")
    const failure = { code: e.code === undefined ? "unknown" : String(e.code), category: "estimation" as const, message }
    return { source, createdAt, method, subject, status: "failure", failure }
  }
  const result = e.result ?? w.fail(RESULT, e.result, "the result of a successful estimation")
  if (result.status !== undefined && result.status !== "success") {
    w.fail([...RESULT, "status"], result.status, `success, as estimation.status says`)
  }
  return {
    source,
    createdAt,
    method,
    subject,
    status: "success",
    measurementsMm: readMeasurements(w, result, subject.heightMm ?? null, exact),
    composition: readComposition(w, result.body_composition, subject.weightG ?? null, options)
  }
}

// --- Decode -------------------------------------------------------------------------------

// Wire decoders that also say whether a record holds only the keys the schema names.
// Exact also means a result.measurement of catalogue keys only, so its keys need no count.
const knownMeasurement = { narrow: (ast: SchemaAST.AST) => (ast === Wire.Measurement.ast ? Wire.KnownMeasurement.ast : undefined) }
const readItemWire = exactSchemaDecoder(Wire.ReadItem, FORMATS.readItem, knownMeasurement)
const readResponseWire = exactSchemaDecoder(Wire.ReadResponse, FORMATS.readResponse, knownMeasurement)

const NO_UNITS: Units = {}

// `auto` is no unit: left out, so that the walk and the reads below see only units stated.
const unitsOf = (options: UnitOptions | undefined): Units =>
  options === undefined || options === NO_UNITS
    ? NO_UNITS
    : options.lengthUnit === "auto" || options.bodyFatScale === "auto" || options.muscleMassUnit === "auto"
      ? unitsWith({}, options)
      : (options as Units)

/** One `measurements[]` item of a read response as a canonical scan. Never throws. */
export const decodeReadItemEither = (json: unknown, options?: UnitOptions): Either.Either<Scan, DecodeError> => {
  const wire = readItemWire(json)
  if (Either.isLeft(wire)) return Either.left(wire.left)
  const { exact, unknownKeys, value: item } = wire.right
  const units = unitsOf(options)
  return walkScan(FORMATS.readItem, [], (w) => readItem(w, item, unknownKeys, units, null, exact), undefined, units)
}

/**
 * A read response: one scan per `measurements[]` item. The first bad item fails the response,
 * naming its index. When the response holds one failed item, its `message` is the failure's.
 */
export const decodeReadResponseEither = (json: unknown, options?: UnitOptions): Either.Either<ReadonlyArray<Scan>, DecodeError> => {
  // Not Either.flatMap: its dual dispatch reads `arguments`, once per record of a migration.
  const wire = readResponseWire(json)
  if (Either.isLeft(wire)) return Either.left(wire.left)
  const { exact, unknownKeys, value: response } = wire.right
  const units = unitsOf(options)
  const scans: Array<Scan> = []
  for (let i = 0; i < response.measurements.length; i++) {
    const only = response.measurements.length === 1 && response.message !== undefined && response.message !== "" ? response.message : null
    const scan = walkScan(
      FORMATS.readResponse,
      ["measurements", i],
      (w) => {
        if (response.result === false) w.note("dropped", ["result"], "the read response says result false, and nothing more")
        // Each item's scan notes the item's own unknown keys and the response's.
        return readItem(w, response.measurements[i]!, unknownKeysOfItem(unknownKeys, "measurements", i), units, only, exact)
      },
      undefined,
      units
    )
    if (Either.isLeft(scan)) return Either.left(scan.left)
    scans.push(scan.right)
  }
  return Either.right(scans)
}

// --- Encode -------------------------------------------------------------------------------

/** The units to write; the API states none. Defaults: mm, percent, g. */
export interface EncodeOptions {
  readonly lengthUnit?: LengthUnit
  readonly bodyFatScale?: BodyFatScale
  readonly muscleMassUnit?: MuscleMassUnit
}

const ESTIMATION_ID = { api: "estimation", field: "estimation_id", notA: "an estimation id", required: "an estimation needs its estimation_id" } as const

// "Wrong data is worse than missing data": what the reader would refuse, or read in another unit
// than it was written in, is refused here, so that every response written reads back.
const READS_BACK = "the estimation reader refuses it, and so would refuse the response"

/** A stat as the create form takes it (spec 03's limits, which the reader holds it to too). */
const writeHuman = (w: EncodeWalk, path: Path, value: number, unit: string, range: Range): number => {
  const n = w.integer(path, value, unit)
  return isHuman(n, range) ? n : w.fail(path, value, `${n} ${unit} is outside a person's ${range.min}-${range.max} ${unit}: ${READS_BACK}`)
}

const writeInput = (w: EncodeWalk, scan: Scan, required: boolean): Wire.Input | undefined => {
  const { age, gender, heightMm, weightG } = scan.subject
  if (age === null || gender === null || heightMm === null || weightG === null) {
    if (required) return w.fail(["subject"], scan.subject, "estimation.input needs age, gender, height and weight")
    if (age !== null || gender !== null || heightMm !== null || weightG !== null)
      w.note("dropped", ["subject"], "an incomplete subject: estimation.input holds all four stats or none")
    return undefined
  }
  return {
    age,
    gender,
    height: writeHuman(w, ["subject", "heightMm"], heightMm, "mm", HUMAN_RANGES.heightMm),
    weight: writeHuman(w, ["subject", "weightG"], weightG, "g", HUMAN_RANGES.weightG)
  }
}

/**
 * A value whose unit the reader infers (the API states none), written in `unit`: refused where
 * it is not plausible in that unit, as the reader would refuse the record or read it otherwise.
 */
const inferable = <U extends string>(w: EncodeWalk, path: Path, value: number, candidates: ReadonlyArray<Candidate<U>>, unit: U, clue: Clue): number => {
  if (plausibleIn(candidates, unit, clue)) return clue.raw
  return w.fail(path, value, `${clue.label} ${clue.raw} ${unit} is not plausible (${clue.plausible}), and the API states no unit: ${READS_BACK}`)
}

const writeResult = (w: EncodeWalk, scan: Scan, input: Wire.Input, options: EncodeOptions): Wire.Result => {
  const unit = options.lengthUnit ?? "mm"
  const measurement: Record<string, number> = {}
  for (const { name } of Catalogue.measurements) {
    const mm = scan.measurementsMm[name]
    if (mm === undefined) continue
    const path = ["measurementsMm", name]
    const key = estimationDialect.measurements[name]
    if (key === null) w.note("dropped", path, `${mm} mm: the estimation API has no ${name}`)
    else {
      const raw = w.integer(path, convertLength(mm, "mm", unit), unit)
      measurement[key.name] = inferable(w, path, mm, LENGTH_CANDIDATES, unit, lengthClue(MEASUREMENT.path, key.name, name, raw, input.height))
    }
  }
  const c = scan.composition
  let body: Wire.BodyComposition | undefined
  if (c !== null) {
    if (c.bodyFatMassG !== null) w.note("dropped", ["composition", "bodyFatMassG"], `${c.bodyFatMassG} g: the estimation API has no body fat mass`)
    if (c.leanMassG !== null) w.note("dropped", ["composition", "leanMassG"], `${c.leanMassG} g: the estimation API has no lean mass`)
    const fatScale = options.bodyFatScale ?? "percent"
    const muscleUnit = options.muscleMassUnit ?? "g"
    const fat = c.bodyFatPercent === null ? null : fatScale === "e4" ? percentToE4(c.bodyFatPercent as Percent) : c.bodyFatPercent
    if (fatScale === "e4" && c.bodyFatPercent !== null && !isExactE4(c.bodyFatPercent as Percent)) {
      w.note("converted", ["composition", "bodyFatPercent"], `${c.bodyFatPercent} % rounded to ${fat} percent x 10^4: the estimation API writes integers`)
    }
    const fatPath = ["composition", "bodyFatPercent"]
    const musclePath = ["composition", "skeletalMuscleMassG"]
    body = {
      ...(fat === null
        ? {}
        : {
            body_fat_percentage: inferable(
              w,
              fatPath,
              c.bodyFatPercent!,
              BODY_FAT_CANDIDATES,
              fatScale,
              bodyFatClue(FAT.path, w.integer(fatPath, fat, fatScale === "e4" ? "percent x 10^4" : "%"))
            )
          }),
      ...(c.skeletalMuscleMassG === null
        ? {}
        : {
            skeletal_muscle_mass: inferable(
              w,
              musclePath,
              c.skeletalMuscleMassG,
              MUSCLE_CANDIDATES,
              muscleUnit,
              muscleClue(MUSCLE.path, w.integer(musclePath, convertMass(c.skeletalMuscleMassG, "g", muscleUnit), muscleUnit), input.weight)
            )
          })
    }
  }
  return { ...(body === undefined ? {} : { body_composition: body }), measurement, status: "success" }
}

/** A failure code as the API's integer; another API's code is kept in the response message. */
const writeCode = (w: EncodeWalk, f: NonNullable<Scan["failure"]>): { readonly code: number; readonly message: string | null } => {
  // Only a code whose digits survive the round trip through a number is written as one.
  if (/^(0|[1-9]\d{0,14})$/.test(f.code)) return { code: Number(f.code), message: f.message }
  w.note("converted", ["failure", "code"], `code ${f.code} has no estimation code number: written as 0, the code kept in the message`)
  return { code: 0, message: f.message === null ? f.code : `${f.code}: ${f.message}` }
}

/**
 * The read response a legacy consumer expects, holding one item for the scan. Lengths are
 * written in millimetres, body fat in percent and muscle mass in grams unless options say
 * otherwise, as integers. Fails where the item cannot say it: a success without the four stats.
 */
export const encodeReadResponseEither = (scan: Scan, options: EncodeOptions = {}): Either.Either<Encoded<Wire.ReadResponseJson>, EncodeError> => {
  const w = new EncodeWalk(FORMATS.readResponse)
  return runWalk<Encoded<Wire.ReadResponseJson>, EncodeError>(() => {
    const id = sourceIdFor(w, scan, ESTIMATION_ID)
    w.dropIf(scan.externalId !== null, ["externalId"], `${scan.externalId}: the estimation API has no id of the integrator's`)
    w.dropIf(scan.expiresAt !== null, ["expiresAt"], `${scan.expiresAt}: estimations do not expire`)
    w.dropIf(scan.method !== null && scan.method !== "photo", ["method"], `method ${scan.method}: the estimation API runs photo estimations only`)
    w.dropIf(scan.posture !== null, ["posture"], "the estimation API has no posture")
    w.dropIf(scan.avatar !== null, ["avatar"], "the estimation API has no avatar")
    w.dropIf(scan.adjustment !== null, ["adjustment"], "the estimation API has no adjusted scans")
    w.dropIf(scan.notes.length > 0, ["notes"], `${scan.notes.length} note(s): the read response has no place for notes`)
    const head = { ...(scan.createdAt === null ? {} : { created_at: scan.createdAt }), estimation_id: id }
    let item: Wire.ReadItemJson
    let message = ""
    if (scan.status === "pending") {
      w.dropIf(Object.keys(scan.measurementsMm).length > 0, ["measurementsMm"], "results of a pending scan: an estimation in progress has none")
      w.dropIf(scan.composition !== null, ["composition"], "results of a pending scan: an estimation in progress has none")
      w.dropIf(
        Object.values(scan.subject).some((v) => v !== null),
        ["subject"],
        "the subject of a pending scan: an estimation in progress is an empty object"
      )
      item = { ...head, status: "in-progress", estimation: {} }
    } else if (scan.status === "failure") {
      w.dropIf(Object.keys(scan.measurementsMm).length > 0, ["measurementsMm"], "results of a failed scan: a failed estimation has none")
      w.dropIf(scan.composition !== null, ["composition"], "results of a failed scan: a failed estimation has none")
      const failure = scan.failure ?? w.fail(["failure"], null, "a failed scan needs its failure")
      if (failure.category !== "estimation")
        w.note("dropped", ["failure", "category"], `category ${failure.category}: every failed estimation reads back as an estimation failure`)
      const { code, message: text } = writeCode(w, failure)
      // The response's message is the failure's, and an empty one is read as no message.
      if (text === "") w.note("converted", ["failure", "message"], "an empty failure message: the read response's empty message reads back as none")
      message = text ?? ""
      const input = writeInput(w, scan, false)
      item = { ...head, status: "completed", estimation: { code, ...(input === undefined ? {} : { input }), status: "fail" } }
    } else {
      const input = writeInput(w, scan, true)!
      item = { ...head, status: "completed", estimation: { code: Wire.SUCCESS_CODE, input, result: writeResult(w, scan, input, options), status: "success" } }
    }
    return { value: { measurements: [item], message: message === "" && scan.status !== "failure" ? "success" : message, result: true }, notes: w.notes }
  })
}
