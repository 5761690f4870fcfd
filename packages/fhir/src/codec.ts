/**
 * Canonical scan <-> FHIR R4. Writing: one transaction Bundle per scan (a Device, a panel
 * Observation, one member Observation per quantity), every resource created at most once on a
 * server (`ifNoneExist` on its identifier), every full URL a name-based UUID of that identifier,
 * so that a scan written twice is the same bytes. Reading: such a bundle, or a bare panel with
 * its members contained, back to the scan.
 */
import type { Effect, Either } from "effect"
import { type EncodeError, type Encoded, type Path, type Scan, convertLength, convertMass } from "@scanbridge/model"
import { EncodeWalk, isAbsoluteUri, runWalk } from "@scanbridge/model/adapter"
import { parse as parseUuid, v5 as uuidV5 } from "uuid"
import {
  ADMINISTRATIVE_GENDER_SYSTEM,
  DATA_ABSENT_REASON_SYSTEM,
  FAILURE_CATEGORY_SYSTEM,
  FAILURE_CODE_SYSTEM,
  FHIR_CODES,
  FHIR_UNITS,
  FIXED_UNITS,
  type FhirCode,
  type FhirUnits,
  LOINC_SYSTEM,
  METHOD_CODE_SYSTEM,
  METHOD_DISPLAY,
  OBSERVATION_CATEGORY_SYSTEM,
  PANEL_CODE,
  PROFILES,
  SCANBRIDGE_FHIR,
  SCAN_CODE_SYSTEM,
  UCUM_SYSTEM,
  UNIT_DISPLAY,
  VITAL_SIGNS_PROFILE
} from "./dialect.js"
import { loincTerm } from "./loinc.js"
import { VERSION } from "./version.js"
import type * as Wire from "./wire.js"

export const FORMATS = {
  bundle: "fhir Bundle",
  panel: "fhir Observation panel"
} as const

/** What a caller of `toFhir` chooses that the scan does not say. */
export interface FhirOptions {
  /** `cm` (the default: lengths in cm, masses in kg) or `in` (lengths in [in_i], masses in [lb_av]). */
  readonly units?: FhirUnits
  /**
   * The identifier system of your patients, when your scans' `externalId` is the patient's
   * identifier in it: every Observation's subject is then that Patient, by a conditional
   * reference. Without it (or for a scan without an externalId) no subject is written, and the
   * height, weight and BMI claim no vital-signs profile (which needs one).
   */
  readonly patientSystem?: string
}

/** The namespace of every name-based UUID a bundle holds (RFC 9562 version 5). */
const NAMESPACE = "f14db827-19dd-4783-ac06-2b2ecc90add0"

/** The identifier systems of a scan's resources, by the API it was read from. */
export const SOURCE_ID_SYSTEM = `${SCANBRIDGE_FHIR}/scan`
export const CONTENT_ID_SYSTEM = `${SCANBRIDGE_FHIR}/scan-content`
export const EXTERNAL_ID_SYSTEM = `${SCANBRIDGE_FHIR}/external-id`
export const DEVICE_ID_SYSTEM = `${SCANBRIDGE_FHIR}/device`

/** `identifier=system|value` as a search (FHIR escapes `\ | , $` in a token; the query is percent-encoded). */
export const identifierQuery = (identifier: Wire.Identifier): string => {
  const token = (s: string) => encodeURIComponent(s.replace(/[\\|,$]/g, (c) => `\\${c}`))
  return `${token(identifier.system)}|${token(identifier.value)}`
}

// The namespace parsed once and names given as UTF-8 bytes: uuid parses a namespace string and
// encodes a name string (by encodeURIComponent) on every call, a third of a bundle's writing.
const NAMESPACE_BYTES = parseUuid(NAMESPACE)
// Every runtime the package runs on has TextEncoder (Node, browsers); the package's types name no platform.
declare const TextEncoder: new () => { encode(input: string): Uint8Array }
const utf8 = new TextEncoder()
const nameUuid = (name: string): string => uuidV5(utf8.encode(name), NAMESPACE_BYTES)

