/**
 * FHIR -> canonical: a bundle of Scanbridge scan panels (a transaction as `toFhir` writes it, or a
 * server's searchset of them, a collection, a batch), or a bare panel with its members contained,
 * back to the scans. Each panel is one scan; its members are found by reference and placed by
 * their Scanbridge code (or a LOINC code of the table, `aliased`), their values converted from the
 * UCUM unit they state. Whatever a scan cannot hold is noted as dropped; a value that cannot be
 * read as stated (a unit missing, unknown or of the wrong kind, a member that is not there) is a
 * DecodeError naming its path and value: wrong data is worse than missing data.
 *
 * Decisions where FHIR says more than a scan holds:
 * - A server's bookkeeping (`id`, `meta.versionId`, `lastUpdated`, `source`, a bundle's `total`
 *   and `timestamp`, an entry's `request`, `response`, `search`) and the profiles a resource
 *   claims are not the scan's, and are read without a note; so are a member's own identifier,
 *   category and device (all derived from the panel's when written).
 * - Panel status: final -> success; amended and corrected -> success, `assumed`; cancelled ->
 *   failure; registered -> pending. preliminary (values that may still change), entered-in-error
 *   (withdrawn) and unknown are refused: no scan is better than a wrong one. A member whose
 *   status is not final, amended or corrected is dropped with a note, for the same reason.
 * - effectiveDateTime: the canonical instant as it is; another RFC 3339 form converted to it
 *   (`converted`, naming any digits below a millisecond). A date without a time, or a time without
 *   the zone FHIR requires with one, is no instant: createdAt stays null, `dropped` with its value
 *   (assuming midnight or UTC would make a time up).
 * - Gender: administrative-gender male and female are the body model's; other and unknown are
 *   not a body model's, and are dropped with a note rather than guessed.
 * - BMI is derived from height and weight, never stored: it is read to check them. It is noted
 *   as dropped only where it disagrees with them by more than the rounding of the three values
 *   as written (half a unit in the last decimal place of each), or where they are not both given.
 */
import { Either, Option } from "effect"
import {
  DecodeError,
  type DecodeOptions,
  FailureCategory,
  type LengthUnit,
  type MassUnit,
  type MeasurementName,
  Method,
  type Note,
  NoteKind,
  type Path,
  Proto3,
  type Scan,
  type ScanInit,
  convertLength,
  convertMass,
  formatPath,
  isRecord,
  makeNote
} from "@scanbridge/model"
import {
  BoundedNoteList,
  type DecodeWalk,
  type ExactRead,
  MeasurementsBuilder,
  type UnknownKey,
  exactSchemaDecoder,
  isUtcTimestamp,
  measurementIndex,
  previewValue,
  walkScan
} from "@scanbridge/model/adapter"
import { CONTENT_ID_SYSTEM, DEVICE_ID_SYSTEM, EXTERNAL_ID_SYSTEM, FORMATS, SOURCE_ID_SYSTEM } from "./codec.js"
import {
  ADMINISTRATIVE_GENDER_SYSTEM,
  DATA_ABSENT_REASON_SYSTEM,
  FAILURE_CATEGORY_SYSTEM,
  FAILURE_CODE_SYSTEM,
  FHIR_UNITS,
  FIXED_UNITS,
  type FhirCode,
  type FhirTarget,
  LOINC_SYSTEM,
  METHOD_CODE_SYSTEM,
  PANEL_CODE,
  SCAN_CODE_SYSTEM,
  UCUM_SYSTEM,
  codeOf,
  loincOf
} from "./dialect.js"
import * as Wire from "./wire.js"

// --- Detection ----------------------------------------------------------------------------

const isPanelCode = (code: unknown): boolean => {
  if (!isRecord(code)) return false
  const coding = code["coding"]
  if (!Array.isArray(coding)) return false
  for (const c of coding) if (isRecord(c) && c["system"] === SCAN_CODE_SYSTEM && c["code"] === PANEL_CODE.code) return true
  return false
}

/** An Observation coded as Scanbridge's scan panel: a server's stored panel, its members contained. */
export const isScanPanel = (json: unknown): boolean => isRecord(json) && json["resourceType"] === "Observation" && isPanelCode(json["code"])

/** A Bundle of any type with at least one scan panel among its entries. */
export const isScanBundle = (json: unknown): boolean => {
  if (!isRecord(json) || json["resourceType"] !== "Bundle") return false
  const entry = json["entry"]
  if (!Array.isArray(entry)) return false
  for (const e of entry) if (isRecord(e) && isScanPanel(e["resource"])) return true
  return false
}

// --- Finding a panel's members ------------------------------------------------------------

/** A resource and where it is in the input. */
interface Located {
  readonly resource: unknown
  readonly path: Path
  /** Its index among the bundle's entries, or among the panel's contained resources. */
  readonly index: number
  readonly contained: boolean
}

type Resolved = Located | { readonly problem: string }

// Several entries under one name: a reference to it would be a guess.
const AMBIGUOUS = -1

const RELATIVE = /^[A-Z][A-Za-z]{1,63}\/[A-Za-z0-9\-.]{1,64}$/
const TYPE = /^[A-Z][A-Za-z]{1,63}$/

