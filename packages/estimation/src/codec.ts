/**
 * Estimation wire <-> canonical Scan. A read item becomes a pending, successful or failed
 * scan. The units the API does not state are inferred per record (see inference.ts) and the
 * decision is recorded, with its evidence, as an `assumed` note; options state them instead.
 */
import { Either, Option } from "effect"
import {
  Catalogue,
  type DecodeError,
  type DecodeWalk,
  type EncodeError,
  EncodeWalk,
  type Encoded,
  HUMAN_RANGES,
  MeasurementsBuilder,
  type Path,
  Proto3,
  type Scan,
  type ScanInit,
  attempt,
  compileKeyReader,
  convertLength,
  convertMass,
  e4ToPercent,
  isExactE4,
  likelyMistake,
  measurementIndex,
  percentToE4,
  previewValue,
  exactSchemaDecoder,
  walkScan
} from "@scanbridge/model"
import type { Percent, PercentE4 } from "@scanbridge/model"
import {
  BODY_FAT_CANDIDATES,
  type BodyFatScale,
  type Candidate,
  type Inference,
  LENGTH_CANDIDATES,
  type LengthUnit,
  type LengthTarget,
  MUSCLE_CANDIDATES,
  type MuscleMassUnit,
  bodyFatClue,
  infer,
  inferLength,
  lengthTarget,
  muscleClue
} from "./inference.js"
import * as Wire from "./wire.js"

export const FORMATS = {
  readItem: "estimation read item",
  readResponse: "estimation read response"
} as const

/** Units to read with instead of inferring them. Each one given skips its inference. */
export interface UnitOptions {
  readonly lengthUnit?: LengthUnit
  readonly bodyFatScale?: BodyFatScale
  readonly muscleMassUnit?: MuscleMassUnit
}

type ScanInitJson = { -readonly [K in keyof ScanInit]-?: Exclude<ScanInit[K], undefined> }

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

const checkHuman = (w: DecodeWalk, path: () => Path, value: number, unit: string, range: { min: number; max: number }, quantity: "length" | "mass") => {
  if (value < range.min || value > range.max) {
    w.fail(path(), value, `${unit} of a person, ${range.min}-${range.max}${likelyMistake(value, range, quantity)}`)
  }
  return value
}

/** The subject as the create form sent it: height in mm, weight in g (spec 02, step 2). */
const readSubject = (w: DecodeWalk, input: Wire.Input | undefined): ScanInitJson["subject"] => {
  if (input === undefined) return { age: null, gender: null, heightMm: null, weightG: null }
  return {
    age: input.age,
    gender: input.gender,
    heightMm: checkHuman(w, () => ["estimation", "input", "height"], input.height, "millimetres", HUMAN_RANGES.heightMm, "length"),
    weightG: checkHuman(w, () => ["estimation", "input", "weight"], input.weight, "grams", HUMAN_RANGES.weightG, "mass")
  }
}

/** The unit of a quantity: the caller's, or the one the record's evidence allows. */
const decide = <U extends string>(
  w: DecodeWalk,
  path: Path,
  what: string,
  option: keyof UnitOptions,
  given: U | undefined,
  candidates: ReadonlyArray<Candidate<U>>,
  inference: () => Inference<U>
): Candidate<U> => {
  if (given !== undefined) {
    const c = candidates.find((k) => k.unit === given)!
    w.note("assumed", path, `${what} read as ${c.label}: given by the caller (${option})`)
    return c
  }
  const result = inference()
  if (result._tag === "Contradiction") {
    return w.fail(result.clue.path, result.clue.raw, `${what}: ${result.explanation}; state the unit with the ${option} option`)
  }
  if (result._tag === "Undecided") return w.fail(path, result.values, `${what}: ${result.explanation}; state the unit with the ${option} option`)
  const c = candidates.find((k) => k.unit === result.unit)!
  w.note("assumed", path, `${what} read as ${c.label} (the API states no unit): ${result.evidence}`)
  return c
}

const RESULT = ["estimation", "result"]

const MEASUREMENT_PATH = [...RESULT, "measurement"]
const COMPOSITION_PATH = [...RESULT, "body_composition"]
const FAT_PATH = [...COMPOSITION_PATH, "body_fat_percentage"]
const MUSCLE_PATH = [...COMPOSITION_PATH, "skeletal_muscle_mass"]

// Every result.measurement key: its canonical name, band and catalogue position.
const TARGETS: ReadonlyArray<LengthTarget & { readonly index: number }> = [...Wire.MEASUREMENT_KEYS].map(([key, name]) => ({
  ...lengthTarget(key, name),
  index: measurementIndex(name)
}))
const readKnownKeys = compileKeyReader(TARGETS.map((t) => t.key))

