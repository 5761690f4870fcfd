/**
 * Session wire <-> canonical Scan. Decoding reads ScanningResults in any spelling a proto3 JSON
 * parser accepts; those spellings carry the same message, so they read to the same scan with
 * no note. Notes are for what the canonical scan changes: radians turned into degrees, a unit
 * assumed, an item or field dropped, an alias read. Encoding writes what the legacy server
 * printed, so code written against the session API keeps working on data from the platform.
 */
import { Either, Option } from "effect"
import {
  Catalogue,
  DecodeError,
  type DecodeOptions as LengthOptions,
  type EncodeError,
  type Encoded,
  type FailureCategory,
  GENDER_CODES,
  type CanonicalTarget,
  LENGTH_UNITS,
  LENGTH_UNITS_ACCEPTED,
  LENGTH_UNIT_LABELS,
  type LengthUnit,
  type Note,
  type Path,
  type PathSegment,
  Proto3,
  type Scan,
  type ScanInit,
  convertAngle,
  e4ToPercent,
  isExactE4,
  lengthUnitOf,
  makeNote,
  percentToE4
} from "@scanbridge/model"
import {
  type DecodeWalk,
  EncodeWalk,
  MeasurementsBuilder,
  BoundedNoteList,
  measurementIndex,
  type FullScanInit,
  runWalk,
  genderOfCode,
  postureNames,
  type FrontView,
  type RightView,
  emptyFrontView,
  emptyRightView,
  previewValue,
  sourceIdFor,
  walkScan,
  writePosture as postureIn
} from "@scanbridge/model/adapter"
import type { Percent, PercentE4 } from "@scanbridge/model"
import { SESSION_MEASUREMENT_UNSPECIFIED, SESSION_POSTURE, type SessionStatSpelling, sessionDialect } from "./dialect.js"
import * as Wire from "./wire.js"

export const FORMATS = {
  results: "session ScanningResults",
  createResponse: "session create-session response"
} as const

/** The model's options (the caller's length unit) and the session reader's own. */
export interface DecodeOptions extends LengthOptions {
  /**
   * Refuse what tolerant reading drops with a note: unknown fields, and enum values this
   * version does not know (a newer server's). Default false.
   */
  readonly strict?: boolean
}

type PointJson = { readonly x: number; readonly y: number }

interface Ctx {
  readonly w: DecodeWalk
  readonly strict: boolean
}

// Tolerant: drop what cannot be read, and say so. Strict: refuse it.
const skip = (c: Ctx, path: Path, value: unknown, what: string): void => {
  if (c.strict) c.w.fail(path, value, `${what} (strict mode)`)
  c.w.note("dropped", path, what)
}

const noteIgnored = (c: Ctx, ignored: ReadonlyArray<Proto3.Ignored>): void => {
  for (const i of ignored) skip(c, i.path, i.value, `unknown field ${previewValue(i.value)}: not in the session API's messages`)
}

// A timestamp in the canonical form, with a note when that changed it. The wire schema has
// checked it, so it parses.
const canonicalTime = (path: Path, at: string): { readonly iso: string; readonly note: Note | null } => {
  const t = Option.getOrThrow(Proto3.parseTimestamp(at))
  if (t.iso === at) return { iso: at, note: null }
  const lost = t.subMillisecond === "" ? "" : ` (the digits ${t.subMillisecond} below a millisecond dropped)`
  return { iso: t.iso, note: makeNote("converted", path, `${at} -> ${t.iso}${lost}`) }
}

// int64 strings keep full precision; the canonical model holds doubles, exact only to 2^53.
const int64 = (w: DecodeWalk, i: number, value: string | undefined): number => {
  const n = Number(value ?? "0")
  if (!Number.isSafeInteger(n))
    w.fail(itemPath(i, "value"), value, "a value up to 2^53 - 1: a larger int64 has no exact double, and rounding it would change it")
  return n
}

// --- Measurements -------------------------------------------------------------------------

type Target =
  | { readonly kind: "length"; readonly index: number; readonly unit: string }
  | { readonly kind: "stat"; readonly target: CanonicalTarget; readonly unit: string }