/** `https://server/fhir/` of `https://server/fhir/Observation/123`: the base a relative reference resolves against. */
const restBaseOf = (fullUrl: string): string | undefined => {
  const last = fullUrl.lastIndexOf("/")
  const before = last > 0 ? fullUrl.lastIndexOf("/", last - 1) : -1
  return before >= 0 && TYPE.test(fullUrl.slice(before + 1, last)) ? fullUrl.slice(0, before + 1) : undefined
}

/** A bundle's entries by fullUrl and by `Type/id`, as FHIR resolves references inside a bundle. */
class BundleIndex {
  private readonly byUrl = new Map<string, number>()
  private readonly byTypeId = new Map<string, number>()
  constructor(readonly entries: ReadonlyArray<typeof Wire.BundleEntryIn.Type>) {
    entries.forEach((e, i) => {
      if (e.fullUrl !== undefined) this.byUrl.set(e.fullUrl, this.byUrl.has(e.fullUrl) ? AMBIGUOUS : i)
      const r = e.resource
      if (r !== undefined && typeof r["id"] === "string") {
        const key = `${r.resourceType}/${r["id"]}`
        this.byTypeId.set(key, this.byTypeId.has(key) ? AMBIGUOUS : i)
      }
    })
  }
  /** The entry `reference` names, from the entry at `from`: its fullUrl, or relative to that entry's base. */
  resolve(reference: string, from: number): Resolved {
    let i = this.byUrl.get(reference)
    if (i === undefined && RELATIVE.test(reference)) {
      const fullUrl = this.entries[from]?.fullUrl
      const base = fullUrl === undefined ? undefined : restBaseOf(fullUrl)
      i = (base === undefined ? undefined : this.byUrl.get(base + reference)) ?? this.byTypeId.get(reference)
    }
    if (i === undefined) return { problem: "no entry of the bundle has this fullUrl (or this type and id)" }
    if (i === AMBIGUOUS) return { problem: "more than one entry of the bundle has this fullUrl (or this type and id)" }
    return { resource: this.entries[i]!.resource, path: ["entry", i, "resource"], index: i, contained: false }
  }
}

const containedOf = (panel: Wire.ObservationIn, at: Path): ((id: string) => Resolved) => {
  let byId: Map<string, number> | undefined
  return (id) => {
    const contained = panel.contained ?? []
    if (byId === undefined) {
      byId = new Map()
      contained.forEach((c, i) => {
        if (isRecord(c) && typeof c["id"] === "string") byId!.set(c["id"], byId!.has(c["id"]) ? AMBIGUOUS : i)
      })
    }
    const i = byId.get(id)
    if (i === undefined) return { problem: `no contained resource of the panel has the id ${previewValue(id)}` }
    if (i === AMBIGUOUS) return { problem: `more than one contained resource of the panel has the id ${previewValue(id)}` }
    return { resource: contained[i], path: [...at, "contained", i], index: i, contained: true }
  }
}

/** One member as read, and where it is. */
interface Member {
  readonly read: ExactRead<Wire.ObservationIn>
  readonly path: Path
}

/** A panel and everything it refers to, read before its scan is built. */
interface Gathered {
  readonly panel: ExactRead<Wire.ObservationIn>
  readonly path: Path
  readonly members: ReadonlyArray<Member>
  /** The Device the panel names, where it is in the input. */
  readonly device: Located | undefined
  /** The indices of the panel's contained resources that it refers to. */
  readonly containedUsed: ReadonlySet<number>
}

/** The errors of a resource read on its own, at its place in the input. */
const under = (path: Path, e: DecodeError): DecodeError =>
  path.length === 0
    ? e
    : DecodeError.fromIssues(
        e.format,
        e.issues.map((i) => ({ ...i, path: [...path, ...i.path] })),
        e.omitted
      )

const observationReaders = {
  [FORMATS.bundle]: exactSchemaDecoder(Wire.ObservationIn, FORMATS.bundle),
  [FORMATS.panel]: exactSchemaDecoder(Wire.ObservationIn, FORMATS.panel)
}
type Format = keyof typeof observationReaders

/**
 * Reads a panel and resolves its members (and its Device) with `resolve`: a reference that
 * reaches nothing, or something other than an Observation, refuses the record.
 */
