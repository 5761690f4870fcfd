/**
 * `scanbridge gateway` killed mid-flow (a real SIGKILL of its process: no shutdown runs) and
 * started again on the same embedded store finishes the flow from what the store holds:
 * - a session created before the kill gives its results after it;
 * - an estimation whose token, creation and first photo came before the kill takes its second
 *   photo, with the same token, after it, and its read completes;
 * - a gateway killed while the platform's create of an estimation's scan is in flight (a proxy
 *   between it and the platform holds the answer, the scan being made) leaves the creation lease
 *   in the store: a restarted gateway reads in progress and creates nothing while the lease runs,
 *   and once it has run out finds the scan by its customScanId rather than creating a second
 *   one. One platform scan, one quota spent, the photos gone from the store.
 *
 * The gateways are the CLI in processes of their own (the executable operators run and kill);
 * the platform simulator, the proxy and the legacy client are this process. Live clock, bounded
 * waits only: no assertion is on a duration. The lease a dead gateway left runs on the wall clock
 * (ATTEMPT + SETTLE, 90 s): rather than sleep it out, the last restart's clock is moved past it
 * by a test entry of its own (clock-offset.mjs), by as much as the store says the lease has left.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { Context, Effect, Layer, ManagedRuntime, Option } from "effect"
import { request as forward, createServer } from "node:http"
import { mkdtemp, rm } from "node:fs/promises"
import type { Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { makeJpeg } from "@scanbridge/estimation"
import { GatewayStore, embeddedStoreLayer } from "@scanbridge/gateway"
import { PlatformClient, type PlatformClientService } from "@scanbridge/platform"
import { Simulator } from "@scanbridge/simulator"
import { type GatewayProcess, startGateway } from "./gateway-process.js"

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))
const ORG = "org_restart"
const API_KEY = "sk_restart_0123456789abcdef"
const CLIENT_ID = "cl_restart_0123456789abcdef"
const QUOTA = 100
const STATS = { age: 35, gender: "female", heightMm: 1680, weightG: 61_000 } as const
const PHOTO = makeJpeg(1080, 1920)

let simulator: ManagedRuntime.ManagedRuntime<Simulator | HttpClient.HttpClient, unknown>
let simulatorUrl: string
let tmp: string
let store: string

beforeAll(async () => {
  simulator = ManagedRuntime.make(Layer.merge(Simulator.layer({ platform: { orgs: [{ id: ORG, apiKeys: [API_KEY], quota: QUOTA }] } }), FetchHttpClient.layer))
  simulatorUrl = (await simulator.runPromise(Simulator)).url
  tmp = await mkdtemp(join(tmpdir(), "scanbridge-gateway-restart-"))
  store = join(tmp, "store")
  // The store's database made here, where a hook may take its time (initdb), not in a test.
  await Effect.runPromise(Effect.scoped(Layer.build(embeddedStoreLayer(store))))
}, 180_000)

afterAll(async () => {
  await simulator?.dispose()
  if (tmp !== undefined) await rm(tmp, { recursive: true, force: true })
})

// --- The gateway process --------------------------------------------------------------------

/** Gateways a test started: one a failed test left running is killed after it. */
const running = new Set<GatewayProcess>()

afterEach(async () => {
  for (const gateway of running) {
    gateway.kill("SIGKILL")
    await gateway.exit
  }
  running.clear()
})

/** `scanbridge gateway` on the store, in front of `platformUrl`, its clock `offsetMs` ahead when given. */
const start = async (platformUrl: string, offsetMs?: number): Promise<GatewayProcess> => {
  const offset = offsetMs === undefined ? [] : ["--import", join(repoRoot, "packages/cli/test/clock-offset.mjs")]
  const gateway = await startGateway(
    [
      "--conditions=@scanbridge/source",
      "--import",
      "tsx",
      ...offset,
      join(repoRoot, "packages/cli/src/main.ts"),
      ...["gateway", "--port", "0", "--platform-url", platformUrl, "--org", ORG, "--store", store],
      ...["--scanner-url", `${simulatorUrl}/scanner/{LOCALE}/`]
    ],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        SCANBRIDGE_API_KEY: API_KEY,
        SCANBRIDGE_GATEWAY_CLIENTS: CLIENT_ID,
        ...(offsetMs === undefined ? {} : { SCANBRIDGE_TEST_CLOCK_OFFSET_MS: String(Math.ceil(offsetMs)) })
      }
    }
  )
  running.add(gateway)
  return gateway
}

/** SIGKILL: the process ends where it stands, its store open, its lock file left behind. */
const kill = async (gateway: GatewayProcess) => {
  gateway.kill("SIGKILL")
  expect(await gateway.exit, "ended by the signal").toBeNull()
  running.delete(gateway)
}