const UNSPECIFIED_TYPE = SESSION_MEASUREMENT_UNSPECIFIED.name

// Paths are built only when a note or an error needs one: most records need none.
const itemPath = (i: number, ...rest: ReadonlyArray<PathSegment>): Path => ["results", "measurements", i, ...rest]

const targetOf = (c: Ctx, i: number, type: string | number): Target | undefined => {
  if (typeof type === "number") {
    skip(c, itemPath(i, "measurementType"), type, `MeasurementType ${type} is not in the spec's enum (a newer server's?)`)
    return undefined
  }
  const target = TARGETS.get(type)
  if (target !== undefined) return target
  if (type === UNSPECIFIED_TYPE) {
    skip(c, itemPath(i, "measurementType"), type, `${type} names no measurement`)
    return undefined
  }
  // Another spelling of a documented name (KNEE_HEIGHT for KNEE_HEIGHT_R) says which length it is.
  const alias = sessionDialect.measurementByAlias(type)
  if (alias !== undefined) {
    c.w.aliased(itemPath(i, "measurementType"), type, alias.spelling.name)
    return TARGETS.get(alias.spelling.name)
  }
  const guess = sessionDialect.suggest(type)
  skip(c, itemPath(i, "measurementType"), type, `unknown MeasurementType ${previewValue(type)}${guess ? ` (did you mean ${guess.name}?)` : ""}`)
  return undefined
}

// One lookup per item: every session MeasurementType name, length or stat, with its unit.
const TARGETS = new Map<string, Target>([
  ...sessionDialect.statList.map(({ target, spelling }): [string, Target] => [spelling.name, { kind: "stat", target, unit: spelling.unit }]),
  ...sessionDialect.measurementList.map(({ name, spelling }): [string, Target] => [
    spelling.name,
    { kind: "length", index: measurementIndex(name), unit: Wire.LENGTH_UNIT }
  ])
])

/** What a length item may state besides UnitType's MILLIMETERS: what `lengthUnitOf` reads (INCHES, CENTIMETERS, cm, inch, ...). */
const LENGTH_ACCEPTED = `${Wire.LENGTH_UNIT}, ${Wire.UNIT_UNSPECIFIED} (read in ${Wire.LENGTH_UNIT}) or a length unit: ${LENGTH_UNITS_ACCEPTED}`

/**
 * An item's unit name, or undefined when it states none: no unit, UNIT_TYPE_UNSPECIFIED, or a
 * UnitType number (the spec documents none but 0, so which unit it meant is unknown). Those read
 * in `readIn` with an `assumed` note; a length so read is still judged against the body.
 */
const namedUnit = (c: Ctx, i: number, type: string, unit: string | number, readIn: string): string | undefined => {
  if (unit === Wire.UNIT_UNSPECIFIED || unit === 0) c.w.note("assumed", itemPath(i, "unit"), `${type} without a unit: read in ${readIn}`)
  else if (typeof unit === "number")
    c.w.note("assumed", itemPath(i, "unit"), `UnitType ${unit}: the spec documents no UnitType numbers, so ${type} is read in ${readIn}`)
  else return unit
  return undefined
}

/**
 * The unit a length item states. UnitType documents MILLIMETERS only, but integrators' records
 * state INCHES or CENTIMETERS with values in them: the stated unit is the evidence, so it is
 * honoured (dropping the item lost every measurement of such a record). `given` is the caller's
 * lengthUnit, which overrides what the item states (`DecodeWalk.lengthMm`).
 */
const statedLength = (c: Ctx, i: number, type: string, unit: string | number, given: LengthUnit | undefined): LengthUnit => {
  if (unit === Wire.LENGTH_UNIT) return "mm"
  const name = namedUnit(
    c,
    i,
    type,
    unit,
    given === undefined ? `${Wire.LENGTH_UNIT}, the unit spec 02 gives it` : `${LENGTH_UNIT_LABELS[given]}, the caller's lengthUnit`
  )
  if (name === undefined) return "mm"
  const stated = lengthUnitOf(name)
  if (stated !== undefined) return stated
  const why = Wire.UNIT_TYPE.names.has(name) ? `${name} does not convert to one` : `${previewValue(name)} is none`
  return c.w.fail(itemPath(i, "unit"), name, `a length unit for ${type}, a length (${why}): ${LENGTH_ACCEPTED}`)
}