const gather = (
  format: Format,
  resource: unknown,
  path: Path,
  resolve: (reference: string, panel: Wire.ObservationIn) => Resolved,
  usedEntries: Set<number>
): Either.Either<Gathered, DecodeError> => {
  const readObservation = observationReaders[format]
  const panelRead = readObservation(resource)
  if (Either.isLeft(panelRead)) return Either.left(under(path, panelRead.left))
  const panel = panelRead.right.value
  const members: Array<Member> = []
  // A member the panel names twice is read once: entries by index, contained resources by -1 - index.
  const cache = new Map<number, ExactRead<Wire.ObservationIn>>()
  const containedUsed = new Set<number>()
  const use = (found: Located) => (found.contained ? containedUsed : usedEntries).add(found.index)
  const hasMember = panel.hasMember ?? []
  for (let k = 0; k < hasMember.length; k++) {
    const at = [...path, "hasMember", k]
    const reference = hasMember[k]!.reference
    if (reference === undefined)
      return Either.left(DecodeError.at(format, at, hasMember[k], "a reference to a member Observation: a panel's members are read by reference"))
    const found = resolve(reference, panel)
    if ("problem" in found) return Either.left(DecodeError.at(format, [...at, "reference"], reference, `a member of the panel, and ${found.problem}`))
    if (!isRecord(found.resource) || found.resource["resourceType"] !== "Observation") {
      const type = isRecord(found.resource) ? found.resource["resourceType"] : undefined
      return Either.left(DecodeError.at(format, [...at, "reference"], reference, `a member Observation, and it refers to ${previewValue(type)}`))
    }
    const key = found.contained ? -1 - found.index : found.index
    let read = cache.get(key)
    if (read === undefined) {
      const decoded = readObservation(found.resource)
      if (Either.isLeft(decoded)) return Either.left(under(found.path, decoded.left))
      cache.set(key, (read = decoded.right))
    }
    use(found)
    members.push({ read, path: found.path })
  }
  const deviceReference = panel.device?.reference
  const deviceFound = deviceReference === undefined ? undefined : resolve(deviceReference, panel)
  // A searchset holds the resources that matched, not the Device they name: no device is no loss.
  const device = deviceFound === undefined || "problem" in deviceFound ? undefined : deviceFound
  if (device !== undefined) use(device)
  return Either.right({ panel: panelRead.right, path, members, device, containedUsed })
}

// --- The scan's own notes -----------------------------------------------------------------

const NOTE_KINDS: ReadonlySet<string> = new Set(NoteKind.literals)

/**
 * The note a panel's annotation holds, as codec.ts's `noteText` writes it (`converted
 * "measurementsMm.hipGirth": detail`), or undefined for any other text. Read by character: an
 * annotation may be megabytes.
 */
export const noteOfText = (text: string): Note | undefined => {
  const space = text.indexOf(" ")
  if (space < 0 || !NOTE_KINDS.has(text.slice(0, space)) || text.charCodeAt(space + 1) !== 34) return undefined
  let end = space + 2
  while (end < text.length) {
    const c = text.charCodeAt(end)
    if (c === 34) break
    end += c === 92 ? 2 : 1
  }
  if (end >= text.length || text.charCodeAt(end + 1) !== 58 || text.charCodeAt(end + 2) !== 32) return undefined
  let path: unknown
  try {
    path = JSON.parse(text.slice(space + 1, end + 1))
  } catch {
    return undefined
  }
  return typeof path === "string" ? makeNote(text.slice(0, space) as NoteKind, path, text.slice(end + 3)) : undefined
}

const readScanNotes = (w: DecodeWalk, notes: ReadonlyArray<{ readonly text: string }> | undefined, at: Path): void => {
  if (notes === undefined) return
  for (let k = 0; k < notes.length; k++) {
    const text = notes[k]!.text
    const note = noteOfText(text)
    if (note !== undefined) w.add(note)
    else w.note("dropped", [...at, "note", k], `annotation ${previewValue(text)}: not a note of a scan, and a scan keeps no free text`)
  }
}

// --- The panel ----------------------------------------------------------------------------

const STATUS: ReadonlyMap<string, Scan["status"]> = new Map([
  ["final", "success"],
  ["amended", "success"],
  ["corrected", "success"],
  ["cancelled", "failure"],
  ["registered", "pending"]
])
const REFUSED_STATUS: ReadonlyMap<string, string> = new Map([
  ["preliminary", "a scan whose results are final: preliminary results may still change"],
  ["entered-in-error", "a scan: a panel entered in error was withdrawn"]
])
const READ_STATUSES = "final, amended or corrected (success), cancelled (failure), registered (pending)"

const statusOf = (w: DecodeWalk, status: string, at: Path): Scan["status"] => {
  const read = STATUS.get(status)
  if (read === undefined) return w.fail([...at, "status"], status, REFUSED_STATUS.get(status) ?? `a status Scanbridge reads: ${READ_STATUSES}`)
  if (status === "amended" || status === "corrected") w.note("assumed", [...at, "status"], `${status} read as success: a result changed after it was final`)
  return read
}

const fromUri = (w: DecodeWalk, path: Path, system: string, prefix: string): string => {
  let api = ""
  try {
    api = decodeURIComponent(system.slice(prefix.length))
  } catch {
    // Left empty: refused below.
  }
  return api === "" ? w.fail(path, system, `${prefix}<API>, the API's name percent-encoded`) : api
}

interface Identity {
  readonly source: Scan["source"]
  readonly externalId: string | null
}

