/**
 * Platform wire <-> canonical Scan. Decoding reads both entry variants (REST and client
 * library) and list summaries; encoding writes the entry a migrated record becomes, with a note
 * for everything the platform cannot hold.
 */
import { Either } from "effect"
import {
  Catalogue,
  type DecodeError,
  type EncodeError,
  type Encoded,
  type FailureCategory,
  type MeasurementName,
  type Method,
  type Path,
  type Scan,
  type ScanInit,
  type DecodeOptions,
  LENGTH_UNITS_ACCEPTED,
  type LengthUnit,
  isRecord,
  convertMass,
  lengthUnitOf
} from "@scanbridge/model"
import {
  type DecodeWalk,
  EncodeWalk,
  MeasurementsBuilder,
  measurementIndex,
  type FullScanInit,
  isBase64,
  utcTimestampOfMillis,
  runWalk,
  walkScan,
  previewValue,
  type ExactRead,
  type UnknownKey,
  exactSchemaDecoder,
  hasOnlyKey,
  unknownKeysOf,
  unknownKeysOfItem,
  postureNames,
  type FrontView,
  type RightView,
  emptyFrontView,
  emptyRightView,
  sourceIdFor,
  writePosture as postureIn
} from "@scanbridge/model/adapter"
import { PLATFORM_POSTURE, platformDialect } from "./dialect.js"
import * as Wire from "./wire.js"

export const FORMATS = {
  entry: "platform entry",
  clientLibraryEntry: "platform client-library entry",
  summary: "platform list summary",
  listPage: "platform list page"
} as const

type Out<K extends keyof Wire.EntryJson> = Exclude<Wire.EntryJson[K], undefined>

// --- Decode: the parts shared by entries and summaries -------------------------------------

const NO_OPTIONS: DecodeOptions = {}

const methodOf = (input: Wire.EntryInput): Method => (input.statsEstimations ? "stats" : input.photoScan ? "photo" : "adjusted")

const readInput = (r: DecodeWalk, input: Wire.EntryInput, outputWeight: number | null): Pick<FullScanInit, "method" | "subject" | "adjustment"> => {
  const stats = (input.statsEstimations ?? input.photoScan ?? input.adjustedScan)!
  const subject = { age: stats.age, gender: stats.gender, heightMm: stats.height, weightG: stats.weight }
  if (input.photoScan && (input.photoScan.frontPhoto !== null || input.photoScan.rightPhoto !== null)) {
    r.note("dropped", ["input", "photoScan"], "frontPhoto and rightPhoto: the canonical scan keeps results, not the submitted photos")
  }
  const adjusted = input.adjustedScan
  if (adjusted === undefined) return { method: methodOf(input), subject, adjustment: null }
  const parameters: Array<{ name: "weight" | MeasurementName; percentage: number }> = []
  adjusted.parameters.forEach((p, i) => {
    if (Wire.isAdjustable(p.name)) parameters.push({ name: p.name, percentage: p.percentage })
    else r.note("dropped", ["input", "adjustedScan", "parameters", i], `parameter ${previewValue(p.name)} (${p.percentage} %) names no measurement`)
  })
  return {
    method: "adjusted",
    subject,
    adjustment: {
      baseScanId: adjusted.baseScanId,
      baseScanType: adjusted.baseScanType ?? null,
      parameters,
      outputWeightG: outputWeight
    }
  }
}

// --- Decode: entries ---------------------------------------------------------------------

// Each of the platform's measurement names, and each other spelling of one that its records are
// known to hold (`kneeHeight`), with its catalogue position: one lookup per item.
type Known = { readonly name: MeasurementName; readonly index: number; readonly alias: boolean }
const MEASUREMENT_BY_SPELLING = new Map<string, Known>([
  ...platformDialect.aliasList.map(({ alias, name }) => [alias, { name, index: measurementIndex(name), alias: true }] as const),
  ...platformDialect.measurementList.map(({ name, spelling }) => [spelling.name, { name, index: measurementIndex(name), alias: false }] as const)
])