/** The unit spec 02 gives a stat that is no length; any other is refused, never read as this one. */
const checkUnit = (c: Ctx, i: number, type: string, unit: string | number, expected: string): void => {
  if (unit === expected) return
  const name = namedUnit(c, i, type, unit, `${expected}, the unit spec 02 gives it`)
  if (name === undefined) return
  // Each quantity has one UnitType, so two different ones never convert exactly.
  const why =
    Wire.UNIT_TYPE.names.has(name) || lengthUnitOf(name) !== undefined
      ? `${name} does not convert to it`
      : `${previewValue(name)} is no unit the session API reads`
  c.w.fail(itemPath(i, "unit"), name, `${expected} or ${Wire.UNIT_UNSPECIFIED}: ${type} is measured in ${expected}, and ${why}`)
}

const E4_MAX = 1_000_000

// Where a record's lengths are, for the plausibility judgement's note and error.
const MEASUREMENTS_PATH: Path = ["results", "measurements"]

const readMeasurements = (c: Ctx, items: ReadonlyArray<Wire.MeasurementItem>) => {
  const measurements = new MeasurementsBuilder()
  const subject: { age?: number; gender?: "male" | "female"; heightMm?: number; weightG?: number } = {}
  const composition: { bodyFatPercent?: number; skeletalMuscleMassG?: number } = {}
  const given = c.w.givenLengthUnit
  // Stats seen so far; a length already read is one the builder has.
  const statsSeen = new Set<string>()
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    const type = item.measurementType ?? UNSPECIFIED_TYPE
    const target = targetOf(c, i, type)
    if (target === undefined || typeof type === "number") continue
    const unit = item.unit ?? Wire.UNIT_UNSPECIFIED
    // HEIGHT is the subject's stature, not a body length: its own stated unit, never the caller's.
    const isLength = target.kind === "length"
    const isHeight = !isLength && target.target === "subject.heightMm"
    let stated: LengthUnit = "mm"
    if (isLength || isHeight) stated = statedLength(c, i, type, unit, isLength ? given : undefined)
    else checkUnit(c, i, type, unit, target.unit)
    if (target.kind === "length" ? measurements.hasAt(target.index) : statsSeen.has(type)) {
      c.w.note("dropped", itemPath(i), `second ${type} (${item.value ?? "0"} ${typeof unit === "string" ? unit : target.unit}); the first one is kept`)
      continue
    }
    if (target.kind === "stat") statsSeen.add(type)
    const value = int64(c.w, i, item.value)
    if (target.kind === "stat" && target.target === "subject.gender") {
      const gender = genderOfCode(value)
      subject.gender = gender ?? c.w.fail(itemPath(i, "value"), item.value, "a GENDER code: 1 (male) or 2 (female)")
      continue
    }
    if (value < 0) c.w.fail(itemPath(i, "value"), item.value, `a ${type} of at least 0`)
    if (target.kind === "length") measurements.setAt(target.index, c.w.lengthMm(value, stated, MEASUREMENTS_PATH))
    else if (target.target === "composition.bodyFatPercent") {
      if (value > E4_MAX) c.w.fail(itemPath(i, "value"), item.value, `a PERCENTAGE_E4 up to ${E4_MAX} (100 %)`)
      composition.bodyFatPercent = e4ToPercent(value as PercentE4)
    } else if (target.target === "composition.skeletalMuscleMassG") composition.skeletalMuscleMassG = value
    else if (target.target === "subject.age") subject.age = value
    else if (target.target === "subject.heightMm") subject.heightMm = heightMm(c, i, type, value, stated)
    else subject.weightG = value
  }
  const hasComposition = composition.bodyFatPercent !== undefined || composition.skeletalMuscleMassG !== undefined
  return {
    measurementsMm: measurements.build(),
    subject,
    composition: hasComposition
      ? {
          bodyFatPercent: composition.bodyFatPercent ?? null,
          bodyFatMassG: null,
          leanMassG: null,
          skeletalMuscleMassG: composition.skeletalMuscleMassG ?? null
        }
      : null
  }
}