/** The scan's source and externalId, from the panel's identifiers as codec.ts writes them. */
const identityOf = (w: DecodeWalk, panel: Wire.ObservationIn, at: Path): Identity => {
  let source: Scan["source"] | undefined
  let externalId: string | null = null
  const identifiers = panel.identifier ?? []
  for (let k = 0; k < identifiers.length; k++) {
    const { system = "", value } = identifiers[k]!
    const path = [...at, "identifier", k]
    const isSource = system.startsWith(`${SOURCE_ID_SYSTEM}/`)
    const isContent = system.startsWith(`${CONTENT_ID_SYSTEM}/`)
    if (!isSource && !isContent && system !== EXTERNAL_ID_SYSTEM) {
      w.note("dropped", path, `identifier ${previewValue(identifiers[k])}: a scan keeps its source's id and its externalId`)
      continue
    }
    if (value === undefined) w.fail([...path, "value"], value, "the identifier's value")
    if (system === EXTERNAL_ID_SYSTEM) {
      if (externalId !== null) w.fail(path, value, "one externalId: the panel has two")
      externalId = value
      continue
    }
    if (source !== undefined) w.fail(path, value, "one identifier of the scan: the panel has two")
    const api = fromUri(w, [...path, "system"], system, `${isSource ? SOURCE_ID_SYSTEM : CONTENT_ID_SYSTEM}/`)
    // A content identifier stands for a scan its source gave no id: it is not an id of the source's.
    source = { api, id: isSource ? value : null }
  }
  if (source === undefined) {
    w.note("assumed", [...at, "identifier"], "no identifier of Scanbridge's: read as a scan of the fhir API, its id the resource's id")
    source = { api: "fhir", id: panel.id ?? null }
  }
  return { source, externalId }
}

// Dates (YYYY, YYYY-MM, YYYY-MM-DD) and times without a zone: valid or near-valid FHIR, no instant.
const DATE_ONLY = /^\d{4}(-\d{2}(-\d{2})?)?$/
const ZONELESS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/

const createdAtOf = (w: DecodeWalk, value: string | undefined, at: Path): string | null => {
  if (value === undefined || isUtcTimestamp(value)) return value ?? null
  const path = [...at, "effectiveDateTime"]
  const parsed = Proto3.parseTimestamp(value)
  if (Option.isSome(parsed)) {
    const { iso, subMillisecond } = parsed.value
    w.note("converted", path, `${value} -> ${iso}${subMillisecond === "" ? "" : ` (its digits below a millisecond, ${subMillisecond}, dropped)`}`)
    return iso
  }
  if (DATE_ONLY.test(value)) {
    w.note("dropped", path, `${value} is a date without a time: createdAt is an instant, and no time is made up`)
    return null
  }
  if (ZONELESS.test(value)) {
    w.note("dropped", path, `${value} has no time zone, which FHIR requires with a time: createdAt is an instant, and no zone is made up`)
    return null
  }
  return w.fail(path, value, "a FHIR dateTime: an instant like 2026-01-02T03:04:05.000Z (or with an offset), or a date")
}

const METHODS: ReadonlySet<string> = new Set(Method.literals)

const methodOf = (w: DecodeWalk, method: Wire.ObservationIn["method"], at: Path): Scan["method"] => {
  if (method === undefined) return null
  const coding = method.coding?.find((c) => c.system === METHOD_CODE_SYSTEM)
  if (coding?.code !== undefined && METHODS.has(coding.code)) return coding.code as Scan["method"]
  w.note("dropped", [...at, "method"], `method ${previewValue(method)}: none of Scanbridge's scanning methods (${Method.literals.join(", ")})`)
  return null
}

const CATEGORIES: ReadonlySet<string> = new Set(FailureCategory.literals)

/** A failed scan's failure, from the panel's dataAbsentReason as codec.ts writes it; others say why they hold none. */
const failureOf = (w: DecodeWalk, status: Scan["status"], reason: Wire.ObservationIn["dataAbsentReason"], at: Path): Scan["failure"] => {
  const path = [...at, "dataAbsentReason"]
  const codings = reason?.coding ?? []
  const code = codings.find((c) => c.system === FAILURE_CODE_SYSTEM)?.code
  if (status !== "failure") {
    // A pending scan says why it holds no values; anything more is not the scan's.
    if (reason !== undefined && (status === "success" || code !== undefined || codings.some((c) => c.system !== DATA_ABSENT_REASON_SYSTEM)))
      w.note("dropped", path, `dataAbsentReason ${previewValue(reason)} on a scan whose status is ${status}`)
    return null
  }
  const category = codings.find((c) => c.system === FAILURE_CATEGORY_SYSTEM)?.code
  if (code === undefined) w.note("assumed", path, "a failed scan without a failure code: recorded with code unknown")
  if (category !== undefined && !CATEGORIES.has(category))
    w.note("assumed", path, `failure category ${previewValue(category)} is none of Scanbridge's: recorded as unknown`)
  return {
    code: code ?? "unknown",
    category: category !== undefined && CATEGORIES.has(category) ? (category as FailureCategory) : "unknown",
    message: reason?.text ?? null
  }
}

const sameReference = (a: Wire.ObservationIn["subject"], b: Wire.ObservationIn["subject"]): boolean =>
  a?.reference === b?.reference && a?.identifier?.system === b?.identifier?.system && a?.identifier?.value === b?.identifier?.value

