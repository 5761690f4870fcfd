/**
 * Fit wire <-> canonical. The client library's estimation result is a canonical Scan (the
 * estimation token as its source id); size recommendations and size fitting results are
 * canonical fit documents, `scanbridge.size/v1`. The snake_case keys of the spec's examples
 * read with an `aliased` note; responses with an `error` are Rejected outcomes.
 */
import { Either } from "effect"
import {
  Catalogue,
  DecodeError,
  type DecodeOptions,
  type EncodeError,
  type Encoded,
  GENDER_CODES,
  LENGTH_UNITS_ACCEPTED,
  type LengthUnit,
  type Note,
  type Path,
  type PathSegment,
  type ProductId,
  Proto3,
  type Scan,
  type ScanInit,
  type SizeDocument,
  type SizeFit,
  convertLength,
  lengthUnitOf,
  makeSizeDocument
} from "@scanbridge/model"
import {
  DecodeWalk,
  EncodeWalk,
  MeasurementsBuilder,
  BoundedNoteList,
  measurementIndex,
  runWalk,
  genderOfCode,
  previewValue,
  sourceIdFor,
  walkScan
} from "@scanbridge/model/adapter"
import { FIT_UNITS as UNITS, fitDialect, fittingPointDisplayName } from "./dialect.js"
import * as Wire from "./wire.js"

export const FORMATS = {
  estimationResult: "fit estimation result",
  createSession: "fit CreateSession response",
  recommendedSize: "fit GetRecommendedSize response",
  sizeRecommendations: "fit size recommendations",
  sizeFitting: "fit size fitting result"
} as const

/** What the proto3 reader renamed and ignored, as notes: those under item `index` only, when given. */
const noteAliases = (notes: DecodeWalk | BoundedNoteList, read: Proto3.Read<unknown>, index?: number): void => {
  for (const r of read.renamed) {
    if (index === undefined || r.path[0] === index) notes.note("aliased", r.path, `${r.from} read as ${String(r.path[r.path.length - 1])}`)
  }
  for (const i of read.ignored) {
    if (index === undefined || i.path[0] === index)
      notes.note("dropped", i.path, `unknown key = ${previewValue(i.value)}: the canonical form has no place for it`)
  }
}

const aliasNotes = (read: Proto3.Read<unknown>, index?: number): BoundedNoteList => {
  const notes = new BoundedNoteList()
  noteAliases(notes, read, index)
  return notes
}

// --- Estimation result <-> Scan -----------------------------------------------------------

const readEstimation = Proto3.reader(Wire.EstimationResult, FORMATS.estimationResult)
// /^-?\d+(\.\d+)?$/ as a loop over char codes: it runs once per item of a bulk migration.
/** @internal */
export const isDecimal = (s: string): boolean => {
  let i = s.charCodeAt(0) === 45 ? 1 : 0
  const start = i
  let c = s.charCodeAt(i)
  while (c >= 48 && c <= 57) c = s.charCodeAt(++i)
  if (i === start) return false
  if (i === s.length) return true
  if (c !== 46) return false
  const fraction = ++i
  c = s.charCodeAt(i)
  while (c >= 48 && c <= 57) c = s.charCodeAt(++i)
  return i > fraction && i === s.length
}

/** The value of item `i`, a number written as a string. */
const numberOf = (w: DecodeWalk, i: number, value: string | number | undefined): number => {
  if (typeof value === "number" && !Number.isFinite(value)) return w.fail(itemPath(i, "value"), value, "a finite number")
  if (typeof value !== "number" && (value === undefined || !isDecimal(value)))
    return w.fail(itemPath(i, "value"), value, 'a number, written as a string like "1234"')
  const n = Number(value)
  if (Math.abs(n) > Number.MAX_SAFE_INTEGER) return w.fail(itemPath(i, "value"), value, "a value up to 2^53 - 1: a larger one has no exact double")
  return n
}

// Paths are built only when a note or an error needs one: most records need none.
const itemPath = (i: number, ...rest: ReadonlyArray<PathSegment>): Path => ["estimations", "measurements", i, ...rest]

type Subject = { age?: number; gender?: "male" | "female"; heightMm?: number; weightG?: number }

type Target =
  | { readonly kind: "length"; readonly index: number; readonly unit: string }
  | { readonly kind: "stat"; readonly field: keyof Subject; readonly unit: string }