/** The subject's stature in millimetres, from the unit its item states, with a note when converted. */
const heightMm = (c: Ctx, i: number, type: string, value: number, stated: LengthUnit): number => {
  if (stated === "mm") return value
  const mm = LENGTH_UNITS[stated].toBase(value)
  c.w.note("converted", itemPath(i), `${type} ${value} ${LENGTH_UNIT_LABELS[stated]} -> ${mm} mm`)
  return mm
}

// --- Avatar and posture ---------------------------------------------------------------------

const NOT_FINITE = "a finite number"

// Checked in a loop, the path built only for the error: no closure per number of a record.
const firstNotFinite = (values: ReadonlyArray<number>): number => {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return i
  return -1
}

/** A copy of `values`, or the walk stops at the first one that is not finite (at `path` + its index). */
const finiteList = (w: DecodeWalk, path: () => Path, values: ReadonlyArray<number>): Array<number> => {
  const bad = firstNotFinite(values)
  return bad < 0 ? values.slice() : w.fail([...path(), bad], values[bad], NOT_FINITE)
}

const vertexPath = (): Path => ["results", "avatar", "meshVerticesOnly", "vertices"]

const readAvatar = (c: Ctx, avatar: typeof Wire.Avatar.Type | undefined): FullScanInit["avatar"] => {
  const mesh = avatar?.meshVerticesOnly
  if (mesh === undefined) return null
  const vertices = finiteList(c.w, vertexPath, mesh.vertices ?? [])
  if (vertices.length % 3 !== 0) c.w.fail(vertexPath(), `${vertices.length} numbers`, "x, y, z triples (a multiple of 3 numbers)")
  return { format: "vertices", type: null, data: null, vertices }
}

/** Angles of one item in degrees: radians converted with one note; an unspecified unit has no conversion. */
const inDegrees = (c: Ctx, path: () => Path, unit: string | number | undefined, label: string, values: Array<number>): Array<number> => {
  const u = unit ?? 0
  if (u === Wire.ANGLE_DEGREES) return values
  if (u === Wire.ANGLE_RADIANS) {
    const degrees = values.map((v) => convertAngle(v, "rad", "deg"))
    c.w.note("converted", path(), `${label} ${values.join(", ")} rad -> ${degrees.join(", ")} degrees`)
    return degrees
  }
  return c.w.fail(
    [...path(), "unit"],
    unit ?? "ANGLE_UNIT_TYPE_NOT_SPECIFIED",
    `${Wire.ANGLE_DEGREES} or ${Wire.ANGLE_RADIANS}: an angle in an unknown unit cannot be converted`
  )
}

const points = (c: Ctx, path: () => Path, ps: ReadonlyArray<Wire.Point> | undefined, count: number, label: string): Array<PointJson> => {
  const list = ps ?? []
  if (list.length !== count) c.w.fail([...path(), "points"], list, `${count} points for ${label}`)
  // Its own length from the start: a list pushed to from empty takes room for seventeen.
  const out = new Array<PointJson>(list.length)
  for (let j = 0; j < list.length; j++) {
    const x = list[j]!.x ?? 0
    const y = list[j]!.y ?? 0
    if (!Number.isFinite(x)) c.w.fail([...path(), "points", j, "x"], x, NOT_FINITE)
    if (!Number.isFinite(y)) c.w.fail([...path(), "points", j, "y"], y, NOT_FINITE)
    out[j] = { x, y }
  }
  return out
}

/** The canonical name of a posture item, or undefined when it is dropped. */
const postureName = <N extends string>(
  c: Ctx,
  path: () => Path,
  name: string | number | undefined,
  bySession: (name: string) => N | undefined,
  seen: Set<string>
): N | undefined => {
  const v = name ?? 0
  const found = typeof v === "string" ? bySession(v) : undefined
  if (found === undefined) {
    const why = typeof v === "number" ? `posture name ${v}: the spec documents no numbers for these names` : `unknown posture name ${previewValue(v)}`
    skip(c, [...path(), "name"], v, why)
    return undefined
  }
  if (seen.has(found)) {
    c.w.note("dropped", path(), `second ${v}; the first one is kept`)
    return undefined
  }
  seen.add(found)
  return found
}

