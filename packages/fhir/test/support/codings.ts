/**
 * What the code-table tests read bundles with: every coding a bundle holds, wherever it is, and
 * the scans that make the encoder write every code it can.
 */
import { Either } from "effect"
import { FailureCategory, MEASUREMENT_NAMES, Method, type Scan, type ScanInit, makeScan } from "@scanbridge/model"
import { encodeBundleEither } from "../../src/codec.js"
import type { FhirUnits } from "../../src/dialect.js"
import type * as Wire from "../../src/wire.js"

export interface FoundCoding {
  /** Where in the bundle, as a JSON path (`entry[2].resource.code.coding[1]`). */
  readonly at: string
  readonly system: string
  readonly code: string
  readonly display: string | undefined
}

/** Every object with a string `system` and `code` in the JSON, at any depth: a coding, wherever FHIR puts one. */
export const codingsOf = (json: unknown, at = ""): ReadonlyArray<FoundCoding> => {
  if (Array.isArray(json)) return json.flatMap((item, i) => codingsOf(item, `${at}[${i}]`))
  if (typeof json !== "object" || json === null) return []
  const record = json as Record<string, unknown>
  const own: ReadonlyArray<FoundCoding> =
    typeof record["system"] === "string" && typeof record["code"] === "string"
      ? [{ at, system: record["system"], code: record["code"], display: typeof record["display"] === "string" ? record["display"] : undefined }]
      : []
  return [...own, ...Object.entries(record).flatMap(([key, value]) => codingsOf(value, at === "" ? key : `${at}.${key}`))]
}

export const PATIENT_SYSTEM = "https://example.org/patients"

/** Every way a bundle is written: both units, with and without a patient system. */
export const ENCODE_OPTIONS: ReadonlyArray<{ readonly units: FhirUnits; readonly patientSystem?: string }> = [
  { units: "cm" },
  { units: "in" },
  { units: "cm", patientSystem: PATIENT_SYSTEM },
  { units: "in", patientSystem: PATIENT_SYSTEM }
]

/** The scan's bundles in every way it can be written, as they travel (parsed from their JSON); none where the encoder refuses the scan. */
export const bundlesOf = (scan: Scan): ReadonlyArray<Wire.Bundle> =>
  ENCODE_OPTIONS.flatMap((options) =>
    Either.match(encodeBundleEither(scan, options), {
      onLeft: () => [],
      onRight: (encoded) => [JSON.parse(JSON.stringify(encoded.value)) as Wire.Bundle]
    })
  )

const scanOf = (init: ScanInit): Scan => Either.getOrThrow(Either.mapLeft(makeScan(init), (e) => new Error(`test scan refused: ${e.message}`)))

/** A successful scan that holds every quantity the code table codes, for every method. */
export const everyQuantityScans = (): ReadonlyArray<Scan> =>
  Method.literals.map((method, i) =>
    scanOf({
      source: { api: "platform", id: `scan_every_${i}` },
      status: "success",
      externalId: "patient-1",
      createdAt: "2026-01-02T03:04:05.000Z",
      method,
      subject: { age: 34, gender: i % 2 === 0 ? "female" : "male", heightMm: 1700, weightG: 65000 },
      measurementsMm: Object.fromEntries(MEASUREMENT_NAMES.map((name, j) => [name, 300 + j])),
      composition: { bodyFatPercent: 21.5, bodyFatMassG: 13975, leanMassG: 51025, skeletalMuscleMassG: 28000 }
    })
  )

/** A failed scan of each category, and a pending scan. */
export const failedAndPendingScans = (): ReadonlyArray<Scan> => [
  ...FailureCategory.literals.map((category, i) =>
    scanOf({
      source: { api: "platform", id: `scan_failed_${i}` },
      status: "failure",
      createdAt: "2026-01-02T03:04:05.000Z",
      method: "photo",
      failure: { code: `code-${category}`, category, message: null }
    })
  ),
  scanOf({ source: { api: "platform", id: "scan_pending" }, status: "pending", createdAt: "2026-01-02T03:04:05.000Z", method: null })
]