/** What the panel says beyond the scan's fields: its own value, its subject where that is not the externalId, a Device not Scanbridge's. */
const noteTheRest = (w: DecodeWalk, g: Gathered, externalId: string | null): void => {
  const panel = g.panel.value
  const at = g.path
  for (const key of ["valueQuantity", "valueCodeableConcept", "derivedFrom"] as const)
    if (panel[key] !== undefined) w.note("dropped", [...at, key], `${previewValue(panel[key])}: a scan panel holds its values in its members`)
  const subject = panel.subject
  if (subject !== undefined && (externalId === null || subject.identifier?.value !== externalId))
    w.note("dropped", [...at, "subject"], `subject ${previewValue(subject)}: a scan names its user by its externalId only`)
  const device = g.device
  if (device !== undefined && !isScanbridgeDevice(device.resource))
    w.note("dropped", device.path, `${previewValue(device.resource)}: a scan records its method, not the device`)
  const contained = panel.contained ?? []
  for (let i = 0; i < contained.length; i++)
    if (!g.containedUsed.has(i)) w.note("dropped", [...at, "contained", i], `${previewValue(contained[i])}: the panel does not refer to it`)
}

const isScanbridgeDevice = (resource: unknown): boolean => {
  if (!isRecord(resource) || resource["resourceType"] !== "Device") return false
  const identifier = resource["identifier"]
  return Array.isArray(identifier) && identifier.some((i) => isRecord(i) && i["system"] === DEVICE_ID_SYSTEM)
}

// --- The members --------------------------------------------------------------------------

const READ_MEMBER_STATUSES: ReadonlySet<string> = new Set(["final", "amended", "corrected"])

/** The quantity a member stands for: by its Scanbridge code, else by a LOINC code of the table (`aliased`); undefined, noted, for neither. */
const quantityOf = (w: DecodeWalk, m: Member): FhirCode | undefined => {
  const o = m.read.value
  let ours: string | undefined
  let loinc: string | undefined
  for (const c of o.code.coding ?? []) {
    if (c.system === SCAN_CODE_SYSTEM && ours === undefined) ours = c.code
    else if (c.system === LOINC_SYSTEM && loinc === undefined && c.code !== undefined && loincOf(c.code) !== undefined) loinc = c.code
  }
  const byOurs = ours === undefined ? undefined : codeOf(ours)
  const byLoinc = loinc === undefined ? undefined : loincOf(loinc)
  if (byOurs !== undefined) {
    if (byLoinc !== undefined && byLoinc !== byOurs)
      w.fail([...m.path, "code"], o.code, `one quantity: Scanbridge's code says ${byOurs.code}, LOINC ${loinc} says ${byLoinc.code}`)
    return byOurs
  }
  if (byLoinc !== undefined) {
    w.note("aliased", [...m.path, "code"], `LOINC ${loinc} read as ${byLoinc.code}: the member has no code of Scanbridge's`)
    return byLoinc
  }
  const what = ours === PANEL_CODE.code ? "a scan panel among a panel's members: panels are not nested" : "no code of Scanbridge's or LOINC's that a scan holds"
  w.note("dropped", m.path, `member ${previewValue(o.code)} = ${previewValue(o.valueQuantity ?? o.valueCodeableConcept ?? null)}: ${what}`)
  return undefined
}

/** A UCUM unit a scan reads, and the model's unit it converts from. */
type UcumUnit =
  | { readonly kind: "length"; readonly unit: LengthUnitRead }
  | { readonly kind: "mass"; readonly unit: MassUnit }
  | { readonly kind: "percent" | "bmi" | "years" }
type LengthUnitRead = LengthUnit | "m"

// The units a bundle is written in (FHIR_UNITS, FIXED_UNITS), and the other UCUM lengths and masses a writer may choose.
const UCUM: ReadonlyMap<string, UcumUnit> = new Map<string, UcumUnit>([
  [FHIR_UNITS.cm.length, { kind: "length", unit: "cm" }],
  [FHIR_UNITS.in.length, { kind: "length", unit: "in" }],
  ["mm", { kind: "length", unit: "mm" }],
  ["m", { kind: "length", unit: "m" }],
  [FHIR_UNITS.cm.mass, { kind: "mass", unit: "kg" }],
  [FHIR_UNITS.in.mass, { kind: "mass", unit: "lb" }],
  ["g", { kind: "mass", unit: "g" }],
  [FIXED_UNITS.percent, { kind: "percent" }],
  [FIXED_UNITS.bmi, { kind: "bmi" }],
  [FIXED_UNITS.years, { kind: "years" }]
])

/** `cm, [in_i], mm, m`: the UCUM codes read for a kind, for messages. */
const codesOfKind = (kind: UcumUnit["kind"]): string => [...UCUM].flatMap(([code, u]) => (u.kind === kind ? [code] : [])).join(", ")

/** A member's value as written, in the unit it states. */
interface Stated {
  readonly value: number
  readonly code: string
  readonly unit: UcumUnit
}