const POSTURE = postureNames(SESSION_POSTURE)

const postureItem = (side: "front" | "right", list: "angles" | "lines", i: number) => (): Path => ["results", "posture", side, list, i]

const readFront = (c: Ctx, front: NonNullable<Wire.Posture["front"]>): FrontView => {
  const view = emptyFrontView()
  const { angles, lines } = view
  const seenAngles = new Set<string>()
  const seenLines = new Set<string>()
  front.angles?.forEach((a, i) => {
    const path = postureItem("front", "angles", i)
    const name = postureName(c, path, a.name, POSTURE.front, seenAngles)
    if (name === undefined) return
    const value = a.value ?? 0
    if (!Number.isFinite(value)) c.w.fail([...path(), "value"], value, NOT_FINITE)
    angles[name] = inDegrees(c, path, a.unit, String(a.name), [value])[0]!
  })
  front.lines?.forEach((l, i) => {
    const path = postureItem("front", "lines", i)
    const name = postureName(c, path, l.name, POSTURE.front, seenLines)
    if (name !== undefined) lines[name] = points(c, path, l.points, 2, String(l.name))
  })
  return view
}

const readRight = (c: Ctx, right: NonNullable<Wire.Posture["right"]>): RightView => {
  const view = emptyRightView()
  const { angles, lines } = view
  const seenAngles = new Set<string>()
  const seenLines = new Set<string>()
  right.angles?.forEach((a, i) => {
    const path = postureItem("right", "angles", i)
    const name = postureName(c, path, a.name, POSTURE.right, seenAngles)
    const values = a.angles ?? []
    // proto3 leaves an empty list out: no angles is an unknown line, not a wrong count.
    if (name === undefined || values.length === 0) return
    const size = Catalogue.rightPosturePoints(name)!
    if (values.length !== size - 1) c.w.fail([...path(), "angles"], values, `${size - 1} segment angles for ${a.name}`)
    angles[name] = inDegrees(
      c,
      path,
      a.unit,
      String(a.name),
      finiteList(c.w, () => [...path(), "angles"], values)
    )
  })
  right.lines?.forEach((l, i) => {
    const path = postureItem("right", "lines", i)
    const name = postureName(c, path, l.name, POSTURE.right, seenLines)
    if (name !== undefined) lines[name] = points(c, path, l.points, Catalogue.rightPosturePoints(name)!, String(l.name))
  })
  return view
}

const readPosture = (c: Ctx, p: Wire.Posture | undefined): FullScanInit["posture"] =>
  p === undefined ? null : { front: p.front ? readFront(c, p.front) : null, right: p.right ? readRight(c, p.right) : null }

// --- Errors -------------------------------------------------------------------------------

const categoryOf = (type: string): FailureCategory => (type === "ERROR_TYPE_UNSPECIFIED" ? "unknown" : "session")

const readFailure = (c: Ctx, e: typeof Wire.ResultsError.Type): NonNullable<FullScanInit["failure"]> => {
  const type = e.errorType ?? "ERROR_TYPE_UNSPECIFIED"
  const message = e.message === undefined || e.message === "" ? null : e.message
  if (typeof type === "string" && Wire.RESULTS_ERROR_TYPE.names.has(type)) return { code: type, category: categoryOf(type), message }
  const path = ["error", "errorType"]
  // A failure code names something; an empty name is no code to keep.
  if (type === "") c.w.fail(path, type, "a results ErrorType name")
  if (c.strict) c.w.fail(path, type, "a results ErrorType (strict mode)")
  c.w.note("assumed", path, `errorType ${previewValue(type)} is not in the spec's enum (a newer server's?): kept as the failure code`)
  return { code: String(type), category: "unknown", message }
}

// --- Decode -------------------------------------------------------------------------------

const readResults = Proto3.reader(Wire.ScanningResults, FORMATS.results)