// One lookup per item: every fit estimationType, length or stat, with the unit spec 03 gives it.
// The fit service's stats are all of the subject.
const TARGETS = new Map<string, Target>([
  ...fitDialect.statList.flatMap(
    ({ target, spelling }): Array<[string, Target]> =>
      !target.startsWith("subject.") ? [] : [[spelling.name, { kind: "stat", field: target.slice("subject.".length) as keyof Subject, unit: spelling.unit }]]
  ),
  ...fitDialect.measurementList.map(({ name, spelling }): [string, Target] => [
    spelling.name,
    { kind: "length", index: measurementIndex(name), unit: UNITS.length }
  ])
])

// Where the walk notes how the lengths were read, and refuses them when they are plausible only in another unit.
const LENGTHS_PATH: Path = ["estimations", "measurements"]

const assumeUnit = (w: DecodeWalk, i: number, type: string, unit: string): void =>
  w.note("assumed", itemPath(i, "unit"), `${type} without a unit: read in ${unit}, the unit spec 03 gives it`)

/**
 * The unit an item states for a length (spec 03's MILLIMETERS, or another spelling of a length
 * unit: `mm`, `CENTIMETERS`, `INCHES`), its format's millimetres when it states none (noted).
 */
const statedLength = (w: DecodeWalk, i: number, type: string, unit: string): LengthUnit => {
  // Spec 03's own spelling, as nearly every item states it, without lengthUnitOf's lower-cased copy.
  if (unit === UNITS.length) return "mm"
  if (unit === "") {
    assumeUnit(w, i, type, UNITS.length)
    return "mm"
  }
  return lengthUnitOf(unit) ?? w.fail(itemPath(i, "unit"), unit, `a length unit for ${type}: ${LENGTH_UNITS_ACCEPTED}`)
}

const readItems = (w: DecodeWalk, items: ReadonlyArray<Wire.EstimationItem>) => {
  const measurements = new MeasurementsBuilder()
  const subject: Subject = {}
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    let type = item.estimationType ?? ""
    let target = TARGETS.get(type)
    if (target === undefined) {
      const alias = fitDialect.measurementByAlias(type)
      if (alias === undefined) {
        const guess = fitDialect.suggest(type)
        w.note("dropped", itemPath(i), `unknown estimationType ${previewValue(type)}${guess ? ` (did you mean ${guess.name}?)` : ""}`)
        continue
      }
      w.aliased(itemPath(i, "estimationType"), type, alias.spelling.name)
      type = alias.spelling.name
      target = TARGETS.get(type)!
    }
    // Every item that gets this far sets its value or fails the record: a set value is a repeat.
    if (target.kind === "length" ? measurements.hasAt(target.index) : subject[target.field] !== undefined) {
      w.note("dropped", itemPath(i), `second ${type} (${item.value}); the first one is kept`)
      continue
    }
    const unit = item.unit ?? ""
    if (target.kind === "length") {
      const stated = statedLength(w, i, type, unit)
      const value = numberOf(w, i, item.value)
      if (value < 0) w.fail(itemPath(i, "value"), item.value, `a ${type} of at least 0`)
      // A record may state several units: the walk converts each length from its own, noting each unit once.
      measurements.setAt(target.index, w.lengthMm(value, stated, LENGTHS_PATH))
      continue
    }
    const expected = target.unit
    // The stature may be stated in any length unit: converted, with a note.
    const height = target.field === "heightMm" && unit !== "" && unit !== expected ? lengthUnitOf(unit) : undefined
    if (unit === "") assumeUnit(w, i, type, expected)
    else if (unit !== expected && height === undefined) w.fail(itemPath(i, "unit"), unit, `${expected}: spec 03 measures ${type} in ${expected}`)
    const value = numberOf(w, i, item.value)
    if (target.field === "gender") {
      subject.gender = genderOfCode(value) ?? w.fail(itemPath(i, "value"), item.value, "a GENDER code: 1 (male) or 2 (female)")
    } else {
      if (value < 0) w.fail(itemPath(i, "value"), item.value, `a ${type} of at least 0`)
      if (target.field === "age" && !Number.isInteger(value)) w.fail(itemPath(i, "value"), item.value, "whole years")
      if (height === undefined || height === "mm") subject[target.field] = value
      else {
        subject.heightMm = convertLength(value, height, "mm")
        w.note("converted", itemPath(i, "value"), `${type} ${value} ${unit} converted to ${subject.heightMm} mm`)
      }
    }
  }
  return { measurementsMm: measurements.build(), subject }
}