// The name the last record had at each position, and what it is: an export lists its records'
// measurements in one order, and comparing two strings costs less than hashing the new one that
// JSON.parse just made (Map.get was most of reading the measurements).
const MAX_REMEMBERED = 64
const namesAt: Array<string | undefined> = []
const knownAt: Array<Known> = []
const measurementAt = (i: number, name: string): Known | undefined => {
  if (namesAt[i] === name) return knownAt[i]
  const known = MEASUREMENT_BY_SPELLING.get(name)
  if (known !== undefined && i < MAX_REMEMBERED) {
    namesAt[i] = name
    knownAt[i] = known
  }
  return known
}

// Where the walk keeps the record's lengths, for its judgement and its one note: one array for
// every item, not one per item.
const MEASUREMENTS_AT: Path = ["measurements"]

const readMeasurements = (r: DecodeWalk, items: ReadonlyArray<Wire.MeasurementItem> | null) => {
  // No builder (an array of every measurement's place) for an entry without measurements.
  if (items === null) return {}
  const built = new MeasurementsBuilder()
  // The unit spelling last read and its unit: a record states one spelling on every item.
  let spelled: string = Wire.UNITS.length
  let unit: LengthUnit = "mm"
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    const entry = measurementAt(i, item.name)
    if (entry === undefined) {
      const guess = platformDialect.suggest(item.name)
      r.note(
        "dropped",
        ["measurements", i],
        `unknown measurement ${previewValue(item.name)} = ${item.value} ${item.unit}${guess ? ` (did you mean ${guess.name}?)` : ""}`
      )
      continue
    }
    if (built.hasAt(entry.index)) {
      const as = entry.alias ? `${item.name} ` : ""
      r.note("dropped", ["measurements", i], `second ${entry.name} (${as}${item.value} ${item.unit}); the first one is kept`)
      continue
    }
    if (item.unit !== spelled) {
      const read = lengthUnitOf(item.unit)
      if (read === undefined) r.fail(["measurements", i, "unit"], item.unit, `a length unit: ${LENGTH_UNITS_ACCEPTED}`)
      spelled = item.unit
      unit = read
    }
    if (entry.alias) r.aliased(["measurements", i], item.name, entry.name)
    // A record may state several units: the walk converts each length from its own, noting each unit once.
    built.setAt(entry.index, r.lengthMm(item.value, unit, MEASUREMENTS_AT))
  }
  return built.build()
}

const readAvatar = (r: DecodeWalk, avatar: Wire.Avatar | null | undefined): FullScanInit["avatar"] => {
  if (avatar === null || avatar === undefined) return null
  if (avatar.format !== "obj" && avatar.format !== "glb") {
    r.note("dropped", ["avatar"], `avatar of format ${previewValue(avatar.format)}: the canonical avatar is obj, glb or vertices`)
    return null
  }
  if (!isBase64(avatar.data)) r.fail(["avatar", "data"], avatar.data, "base64 (RFC 4648, padded)")
  return { format: avatar.format, type: avatar.type ?? null, data: avatar.data, vertices: null }
}

const grams = (r: DecodeWalk, path: Path, v: { unit: string; value: number }): number => {
  if (v.unit === Wire.UNITS.mass) return v.value
  if (v.unit === "kg") {
    const g = convertMass(v.value, "kg", "g")
    r.note("converted", path, `${v.value} kg -> ${g} g`)
    return g
  }
  return r.fail([...path, "unit"], v.unit, `a mass unit (${Wire.UNITS.mass})`)
}