// Each outcome's init is one object literal: V8 (Node 20) makes `{ ...common, status }` a
// slow, dictionary-like object, a microsecond to build and to read.
const toScan = (c: Ctx, json: unknown, r: Wire.ScanningResults): ScanInit => {
  const source = { api: "session" as const, id: r.scanningSessionId || null }
  const externalId = r.clientScanningId || null
  // The session API runs the widget's photo flow; it has no other method.
  const method = "photo" as const
  if (r.results !== undefined) {
    const results = r.results
    const read = readMeasurements(c, results.measurements ?? [])
    return {
      source,
      externalId,
      method,
      status: "success",
      measurementsMm: read.measurementsMm,
      subject: read.subject,
      composition: read.composition,
      avatar: readAvatar(c, results.avatar),
      posture: readPosture(c, results.posture)
    }
  }
  if (r.pending !== undefined) {
    const at = r.pending.expireAtTimestamp
    if (at === undefined) return { source, externalId, method, status: "pending" }
    const time = canonicalTime(["pending", "expireAtTimestamp"], at)
    if (time.note !== null) c.w.add(time.note)
    return { source, externalId, method, status: "pending", expiresAt: time.iso }
  }
  if (r.error !== undefined) return { source, externalId, method, status: "failure", failure: readFailure(c, r.error) }
  return c.w.fail([], json, "one of results, pending or error: without one the scan's status is unknown")
}

/**
 * A ScanningResults (GET results) as a canonical scan: results -> success, pending -> pending
 * with the session's expiry, error -> failure. Never throws.
 */
export const decodeResultsEither = (json: unknown, options: DecodeOptions = {}): Either.Either<Scan, DecodeError> => {
  const result = readResults(json)
  if (Either.isLeft(result)) return Either.left(result.left)
  const read = result.right
  return walkScan(
    FORMATS.results,
    [],
    (w) => {
      const c: Ctx = { w, strict: options.strict ?? false }
      noteIgnored(c, read.ignored)
      return toScan(c, json, read.value)
    },
    read.locate,
    options
  )
}

// --- create-session response --------------------------------------------------------------

/** What create-session answered: a session, or the reason there is none. */
export type CreateSessionOutcome =
  | {
      readonly _tag: "Created"
      readonly scanningSessionId: string
      readonly clientScanningId: string | null
      /** Canonical ISO form; null when the server left the expiry out. */
      readonly expiresAt: string | null
      readonly notes: ReadonlyArray<Note>
    }
  | {
      readonly _tag: "Rejected"
      /** A documented type; a value the spec does not list reads as ERROR_TYPE_UNSPECIFIED. */
      readonly errorType: Wire.CreateErrorType
      /** What the server sent, read as proto3 reads it: a documented number becomes its name. */
      readonly wireValue: string | number
      readonly message: string | null
      readonly notes: ReadonlyArray<Note>
    }

const readCreateResponse = Proto3.reader(Wire.CreateScanningSessionResponse, FORMATS.createResponse)

const isCreateErrorType = (t: string | number): t is Wire.CreateErrorType => typeof t === "string" && Wire.CREATE_ERROR_TYPE.names.has(t)

