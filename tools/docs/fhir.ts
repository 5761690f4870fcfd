/**
 * docs/fhir.md's tables and example, and the CodeSystems published under docs/fhir/, from the
 * FHIR package's code table (dialect.ts), its LOINC lists (loinc.ts), its encoder and the
 * model's literals: a code the encoder writes cannot be missing from the docs or the CodeSystems.
 */
import { Either } from "effect"
import { FailureCategory, Method, makeScan } from "@scanbridge/model"
import {
  FAILURE_CATEGORIES,
  FAILURE_CATEGORY_SYSTEM,
  FHIR_CODES,
  FHIR_UNITS,
  FIXED_UNITS,
  type FhirCode,
  type FhirQuantityKind,
  LOINC_SYSTEM,
  METHOD_CODE_SYSTEM,
  METHOD_DEFINITION,
  METHOD_DISPLAY,
  PANEL_CODE,
  PROFILES,
  SCAN_CODE_SYSTEM,
  VERSION,
  type Wire,
  LOINC_NOT_WRITTEN,
  encodeBundleEither,
  loincTerm
} from "@scanbridge/fhir/adapter"
import { code, table } from "./tables.js"

const UNITS: Readonly<Record<FhirQuantityKind, string>> = {
  length: `${code(FHIR_UNITS.cm.length)}, ${code(FHIR_UNITS.in.length)} with \`--units in\``,
  mass: `${code(FHIR_UNITS.cm.mass)}, ${code(FHIR_UNITS.in.mass)} with \`--units in\``,
  percent: code(FIXED_UNITS.percent),
  bmi: code(FIXED_UNITS.bmi),
  years: code(FIXED_UNITS.years),
  gender: "none: `valueCodeableConcept`, administrative-gender `male` or `female`"
}

/** The canonical path of a quantity; BMI is none, since a canonical scan does not hold it. */
const canonicalPath = (c: FhirCode): string => (c.target === "bmi" ? "(derived from `subject.heightMm` and `subject.weightG`)" : code(c.target))

/** Every quantity a bundle can hold, in the order a bundle writes them, with its codes and why. */
export const fhirMappingTable = (): string =>
  table(
    ["canonical", "Scanbridge code", "LOINC", "LOINC source", "category", "profile", "UCUM unit", "why (uncoded) or what the code assumes"],
    FHIR_CODES.map((c) => [
      canonicalPath(c),
      code(c.code),
      c.loinc === null ? "none" : `${code(c.loinc)} ${loincTerm(c.loinc).longCommonName}`,
      c.loinc === null ? "" : loincTerm(c.loinc).source,
      c.category ?? "(none)",
      c.profile === null ? "" : `vitalsigns, ${c.profile}`,
      UNITS[c.kind],
      c.why
    ])
  )

/** The LOINC codes never written, each with the name LOINC gives it and the reason. */
export const loincNotWrittenTable = (): string =>
  table(
    ["LOINC", "long common name", "why Scanbridge never writes it"],
    LOINC_NOT_WRITTEN.map((t) => [code(t.code), t.longCommonName, t.why])
  )

/** The scan docs/fhir.md shows as a bundle: made up, with a patient's identifier in its externalId. */
const exampleBundle = (): Wire.Bundle => {
  const scan = Either.getOrThrow(
    makeScan({
      source: { api: "platform", id: "scan_000001" },
      status: "success",
      externalId: "patient-0042",
      createdAt: "2026-01-02T03:04:05.000Z",
      method: "photo",
      subject: { heightMm: 1650, weightG: 61000 },
      measurementsMm: { bellyWaistGirth: 781, hipGirth: 962 }
    })
  )
  return Either.getOrThrow(encodeBundleEither(scan, { patientSystem: "https://example.org/patients" })).value
}

const SYSTEM_NAMES: Readonly<Record<string, string>> = { [SCAN_CODE_SYSTEM]: "Scanbridge", [METHOD_CODE_SYSTEM]: "method", [LOINC_SYSTEM]: "LOINC" }

const codingsOf = (concept: Wire.CodeableConcept | undefined): string =>
  (concept?.coding ?? []).map((c) => `${SYSTEM_NAMES[c.system] ?? c.system} ${code(c.code)}`).join(", ")

