/**
 * The published declarations stand alone: the package is built and packed, the tarball installed
 * offline in an empty project (no effect, no Scanbridge package beside it), and code that uses the
 * plain API is type-checked against it with skipLibCheck off, as ESM and as CommonJS. Kept out of
 * the default suite (vitest.faults.config.ts): the build alone takes a minute.
 *
 * The types at the top hold src/types.ts to the types it restates without Effect, so that a
 * change in the model, the engine or a client fails the typecheck (tsconfig.test.json).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import type * as Estimation from "@scanbridge/estimation"
import type * as Fit from "@scanbridge/fit"
import type * as Gateway from "@scanbridge/gateway"
import type * as Model from "@scanbridge/model"
import type * as Platform from "@scanbridge/platform"
import type * as Session from "@scanbridge/session"
import type { ScanbridgeErrorCode as CodeOfErrors } from "../src/errors.js"
import type * as Plain from "../src/types.js"

// --- The restated types against their sources ---------------------------------------------

type Extends<A, B> = [A] extends [B] ? true : false
type Same<A, B> = Extends<A, B> extends true ? Extends<B, A> : false
/** Keys one has that the other lacks (besides those left out on purpose): never when in step. */
type KeysOnlyIn<A, B, Omitted extends PropertyKey = never> = Exclude<keyof A, keyof B | Omitted>
const holds = <T extends true>(_: T) => undefined
const none = <T extends never>(_?: T) => undefined

holds<Same<Plain.ScanJson, Model.ScanJson>>(true)
// A client's scans are the model's Scan: its numbers are branded, the same JSON.
holds<Extends<Model.Scan, Plain.ScanJson>>(true)
holds<Same<Plain.MeasurementName, Model.MeasurementName>>(true)
holds<Same<Plain.Note, Model.Note>>(true)
holds<Same<Plain.Encoded<unknown>, Model.Encoded<unknown>>>(true)
holds<Same<Plain.TargetOptions, Model.EncodeOptions>>(true)
holds<Same<Plain.Issue, Model.Issue>>(true)
holds<Same<Plain.ScanbridgeErrorCode, CodeOfErrors>>(true)
// Every adapter made with the kit is one the plain API takes.
holds<Extends<Model.Adapter, Plain.Adapter>>(true)
holds<Same<Plain.ProductId, Model.ProductId>>(true)
holds<Extends<Model.SizeDocument, Plain.SizeDocument>>(true)
none<KeysOnlyIn<Model.SizeDocument, Plain.SizeDocument>>()
holds<Extends<Fit.ProductSupport, Plain.ProductSupport>>(true)
holds<Extends<Platform.ListPage, Plain.ListPage>>(true)
holds<Extends<Platform.ScanToken, Plain.ScanToken>>(true)
holds<Extends<Estimation.AccessToken, Plain.AccessToken>>(true)
// Options: every one a client takes but the HttpClient it runs on, and methods: every one.
none<KeysOnlyIn<Platform.PlatformClientOptions, Plain.PlatformClientOptions, "transformClient">>()
none<KeysOnlyIn<Session.SessionClientOptions, Plain.SessionClientOptions, "transformClient">>()
none<KeysOnlyIn<Estimation.EstimationClientOptions, Plain.EstimationClientOptions, "transformClient">>()
none<KeysOnlyIn<Fit.FitClientOptions, Plain.FitClientOptions, "transformClient">>()
none<KeysOnlyIn<NonNullable<Platform.PlatformClientOptions["retry"]>, Plain.RetryOptions>>()
none<KeysOnlyIn<Session.AwaitOptions, Plain.AwaitOptions>>()
none<KeysOnlyIn<Estimation.AwaitOptions, Plain.EstimationAwaitOptions>>()
none<KeysOnlyIn<Platform.PlatformClientService, Plain.PlatformApi>>()
none<KeysOnlyIn<Plain.PlatformApi, Platform.PlatformClientService>>()
none<KeysOnlyIn<Session.SessionClientService, Plain.SessionClient>>()
none<KeysOnlyIn<Plain.SessionClient, Session.SessionClientService, "close">>()
none<KeysOnlyIn<Estimation.EstimationClientService, Plain.EstimationClient>>()
none<KeysOnlyIn<Plain.EstimationClient, Estimation.EstimationClientService, "close">>()
none<KeysOnlyIn<Fit.FitClientService, Plain.FitClient>>()
none<KeysOnlyIn<Plain.FitClient, Fit.FitClientService, "close">>()
// The gateway's options: every one but the client ids' Redacted form, which the plain API takes as strings.
none<KeysOnlyIn<Gateway.GatewayOptions, Plain.GatewayOptions>>()
holds<Extends<Plain.GatewayOptions["clientIds"], Gateway.GatewayOptions["clientIds"]>>(true)
holds<Extends<NonNullable<Plain.GatewayOptions["estimationLengthUnit"]>, NonNullable<Gateway.GatewayOptions["estimationLengthUnit"]>>>(true)

// --- The packed package, installed alone ----------------------------------------------------

const run = promisify(execFile)
const packageDir = fileURLToPath(new URL("..", import.meta.url))
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))
const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc")

/**
 * What a user writes. Each `@ts-expect-error` fails the check if its line type-checks: a type
 * that resolved to `any` (an unresolved import under skipLibCheck) would let every one through.
 */