const readMeasurements = (w: DecodeWalk, result: Wire.Result, statureMm: number | null, options: UnitOptions) => {
  const path = MEASUREMENT_PATH
  const raws = new Array<number | undefined>(TARGETS.length).fill(undefined)
  const found = readKnownKeys(result.measurement, raws)
  // Any other key is unknown. That is rare, so the keys are searched only when the counts differ.
  if (found !== Object.keys(result.measurement).length) {
    for (const key in result.measurement) {
      if (Wire.MEASUREMENT_KEYS.has(key)) continue
      const guess = Catalogue.suggest(key)
      w.note("dropped", [...path, key], `unknown measurement ${key} = ${result.measurement[key]}${guess?.estimation ? ` (did you mean ${guess.estimation}?)` : ""}`)
    }
  }
  if (found === 0) return {}
  const unit = decide(w, path, "result.measurement", "lengthUnit", options.lengthUnit, LENGTH_CANDIDATES, () =>
    inferLength(TARGETS, raws, statureMm, (key) => [...path, key], () => Object.keys(result.measurement))
  )
  const built = new MeasurementsBuilder()
  for (let i = 0; i < TARGETS.length; i++) {
    const raw = raws[i]
    if (raw !== undefined) built.setAt(TARGETS[i]!.index, unit.unit === "mm" ? raw : convertLength(raw, unit.unit, "mm"))
  }
  return built.build()
}

const readComposition = (w: DecodeWalk, c: Wire.BodyComposition | null | undefined, weightG: number | null, options: UnitOptions) => {
  if (c === null || c === undefined) return null
  const fat = c.body_fat_percentage ?? null
  const muscle = c.skeletal_muscle_mass ?? null
  if (fat === null && muscle === null) return null
  let bodyFatPercent: number | null = null
  if (fat !== null) {
    const fatPath = FAT_PATH
    const scale = decide(w, fatPath, "body_fat_percentage", "bodyFatScale", options.bodyFatScale, BODY_FAT_CANDIDATES, () => infer(BODY_FAT_CANDIDATES, [bodyFatClue(fatPath, fat)]))
    // E4 is a decimal shift: exact, where fat x 1e-4 would add binary error.
    bodyFatPercent = scale.unit === "e4" ? e4ToPercent(fat as PercentE4) : fat
    if (bodyFatPercent > 100) w.fail(fatPath, fat, "a percentage up to 100")
  }
  let skeletalMuscleMassG: number | null = null
  if (muscle !== null) {
    const musclePath = MUSCLE_PATH
    const unit = decide(w, musclePath, "skeletal_muscle_mass", "muscleMassUnit", options.muscleMassUnit, MUSCLE_CANDIDATES, () => infer(MUSCLE_CANDIDATES, [muscleClue(musclePath, muscle, weightG)]))
    skeletalMuscleMassG = convertMass(muscle, unit.unit, "g")
  }
  return { bodyFatPercent, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG }
}

const keySet = (fields: object): ReadonlySet<string> => new Set(Object.keys(fields))
const ITEM_KEYS = keySet(Wire.ReadItem.fields)
const ESTIMATION_KEYS = keySet(Wire.Estimation.fields)
const RESULT_KEYS = keySet(Wire.Result.fields)
const INPUT_KEYS = keySet(Wire.Input.fields)
const COMPOSITION_KEYS = keySet(Wire.BodyComposition.fields)

// The job's own bookkeeping has no place in a canonical scan: one note keeps it.
const noteJob = (w: DecodeWalk, e: Wire.Estimation): void => {
  // One string built in place: this runs for every completed estimation of a migration.
  let parts = ""
  const add = (part: string) => (parts = parts === "" ? part : `${parts}, ${part}`)
  if (e.code !== undefined) add(`code ${e.code}`)
  if (e.version !== undefined) add(`version ${previewValue(e.version)}`)
  if (e.work_id !== undefined) add(`work_id ${previewValue(e.work_id)}`)
  if (e.result?.version !== undefined) add(`result.version ${previewValue(e.result.version)}`)
  if (e.result?.work_id !== undefined) add(`result.work_id ${previewValue(e.result.work_id)}`)
  if (parts !== "") w.note("dropped", ["estimation"], `${parts}: the canonical scan does not record the estimation job`)
}

