/**
 * `scanbridge gateway` as it ships: the CLI built by its own tsup config (one bundle, no
 * dependencies installed beside it) into a folder outside the repository, where no node_modules
 * can be found, and run by node. Its embedded store must find everything it needs in the bundle:
 * the database driver, and PGlite's WebAssembly and data files. So must `migrate --to fhir`, the
 * FHIR adapter and what it uses (uuid), on the bundle's worker threads too.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { execFile } from "node:child_process"
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { promisify } from "node:util"
import type { Options } from "tsup"
import { embeddedStoreLayer } from "@scanbridge/gateway"
import { DEMO_ORG, Simulator } from "@scanbridge/simulator"
import { startGateway } from "./gateway-process.js"

const packageDir = fileURLToPath(new URL("..", import.meta.url))
const CLIENT = "cl_bundled_gateway_4711"

let simulator: ManagedRuntime.ManagedRuntime<Simulator, unknown>
let platformUrl: string
let tmp: string

beforeAll(async () => {
  simulator = ManagedRuntime.make(Simulator.layer())
  platformUrl = (await simulator.runPromise(Simulator)).url
  tmp = await mkdtemp(join(tmpdir(), "scanbridge-gateway-bundle-"))
  const { build } = await import("tsup")
  // A computed specifier: the config is the build's, not a module of the tests' program.
  const { builds } = (await import(pathToFileURL(join(packageDir, "tsup.config.ts")).href)) as { builds: (outDir: string) => Array<Options> }
  for (const config of builds(join(tmp, "dist"))) {
    await build({ ...config, entry: (config.entry as Array<string>).map((entry) => join(packageDir, entry)), sourcemap: false, silent: true })
  }
  // The store's database made here, where a hook may take its time (initdb).
  await Effect.runPromise(Effect.scoped(Layer.build(embeddedStoreLayer(join(tmp, "store")))))
  await writeFile(join(tmp, "clients.txt"), `${CLIENT}\n`)
}, 300_000)
afterAll(async () => {
  await simulator.dispose()
  await rm(tmp, { recursive: true, force: true })
})

describe("the built scanbridge gateway", () => {
  it("opens its embedded store, serves the session API, and stops on SIGTERM with exit code 0, with nothing installed beside it", async () => {
    const { url, exit, kill } = await startGateway(
      [
        join(tmp, "dist", "main.js"),
        "gateway",
        "--port",
        "0",
        "--platform-url",
        platformUrl,
        "--org",
        DEMO_ORG.id,
        "--clients",
        "clients.txt",
        "--store",
        "store"
      ],
      { cwd: tmp, env: { PATH: process.env["PATH"] ?? "", SCANBRIDGE_API_KEY: DEMO_ORG.apiKeys[0]! } }
    )
    const created = await fetch(`${url}/scanning/v0/create-session`, { method: "POST", body: JSON.stringify({ clientId: CLIENT }) })
    expect(created.status).toBe(200)
    expect(Object.keys((await created.json()) as object)).toEqual(["scanningSession"])
    kill("SIGTERM")
    expect(await exit).toBe(0)
  }, 120_000)
})

describe("the built scanbridge migrate", () => {
  it("writes FHIR bundles in inches, naming patients, on its worker threads, with nothing installed beside it", async () => {
    await cp(join(packageDir, "../../examples/export"), join(tmp, "export"), { recursive: true })
    const patients = "https://hospital.example/patients"
    const args = [
      "migrate",
      "export",
      "--to",
      "fhir",
      "--units",
      "in",
      "--fhir-patient-system",
      patients,
      "--workers",
      "2",
      "--out",
      "bundles.ndjson",
      "--report",
      "report.json"
    ]
    await promisify(execFile)(process.execPath, [join(tmp, "dist", "main.js"), ...args], { cwd: tmp, env: { PATH: process.env["PATH"] ?? "" } })
    const report = JSON.parse(await readFile(join(tmp, "report.json"), "utf8")) as { readonly scans: number; readonly target: string }
    const bundles = (await readFile(join(tmp, "bundles.ndjson"), "utf8")).split("\n").filter((l) => l !== "")
    expect(report.target).toBe("fhir")
    expect(bundles).toHaveLength(report.scans)
    expect(bundles.every((l) => (JSON.parse(l) as { resourceType: string }).resourceType === "Bundle")).toBe(true)
    expect(bundles.some((l) => l.includes('"code":"[in_i]"')) && bundles.some((l) => l.includes(`"system":"${patients}"`))).toBe(true)
  }, 120_000)
})