const usage = (load: string) => `${load}

const record: unknown = JSON.parse("{}")
const scans: ReadonlyArray<ScanJson> = normalize(record, { lengthUnit: "in" })
const first: number | undefined = scans[0]?.measurementsMm.hipGirth
// @ts-expect-error not a length unit
normalize(record, { lengthUnit: "ft" })
// @ts-expect-error not a measurement of the catalogue
scans[0]?.measurementsMm.hipGirthh

const run: Promise<Report> = migrate({ from: ["in.ndjson"], out: "out.ndjson", to: "csv", units: "cm", resumable: true, workers: "auto", onProgress: (p) => console.log(p.report.migrated, p.bytesRead) })
run.then((report) => {
  const migrated: number = report.migrated
  // @ts-expect-error the report's count is a number
  const wrong: string = report.rejected
  console.log(migrated, wrong, first)
})

const bundle: FhirBundle = toFhir(record, { units: "in", patientSystem: "https://hospital.example/patients" }).value
console.log(bundle.entry[0]?.resource.resourceType)
// @ts-expect-error FHIR's lengths are in cm or in
toFhir(record, { units: "mm" })

try {
  detectFormat(record)
} catch (e) {
  if (e instanceof ScanbridgeError) {
    const code: ScanbridgeErrorCode = e.code
    // @ts-expect-error no such code
    const never: "NoSuchError" = e.code
    console.log(code, never, e.path, e.issues.length, e.reason)
  }
}

async function clients(): Promise<void> {
  const platform = await platformClient({ baseUrl: "http://127.0.0.1:1", orgId: "org", apiKey: "key", timeout: "5 seconds", retry: { times: 2 } })
  const scan: ScanJson = await platform.getScan("id")
  for await (const listed of platform.listAllScans({ limit: 10 })) console.log(listed.status)
  // @ts-expect-error a scan id is a string
  await platform.getScan(1)
  await platform.close()
  const fit = await fitClient({ baseUrl: "http://127.0.0.1:1", clientKey: "key" })
  const size = await fit.recommendedSize("token", { brandId: "b", garmentSku: "s" })
  console.log(scan.format, size.recommendedSize)
  const gateway = await createGateway({
    platform: { url: "http://127.0.0.1:1", orgId: "org", apiKey: "key" },
    clientIds: ["cl_1"],
    store: { directory: "gateway-store" },
    sessionLifetime: "30 minutes"
  })
  const answer: Response = await gateway.fetch(new Request("http://127.0.0.1/tokens/anonymous?client_id=cl_1"))
  // @ts-expect-error one store, not two kinds at once
  await createGateway({ platform: { url: "u", orgId: "o", apiKey: "k" }, clientIds: [], store: { directory: "d", postgres: "postgres://db/gw" } })
  console.log(answer.status, typeof gateway.handler)
  await gateway.close()
}
void clients
`

const ESM = `import { createGateway, detectFormat, fitClient, migrate, normalize, platformClient, ScanbridgeError, toFhir, type FhirBundle, type Report, type ScanbridgeErrorCode, type ScanJson } from "scanbridge"`
const CJS = `import scanbridge = require("scanbridge")
const { createGateway, detectFormat, fitClient, migrate, normalize, platformClient, ScanbridgeError, toFhir } = scanbridge
type FhirBundle = scanbridge.FhirBundle
type Report = scanbridge.Report
type ScanbridgeErrorCode = scanbridge.ScanbridgeErrorCode
type ScanJson = scanbridge.ScanJson`

describe("the packed package's declarations", () => {
  it("type-check a user's ESM and CommonJS code with only the tarball installed, skipLibCheck off", async () => {
    await run("npx", ["tsup"], { cwd: packageDir, maxBuffer: 64 * 1024 * 1024 })
    const dir = await mkdtemp(join(tmpdir(), "scanbridge-dts-"))
    try {
      const packs = join(dir, "packs")
      await mkdir(packs)
      await run("npm", ["pack", "--pack-destination", packs], { cwd: packageDir })
      const tarball = join(packs, (await readdir(packs)).find((f) => f.endsWith(".tgz"))!)
      const project = join(dir, "project")
      await mkdir(project)
      await writeFile(join(project, "package.json"), JSON.stringify({ name: "user", private: true, type: "module" }))
      await run("npm", ["i", "--offline", "--no-audit", "--no-fund", tarball], { cwd: project })
      // Only the package: nothing its declarations could lean on.
      expect((await readdir(join(project, "node_modules"))).filter((name) => !name.startsWith("."))).toEqual(["scanbridge"])
      const installed = join(project, "node_modules", "scanbridge", "dist")
      for (const file of ["index.d.ts", "index.d.cts"]) {
        const text = await readFile(join(installed, file), "utf8")
        expect(text.match(/^\s*(import|export)\b[^;]*\bfrom\s+['"][^'"]+['"]/gm) ?? [], file).toEqual([])
        expect(text.match(/\b(import|require)\(\s*['"][^'"]+['"]\s*\)/g) ?? [], file).toEqual([])
      }
      await writeFile(join(project, "use.ts"), usage(ESM))
      await writeFile(join(project, "use.cts"), usage(CJS))
      await writeFile(
        join(project, "tsconfig.json"),
        JSON.stringify({
          // AbortSignal (MigrateOptions.signal) is a global of Node and of the DOM library: a user has one or the other.
          compilerOptions: {
            module: "nodenext",
            moduleResolution: "nodenext",
            target: "es2022",
            lib: ["es2022", "dom"],
            strict: true,
            skipLibCheck: false,
            noEmit: true,
            types: []
          },
          files: ["use.ts", "use.cts"]
        })
      )
      const checked = await run(process.execPath, [tsc, "-p", project], { cwd: project }).then(
        () => "",
        (e: { stdout?: string }) => e.stdout ?? String(e)
      )
      expect(checked).toBe("")
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