const readComposition = (r: DecodeWalk, c: Wire.BodyComposition | null | undefined): FullScanInit["composition"] => {
  if (c === null || c === undefined) return null
  const fat = c.bodyFatPercentage ?? null
  if (fat !== null && fat.unit !== Wire.UNITS.percent) r.fail(["bodyComposition", "bodyFatPercentage", "unit"], fat.unit, `the unit ${Wire.UNITS.percent}`)
  if (fat !== null && fat.value > 100) r.fail(["bodyComposition", "bodyFatPercentage", "value"], fat.value, "a percentage between 0 and 100")
  return {
    bodyFatPercent: fat?.value ?? null,
    bodyFatMassG: c.bodyFatMass ? grams(r, ["bodyComposition", "bodyFatMass"], c.bodyFatMass) : null,
    leanMassG: c.leanMass ? grams(r, ["bodyComposition", "leanMass"], c.leanMass) : null,
    skeletalMuscleMassG: null
  }
}

// A skeletal muscle mass is 10-60 kg. Spec 03 gives no unit for the client library's bare
// number, so the magnitude decides, and a value plausible in neither unit is an error.
const MUSCLE_KG = { min: 5, max: 100 } as const
const MUSCLE_G = { min: 5_000, max: 100_000 } as const

const readClientComposition = (r: DecodeWalk, c: Wire.ClientLibraryBodyComposition | null | undefined): FullScanInit["composition"] => {
  if (c === null || c === undefined) return null
  if (c.bodyFatPercentage !== null && c.bodyFatPercentage > 100)
    r.fail(["bodyComposition", "bodyFatPercentage"], c.bodyFatPercentage, "a percentage between 0 and 100")
  let muscleG: number | null = null
  const muscle = c.skeletalMuscleMass
  const path = ["bodyComposition", "skeletalMuscleMass"]
  if (muscle !== null) {
    if (muscle >= MUSCLE_KG.min && muscle <= MUSCLE_KG.max) {
      muscleG = convertMass(muscle, "kg", "g")
      r.note("assumed", path, `${muscle} read as kilograms (${muscleG} g): the client library states no unit, and ${muscle} g is no human's muscle mass`)
    } else if (muscle >= MUSCLE_G.min && muscle <= MUSCLE_G.max) {
      muscleG = muscle
      r.note("assumed", path, `${muscle} read as grams: the client library states no unit, and ${muscle} kg is no human's muscle mass`)
    } else {
      r.fail(path, muscle, `a skeletal muscle mass in kg (${MUSCLE_KG.min}-${MUSCLE_KG.max}) or g (${MUSCLE_G.min}-${MUSCLE_G.max})`)
    }
  }
  return { bodyFatPercent: c.bodyFatPercentage, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: muscleG }
}

// Each point rebuilt from its two coordinates: a key beside them (noted with the others) is
// never copied into the canonical scan, whose strict decoder would refuse it.
const readPoints = (points: ReadonlyArray<typeof Wire.Point.Type>) => points.map((point) => ({ x: point.x, y: point.y }))

const POSTURE = postureNames(PLATFORM_POSTURE)

