/**
 * Every bundle the export writes validates offline (support/validate.ts: medplum, the FHIRPath
 * invariants, our own checks): every record of examples/export as the migration engine reads and
 * writes it (its detection and decoders, its `fhir` target), in cm and in inches, with and
 * without a patient system; any canonical scan; and a failed or pending scan is a panel that
 * says why, with no members.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc } from "effect"
import { Scan } from "@scanbridge/model"
import { defaultNormalizer } from "@scanbridge/migrate/normalizer"
import { readFileSync, readdirSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { performance } from "node:perf_hooks"
import { identifierQuery } from "../src/codec.js"
import { PROFILES, VITAL_SIGNS_PROFILE, codeOf } from "../src/dialect.js"
import { ENCODE_OPTIONS, PATIENT_SYSTEM, failedAndPendingScans } from "./support/codings.js"
import { definitionsLoadMs, validateBundle } from "./support/validate.js"
import type * as Wire from "../src/wire.js"

const EXPORT = fileURLToPath(new URL("../../../examples/export", import.meta.url))

interface SourceRecord {
  readonly file: string
  readonly json: unknown
}

/** The records of the example export as the engine splits them: a line of NDJSON, an element of a `.json` array, or a `.json` document whole. */
const exampleRecords = (dir: string): ReadonlyArray<SourceRecord> =>
  readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((d): ReadonlyArray<SourceRecord> => {
      const path = join(dir, d.name)
      const file = relative(EXPORT, path)
      if (d.isDirectory()) return exampleRecords(path)
      const text = readFileSync(path, "utf8")
      if (d.name.endsWith(".json")) {
        const json: unknown = JSON.parse(text)
        return (Array.isArray(json) ? json : [json]).map((j) => ({ file, json: j }))
      }
      return text
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => {
          try {
            return { file, json: JSON.parse(line) as unknown }
          } catch {
            return { file, json: line }
          }
        })
    })

const fhir = defaultNormalizer.encoders.get("fhir")

/** The scan's bundle as the engine's `fhir` target writes it, parsed from its line. */
const bundleLine = (scan: Scan, options: (typeof ENCODE_OPTIONS)[number]): Wire.Bundle => {
  if (fhir === undefined) throw new Error("the engine has no fhir target")
  const encoded = fhir.encode(scan, options)
  if (Either.isLeft(encoded)) throw new Error(`the fhir target refused ${scan.source.api} ${String(scan.source.id)}: ${encoded.left.message}`)
  return JSON.parse(JSON.stringify(encoded.right.value)) as Wire.Bundle
}

// How long validation takes, printed once: the figures the issue's note quotes, never asserted.
let validated = 0
let validatingMs = 0
const timedValidate = (bundle: unknown) => {
  definitionsLoadMs() // loads them, if this is the first validation: not a bundle's time
  const start = performance.now()
  const issues = validateBundle(bundle)
  validatingMs += performance.now() - start
  validated++
  return issues
}
afterAll(() => {
  if (validated > 0)
    console.log(
      `FHIR validation: definitions loaded in ${Math.round(definitionsLoadMs())} ms; ${validated} bundles, ${(validatingMs / validated).toFixed(1)} ms each on average`
    )
})

const observations = (bundle: Wire.Bundle): ReadonlyArray<Wire.Observation> =>
  bundle.entry.flatMap((e) => (e.resource.resourceType === "Observation" ? [e.resource] : []))

const scanCodeOf = (o: Wire.Observation): string | undefined => o.code.coding?.[0]?.code

/** What a bundle says of its patient and profiles is what the options and the scan call for. */
const expectPatientAndProfiles = (scan: Scan, options: (typeof ENCODE_OPTIONS)[number], bundle: Wire.Bundle) => {
  // A blank externalId (whitespace only) is dropped with a note: FHIR has no blank strings, so it names no patient.
  const names = options.patientSystem !== undefined && scan.externalId !== null && scan.externalId.trim() !== ""
  const profiled = names && scan.createdAt !== null
  for (const o of observations(bundle)) {
    expect(o.subject?.identifier).toEqual(names ? { system: options.patientSystem, value: scan.externalId } : undefined)
    const profile = codeOf(scanCodeOf(o) ?? "")?.profile ?? null
    expect(o.meta?.profile).toEqual(profiled && profile !== null ? [VITAL_SIGNS_PROFILE, PROFILES[profile]] : undefined)
  }
}

