/**
 * Generated regions of the docs. A region sits between `<!-- generated:NAME -->` and
 * `<!-- /generated:NAME -->`; everything outside the markers is written by hand.
 */
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { JSONSchema } from "effect"
import { Scan, SizeDocument } from "@scanbridge/model"
import { OPENAPI_APIS, openApiDocument } from "@scanbridge/simulator"
import { formatTable, otherSpellingTable, targetList } from "./adapters.js"
import { FHIR_CODE_SYSTEMS, fhirExampleEntry, fhirExampleTable, fhirMappingTable, loincNotWrittenTable } from "./fhir.js"
import { gatewayFailureCodeTable, gatewayRouteTable, gatewaySessionStatusTable } from "./gateway.js"
import { measurementTable, postureTable, scanColumnTable, statTable, unitTable } from "./tables.js"

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

export const replaceRegion = (doc: string, name: string, content: string): string => {
  const open = `<!-- generated:${name} -->`
  const close = `<!-- /generated:${name} -->`
  const start = doc.indexOf(open)
  const end = doc.indexOf(close)
  if (start < 0 || end < start) throw new Error(`missing or misordered markers for generated region ${name}`)
  return `${doc.slice(0, start + open.length)}\n\n${content.trimEnd()}\n\n${doc.slice(end)}`
}

interface GeneratedFile {
  /** Relative to the repository root. */
  readonly path: string
  readonly render: (current: string) => string
}

const regions =
  (sections: Record<string, () => string>) =>
  (current: string): string =>
    Object.entries(sections).reduce((doc, [name, render]) => replaceRegion(doc, name, render()), current)

/** A runnable example, shown as it is (it is also run by a test). */
const example = (path: string) => () => "```ts\n" + readFileSync(join(repoRoot, path), "utf8").trimEnd() + "\n```"

/** Every generated file, and how to write it from what is there now. */
export const GENERATED: ReadonlyArray<GeneratedFile> = [
  {
    path: "README.md",
    render: regions({ "platform-quickstart": example("tools/examples/platform-quickstart.ts") })
  },
  {
    path: "docs/migrate-from-session.md",
    render: regions({ "session-migration": example("tools/examples/session-migration.ts") })
  },
  {
    path: "docs/migrate-from-estimation.md",
    render: regions({ "estimation-migration": example("tools/examples/estimation-migration.ts") })
  },
  {
    path: "docs/gateway.md",
    render: regions({
      "gateway-routes": gatewayRouteTable,
      "gateway-session-statuses": gatewaySessionStatusTable,
      "gateway-failure-codes": gatewayFailureCodeTable
    })
  },
  {
    path: "docs/migrate.md",
    render: regions({ formats: formatTable, targets: targetList, "other-spellings": otherSpellingTable })
  },
  {
    path: "docs/fhir.md",
    render: regions({
      "fhir-example": fhirExampleTable,
      "fhir-example-entry": fhirExampleEntry,
      "fhir-mapping": fhirMappingTable,
      "fhir-loinc-not-written": loincNotWrittenTable
    })
  },
  // The CodeSystems of the codes a bundle writes in Scanbridge's own systems.
  ...FHIR_CODE_SYSTEMS.map((cs) => ({ path: cs.path, render: () => `${JSON.stringify(cs.resource(), null, 2)}\n` })),
  {
    path: "docs/databases.md",
    render: regions({ "scan-columns": scanColumnTable })
  },
  {
    path: "docs/fit.md",
    render: regions({ "fit-flow": example("tools/examples/fit-flow.ts") })
  },
  {
    path: "docs/scanbridge.size.v1.schema.json",
    render: () => `${JSON.stringify(JSONSchema.make(SizeDocument), null, 2)}\n`
  },
  {
    path: "docs/canonical-model.md",
    render: regions({ units: unitTable, measurements: measurementTable, stats: statTable, posture: postureTable })
  },
  {
    path: "docs/scanbridge.scan.v1.schema.json",
    render: () => `${JSON.stringify(JSONSchema.make(Scan), null, 2)}\n`
  },
  // The four APIs' OpenAPI 3.1 documents, as the simulator serves them.
  ...OPENAPI_APIS.map((api) => ({ path: `docs/openapi/${api}.json`, render: () => `${JSON.stringify(openApiDocument(api), null, 2)}\n` }))
]

export const readCurrent = (file: GeneratedFile): string => {
  try {
    return readFileSync(join(repoRoot, file.path), "utf8")
  } catch {
    return ""
  }
}