/** `exact`: the item has no key its schema does not name, so there is nothing to look for. */
const readItem = (w: DecodeWalk, item: Wire.ReadItem, json: unknown, options: UnitOptions, message: string | null, exact: boolean): ScanInit => {
  const raw = json as { estimation?: { result?: unknown } }
  if (!exact) {
    w.noteUnknownKeys([], json, ITEM_KEYS)
    w.noteUnknownKeys(["estimation"], raw.estimation, ESTIMATION_KEYS)
    w.noteUnknownKeys(["estimation", "input"], (raw.estimation as { input?: unknown } | undefined)?.input, INPUT_KEYS)
  }
  const e = item.estimation
  const common = {
    source: { api: "estimation" as const, id: item.estimation_id },
    createdAt: readCreatedAt(w, item.created_at),
    // The estimation API takes a front and a right photo; it has no other method.
    method: "photo" as const,
    subject: readSubject(w, e.input)
  }
  noteJob(w, e)
  if (item.status === "in-progress") {
    if (e.result !== undefined && e.result !== null) w.note("dropped", RESULT, "a result on an estimation still in progress")
    if (e.status !== undefined) w.note("dropped", ["estimation", "status"], `outcome ${e.status} on an estimation still in progress`)
    return { ...common, status: "pending" }
  }
  if (e.status === undefined) return w.fail(["estimation", "status"], undefined, "a completed estimation's outcome: success or fail")
  if (e.status === "fail") {
    if (e.result !== undefined && e.result !== null) w.note("dropped", RESULT, "a result on a failed estimation")
    if (e.code === undefined) w.note("assumed", ["estimation", "code"], "a failed estimation without a code: recorded with code unknown")
    return { ...common, status: "failure", failure: { code: e.code === undefined ? "unknown" : String(e.code), category: "estimation", message } }
  }
  const result = e.result ?? w.fail(RESULT, e.result, "the result of a successful estimation")
  if (result.status !== undefined && result.status !== "success") {
    w.fail([...RESULT, "status"], result.status, `success, as estimation.status says`)
  }
  if (!exact) {
    const rawResult = raw.estimation?.result as { body_composition?: unknown } | undefined
    w.noteUnknownKeys(RESULT, rawResult, RESULT_KEYS)
    w.noteUnknownKeys(COMPOSITION_PATH, rawResult?.body_composition, COMPOSITION_KEYS)
  }
  return {
    source: common.source,
    createdAt: common.createdAt,
    method: common.method,
    subject: common.subject,
    status: "success",
    measurementsMm: readMeasurements(w, result, common.subject.heightMm ?? null, options),
    composition: readComposition(w, result.body_composition, common.subject.weightG ?? null, options)
  }
}

// --- Decode -------------------------------------------------------------------------------

// Wire decoders that also say whether a record holds only the keys the schema names.
const readItemWire = exactSchemaDecoder(Wire.ReadItem, FORMATS.readItem)
const readResponseWire = exactSchemaDecoder(Wire.ReadResponse, FORMATS.readResponse)

/** One `measurements[]` item of a read response as a canonical scan. Never throws. */
export const decodeReadItemEither = (json: unknown, options: UnitOptions = {}): Either.Either<Scan, DecodeError> =>
  Either.flatMap(readItemWire(json), ({ exact, value: item }) => walkScan(FORMATS.readItem, [], (w) => readItem(w, item, json, options, null, exact)))

const RESPONSE_KEYS = keySet(Wire.ReadResponse.fields)

/**
 * A read response: one scan per `measurements[]` item. The first bad item fails the response,
 * naming its index. When the response holds one failed item, its `message` is the failure's.
 */
export const decodeReadResponseEither = (json: unknown, options: UnitOptions = {}): Either.Either<ReadonlyArray<Scan>, DecodeError> =>
  Either.flatMap(readResponseWire(json), ({ exact, value: response }): Either.Either<ReadonlyArray<Scan>, DecodeError> => {
    const raw = json as { measurements: ReadonlyArray<unknown> }
    const scans: Array<Scan> = []
    for (let i = 0; i < response.measurements.length; i++) {
      const only = response.measurements.length === 1 && response.message !== undefined && response.message !== "" ? response.message : null
      const scan = walkScan(FORMATS.readResponse, ["measurements", i], (w) => {
        if (!exact) {
          for (const [key, value] of Object.entries(json as object)) {
            if (!RESPONSE_KEYS.has(key)) w.note("dropped", [key], `unknown key ${key} = ${previewValue(value)} of the read response`)
          }
        }
        if (response.result === false) w.note("dropped", ["result"], "the read response says result false, and nothing more")
        return readItem(w, response.measurements[i]!, raw.measurements[i], options, only, exact)
      })
      if (Either.isLeft(scan)) return Either.left(scan.left)
      scans.push(scan.right)
    }
    return Either.right(scans)
  })

// --- Encode -------------------------------------------------------------------------------

/** The units to write; the API states none. Defaults: mm, percent, g. */
export interface EncodeOptions {
  readonly lengthUnit?: LengthUnit
  readonly bodyFatScale?: BodyFatScale
  readonly muscleMassUnit?: MuscleMassUnit
}