/** A failed or pending scan's bundle: its Device and a panel with no value and no members, saying why. */
const expectPanelOnly = (scan: Scan, bundle: Wire.Bundle) => {
  expect(bundle.entry.map((e) => e.resource.resourceType)).toEqual(["Device", "Observation"])
  const [panel] = observations(bundle)
  expect(panel?.status).toBe(scan.status === "failure" ? "cancelled" : "registered")
  expect(panel?.hasMember).toBeUndefined()
  expect(panel?.valueQuantity).toBeUndefined()
  expect(panel?.dataAbsentReason?.coding?.[0]).toMatchObject({
    system: "http://terminology.hl7.org/CodeSystem/data-absent-reason",
    code: scan.status === "failure" ? "error" : "temp-unknown"
  })
}

describe("the bundles of the example export", () => {
  const records = exampleRecords(EXPORT)
  const read = records.map((r) => ({ ...r, scans: Either.getOrUndefined(defaultNormalizer.normalize(r.json)) }))
  const scans = read.flatMap((r) => r.scans ?? [])

  it("are read as the engine reads them: every record but broken.ndjson's three gives scans, of every status", () => {
    expect(read.filter((r) => r.scans === undefined).map((r) => r.file)).toEqual(["broken.ndjson", "broken.ndjson", "broken.ndjson"])
    expect(new Set(scans.map((s) => s.status))).toEqual(new Set(["success", "failure", "pending"]))
  })

  for (const options of ENCODE_OPTIONS) {
    const label = `in ${options.units}${options.patientSystem === undefined ? ", no patient system" : `, patients of ${options.patientSystem}`}`
    it(`validate, ${label}`, () => {
      for (const scan of scans) {
        const bundle = bundleLine(scan, options)
        expect({ scan: `${scan.source.api} ${String(scan.source.id)}`, issues: timedValidate(bundle) }).toEqual({
          scan: `${scan.source.api} ${String(scan.source.id)}`,
          issues: []
        })
        expectPatientAndProfiles(scan, options, bundle)
        if (scan.status !== "success") expectPanelOnly(scan, bundle)
      }
    })
  }

  it("with a patient system, a scan with an externalId names its patient by a conditional reference", () => {
    const named = scans.filter((s) => s.externalId !== null && s.externalId.trim() !== "")
    // The session results: their clients' own ids. They state no time, so none claims a vital-signs profile (which requires effective[x]); the generated scans below do.
    expect(named.map((s) => s.source.api)).toContain("session")
    for (const scan of named)
      for (const o of observations(bundleLine(scan, { units: "cm", patientSystem: PATIENT_SYSTEM })))
        expect(o.subject).toEqual({
          reference: `Patient?identifier=${identifierQuery({ system: PATIENT_SYSTEM, value: scan.externalId! })}`,
          identifier: { system: PATIENT_SYSTEM, value: scan.externalId }
        })
  })
})

describe("the bundles of any scan", () => {
  it("of a failed or pending scan: a valid panel with a dataAbsentReason and no members", () => {
    for (const scan of failedAndPendingScans())
      for (const options of ENCODE_OPTIONS) {
        const bundle = bundleLine(scan, options)
        expect(timedValidate(bundle)).toEqual([])
        expectPanelOnly(scan, bundle)
      }
  })

  it.prop(
    "of any canonical scan validate, in either unit, with or without a patient system",
    [Arbitrary.make(Scan), fc.constantFrom(...ENCODE_OPTIONS)],
    ([scan, options]) => {
      const bundle = bundleLine(scan, options)
      expect(timedValidate(bundle)).toEqual([])
      expectPatientAndProfiles(scan, options, bundle)
    },
    { fastCheck: { numRuns: 100 } }
  )
})