/** The example bundle's entries, one row each: what a reader finds where. */
export const fhirExampleTable = (): string =>
  table(
    ["entry", "fullUrl", "resource", "code", "value", "profile"],
    exampleBundle().entry.map((e, i) => {
      const r = e.resource
      const value =
        r.resourceType === "Device"
          ? `version ${r.version.map((v) => v.value).join(", ")}`
          : r.valueQuantity !== undefined
            ? `${r.valueQuantity.value} ${r.valueQuantity.code}`
            : r.hasMember !== undefined
              ? `hasMember: ${r.hasMember.length} entries`
              : ""
      const profile = r.resourceType === "Observation" ? (r.meta?.profile ?? []).map((p) => p.slice(p.lastIndexOf("/") + 1)).join(", ") : ""
      return [String(i), code(e.fullUrl), r.resourceType, r.resourceType === "Device" ? codingsOf(r.type) : codingsOf(r.code), value, profile]
    })
  )

/** One member of the example bundle in full: the body height, which claims the vital-signs profiles. */
export const fhirExampleEntry = (): string => {
  const height = exampleBundle().entry.find((e) => e.resource.resourceType === "Observation" && e.resource.meta?.profile.includes(PROFILES.bodyheight))
  if (height === undefined) throw new Error("tools/docs/fhir.ts: the example bundle has no profiled body height")
  return `\`\`\`json\n${JSON.stringify(height, null, 2)}\n\`\`\``
}

interface Concept {
  readonly code: string
  readonly display: string
  readonly definition: string
}

/** An FHIR R4 CodeSystem that lists every code of its system (`content: complete`). */
const codeSystem = (id: string, url: string, name: string, title: string, description: string, concept: ReadonlyArray<Concept>) => ({
  resourceType: "CodeSystem",
  id,
  url,
  version: VERSION,
  name,
  title,
  status: "active",
  experimental: false,
  publisher: "Scanbridge",
  description,
  caseSensitive: true,
  content: "complete",
  count: concept.length,
  concept
})

/** The three CodeSystems of the codes a bundle writes in Scanbridge's systems, as docs/fhir/ publishes them. */
export const FHIR_CODE_SYSTEMS: ReadonlyArray<{ readonly path: string; readonly resource: () => object }> = [
  {
    path: "docs/fhir/CodeSystem-scan.json",
    resource: () =>
      codeSystem(
        "scan",
        SCAN_CODE_SYSTEM,
        "ScanbridgeScan",
        "Scanbridge body scan quantities",
        "The code of a body scan's panel Observation (scan) and of each of its members: the stats the scan was taken with, the derived BMI, every measurement of the canonical catalogue by its canonical name, and the body composition. A member also carries a LOINC code where LOINC has a measurement term for it (docs/fhir.md).",
        [
          {
            code: PANEL_CODE.code,
            display: PANEL_CODE.display,
            definition: "One body scan: the panel Observation whose members (hasMember) are the scan's quantities"
          },
          ...FHIR_CODES.map((c) => ({ code: c.code, display: c.display, definition: c.definition }))
        ]
      )
  },
  {
    path: "docs/fhir/CodeSystem-scan-method.json",
    resource: () =>
      codeSystem(
        "scan-method",
        METHOD_CODE_SYSTEM,
        "ScanbridgeScanMethod",
        "Scanbridge scanning methods",
        "How a body scan was made: the method of its panel Observation and the type of its Device.",
        Method.literals.map((m) => ({ code: m, display: METHOD_DISPLAY[m], definition: METHOD_DEFINITION[m] }))
      )
  },
  {
    path: "docs/fhir/CodeSystem-failure-category.json",
    resource: () =>
      codeSystem(
        "failure-category",
        FAILURE_CATEGORY_SYSTEM,
        "ScanbridgeFailureCategory",
        "Scanbridge scan failure categories",
        "The category of a failed scan, a coding of its panel Observation's dataAbsentReason beside data-absent-reason#error and the failure's code as its API gave it.",
        FailureCategory.literals.map((c) => ({ code: c, ...FAILURE_CATEGORIES[c] }))
      )
  }
]