const urnOf = (identifier: Wire.Identifier): string => `urn:uuid:${nameUuid(`${identifier.system}|${identifier.value}`)}`

/** A resource as a transaction creates it: once, unless one with its identifier exists. */
const entryOf = (resource: Wire.Observation | Wire.Device, identifier: Wire.Identifier, url: string): Wire.BundleEntry => ({
  fullUrl: url,
  resource,
  request: { method: "POST", url: resource.resourceType, ifNoneExist: `identifier=${identifierQuery(identifier)}` }
})

const STATUS = { success: "final", failure: "cancelled", pending: "registered" } as const

/** FHIR's strings hold some content: an empty or all-whitespace one is written as none. */
const blank = (s: string): boolean => s.trim() === ""
/**
 * FHIR's strings are Unicode text whose only whitespace is space, tab, CR and LF (the R4 `string`
 * pattern), with no other control character: a lone UTF-16 surrogate has no UTF-8 form, and a
 * server refuses the others.
 */
const NOT_FHIR_TEXT = /[\uD800-\uDFFF]|[^ \r\n\t\S]|[\u0000-\u0008\u000E-\u001F]/u
/** A value the scan holds, as FHIR text: refused when FHIR cannot hold it as it is (changing it would be wrong data). */
const fhirText = (w: EncodeWalk, path: Path, s: string): string =>
  NOT_FHIR_TEXT.test(s) ? w.fail(path, s, "FHIR text holds no lone UTF-16 surrogate, no control character and no whitespace but space, tab, CR and LF") : s
/** Scanbridge's own words (a note), as FHIR text: what FHIR cannot hold becomes a space or U+FFFD. */
const asFhirText = (s: string): string => s.replace(new RegExp(NOT_FHIR_TEXT.source, "gu"), (c) => (/\s/.test(c) ? " " : "\uFFFD"))
/** FHIR's `code`: no leading, trailing or repeated whitespace (the R4 `code` type's pattern). */
const isFhirCode = (s: string): boolean => /^[^\s]+( [^\s]+)*$/.test(s)

const coding = (system: string, code: string, display?: string): Wire.Coding => (display === undefined ? { system, code } : { system, code, display })

const CATEGORY_DISPLAY = { "vital-signs": "Vital Signs", exam: "Exam" } as const
const category = (code: "vital-signs" | "exam"): ReadonlyArray<Wire.CodeableConcept> => [
  { coding: [coding(OBSERVATION_CATEGORY_SYSTEM, code, CATEGORY_DISPLAY[code])] }
]

const codeOfQuantity = (c: FhirCode): Wire.CodeableConcept => ({
  coding: [coding(SCAN_CODE_SYSTEM, c.code, c.display), ...(c.loinc === null ? [] : [coding(LOINC_SYSTEM, c.loinc, loincTerm(c.loinc).longCommonName)])],
  text: c.display
})

/** Decimal places kept in each UCUM unit: metric is the canonical value with its point moved (exact); imperial to a hundredth. */
const PLACES: Readonly<Record<string, number | undefined>> = { "[in_i]": 2, "[lb_av]": 2, "kg/m2": 1 }

const quantity = (w: EncodeWalk, path: Path, value: number, code: string): Wire.Quantity => {
  const places = PLACES[code]
  const written = places === undefined ? value : Number(value.toFixed(places))
  if (!Number.isFinite(written)) w.fail(path, value, `FHIR holds finite decimals only`)
  return { value: written, unit: UNIT_DISPLAY[code] ?? code, system: UCUM_SYSTEM, code }
}

/** A scan's canonical JSON, for the identity of a scan that has no id of its source. */
const contentId = (scan: Scan): string => nameUuid(JSON.stringify(scan))