const readPosture = (r: DecodeWalk, p: Wire.Posture | null | undefined): FullScanInit["posture"] => {
  if (p === null || p === undefined) return null
  let singular = 0
  // Loops, with paths built only for a note or an error: no closure per angle or line.
  const angleUnit = (view: "front" | "right", i: number, unit: string) => {
    if (!Wire.isDegrees(unit)) r.fail(["posture", view, "angles", i, "unit"], unit, `an angle unit (${Wire.UNITS.angle})`)
    if (unit !== Wire.UNITS.angle) singular++
  }
  const front = p.front ?? null
  const right = p.right ?? null
  let frontOut: FrontView | null = null
  if (front !== null) {
    frontOut = emptyFrontView()
    const { angles, lines } = frontOut
    for (let i = 0; i < front.angles.length; i++) {
      const a = front.angles[i]!
      const name = POSTURE.front(a.name)
      if (name === undefined) {
        r.note("dropped", ["posture", "front", "angles", i], `unknown front angle ${previewValue(a.name)} = ${a.value}`)
        continue
      }
      angleUnit("front", i, a.unit)
      angles[name] = a.value
    }
    for (let i = 0; i < front.lines.length; i++) {
      const l = front.lines[i]!
      const name = POSTURE.front(l.name)
      if (name === undefined) {
        r.note("dropped", ["posture", "front", "lines", i], `unknown front line ${previewValue(l.name)}`)
        continue
      }
      if (l.points.length !== 2) r.fail(["posture", "front", "lines", i, "points"], l.points, "exactly 2 points")
      lines[name] = readPoints(l.points)
    }
  }
  let rightOut: RightView | null = null
  if (right !== null) {
    rightOut = emptyRightView()
    const { angles, lines } = rightOut
    for (let i = 0; i < right.angles.length; i++) {
      const a = right.angles[i]!
      const name = POSTURE.right(a.name)
      if (name === undefined) {
        r.note("dropped", ["posture", "right", "angles", i], `unknown right angle ${previewValue(a.name)}`)
        continue
      }
      const points = Catalogue.rightPosturePoints(name)!
      angleUnit("right", i, a.unit)
      if (a.angles.length !== points - 1) r.fail(["posture", "right", "angles", i, "angles"], a.angles, `${points - 1} segment angles for ${a.name}`)
      angles[name] = a.angles
    }
    for (let i = 0; i < right.lines.length; i++) {
      const l = right.lines[i]!
      const name = POSTURE.right(l.name)
      if (name === undefined) {
        r.note("dropped", ["posture", "right", "lines", i], `unknown right line ${previewValue(l.name)}`)
        continue
      }
      const points = Catalogue.rightPosturePoints(name)!
      if (l.points.length !== points) r.fail(["posture", "right", "lines", i, "points"], l.points, `${points} points for ${l.name}`)
      lines[name] = readPoints(l.points)
    }
  }
  if (singular > 0) {
    r.note("aliased", ["posture"], `angle unit written "degree" ${singular} time(s), read as "${Wire.UNITS.angle}"`)
  }
  return { front: frontOut, right: rightOut }
}

const failureOf = (code: string, message: string | null): NonNullable<FullScanInit["failure"]> => ({
  code,
  category: Wire.FAILURE_CODES[code] ?? "unknown",
  message
})

const readPlatformError = (r: DecodeWalk, status: "success" | "failure", error: Wire.EntryError | null | undefined) => {
  if (status === "success") {
    if (error) r.note("dropped", ["error"], `error ${previewValue(error)} on a scan whose status is success`)
    return null
  }
  if (error === null || error === undefined || error.code === "") {
    r.note("assumed", ["error"], "a failed scan without an error code: recorded with code unknown")
    return failureOf("unknown", null)
  }
  return failureOf(error.code, error.message ?? null)
}

// An error object read for its code is read as the REST API's: any other key of it is noted.
const clientErrorKeys = unknownKeysOf(Wire.EntryError)

// Spec 03: the client library's error object "shape is not guaranteed". Keep what it says.
const readClientError = (r: DecodeWalk, status: "success" | "failure", error: unknown) => {
  if (status === "success") {
    if (error !== null && error !== undefined) r.note("dropped", ["error"], `error ${previewValue(error)} on a scan whose status is success`)
    return null
  }
  if (typeof error === "string" && error !== "") return failureOf(error, null)
  const o = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {}
  const message = typeof o["message"] === "string" ? o["message"] : null
  const code = typeof o["code"] === "string" && o["code"] !== "" ? o["code"] : null
  if (code === null) r.note("assumed", ["error"], `error ${previewValue(error)} has no code: recorded with code unknown`)
  if (code !== null || message !== null) {
    r.noteUnknownKeys(["error"], clientErrorKeys(error))
    return failureOf(code ?? "unknown", message)
  }
  // Nothing is lost: an error without a message is kept whole as the message.
  const whole = error === undefined || error === null || error === "" ? null : previewValue(error, Number.MAX_SAFE_INTEGER)
  return failureOf("unknown", whole)
}

/** What the two entry shapes spell differently, read in this order: one of these per shape, not per record. */
interface EntryRest<E> {
  readonly composition: (r: DecodeWalk, e: E) => FullScanInit["composition"]
  readonly failure: (r: DecodeWalk, e: E) => FullScanInit["failure"]
}