const methodOf = (w: DecodeWalk, inputType: string | undefined): Scan["method"] => {
  const path = ["estimations", "input", "inputType"]
  if (inputType === undefined) return null
  if (!Object.hasOwn(Wire.INPUT_TYPES, inputType)) {
    w.note("dropped", path, `unknown inputType ${previewValue(inputType)}: the method is unknown`)
    return null
  }
  if (inputType === "INPUT_TYPE_UNSPECIFIED") w.note("assumed", path, "INPUT_TYPE_UNSPECIFIED read as a selfie, as spec 03 says clients treat it")
  return Wire.INPUT_TYPES[inputType as Wire.InputType]
}

const readAvatar = (w: DecodeWalk, data: unknown): Scan["avatar"] => {
  if (data === undefined || data === null || (Array.isArray(data) && data.length === 0)) return null
  // Its shape is not shown: a vertex list and a base64 model are recognised, nothing is guessed.
  if (Array.isArray(data) && data.length % 3 === 0 && data.every((v) => typeof v === "number" && Number.isFinite(v))) {
    w.note("assumed", ["estimations", "avatarData"], `a list of ${data.length} numbers read as x, y, z vertices`)
    return { format: "vertices", type: null, data: null, vertices: data as Array<number> }
  }
  w.note("dropped", ["estimations", "avatarData"], `avatarData ${previewValue(data)}: its shape is not shown in spec 03`)
  return null
}

/**
 * The client library's estimation result as a canonical scan: a success whose source id is
 * the estimation token and whose method comes from inputType. Lengths are read in the unit each
 * item states (another spelling of a length unit too), or the caller's `lengthUnit`, and judged
 * against the body (`DecodeWalk.lengthMm`). Never throws.
 */
export const decodeEstimationResultEither = (json: unknown, options?: DecodeOptions): Either.Either<Scan, DecodeError> => {
  const result = readEstimation(json)
  if (Either.isLeft(result)) return Either.left(result.left)
  const read = result.right
  return walkScan(
    FORMATS.estimationResult,
    [],
    (w): ScanInit => {
      // Most records are printed exactly: nothing to note, and no arrays made to say so.
      if (read.renamed.length > 0 || read.ignored.length > 0) noteAliases(w, read)
      const e = read.value.estimations
      const input = e.input
      const system = input?.preferredSystemOfMeasurement === undefined ? "" : `preferredSystemOfMeasurement ${input.preferredSystemOfMeasurement}`
      const tightness = input?.tightness === undefined ? "" : `tightness ${input.tightness}`
      const extras = system === "" ? tightness : tightness === "" ? system : `${system}, ${tightness}`
      if (extras !== "") w.note("dropped", ["estimations", "input"], `${extras}: preferences of the request, not of the body`)
      const token = e.estimationToken?.token
      const method = methodOf(w, input?.inputType)
      const items = readItems(w, e.measurements ?? [])
      return {
        source: { api: "fit", id: token === undefined || token === "" ? null : token },
        status: "success",
        method,
        measurementsMm: items.measurementsMm,
        subject: items.subject,
        avatar: readAvatar(w, e.avatarData)
      }
    },
    read.locate,
    options
  )
}

const FIT_TOKEN = {
  api: "fit",
  field: "estimation token",
  notA: "a token the fit service issued",
  required: "a fit estimation needs its estimation token",
  emptyIsNone: true
} as const
// The fit dialect spells every subject stat (its test pins them to spec 03).
const SUBJECT = {
  age: fitDialect.stats["subject.age"]!,
  gender: fitDialect.stats["subject.gender"]!,
  weightG: fitDialect.stats["subject.weightG"]!,
  heightMm: fitDialect.stats["subject.heightMm"]!
}

const INPUT_TYPE_OF: Record<NonNullable<Scan["method"]>, Wire.InputType> = {
  photo: "CAMERA_FLOW",
  selfie: "SELFIE_FLOW",
  stats: "MANUAL_STATS",
  adjusted: "MANUAL_STATS"
}