/** Writes the note lines a panel keeps of the scan's own notes: `converted "measurementsMm.hipGirth": detail`. */
export const noteText = (note: Scan["notes"][number]): string => asFhirText(`${note.kind} ${JSON.stringify(note.path)}: ${note.detail}`)

/** The scan as one FHIR R4 transaction Bundle, with a note for what FHIR is not given. */
export const encodeBundleEither = (scan: Scan, options: FhirOptions = {}): Either.Either<Encoded<Wire.Bundle>, EncodeError> => {
  const w = new EncodeWalk(FORMATS.bundle)
  return runWalk<Encoded<Wire.Bundle>, EncodeError>(() => {
    const units = FHIR_UNITS[options.units ?? "cm"]
    if (units === undefined) w.fail([], options.units, "FHIR bundles are written in cm or in")
    const { api, id } = scan.source
    fhirText(w, ["source", "api"], api)
    if (id !== null) fhirText(w, ["source", "id"], id)
    if (scan.externalId !== null) fhirText(w, ["externalId"], scan.externalId)
    if (options.patientSystem !== undefined && !isAbsoluteUri(options.patientSystem))
      w.fail([], options.patientSystem, "the patient system is an absolute URI without whitespace (https://hospital.example/patients, urn:oid:1.2.3)")
    if (scan.failure !== null) {
      fhirText(w, ["failure", "code"], scan.failure.code)
      if (scan.failure.message !== null) fhirText(w, ["failure", "message"], scan.failure.message)
    }
    if (id !== null && blank(id)) w.note("dropped", ["source", "id"], "a blank id: FHIR has no blank strings; the scan is identified by its content")
    const scanId: Wire.Identifier =
      id === null || blank(id)
        ? { system: `${CONTENT_ID_SYSTEM}/${encodeURIComponent(api)}`, value: contentId(scan) }
        : { system: `${SOURCE_ID_SYSTEM}/${encodeURIComponent(api)}`, value: id }
    const memberId = (code: string): Wire.Identifier => ({ system: scanId.system, value: `${scanId.value}/${code}` })

    const externalId = scan.externalId
    if (externalId !== null && blank(externalId)) w.note("dropped", ["externalId"], "a blank externalId: FHIR has no blank strings")
    const hasExternal = externalId !== null && !blank(externalId)
    const patientSystem = options.patientSystem
    const subject: Wire.Reference | undefined =
      patientSystem !== undefined && hasExternal
        ? {
            reference: `Patient?identifier=${identifierQuery({ system: patientSystem, value: externalId })}`,
            identifier: { system: patientSystem, value: externalId }
          }
        : undefined
    const effective = scan.createdAt ?? undefined
    const vitalSigns = subject !== undefined && effective !== undefined

    const method = scan.method
    const deviceId: Wire.Identifier = { system: DEVICE_ID_SYSTEM, value: `scanbridge-${VERSION}-${method ?? "unknown"}` }
    const device: Wire.Device = {
      resourceType: "Device",
      identifier: [deviceId],
      deviceName: [{ name: `Scanbridge ${VERSION}`, type: "user-friendly-name" }],
      ...(method === null ? {} : { type: { coding: [coding(METHOD_CODE_SYSTEM, method, METHOD_DISPLAY[method])], text: METHOD_DISPLAY[method] } }),
      version: [{ value: VERSION }]
    }
    const deviceUrl = urnOf(deviceId)
    const common = {
      ...(subject === undefined ? {} : { subject }),
      ...(effective === undefined ? {} : { effectiveDateTime: effective })
    }

    const members: Array<Wire.BundleEntry> = []
    const memberUrl = new Map<string, string>()
    const addMember = (c: FhirCode, value: Pick<Wire.Observation, "valueQuantity" | "valueCodeableConcept" | "derivedFrom">) => {
      const identifier = memberId(c.code)
      const url = urnOf(identifier)
      memberUrl.set(c.code, url)
      const resource: Wire.Observation = {
        resourceType: "Observation",
        ...(c.profile !== null && vitalSigns ? { meta: { profile: [VITAL_SIGNS_PROFILE, PROFILES[c.profile]] } } : {}),
        identifier: [identifier],
        status: "final",
        ...(c.category === null ? {} : { category: category(c.category) }),
        code: codeOfQuantity(c),
        ...common,
        ...value,
        device: { reference: deviceUrl }
      }
      members.push(entryOf(resource, identifier, url))
    }

    if (scan.status === "success") {
      const { age, gender, heightMm, weightG } = scan.subject
      const composition = scan.composition
      for (const c of FHIR_CODES) {
        const path = c.target.split(".")
        switch (c.target) {
          case "subject.age":
            if (age !== null) addMember(c, { valueQuantity: quantity(w, path, age, FIXED_UNITS.years) })
            break
          case "subject.gender":
            if (gender !== null)
              addMember(c, {
                valueCodeableConcept: { coding: [coding(ADMINISTRATIVE_GENDER_SYSTEM, gender, gender === "male" ? "Male" : "Female")] }
              })
            break
          case "subject.heightMm":
            if (heightMm !== null) addMember(c, { valueQuantity: lengthQuantity(w, path, heightMm, units.length) })
            break
          case "subject.weightG":
            if (weightG !== null) addMember(c, { valueQuantity: massQuantity(w, path, weightG, units.mass) })
            break
          case "bmi":
            if (heightMm !== null && weightG !== null && heightMm > 0) {
              const bmi = weightG / 1000 / (heightMm / 1000) ** 2
              addMember(c, {
                valueQuantity: quantity(w, ["subject"], bmi, FIXED_UNITS.bmi),
                derivedFrom: [{ reference: memberUrl.get("height")! }, { reference: memberUrl.get("weight")! }]
              })
            }
            break
          case "composition.bodyFatPercent":
          case "composition.bodyFatMassG":
          case "composition.leanMassG":
          case "composition.skeletalMuscleMassG": {
            const key = c.target.slice("composition.".length) as "bodyFatPercent" | "bodyFatMassG" | "leanMassG" | "skeletalMuscleMassG"
            const v = composition?.[key] ?? null
            if (v !== null)
              addMember(c, { valueQuantity: key === "bodyFatPercent" ? quantity(w, path, v, FIXED_UNITS.percent) : massQuantity(w, path, v, units.mass) })
            break
          }
          default: {
            const name = c.target.slice("measurementsMm.".length) as keyof Scan["measurementsMm"]
            const v = scan.measurementsMm[name]
            if (v !== undefined) addMember(c, { valueQuantity: lengthQuantity(w, path, v, units.length) })
          }
        }
      }
    } else {
      const values = Object.keys(scan.measurementsMm).length > 0 || Object.values(scan.subject).some((v) => v !== null) || scan.composition !== null
      w.dropIf(values, ["subject"], `a ${scan.status} scan exports no values: its stats, measurements and composition are left out`)
    }
    w.dropIf(scan.expiresAt !== null, ["expiresAt"], "FHIR has no expiry of a pending scan")
    w.dropIf(scan.posture !== null, ["posture"], "FHIR has no coded posture: the angles and lines are left out")
    w.dropIf(scan.avatar !== null, ["avatar"], "the avatar is left out of a health record")
    w.dropIf(scan.adjustment !== null, ["adjustment"], "FHIR has no adjustment of a scan")

    const failure = scan.failure
    const dataAbsentReason: Wire.CodeableConcept | undefined =
      failure !== null
        ? {
            coding: [
              coding(DATA_ABSENT_REASON_SYSTEM, "error", "Error"),
              ...(isFhirCode(failure.code) ? [coding(FAILURE_CODE_SYSTEM, failure.code)] : []),
              coding(FAILURE_CATEGORY_SYSTEM, failure.category)
            ],
            ...(failure.message === null || blank(failure.message) ? {} : { text: failure.message })
          }
        : scan.status === "pending"
          ? { coding: [coding(DATA_ABSENT_REASON_SYSTEM, "temp-unknown", "Temporarily Unknown")], text: "the scan had not finished when it was read" }
          : undefined
    if (failure !== null && failure.message !== null && blank(failure.message))
      w.note("dropped", ["failure", "message"], "a blank message: FHIR has no blank strings")
    if (failure !== null && !isFhirCode(failure.code))
      w.note("dropped", ["failure", "code"], "not a FHIR code (it has leading, trailing or repeated whitespace): the panel keeps the failure's category")

    const panelIdentifier: ReadonlyArray<Wire.Identifier> = hasExternal ? [scanId, { system: EXTERNAL_ID_SYSTEM, value: externalId }] : [scanId]
    const panel: Wire.Observation = {
      resourceType: "Observation",
      identifier: panelIdentifier,
      status: STATUS[scan.status],
      category: category("exam"),
      code: { coding: [coding(SCAN_CODE_SYSTEM, PANEL_CODE.code, PANEL_CODE.display)], text: PANEL_CODE.display },
      ...common,
      ...(dataAbsentReason === undefined ? {} : { dataAbsentReason }),
      ...(scan.notes.length === 0 ? {} : { note: scan.notes.map((n) => ({ text: noteText(n) })) }),
      ...(method === null ? {} : { method: { coding: [coding(METHOD_CODE_SYSTEM, method, METHOD_DISPLAY[method])] } }),
      device: { reference: deviceUrl },
      ...(members.length === 0 ? {} : { hasMember: members.map((m) => ({ reference: m.fullUrl })) })
    }
    return {
      value: {
        resourceType: "Bundle",
        type: "transaction",
        entry: [entryOf(device, deviceId, deviceUrl), entryOf(panel, scanId, urnOf(scanId)), ...members]
      },
      notes: w.notes
    }
  })
}