const REST_API: EntryRest<Wire.Entry> = {
  composition: (r, e) => readComposition(r, e.bodyComposition),
  failure: (r, e) => readPlatformError(r, e.status, e.error)
}

const CLIENT_LIBRARY: EntryRest<Wire.ClientLibraryEntry> = {
  composition: (r, e) => readClientComposition(r, e.bodyComposition),
  failure: (r, e) => readClientError(r, e.status, e.error)
}

/** The scan of an entry; `rest` reads what the two entry shapes spell differently. */
const readEntry = <E extends Wire.Entry | Wire.ClientLibraryEntry>(r: DecodeWalk, read: ExactRead<E>, rest: EntryRest<E>): ScanInit => {
  r.noteUnknownKeys([], read.unknownKeys)
  const e = read.value
  const outputWeight = e.outputStats?.weight ?? null
  if (outputWeight !== null && e.input.adjustedScan === undefined)
    r.note("dropped", ["outputStats"], `outputStats.weight ${outputWeight} g on a scan that is not adjusted`)
  const input = readInput(r, e.input, outputWeight)
  return {
    source: { api: "platform", id: e.id },
    status: e.status,
    externalId: e.customScanId ?? null,
    method: input.method,
    subject: input.subject,
    adjustment: input.adjustment,
    measurementsMm: readMeasurements(r, e.measurements),
    avatar: readAvatar(r, e.avatar),
    posture: readPosture(r, e.posture),
    composition: rest.composition(r, e),
    failure: rest.failure(r, e)
  }
}

const unwrap = (json: unknown): { readonly body: unknown; readonly base: Path } =>
  isRecord(json) && hasOnlyKey(json, "entry") ? { body: (json as { entry: unknown }).entry, base: ["entry"] } : { body: json, base: [] }

const parsers = {
  entry: (base: Path) => exactSchemaDecoder(Wire.Entry, FORMATS.entry, { base }),
  client: (base: Path) => exactSchemaDecoder(Wire.ClientLibraryEntry, FORMATS.clientLibraryEntry, { base })
}
const entryAt = { top: parsers.entry([]), inEnvelope: parsers.entry(["entry"]) }
const clientAt = { top: parsers.client([]), inEnvelope: parsers.client(["entry"]) }

const hasMuscleMass = (body: unknown): boolean => isRecord(body) && isRecord(body["bodyComposition"]) && "skeletalMuscleMass" in body["bodyComposition"]

/**
 * Whether the REST schema refuses this entry for a part only the client library writes so: a
 * bare-number body fat percentage, or an error that is not `{code: string, ...}` (spec 03: its
 * shape "is not guaranteed"). Such an entry goes straight to the client library's schema, with
 * no failed REST decode first (Effect Schema's slow path and a DecodeError, for a record that
 * is accepted in the end). Only ever true where the REST schema refuses: false decides nothing.
 */
const restRefuses = (body: unknown): boolean => {
  if (!isRecord(body)) return false
  const c = body["bodyComposition"]
  if (isRecord(c) && typeof c["bodyFatPercentage"] === "number") return true
  const error = body["error"]
  return error !== undefined && error !== null && (!isRecord(error) || typeof error["code"] !== "string")
}

/**
 * Does this entry look like the client library's? Its composition is two bare numbers, and its
 * photo avatar is glb. The adapter's format detection asks the same.
 * @internal
 */
export const looksClientLibrary = (body: unknown): boolean => {
  if (!isRecord(body)) return false
  const c = body["bodyComposition"]
  const avatar = body["avatar"]
  return (isRecord(c) && ("skeletalMuscleMass" in c || typeof c["bodyFatPercentage"] === "number")) || (isRecord(avatar) && avatar["format"] === "glb")
}