/** A member's value and its unit, checked against what it measures; refused when the unit is missing, unknown or of another kind. */
const statedValue = (w: DecodeWalk, m: Member, c: FhirCode, kind: UcumUnit["kind"]): Stated | undefined => {
  const o = m.read.value
  const q = o.valueQuantity
  const path = [...m.path, "valueQuantity"]
  const what = c.display.toLowerCase()
  if (q === undefined) {
    w.note("dropped", m.path, `${c.code} has no valueQuantity${o.dataAbsentReason === undefined ? "" : `: ${previewValue(o.dataAbsentReason)}`}`)
    return undefined
  }
  if (q.comparator !== undefined) {
    w.note("dropped", path, `${c.code} ${previewValue(q.comparator)} ${q.value}: a bound, not a value`)
    return undefined
  }
  if (q.value === undefined || !Number.isFinite(q.value)) return w.fail([...path, "value"], q.value, `a finite ${what}`)
  if (q.system !== UCUM_SYSTEM) w.fail([...path, "system"], q.system, `${UCUM_SYSTEM}: the unit of a ${what} is a UCUM code`)
  const unit = q.code === undefined ? undefined : UCUM.get(q.code)
  if (q.code === undefined || unit === undefined || unit.kind !== kind) {
    const found =
      q.code === undefined ? "none is given" : unit === undefined ? `${previewValue(q.code)} is none Scanbridge reads` : `${q.code} is a ${unit.kind}`
    return w.fail([...path, "code"], q.code, `a UCUM unit of the ${what}: ${codesOfKind(kind)} (${found})`)
  }
  if (q.value < 0) w.fail([...path, "value"], q.value, `a ${what} of at least 0`)
  if (kind === "percent" && q.value > 100) w.fail([...path, "value"], q.value, "a percentage between 0 and 100")
  if (kind === "years" && !Number.isSafeInteger(q.value)) w.fail([...path, "value"], q.value, "an age in whole years")
  if (o.dataAbsentReason !== undefined) w.note("dropped", [...m.path, "dataAbsentReason"], `${previewValue(o.dataAbsentReason)} beside a value`)
  return { value: q.value, code: q.code, unit }
}

// Metres to centimetres moves the point two places: twice the model's exact cm -> mm step.
const metresInCm = (m: number): number => convertLength(convertLength(m, "cm", "mm"), "cm", "mm")

/** A length in millimetres outside the walk's judgement of the body's lengths: the stature, which they are judged by. */
const lengthMmOf = (value: number, unit: LengthUnitRead): number =>
  unit === "m" ? convertLength(metresInCm(value), "cm", "mm") : convertLength(value, unit, "mm")

/** A converted value, where a double holds it: one past (1e308 kg in grams) is refused where it was written. */
const held = (w: DecodeWalk, m: Member, value: number, converted: number): number =>
  Number.isFinite(converted) ? converted : w.fail([...m.path, "valueQuantity", "value"], value, "a value that a double holds in millimetres or grams")

/** Half a unit in the last decimal place `value` is written with: the rounding it may carry. */
const halfStep = (value: number): number => {
  const [mantissa = "", exponent = "0"] = String(Math.abs(value)).split("e")
  const places = (mantissa.split(".")[1]?.length ?? 0) - Number(exponent)
  return 0.5 * 10 ** -places
}

/**
 * The BMI the height and weight give, when a written BMI disagrees with them: each of the three
 * taken as the interval its rounding allows, and the intervals do not meet. Undefined when they do.
 */
const bmiDisagreement = (bmi: number, height: Vital, weight: Vital): number | undefined => {
  const m = height.inSi
  const kg = weight.inSi
  const around = (v: number) => ({ low: Math.max(0, v - halfStep(v)), high: v + halfStep(v) })
  const h = around(height.value)
  const wt = around(weight.value)
  const low = kg(wt.low) / m(h.high) ** 2
  const high = m(h.low) === 0 ? Number.POSITIVE_INFINITY : kg(wt.high) / m(h.low) ** 2
  const b = around(bmi)
  // A relative slack for the binary arithmetic of the bounds themselves.
  if (b.high * (1 + 1e-12) >= low && b.low * (1 - 1e-12) <= high) return undefined
  return kg(weight.value) / m(height.value) ** 2
}

/** A value BMI is checked with, as written, where it was, and in the SI unit of the BMI's (m, kg). */
interface Vital {
  readonly value: number
  readonly path: Path
  readonly inSi: (value: number) => number
}

type Subject = { -readonly [K in keyof Scan["subject"]]: K extends "gender" ? Scan["subject"]["gender"] : number | null }
type Composition = { -readonly [K in keyof NonNullable<Scan["composition"]>]: number | null }
type CompositionMass = Exclude<keyof Composition, "bodyFatPercent">