/**
 * The client library's estimation result for a canonical scan: a success only (the library
 * resolves with results or rejects). The token is the scan's source id.
 */
export const encodeEstimationResultEither = (scan: Scan): Either.Either<Encoded<Wire.EstimationResultJson>, EncodeError> => {
  const w = new EncodeWalk(FORMATS.estimationResult)
  return runWalk<Encoded<Wire.EstimationResultJson>, EncodeError>(() => {
    if (scan.status !== "success") w.fail(["status"], scan.status, "the client library resolves with a successful estimation only")
    const token = sourceIdFor(w, scan, FIT_TOKEN)
    const method = scan.method
    if (method === null) w.note("assumed", ["method"], "no method: written as INPUT_TYPE_UNSPECIFIED")
    if (method === "adjusted") w.note("converted", ["method"], "adjusted written as MANUAL_STATS: the client library has no adjusted scans")
    const items: Array<Wire.EstimationItem> = []
    const { age, gender, heightMm, weightG } = scan.subject
    const stat = (name: string, value: number | null, path: Path, unit: string) =>
      value !== null && items.push({ estimationType: name, value: String(w.integer(path, value, unit)), unit })
    stat(SUBJECT.age.name, age, ["subject", "age"], SUBJECT.age.unit)
    if (gender !== null) items.push({ estimationType: SUBJECT.gender.name, value: String(GENDER_CODES[gender]), unit: SUBJECT.gender.unit })
    stat(SUBJECT.weightG.name, weightG, ["subject", "weightG"], SUBJECT.weightG.unit)
    stat(SUBJECT.heightMm.name, heightMm, ["subject", "heightMm"], SUBJECT.heightMm.unit)
    for (const { name } of Catalogue.measurements) {
      const v = scan.measurementsMm[name]
      if (v === undefined) continue
      const type = fitDialect.measurements[name]
      if (type === null) w.note("dropped", ["measurementsMm", name], `${v} mm: the fit estimation has no ${name}`)
      else stat(type.name, v, ["measurementsMm", name], UNITS.length)
    }
    w.dropIf(scan.composition !== null, ["composition"], "the fit estimation has no body composition")
    w.dropIf(scan.posture !== null, ["posture"], "the fit estimation has no posture")
    w.dropIf(scan.avatar !== null, ["avatar"], "avatarData's shape is not shown in spec 03: left null")
    w.dropIf(scan.adjustment !== null, ["adjustment"], "the fit estimation has no adjustment")
    w.dropIf(scan.createdAt !== null, ["createdAt"], `${scan.createdAt}: the fit estimation has no time`)
    w.dropIf(scan.externalId !== null, ["externalId"], `${scan.externalId}: the fit estimation has no id of the integrator's`)
    w.dropIf(scan.notes.length > 0, ["notes"], `${scan.notes.length} note(s): the fit estimation has no place for notes`)
    return {
      value: {
        estimations: {
          estimationToken: { token },
          measurements: items,
          avatarData: null,
          input: { preferredSystemOfMeasurement: "METRIC", tightness: 0, inputType: method === null ? "INPUT_TYPE_UNSPECIFIED" : INPUT_TYPE_OF[method] }
        }
      },
      notes: w.notes
    }
  })
}

// --- Rejections ---------------------------------------------------------------------------

/** What an endpoint answered with `error`: its type (documented numbers read as names) and message. */
export interface Rejected {
  readonly _tag: "Rejected"
  /** A name of the endpoint's enum, or ERROR_TYPE_UNSPECIFIED for a value it does not list. */
  readonly errorType: string
  readonly wireValue: string | number
  readonly message: string | null
  readonly notes: ReadonlyArray<Note>
}

const rejected = (type: Proto3.EnumType, error: { readonly errorType?: string | number; readonly message?: string }, notes: BoundedNoteList): Rejected => {
  const wireValue = error.errorType ?? "ERROR_TYPE_UNSPECIFIED"
  const known = typeof wireValue === "string" && type.names.has(wireValue)
  if (!known)
    notes.note("assumed", ["error", "errorType"], `errorType ${previewValue(wireValue)} is not in the ${type.name} enum: read as ERROR_TYPE_UNSPECIFIED`)
  return { _tag: "Rejected", errorType: known ? wireValue : "ERROR_TYPE_UNSPECIFIED", wireValue, message: error.message || null, notes: notes.list() }
}