/** The scan of an entry of either variant, its lengths read as the caller's options say. */
const entryScan = <E extends Wire.Entry | Wire.ClientLibraryEntry>(
  format: string,
  base: Path,
  read: ExactRead<E>,
  rest: EntryRest<E>,
  options: DecodeOptions
): Either.Either<Scan, DecodeError> => walkScan(format, base, (r) => readEntry(r, read, rest), undefined, options)

const readRest = (base: Path, read: ExactRead<Wire.Entry>, options: DecodeOptions): Either.Either<Scan, DecodeError> =>
  entryScan(FORMATS.entry, base, read, REST_API, options)

/**
 * A platform scan entry, bare or in its `{entry}` envelope, in either variant: the REST API's
 * or the client library's (spec 03). Never throws: bad input is a DecodeError with path and value.
 * Each measurement is read in the unit its item states (`mm`, and whatever integrators' code
 * writes: `inch`, `CENTIMETERS`, ...), or in `options.lengthUnit` where the caller gives one; the
 * lengths are then judged against the subject's stature, and a record whose lengths are
 * plausible only in another unit is refused with that evidence.
 */
export const decodeEntryEither = (json: unknown, options: DecodeOptions = NO_OPTIONS): Either.Either<Scan, DecodeError> => {
  const { base, body } = unwrap(json)
  const inEnvelope = base.length > 0
  const restAt = inEnvelope ? entryAt.inEnvelope : entryAt.top
  // The REST schema ignores keys it does not know, so it would read the client library's
  // skeletalMuscleMass (beside a null bodyFatPercentage) and lose it: such an entry is the client
  // library's, and is not read as the REST API's at all.
  const clientOnly = hasMuscleMass(body)
  let rest = clientOnly || restRefuses(body) ? undefined : restAt(body)
  if (rest !== undefined && Either.isRight(rest)) return readRest(base, rest.right, options)
  const client = (inEnvelope ? clientAt.inEnvelope : clientAt.top)(body)
  if (Either.isRight(client)) return entryScan(FORMATS.clientLibraryEntry, base, client.right, CLIENT_LIBRARY, options)
  if (clientOnly || looksClientLibrary(body)) return Either.left(client.left)
  // Neither reads it, and it does not look like the client library's: the REST API's problems.
  rest ??= restAt(body)
  return Either.isRight(rest) ? readRest(base, rest.right, options) : Either.left(rest.left)
}

// --- Decode: list summaries and pages -----------------------------------------------------

const UTC_TIMESTAMP_LENGTH = "2026-01-02T03:04:05.000Z".length

const readSummary = (r: DecodeWalk, s: Wire.Summary, unknownKeys: ReadonlyArray<UnknownKey>): ScanInit => {
  r.noteUnknownKeys([], unknownKeys)
  // As `new Date(seconds * 1000).toISOString()` prints it, without the Date (a microsecond in
  // Node 20, the largest cost of a list page): the Date clips to an integer or NaN.
  const ms = s.createdAt * 1000
  const clipped = Math.abs(ms) > 8.64e15 ? Number.NaN : Math.trunc(ms) + 0
  const createdAt = Number.isNaN(clipped) ? "" : utcTimestampOfMillis(clipped)
  // Its own output needs no parse to be judged: a year 0000-9999 prints in 24 characters, any
  // other as a signed six-digit year (27), NaN as none.
  if (createdAt.length !== UTC_TIMESTAMP_LENGTH) r.fail(["createdAt"], s.createdAt, "a UNIX timestamp in seconds, of a year from 0 to 9999")
  r.note("converted", ["createdAt"], `UNIX seconds ${s.createdAt} -> ${createdAt}`)
  if (s.memberId !== undefined) r.note("dropped", ["memberId"], `memberId ${s.memberId}: the canonical scan does not record which credential created it`)
  if (s.status === "failure") r.note("assumed", ["status"], "a list summary carries no error code: recorded with code unknown; get the scan for its code")
  const input = readInput(r, s.input, null)
  // One literal, not `...input` among other keys: V8 (Node 20) makes that a slow object.
  return {
    source: { api: "platform", id: s.id },
    status: s.status,
    createdAt,
    externalId: s.customScanId ?? null,
    method: input.method,
    subject: input.subject,
    adjustment: input.adjustment,
    failure: s.status === "failure" ? failureOf("unknown", null) : null
  }
}