/** The panel's members placed in the scan: stats, measurements, composition, each once. */
const readMembers = (w: DecodeWalk, g: Gathered) => {
  const panel = g.panel.value
  const lengthsAt = [...g.path, "hasMember"]
  const measurements = new MeasurementsBuilder()
  const subject: Subject = { age: null, gender: null, heightMm: null, weightG: null }
  const composition: Composition = { bodyFatPercent: null, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: null }
  const placed = new Map<FhirTarget, Path>()
  const vitals = new Map<"height" | "weight" | "bmi", Vital>()
  // Masses converted, counted by UCUM unit: one note each, as the walk notes the lengths.
  const massesIn = new Map<string, number>()
  const extras = new MemberExtras(panel)
  for (const m of g.members) {
    w.noteUnknownKeys(m.path, m.read.unknownKeys)
    const o = m.read.value
    const c = quantityOf(w, m)
    if (c === undefined) continue
    if (!READ_MEMBER_STATUSES.has(o.status)) {
      w.note("dropped", [...m.path, "status"], `${c.code} with status ${previewValue(o.status)}: not a result`)
      continue
    }
    const first = placed.get(c.target)
    if (first !== undefined) {
      w.note("dropped", m.path, `a second ${c.code}; the first one (at ${formatPath(first)}) is kept`)
      continue
    }
    extras.read(w, m)
    if (c.kind === "gender") {
      placed.set(c.target, m.path)
      subject.gender = genderOf(w, m)
      continue
    }
    const read = statedValue(w, m, c, c.kind)
    if (read === undefined) continue
    placed.set(c.target, m.path)
    const { value, unit } = read
    switch (unit.kind) {
      case "years":
        subject.age = value
        break
      case "percent":
        composition.bodyFatPercent = value
        break
      case "bmi":
        vitals.set("bmi", { value, path: m.path, inSi: (v) => v })
        break
      case "mass": {
        const grams = held(w, m, value, convertMass(value, unit.unit, "g"))
        if (unit.unit !== "g") massesIn.set(read.code, (massesIn.get(read.code) ?? 0) + 1)
        if (c.target === "subject.weightG") {
          vitals.set("weight", { value, path: m.path, inSi: (v) => convertMass(v, unit.unit, "kg") })
          subject.weightG = grams
        } else composition[c.target.slice("composition.".length) as CompositionMass] = grams
        break
      }
      case "length": {
        if (c.target === "subject.heightMm") {
          vitals.set("height", { value, path: m.path, inSi: (v) => lengthMmOf(v, unit.unit) / 1000 })
          subject.heightMm = held(w, m, value, lengthMmOf(value, unit.unit))
          if (unit.unit !== "mm") w.note("converted", [...m.path, "valueQuantity"], `height ${value} ${read.code} converted to ${subject.heightMm} mm`)
          break
        }
        const name = c.target.slice("measurementsMm.".length) as MeasurementName
        // Judged with the record's other lengths at the end of the walk, as every format's are.
        let mm: number
        if (unit.unit === "m") {
          const cm = metresInCm(value)
          w.note("converted", [...m.path, "valueQuantity"], `${value} m read as ${cm} cm`)
          mm = w.lengthMm(cm, "cm", lengthsAt)
        } else mm = w.lengthMm(value, unit.unit, lengthsAt)
        measurements.setAt(measurementIndex(name), held(w, m, value, mm))
      }
    }
  }
  extras.note(w)
  for (const [code, count] of massesIn) w.note("converted", lengthsAt, `${count} mass(es) stated in ${code}, converted to grams`)
  checkBmi(w, vitals)
  const hasComposition = Object.values(composition).some((v) => v !== null)
  return { subject, measurementsMm: measurements.build(), composition: hasComposition ? composition : null }
}

const checkBmi = (w: DecodeWalk, vitals: ReadonlyMap<"height" | "weight" | "bmi", Vital>): void => {
  const bmi = vitals.get("bmi")
  if (bmi === undefined) return
  const height = vitals.get("height")
  const weight = vitals.get("weight")
  if (height === undefined || weight === undefined) {
    w.note("dropped", bmi.path, `BMI ${bmi.value} kg/m2: a scan derives its BMI from the height and weight, and the panel has not both`)
    return
  }
  const given = bmiDisagreement(bmi.value, height, weight)
  if (given !== undefined)
    w.note(
      "dropped",
      bmi.path,
      `BMI ${bmi.value} kg/m2 disagrees with the height and weight, which give ${given} kg/m2: the scan keeps them, and derives its BMI`
    )
}

/** What a member says beside its value: where the panel says otherwise (counted, noted once) or a scan has no place for it. */
class MemberExtras {
  private readonly others = new Map<"effectiveDateTime" | "subject", { count: number; readonly path: Path; readonly value: unknown }>()
  constructor(private readonly panel: Wire.ObservationIn) {}
  private other(key: "effectiveDateTime" | "subject", path: Path, value: unknown): void {
    const seen = this.others.get(key)
    if (seen === undefined) this.others.set(key, { count: 1, path: [...path, key], value })
    else seen.count++
  }
  read(w: DecodeWalk, m: Member): void {
    const o = m.read.value
    if (o.effectiveDateTime !== undefined && o.effectiveDateTime !== this.panel.effectiveDateTime) this.other("effectiveDateTime", m.path, o.effectiveDateTime)
    if (o.subject !== undefined && !sameReference(o.subject, this.panel.subject)) this.other("subject", m.path, o.subject)
    for (const key of ["note", "method", "hasMember", "contained"] as const)
      if (o[key] !== undefined) w.note("dropped", [...m.path, key], `${previewValue(o[key])}: a scan has no place for a member's ${key}`)
  }
  /** One note for each part in which members differ from their panel: the scan keeps the panel's. */
  note(w: DecodeWalk): void {
    for (const [key, { count, path, value }] of this.others) {
      const panel = previewValue(this.panel[key] ?? null)
      w.note("dropped", path, `${count} member(s) with another ${key} than the panel's ${panel}, the first ${previewValue(value)}: a scan has one, the panel's`)
    }
  }
}