// --- CreateSession ------------------------------------------------------------------------

export interface Supported {
  readonly _tag: "Support"
  readonly status: Wire.SupportStatus
  /** True only for SUPPORTED: UNSPECIFIED says nothing, so it is not support. */
  readonly supported: boolean
  readonly sessionId: string | null
  readonly product: ProductId | null
  readonly notes: ReadonlyArray<Note>
}

const readCreateSession = Proto3.reader(Wire.CreateSessionResponse, FORMATS.createSession)

const productOf = (p: typeof Wire.ProductId.Type | undefined): ProductId | null =>
  p === undefined ? null : { brandId: p.brandId ?? "", garmentSku: p.garmentSku ?? "" }

export const decodeCreateSessionResponseEither = (json: unknown): Either.Either<Supported | Rejected, DecodeError> =>
  Either.map(readCreateSession(json), (read): Supported | Rejected => {
    const notes = aliasNotes(read)
    const { support, error } = read.value
    if (error !== undefined) return rejected(Wire.CREATE_SESSION_ERROR_TYPE, error, notes)
    const raw = support!.supported ?? "SUPPORT_STATUS_UNSPECIFIED"
    const status: Wire.SupportStatus =
      typeof raw === "string" && Wire.SUPPORT_STATUS.names.has(raw) ? (raw as Wire.SupportStatus) : "SUPPORT_STATUS_UNSPECIFIED"
    if (status !== raw) notes.note("assumed", ["support", "supported"], `${previewValue(raw)} is not a SupportStatus: read as SUPPORT_STATUS_UNSPECIFIED`)
    return {
      _tag: "Support",
      status,
      supported: status === "SUPPORTED",
      sessionId: support!.sessionId || null,
      product: productOf(support!.productId),
      notes: notes.list()
    }
  })

// --- Size documents -----------------------------------------------------------------------

/** What the request said, which the response does not repeat. */
export interface SizeContext {
  readonly estimationToken?: string | null
  readonly product?: ProductId | null
}

const sizeDocument = (format: string, base: Path, init: Parameters<typeof makeSizeDocument>[0]): Either.Either<SizeDocument, DecodeError> =>
  Either.mapLeft(makeSizeDocument(init), (v) =>
    DecodeError.fromIssues(
      format,
      v.issues.map((i) => ({ ...i, path: [...base, ...i.path] })),
      v.omitted
    )
  )

const readRecommended = Proto3.reader(Wire.GetRecommendedSizeResponse, FORMATS.recommendedSize)

export interface Recommended {
  readonly _tag: "Recommended"
  readonly document: SizeDocument
}

/** A GetRecommendedSize response: the recommended size as a fit document, or the rejection. */
export const decodeRecommendedSizeResponseEither = (json: unknown, context: SizeContext = {}): Either.Either<Recommended | Rejected, DecodeError> =>
  Either.flatMap(readRecommended(json), (read): Either.Either<Recommended | Rejected, DecodeError> => {
    const notes = aliasNotes(read)
    const { recommendation, error } = read.value
    if (error !== undefined) return Either.right(rejected(Wire.RECOMMENDED_SIZE_ERROR_TYPE, error, notes))
    const size = recommendation!.recommendedSize
    if (size === undefined || size === "") {
      return Either.left(DecodeError.at(FORMATS.recommendedSize, read.locate(["recommendation", "recommendedSize"]), size, "a size label"))
    }
    return Either.map(
      sizeDocument(FORMATS.recommendedSize, [], {
        estimationToken: context.estimationToken ?? null,
        product: context.product ?? null,
        recommendedSize: size,
        notes: notes.list()
      }),
      (document): Recommended => ({ _tag: "Recommended", document })
    )
  })

const readRecommendations = Proto3.reader(Wire.SizeRecommendations, FORMATS.sizeRecommendations)

/**
 * getFitSizeRecommendation's array, one document per product in the request's order (the
 * response does not repeat the products: pass them to have them in the documents).
 */