const summaryParse = exactSchemaDecoder(Wire.Summary, FORMATS.summary)

/** One list item: no results; a failed one has code `unknown` (the summary does not carry it). */
export const decodeSummaryEither = (json: unknown, options: DecodeOptions = NO_OPTIONS): Either.Either<Scan, DecodeError> => {
  const read = summaryParse(json)
  if (Either.isLeft(read)) return Either.left(read.left)
  const { value, unknownKeys } = read.right
  return walkScan(FORMATS.summary, [], (r) => readSummary(r, value, unknownKeys), undefined, options)
}

const pageParse = exactSchemaDecoder(Wire.ListPage, FORMATS.listPage)

/**
 * A list page: one scan per summary, each noting its own unknown keys and the page's. The first
 * bad item fails the page, naming its index.
 */
export const decodeListPageEither = (json: unknown, options: DecodeOptions = NO_OPTIONS): Either.Either<ReadonlyArray<Scan>, DecodeError> => {
  const read = pageParse(json)
  if (Either.isLeft(read)) return Either.left(read.left)
  const { unknownKeys, value: page } = read.right
  const scans: Array<Scan> = []
  for (let i = 0; i < page.results.length; i++) {
    const scan = walkScan(
      FORMATS.listPage,
      ["results", i],
      (r) => readSummary(r, page.results[i]!, unknownKeysOfItem(unknownKeys, "results", i)),
      undefined,
      options
    )
    if (Either.isLeft(scan)) return Either.left(scan.left)
    scans.push(scan.right)
  }
  return Either.right(scans)
}

// --- Encode --------------------------------------------------------------------------------

const required = <A>(w: EncodeWalk, path: Path, value: A | null): A => (value === null ? w.fail(path, value, "the platform entry's input requires it") : value)

const writeInput = (w: EncodeWalk, scan: Scan): Out<"input"> => {
  const s = scan.subject
  const stats = {
    age: required(w, ["subject", "age"], s.age),
    gender: required(w, ["subject", "gender"], s.gender),
    height: w.integer(["subject", "heightMm"], required(w, ["subject", "heightMm"], s.heightMm), "mm"),
    weight: w.integer(["subject", "weightG"], required(w, ["subject", "weightG"], s.weightG), "g")
  }
  const method = scan.method
  if (method === "adjusted") {
    const a = scan.adjustment
    if (a === null) return w.fail(["adjustment"], a, "an adjusted scan needs its adjustment")
    return {
      adjustedScan: {
        baseScanId: a.baseScanId,
        ...(a.baseScanType === null ? {} : { baseScanType: a.baseScanType }),
        ...stats,
        parameters: a.parameters.map((p) => ({ name: p.name, percentage: p.percentage }))
      }
    }
  }
  if (scan.adjustment !== null) w.note("dropped", ["adjustment"], `an adjustment on a scan whose method is ${method}`)
  if (method === "photo" || method === "selfie") {
    if (method === "selfie") w.note("converted", ["method"], "selfie written as photoScan: the platform has no selfie input")
    return { photoScan: { ...stats, frontPhoto: null, rightPhoto: null } }
  }
  if (method === null) w.note("assumed", ["method"], "no method: written as statsEstimations")
  return { statsEstimations: stats }
}

const writePosture = (posture: Scan["posture"]): Out<"posture"> => (posture === null ? null : postureIn(POSTURE, Wire.UNITS.angle, posture))