const lengthQuantity = (w: EncodeWalk, path: Path, mm: number, code: "cm" | "[in_i]"): Wire.Quantity =>
  quantity(w, path, convertLength(mm, "mm", code === "cm" ? "cm" : "in"), code)

const massQuantity = (w: EncodeWalk, path: Path, g: number, code: "kg" | "[lb_av]"): Wire.Quantity =>
  quantity(w, path, convertMass(g, "g", code === "kg" ? "kg" : "lb"), code)

/** The scan as one FHIR R4 transaction Bundle, in Effect: fails with the EncodeError. */
export const toFhir = (scan: Scan, options?: FhirOptions): Effect.Effect<Encoded<Wire.Bundle>, EncodeError> => encodeBundleEither(scan, options)

/**
 * A bundle's panel as one resource, its Device and members `contained` and referred to as
 * `#id`: for a store that keeps one resource per scan. It reads back as the bundle does.
 */
export const toContainedPanel = (bundle: Wire.Bundle): Wire.ContainedPanel => {
  const [device, panel, ...members] = bundle.entry
  const ids = new Map(bundle.entry.map((e, i) => [e.fullUrl, i === 0 ? "device" : `m${i - 2}`]))
  const local = (r: Wire.Reference): Wire.Reference => ({ reference: `#${ids.get(r.reference ?? "")}` })
  const observation = (e: Wire.BundleEntry | undefined) => e?.resource as Wire.Observation
  const own = observation(panel)
  return {
    ...own,
    contained: [
      { ...(device!.resource as Wire.Device), id: "device" },
      ...members.map((e) => {
        const m = observation(e)
        return {
          ...m,
          id: ids.get(e.fullUrl)!,
          device: { reference: "#device" },
          ...(m.derivedFrom === undefined ? {} : { derivedFrom: m.derivedFrom.map(local) })
        }
      })
    ],
    ...(own.device === undefined ? {} : { device: local(own.device) }),
    ...(own.hasMember === undefined ? {} : { hasMember: own.hasMember.map(local) })
  }
}