/** The create-session response; `MALFORMED_REQUEST` reads as MALFORMED_REQUEST_BODY, noted. */
export const decodeCreateSessionResponseEither = (json: unknown): Either.Either<CreateSessionOutcome, DecodeError> =>
  Either.flatMap(readCreateResponse(json), (read): Either.Either<CreateSessionOutcome, DecodeError> => {
    const notes = new BoundedNoteList()
    for (const i of read.ignored) notes.note("dropped", i.path, `unknown field ${previewValue(i.value)}: not in the session API's messages`)
    const { scanningSession, error } = read.value
    if (scanningSession !== undefined) {
      const id = scanningSession.scanningSessionId
      if (id === undefined || id === "") {
        return Either.left(DecodeError.at(FORMATS.createResponse, read.locate(["scanningSession", "scanningSessionId"]), id, "a scanning session id"))
      }
      const at = scanningSession.expireAtTimestamp
      const time = at === undefined ? null : canonicalTime(["scanningSession", "expireAtTimestamp"], at)
      if (time?.note) notes.add(time.note)
      const expiresAt = time?.iso ?? null
      return Either.right({
        _tag: "Created",
        scanningSessionId: id,
        clientScanningId: scanningSession.clientScanningId || null,
        expiresAt,
        notes: notes.list()
      })
    }
    const e = error!
    const wireValue = e.errorType ?? "ERROR_TYPE_UNSPECIFIED"
    let errorType: Wire.CreateErrorType = "ERROR_TYPE_UNSPECIFIED"
    if (wireValue === Wire.MALFORMED_REQUEST_ALIAS) {
      errorType = "MALFORMED_REQUEST_BODY"
      notes.note(
        "aliased",
        ["error", "errorType"],
        `${Wire.MALFORMED_REQUEST_ALIAS} read as MALFORMED_REQUEST_BODY (spec 02 shows the short name once; the enum has the long one)`
      )
    } else if (isCreateErrorType(wireValue)) errorType = wireValue
    else notes.note("assumed", ["error", "errorType"], `errorType ${previewValue(wireValue)} is not in the spec's enum: read as ERROR_TYPE_UNSPECIFIED`)
    return Either.right({ _tag: "Rejected", errorType, wireValue, message: e.message || null, notes: notes.list() })
  })

// --- Encode --------------------------------------------------------------------------------

const item = (type: string, value: string, unit: string): Wire.MeasurementItem => ({ measurementType: type, value, unit })

// The session dialect spells all six stats (its test pins them to spec 02's MeasurementType).
const STAT = sessionDialect.stats as Readonly<Record<CanonicalTarget, SessionStatSpelling>>

const writeMeasurements = (w: EncodeWalk, scan: Scan): Array<Wire.MeasurementItem> => {
  const items: Array<{ readonly number: number; readonly item: Wire.MeasurementItem }> = []
  const stat = (target: CanonicalTarget, value: number | null, path: Path) => {
    if (value === null) return
    const s = STAT[target]
    items.push({ number: s.number, item: item(s.name, String(w.integer(path, value, s.unit)), s.unit) })
  }
  const { subject, composition } = scan
  stat("subject.age", subject.age, ["subject", "age"])
  if (subject.gender !== null) {
    const s = STAT["subject.gender"]
    items.push({ number: s.number, item: item(s.name, String(GENDER_CODES[subject.gender]), s.unit) })
  }
  stat("subject.heightMm", subject.heightMm, ["subject", "heightMm"])
  stat("subject.weightG", subject.weightG, ["subject", "weightG"])
  if (composition !== null) {
    if (composition.bodyFatPercent !== null) {
      const s = STAT["composition.bodyFatPercent"]
      const pct = composition.bodyFatPercent as Percent
      const e4 = percentToE4(pct)
      if (!isExactE4(pct)) w.note("converted", ["composition", "bodyFatPercent"], `${pct} % rounded to ${e4} PERCENTAGE_E4 (${e4ToPercent(e4)} %)`)
      items.push({ number: s.number, item: item(s.name, String(e4), s.unit) })
    }
    stat("composition.skeletalMuscleMassG", composition.skeletalMuscleMassG, ["composition", "skeletalMuscleMassG"])
    if (composition.bodyFatMassG !== null)
      w.note("dropped", ["composition", "bodyFatMassG"], `${composition.bodyFatMassG} g: the session API has no body fat mass`)
    if (composition.leanMassG !== null) w.note("dropped", ["composition", "leanMassG"], `${composition.leanMassG} g: the session API has no lean mass`)
  }
  for (const { name, spelling } of sessionDialect.measurementList) {
    const v = scan.measurementsMm[name]
    if (v !== undefined)
      items.push({ number: spelling.number, item: item(spelling.name, String(w.integer(["measurementsMm", name], v, "mm")), Wire.LENGTH_UNIT) })
  }
  // The server lists items in enum order.
  return items.sort((a, b) => a.number - b.number).map((i) => i.item)
}

const writePosture = (p: NonNullable<Scan["posture"]>): Wire.Posture => {
  const { front, right } = postureIn(POSTURE, Wire.ANGLE_DEGREES, p)
  return { ...(front === null ? {} : { front }), ...(right === null ? {} : { right }) }
}