/** male and female are a body model's; other and unknown are not, and are dropped rather than guessed. */
const genderOf = (w: DecodeWalk, m: Member): Scan["subject"]["gender"] => {
  const concept = m.read.value.valueCodeableConcept
  const code = concept?.coding?.find((c) => c.system === ADMINISTRATIVE_GENDER_SYSTEM)?.code
  if (code === "male" || code === "female") return code
  w.note("dropped", m.path, `gender ${previewValue(concept ?? null)}: the body model is male or female`)
  return null
}

// --- Bundles and panels -------------------------------------------------------------------

/** What a bundle holds beside its panels and what they refer to: noted on each of its scans. */
interface Beside {
  readonly unknownKeys: ReadonlyArray<UnknownKey>
  readonly unreferenced: ReadonlyArray<Note>
}

const NOTHING_BESIDE: Beside = { unknownKeys: [], unreferenced: [] }

const panelScan = (format: Format, g: Gathered, beside: Beside, options: DecodeOptions | undefined): Either.Either<Scan, DecodeError> =>
  walkScan(
    format,
    [],
    (w): ScanInit => {
      const panel = g.panel.value
      const at = g.path
      // The scan's own notes first, as they were: what the decoder adds follows them.
      readScanNotes(w, panel.note, at)
      w.noteUnknownKeys([], beside.unknownKeys)
      for (const n of beside.unreferenced) w.add(n)
      w.noteUnknownKeys(at, g.panel.unknownKeys)
      const identity = identityOf(w, panel, at)
      const status = statusOf(w, panel.status, at)
      const values = readMembers(w, g)
      noteTheRest(w, g, identity.externalId)
      return {
        source: identity.source,
        status,
        createdAt: createdAtOf(w, panel.effectiveDateTime, at),
        externalId: identity.externalId,
        method: methodOf(w, panel.method, at),
        subject: values.subject,
        measurementsMm: values.measurementsMm,
        composition: values.composition,
        failure: failureOf(w, status, panel.dataAbsentReason, at)
      }
    },
    undefined,
    options
  )

const readBundle = exactSchemaDecoder(Wire.BundleIn, FORMATS.bundle)

/** Every scan of a bundle: one per panel, in the bundle's order. Never throws. */
export const decodeBundleEither = (json: unknown, options?: DecodeOptions): Either.Either<ReadonlyArray<Scan>, DecodeError> => {
  const read = readBundle(json)
  if (Either.isLeft(read)) return Either.left(read.left)
  const entries = read.right.value.entry ?? []
  const index = new BundleIndex(entries)
  const used = new Set<number>()
  const gathered: Array<Gathered> = []
  for (let i = 0; i < entries.length; i++) {
    const resource = entries[i]!.resource
    if (!isScanPanel(resource)) continue
    const path = ["entry", i, "resource"]
    used.add(i)
    let contained: ((id: string) => Resolved) | undefined
    const resolve = (reference: string, panel: Wire.ObservationIn): Resolved =>
      reference.startsWith("#") ? (contained ??= containedOf(panel, path))(reference.slice(1)) : index.resolve(reference, i)
    const g = gather(FORMATS.bundle, resource, path, resolve, used)
    if (Either.isLeft(g)) return Either.left(g.left)
    gathered.push(g.right)
  }
  if (gathered.length === 0)
    return Either.left(DecodeError.at(FORMATS.bundle, ["entry"], entries.length, "at least one Scanbridge scan panel among the entries"))
  const unreferenced = new BoundedNoteList()
  for (let i = 0; i < entries.length; i++) {
    const resource = entries[i]!.resource
    if (resource === undefined || used.has(i) || isScanbridgeDevice(resource)) continue
    // Past the limit the rest are only counted: previewing each of a million resources is the cost.
    if (unreferenced.keepsNextNote)
      unreferenced.note("dropped", ["entry", i, "resource"], `${resource.resourceType} ${previewValue(resource)}: no scan panel refers to it`)
    else unreferenced.omit("dropped")
  }
  const beside: Beside = { unknownKeys: read.right.unknownKeys, unreferenced: unreferenced.list() }
  const scans: Array<Scan> = []
  for (const g of gathered) {
    const scan = panelScan(FORMATS.bundle, g, beside, options)
    if (Either.isLeft(scan)) return Either.left(scan.left)
    scans.push(scan.right)
  }
  return Either.right(scans)
}

/** A bare panel, its members contained (`#id`), as one scan. Never throws. */
export const decodePanelEither = (json: unknown, options?: DecodeOptions): Either.Either<ReadonlyArray<Scan>, DecodeError> => {
  let contained: ((id: string) => Resolved) | undefined
  const resolve = (reference: string, panel: Wire.ObservationIn): Resolved =>
    reference.startsWith("#")
      ? (contained ??= containedOf(panel, []))(reference.slice(1))
      : { problem: "a bare panel's members are contained, referred to as #id" }
  const g = gather(FORMATS.panel, json, [], resolve, new Set())
  if (Either.isLeft(g)) return Either.left(g.left)
  const scan = panelScan(FORMATS.panel, g.right, NOTHING_BESIDE, options)
  return Either.isLeft(scan) ? Either.left(scan.left) : Either.right([scan.right])
}