export const decodeSizeRecommendationsEither = (
  json: unknown,
  context: { readonly estimationToken?: string | null; readonly products?: ReadonlyArray<ProductId> } = {}
): Either.Either<ReadonlyArray<SizeDocument>, DecodeError> =>
  Either.flatMap(readRecommendations(json), (read) => {
    const products = context.products
    if (products !== undefined && products.length !== read.value.length) {
      return Either.left(DecodeError.at(FORMATS.sizeRecommendations, [], `${read.value.length} items`, `one item per product (${products.length})`))
    }
    return Either.all(
      read.value.map((item, i) => {
        const mine = aliasNotes(read, i)
        const size = item.recommendation?.recommendedSize || null
        if (size === null) mine.note("assumed", [i, "recommendation"], "no recommended size for this product: recorded as null")
        return sizeDocument(FORMATS.sizeRecommendations, [i], {
          estimationToken: context.estimationToken ?? null,
          product: products?.[i] ?? null,
          recommendedSize: size,
          notes: mine.list()
        })
      })
    )
  })

const readFitting = Proto3.reader(Wire.SizeFitting, FORMATS.sizeFitting)

const sizeFit = (w: DecodeWalk, at: Path, item: (typeof Wire.SizeItem)["Type"]): SizeFit => {
  // Missing numbers are unknown (null), not proto3's 0: a rank of 0 would be a claim.
  const finite = (path: Path, v: number | undefined) => (v === undefined ? null : Number.isFinite(v) ? v : w.fail([...at, ...path], v, "a finite number"))
  const index = item.size?.index
  if (index !== undefined && !Number.isInteger(index)) w.fail([...at, "size", "index"], index, "a whole size index")
  const name = item.size?.name ?? ""
  if (name === "") w.fail([...at, "size", "name"], item.size?.name, "a size name")
  return {
    index: index ?? null,
    name,
    rank: finite(["recommendationRank"], item.recommendationRank),
    neutralRank: finite(["neutralRecommendationRank"], item.neutralRecommendationRank),
    tightness: finite(["tightness"], item.tightness),
    fittingPoints: (item.fittingPoints ?? []).map((p, j) => {
      const point = p.fittingPoint ?? ""
      const displayName = fittingPointDisplayName(point) ?? null
      if (displayName === null) w.note("assumed", [...at, "fittingPoints", j], `fitting point ${previewValue(point)} is not in spec 03's list: no display name`)
      return { point, displayName, tightness: finite(["fittingPoints", j, "tightness"], p.tightness) }
    })
  }
}

/**
 * getFitSizeFitting's array, one document per product. The recommended size is the size of
 * rank 1 (the spec shows ranks, not which one is recommended), with an `assumed` note.
 */
export const decodeSizeFittingEither = (
  json: unknown,
  context: { readonly products?: ReadonlyArray<ProductId> } = {}
): Either.Either<ReadonlyArray<SizeDocument>, DecodeError> =>
  Either.flatMap(readFitting(json), (read) => {
    const products = context.products
    if (products !== undefined && products.length !== read.value.length) {
      return Either.left(DecodeError.at(FORMATS.sizeFitting, [], `${read.value.length} items`, `one item per product (${products.length})`))
    }
    return Either.all(
      read.value.map((item, i) =>
        Either.flatMap(
          runWalk<Parameters<typeof makeSizeDocument>[0], DecodeError>(() => {
            const w = new DecodeWalk(FORMATS.sizeFitting, [], read.locate)
            noteAliases(w, read, i)
            const result = item.result
            const groups = result?.sizeGroups ?? []
            if (groups.length > 0) w.note("dropped", [i, "result", "sizeGroups"], `${groups.length} size group(s): their shape is not shown in spec 03`)
            const sizes = (result?.sizes ?? []).map((s, j) => sizeFit(w, [i, "result", "sizes", j], s))
            const best = sizes.filter((s) => s.rank === 1)
            if (best.length === 1) w.note("assumed", [i, "result", "sizes"], `${best[0]!.name} read as the recommended size: it has recommendationRank 1`)
            const token = result?.estimationToken?.token
            return {
              estimationToken: token === undefined || token === "" ? null : token,
              product: products?.[i] ?? null,
              recommendedSize: best.length === 1 ? best[0]!.name : null,
              sizes,
              notes: w.notes
            }
          }),
          (init) => sizeDocument(FORMATS.sizeFitting, [i], init)
        )
      )
    )
  })