const estimationId = (w: EncodeWalk, scan: Scan): string => {
  const { api, id } = scan.source
  if (api === "estimation") return id ?? w.fail(["source", "id"], id, "an estimation needs its estimation_id")
  const derived = `${api}:${id ?? "unknown"}`
  w.note("converted", ["source", "id"], `estimation_id ${derived} derived from the ${api} source: not an estimation id`)
  return derived
}

const writeInput = (w: EncodeWalk, scan: Scan, required: boolean): Wire.Input | undefined => {
  const { age, gender, heightMm, weightG } = scan.subject
  if (age === null || gender === null || heightMm === null || weightG === null) {
    if (required) return w.fail(["subject"], scan.subject, "estimation.input needs age, gender, height and weight")
    if (age !== null || gender !== null || heightMm !== null || weightG !== null) w.note("dropped", ["subject"], "an incomplete subject: estimation.input holds all four stats or none")
    return undefined
  }
  return { age, gender, height: w.integer(["subject", "heightMm"], heightMm, "mm"), weight: w.integer(["subject", "weightG"], weightG, "g") }
}

const writeResult = (w: EncodeWalk, scan: Scan, options: EncodeOptions): Wire.Result => {
  const unit = options.lengthUnit ?? "mm"
  const measurement: Record<string, number> = {}
  for (const entry of Catalogue.measurements) {
    const mm = scan.measurementsMm[entry.name]
    if (mm === undefined) continue
    const path = ["measurementsMm", entry.name]
    if (entry.estimation === null) w.note("dropped", path, `${mm} mm: the estimation API has no ${entry.name}`)
    else measurement[entry.estimation] = w.integer(path, convertLength(mm, "mm", unit), unit)
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
    body = {
      ...(fat === null ? {} : { body_fat_percentage: w.integer(["composition", "bodyFatPercent"], fat, fatScale === "e4" ? "percent x 10^4" : "%") }),
      ...(c.skeletalMuscleMassG === null
        ? {}
        : { skeletal_muscle_mass: w.integer(["composition", "skeletalMuscleMassG"], convertMass(c.skeletalMuscleMassG, "g", muscleUnit), muscleUnit) })
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
  return attempt<Encoded<Wire.ReadResponseJson>, EncodeError>(() => {
    const id = estimationId(w, scan)
    const dropIf = (present: boolean, path: Path, why: string) => present && w.note("dropped", path, why)
    dropIf(scan.externalId !== null, ["externalId"], `${scan.externalId}: the estimation API has no id of the integrator's`)
    dropIf(scan.expiresAt !== null, ["expiresAt"], `${scan.expiresAt}: estimations do not expire`)
    dropIf(scan.method !== null && scan.method !== "photo", ["method"], `method ${scan.method}: the estimation API runs photo estimations only`)
    dropIf(scan.posture !== null, ["posture"], "the estimation API has no posture")
    dropIf(scan.avatar !== null, ["avatar"], "the estimation API has no avatar")
    dropIf(scan.adjustment !== null, ["adjustment"], "the estimation API has no adjusted scans")
    dropIf(scan.notes.length > 0, ["notes"], `${scan.notes.length} note(s): the read response has no place for notes`)
    const head = { ...(scan.createdAt === null ? {} : { created_at: scan.createdAt }), estimation_id: id }
    let item: Wire.ReadItemJson
    let message = ""
    if (scan.status === "pending") {
      const results = Object.keys(scan.measurementsMm).length > 0 || scan.composition !== null
      dropIf(results, ["measurementsMm"], "results of a pending scan: an estimation in progress has none")
      dropIf(Object.values(scan.subject).some((v) => v !== null), ["subject"], "the subject of a pending scan: an estimation in progress is an empty object")
      item = { ...head, status: "in-progress", estimation: {} }
    } else if (scan.status === "failure") {
      const results = Object.keys(scan.measurementsMm).length > 0 || scan.composition !== null
      dropIf(results, ["measurementsMm"], "results of a failed scan: a failed estimation has none")
      const { code, message: text } = writeCode(w, scan.failure ?? w.fail(["failure"], null, "a failed scan needs its failure"))
      message = text ?? ""
      const input = writeInput(w, scan, false)
      item = { ...head, status: "completed", estimation: { code, ...(input === undefined ? {} : { input }), status: "fail" } }
    } else {
      const input = writeInput(w, scan, true)!
      item = { ...head, status: "completed", estimation: { code: Wire.SUCCESS_CODE, input, result: writeResult(w, scan, options), status: "success" } }
    }
    return { value: { measurements: [item], message: message === "" && scan.status !== "failure" ? "success" : message, result: true }, notes: w.notes }
  })
}