// --- The legacy client ----------------------------------------------------------------------

interface Reply {
  readonly status: number
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: a test reads any JSON it is given
  readonly json: any
}

/** A request that ends a hang only: no gateway here takes seconds to answer. */
const call = async (url: string, init: RequestInit = {}): Promise<Reply> => {
  const response = await fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(30_000) })
  const text = await response.text()
  return { status: response.status, text, json: text.startsWith("{") ? JSON.parse(text) : undefined }
}

const ok = (r: Reply) => {
  expect(r.status, r.text).toBe(200)
  return r.json
}

/** Reads until `done` says so, as legacy clients poll; a bound that ends a hang, not a timing. */
const pollUntil = async (read: () => Promise<Reply>, done: (json: unknown) => boolean): Promise<Reply> => {
  for (let i = 0; ; i++) {
    const r = await read()
    if (r.status !== 200 || done(r.json) || i === 100) return r
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const tokenOf = async (gateway: string): Promise<string> => ok(await call(`${gateway}/tokens/anonymous?client_id=${CLIENT_ID}`)).access_token

const estimationOf = async (gateway: string, token: string): Promise<string> => {
  const form = { client_id: CLIENT_ID, measurement_id: "ms_restart", height: STATS.heightMm, weight: STATS.weightG, age: STATS.age, gender: STATS.gender }
  const body = new URLSearchParams(Object.entries(form).map(([k, v]): [string, string] => [k, String(v)])).toString()
  return ok(
    await call(`${gateway}/estimation`, { method: "POST", headers: { "access-token": token, "content-type": "application/x-www-form-urlencoded" }, body })
  ).estimation_id
}

const upload = (gateway: string, token: string, id: string, pattern: "front" | "right", signal?: AbortSignal) => {
  const form = new FormData()
  form.set("client_id", CLIENT_ID)
  form.set("pattern", pattern)
  form.set("image", new File([new Uint8Array(PHOTO)], `${pattern}.jpg`, { type: "image/jpeg" }))
  return call(`${gateway}/estimation/${id}/image`, {
    method: "POST",
    headers: { "access-token": token },
    body: form,
    ...(signal === undefined ? {} : { signal })
  })
}

const read = (gateway: string, token: string, id: string) => call(`${gateway}/estimation/${id}?client_id=${CLIENT_ID}`, { headers: { "access-token": token } })

/** The estimation read until it is no longer in progress. */
const completed = (gateway: string, token: string, id: string) =>
  pollUntil(
    () => read(gateway, token, id),
    // biome-ignore lint/suspicious/noExplicitAny: a test reads any JSON it is given
    (json: any) => json.measurements?.[0]?.status !== "in-progress"
  )

// --- The platform, as the integrator's organisation sees it ---------------------------------

const platform = <A, E>(f: (client: PlatformClientService) => Effect.Effect<A, E>) =>
  simulator.runPromise(Effect.flatMap(PlatformClient.make({ baseUrl: simulatorUrl, orgId: ORG, apiKey: API_KEY }), f))

const platformScans = (customScanId: string) => platform((client) => Effect.map(client.listScans({ customScanId }), (page) => page.results))

const quota = () => simulator.runPromise(Effect.flatMap(Simulator, (s) => s.platform.quota(ORG)))

/** What the store holds of an estimation, read with no gateway running on it. */
const stored = (id: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const gatewayStore = Context.get(yield* Layer.build(embeddedStoreLayer(store)), GatewayStore)
        return { estimation: Option.getOrNull(yield* gatewayStore.estimation(id)), photos: Option.isSome(yield* gatewayStore.photos(id)) }
      })
    )
  )

// --- A proxy that holds the platform's answer to a create -----------------------------------

interface Proxy {
  readonly url: string
  /** POST .../scans requests that reached the platform through it. */
  readonly creates: () => number
  /** Whether the next creates' answers are held (the platform does the work; the gateway never hears). */
  hold: boolean
  /** Settles once the platform has answered a held create. */
  readonly held: Promise<void>
  readonly close: () => Promise<void>
}