const writeAvatar = (w: EncodeWalk, a: Scan["avatar"]): typeof Wire.Avatar.Type | undefined => {
  if (a === null) return undefined
  if (a.format !== "vertices") {
    w.note("dropped", ["avatar"], `the ${a.format} model file: the session API's avatar is a vertex list`)
    return undefined
  }
  return { meshVerticesOnly: { vertices: a.vertices ?? [] } }
}

/** Scan failure -> results error: session codes as they are, any other code inside the message. */
const writeError = (w: EncodeWalk, f: NonNullable<Scan["failure"]>): typeof Wire.ResultsError.Type => {
  if (Wire.RESULTS_ERROR_TYPE.names.has(f.code)) {
    if (f.category !== categoryOf(f.code)) w.note("dropped", ["failure", "category"], `category ${f.category}: the session error holds only its type`)
    return { errorType: f.code, ...(f.message === null ? {} : { message: f.message }) }
  }
  // Photo problems are what the session API reports as invalid user input.
  const type = f.category === "session" || f.category === "unknown" ? "INTERNAL_ERROR" : "INVALID_USER_INPUT"
  w.note("converted", ["failure", "code"], `code ${f.code} (${f.category}) written as ${type}, the code kept in the message`)
  return { errorType: type, message: f.message === null ? f.code : `${f.code}: ${f.message}` }
}

const SESSION_ID = { api: "session", field: "scanningSessionId", notA: "an SSID" } as const

const printResults = Proto3.printer(Wire.ScanningResults)

/**
 * The ScanningResults the legacy server would have printed for a canonical scan. What the
 * session API cannot hold (composition masses, a model-file avatar, adjustment, notes, ...)
 * is left out with a note. Fails only where no ScanningResults can say it.
 */
export const encodeResultsEither = (scan: Scan): Either.Either<Encoded<Wire.ScanningResultsJson>, EncodeError> => {
  const w = new EncodeWalk(FORMATS.results)
  return runWalk<Encoded<Wire.ScanningResultsJson>, EncodeError>(() => {
    const id = sourceIdFor(w, scan, SESSION_ID) ?? undefined
    w.dropIf(scan.createdAt !== null, ["createdAt"], `${scan.createdAt}: ScanningResults carry no creation time`)
    w.dropIf(scan.method !== null && scan.method !== "photo", ["method"], `method ${scan.method}: the session API runs photo scans only`)
    w.dropIf(scan.adjustment !== null, ["adjustment"], "the session API has no adjusted scans")
    w.dropIf(scan.status !== "pending" && scan.expiresAt !== null, ["expiresAt"], `${scan.expiresAt}: only a pending session carries its expiry`)
    w.dropIf(scan.notes.length > 0, ["notes"], `${scan.notes.length} note(s): ScanningResults have no place for notes`)
    const head = {
      ...(id === undefined ? {} : { scanningSessionId: id }),
      ...(scan.externalId === null ? {} : { clientScanningId: scan.externalId })
    }
    let body: Partial<Wire.ScanningResultsJson>
    if (scan.status === "success") {
      const avatar = writeAvatar(w, scan.avatar)
      body = {
        results: {
          measurements: writeMeasurements(w, scan),
          ...(avatar === undefined ? {} : { avatar }),
          ...(scan.posture === null ? {} : { posture: writePosture(scan.posture) })
        }
      }
    } else {
      const results = Object.keys(scan.measurementsMm).length > 0 || scan.composition !== null || scan.posture !== null || scan.avatar !== null
      w.dropIf(results, ["measurementsMm"], `results of a ${scan.status} scan: ScanningResults carry results only on success`)
      const subject = Object.values(scan.subject).some((v) => v !== null)
      w.dropIf(subject, ["subject"], `the subject of a ${scan.status} scan: ScanningResults carry it only with results`)
      body =
        scan.status === "pending"
          ? { pending: scan.expiresAt === null ? {} : { expireAtTimestamp: scan.expiresAt } }
          : { error: writeError(w, scan.failure ?? w.fail(["failure"], null, "a failed scan needs its failure")) }
    }
    return { value: printResults({ ...head, ...body }), notes: w.notes }
  })
}