const writeComposition = (w: EncodeWalk, c: Scan["composition"]): Out<"bodyComposition"> => {
  if (c === null) return null
  if (c.skeletalMuscleMassG !== null)
    w.note("dropped", ["composition", "skeletalMuscleMassG"], `${c.skeletalMuscleMassG} g: the platform entry has no skeletal muscle mass`)
  const { mass, percent } = Wire.UNITS
  return {
    ...(c.bodyFatPercent === null ? {} : { bodyFatPercentage: { unit: percent, value: c.bodyFatPercent } }),
    ...(c.bodyFatMassG === null ? {} : { bodyFatMass: { unit: mass, value: c.bodyFatMassG } }),
    ...(c.leanMassG === null ? {} : { leanMass: { unit: mass, value: c.leanMassG } })
  }
}

const writeAvatar = (w: EncodeWalk, a: Scan["avatar"]): Out<"avatar"> => {
  if (a === null) return null
  if (a.format === "vertices" || a.data === null) {
    w.note("dropped", ["avatar"], `a ${a.format} avatar (${a.vertices?.length ?? 0} coordinates): the platform avatar is a model file`)
    return null
  }
  return { data: a.data, format: a.format, ...(a.type === null ? {} : { type: a.type }) }
}

const writeFailure = (w: EncodeWalk, f: Scan["failure"]): Wire.EntryJson["error"] => {
  if (f === null) return undefined
  const implied: FailureCategory = Wire.FAILURE_CODES[f.code] ?? "unknown"
  if (implied !== f.category) w.note("dropped", ["failure", "category"], `category ${f.category}: the platform error holds only the code ${f.code}`)
  return { code: f.code, ...(f.message === null ? {} : { message: f.message }) }
}

const PLATFORM_ID = { api: "platform", field: "id", notA: "a platform scan id", required: "a platform scan needs its id" } as const

/**
 * The platform entry a canonical scan becomes. Fails (EncodeError) on what the entry cannot
 * express at all: a pending scan, or a subject without the four stats the input requires.
 */
export const encodeEntryEither = (scan: Scan): Either.Either<Encoded<Wire.EntryJson>, EncodeError> => {
  const w = new EncodeWalk(FORMATS.entry)
  return runWalk<Encoded<Wire.EntryJson>, EncodeError>(() => {
    const status = scan.status
    if (status === "pending") return w.fail(["status"], status, "the platform has no pending scans")
    const id = sourceIdFor(w, scan, PLATFORM_ID)
    if (scan.externalId !== null && scan.externalId.length > Wire.MAX_CUSTOM_SCAN_ID) {
      w.fail(["externalId"], scan.externalId, `customScanId holds at most ${Wire.MAX_CUSTOM_SCAN_ID} characters`)
    }
    if (scan.createdAt !== null) w.note("dropped", ["createdAt"], `${scan.createdAt}: an entry has no creation time (list summaries do)`)
    if (scan.expiresAt !== null) w.note("dropped", ["expiresAt"], `${scan.expiresAt}: platform scans do not expire`)
    const input = writeInput(w, scan)
    const measurements = platformDialect.measurementList.flatMap(({ name, spelling }) => {
      const v = scan.measurementsMm[name]
      return v === undefined ? [] : [{ name: spelling.name, unit: Wire.UNITS.length, value: w.integer(["measurementsMm", name], v, "mm") }]
    })
    const outputWeightG = scan.method === "adjusted" ? (scan.adjustment?.outputWeightG ?? null) : null
    const error = writeFailure(w, scan.failure)
    if (scan.notes.length > 0) w.note("dropped", ["notes"], `${scan.notes.length} note(s): the platform entry has no place for notes`)
    const entry: Wire.EntryJson = {
      id,
      status,
      ...(scan.externalId === null ? {} : { customScanId: scan.externalId }),
      input,
      measurements: status === "failure" && measurements.length === 0 ? null : measurements,
      avatar: writeAvatar(w, scan.avatar),
      bodyComposition: writeComposition(w, scan.composition),
      posture: writePosture(scan.posture),
      ...(error === undefined ? {} : { error }),
      ...(outputWeightG === null ? {} : { outputStats: { weight: w.integer(["adjustment", "outputWeightG"], outputWeightG, "g") } })
    }
    return { value: entry, notes: w.notes }
  })
}