const startProxy = async (target: string): Promise<Proxy> => {
  const upstream = new URL(target)
  let creates = 0
  let heldOne = () => {}
  const held = new Promise<void>((resolve) => {
    heldOne = resolve
  })
  const sockets = new Set<Socket>()
  const server = createServer((req, res) => {
    const isCreate = req.method === "POST" && new URL(req.url ?? "/", upstream).pathname.endsWith("/scans")
    if (isCreate) creates++
    const holding = isCreate && proxy.hold
    const out = forward(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        if (holding) {
          answer.resume().once("end", heldOne)
          return
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    out.on("error", () => res.destroy())
    req.pipe(out)
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const proxy: Proxy = {
    url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`,
    creates: () => creates,
    hold: false,
    held,
    close: () => {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  }
  return proxy
}

// --- The tests ------------------------------------------------------------------------------

describe("scanbridge gateway killed (SIGKILL) mid-flow and started again on its store", () => {
  it("after create-session: the restarted gateway gives that session's results", async () => {
    const before = await quota()
    const first = await start(simulatorUrl)
    const ssid: string = ok(
      await call(`${first.url}/scanning/v0/create-session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ clientId: CLIENT_ID, clientScanningId: "user-restart-session" })
      })
    ).scanningSession.scanningSessionId
    // The integrator's back end hands the user the hosted scanner's address; then the gateway dies.
    const scanner: string = ok(await call(`${first.url}/gateway/v0/sessions/${ssid}/scanner`)).url
    await kill(first)
    // The user scans while no gateway runs, with the token the address carries.
    const token = new URL(scanner).searchParams.get("token")!
    await platform((client) => client.withToken(token).createScan({ ...STATS, photos: { front: base64(PHOTO), right: base64(PHOTO) } }))

    const second = await start(simulatorUrl)
    expect(ok(await call(`${second.url}/gateway/v0/sessions/${ssid}/scanner`)).url).toBe(scanner)
    const results = await pollUntil(
      () => call(`${second.url}/scanning/v0/results/${ssid}`),
      // biome-ignore lint/suspicious/noExplicitAny: a test reads any JSON it is given
      (json: any) => json.pending === undefined
    )
    expect(ok(results).results.measurements.length, results.text).toBeGreaterThan(0)
    expect(await platformScans("user-restart-session")).toHaveLength(1)
    expect(await quota()).toBe(before! - 1)
  }, 180_000)

  it("after the token, the estimation and the first photo: the restarted gateway takes the second with that token and the read completes", async () => {
    const before = await quota()
    const first = await start(simulatorUrl)
    const token = await tokenOf(first.url)
    const id = await estimationOf(first.url, token)
    ok(await upload(first.url, token, id, "front"))
    await kill(first)

    const second = await start(simulatorUrl)
    expect(ok(await upload(second.url, token, id, "right")).send_input_queue).toBe(true)
    const done = ok(await completed(second.url, token, id))
    expect(done.measurements[0].status).toBe("completed")
    expect(done.measurements[0].estimation.status).toBe("success")
    expect(await platformScans(id)).toHaveLength(1)
    expect(await quota()).toBe(before! - 1)
  }, 180_000)

  it("with the platform's create in flight: the restarted gateway waits out the dead one's lease, then finds its scan by customScanId and creates none", async () => {
    const proxy = await startProxy(simulatorUrl)
    try {
      const before = await quota()
      const first = await start(proxy.url)
      const token = await tokenOf(first.url)
      const id = await estimationOf(first.url, token)
      ok(await upload(first.url, token, id, "front"))
      proxy.hold = true
      // The second photo's upload creates the scan; the platform makes it, its answer is held.
      const abandoned = upload(first.url, token, id, "right").then(
        () => "answered",
        () => "no answer"
      )
      await proxy.held
      await kill(first)
      proxy.hold = false
      expect(await abandoned).toBe("no answer")
      expect(proxy.creates()).toBe(1)
      expect(await platformScans(id)).toHaveLength(1)

      // Restarted while the lease runs: in progress, and nothing created.
      const second = await start(proxy.url)
      const waiting = ok(await read(second.url, token, id))
      expect(waiting.measurements[0].status).toBe("in-progress")
      expect(proxy.creates()).toBe(1)
      await kill(second)

      // What the dead gateways left: both photos, no scan recorded, the first one's lease.
      const left = await stored(id)
      expect(left.photos).toBe(true)
      expect(left.estimation?.scanId).toBeNull()
      const leaseEnd = left.estimation?.creatingUntil ?? null
      expect(leaseEnd).not.toBeNull()
      expect(leaseEnd!).toBeGreaterThan(Date.now())

      // Restarted with its clock past the lease's end: it looks before it creates, and finds.
      const third = await start(proxy.url, leaseEnd! - Date.now() + 1_000)
      const done = ok(await completed(third.url, token, id))
      expect(done.measurements[0].estimation.status).toBe("success")
      expect(proxy.creates()).toBe(1)
      const scans = await platformScans(id)
      expect(scans).toHaveLength(1)
      expect(await quota()).toBe(before! - 1)
      third.kill("SIGTERM")
      expect(await third.exit).toBe(0)
      running.delete(third)

      const after = await stored(id)
      expect(after.estimation?.scanId).toBe(scans[0]!.source.id)
      expect(after.photos, "the photos deleted once the platform has them").toBe(false)
    } finally {
      await proxy.close()
    }
  }, 300_000)
})

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64")
