/**
 * createGateway against the simulator on a free loopback port: mounted in node:http (as an
 * integrator's server, or Express, mounts it) and called as a web handler, it serves a whole
 * session flow that old code runs unchanged but for its base URL, carried out on the platform.
 * Nothing here waits on a clock: the scan is made before its results are read.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { embeddedStoreLayer } from "@scanbridge/gateway"
import { DEMO_ORG, Simulator } from "@scanbridge/simulator"
import { type GatewayOptions, ScanbridgeError, createGateway, platformClient, sessionClient } from "../src/index.js"

const API_KEY = DEMO_ORG.apiKeys[0]!
const CLIENT = "cl_plain_gateway_4711"
const STATS = { age: 34, gender: "female", heightMm: 1680, weightG: 61_000 } as const

let simulator: ManagedRuntime.ManagedRuntime<Simulator, unknown>
let platformUrl: string
let tmp: string
let store: string

beforeAll(async () => {
  simulator = ManagedRuntime.make(Simulator.layer())
  platformUrl = (await simulator.runPromise(Simulator)).url
  tmp = await mkdtemp(join(tmpdir(), "scanbridge-plain-gateway-"))
  store = join(tmp, "store")
  // The store's database made here, where a hook may take its time (initdb), not in a test.
  await Effect.runPromise(Effect.scoped(Layer.build(embeddedStoreLayer(store))))
})
afterAll(async () => {
  await simulator.dispose()
  await rm(tmp, { recursive: true, force: true })
})

const options = (): GatewayOptions => ({
  platform: { url: platformUrl, orgId: DEMO_ORG.id, apiKey: API_KEY },
  clientIds: [CLIENT],
  store: { directory: store },
  scannerAddress: `${platformUrl}/scanner/{LOCALE}/`
})

/** `listener` on a free port of 127.0.0.1, and its base URL. */
const listening = (listener: (req: IncomingMessage, res: ServerResponse) => void) =>
  new Promise<{ readonly server: Server; readonly url: string }>((resolve) => {
    const server = createServer(listener)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resolve({ server, url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}` })
    })
  })

const closing = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()))

/** The ScanbridgeError `promise` rejects with; a promise that resolves fails the test. */
const rejection = (promise: Promise<unknown>): Promise<ScanbridgeError> =>
  promise.then(
    () => expect.unreachable("resolved, where it should have rejected"),
    (error: unknown) => {
      expect(error).toBeInstanceOf(ScanbridgeError)
      return error as ScanbridgeError
    }
  )

describe("createGateway", () => {
  it("mounted in node:http and called through fetch, serves a whole session flow on the platform; close() frees its store", async () => {
    const gateway = await createGateway(options())
    const { server, url } = await listening(gateway.handler)
    const old = await sessionClient({ baseUrl: url, clientId: CLIENT })
    const platform = await platformClient({ baseUrl: platformUrl, orgId: DEMO_ORG.id, apiKey: API_KEY })
    let ssid = ""
    try {
      // One gateway per embedded store: a second one on it is refused while this one holds it.
      expect((await rejection(createGateway(options()))).code).toBe("GatewayStoreError")

      // Old code, unchanged but for its base URL.
      const created = await old.createSession({ clientScanningId: "order-1042" })
      ssid = created.scanningSessionId
      expect(created.clientScanningId).toBe("order-1042")
      expect((await old.getResults(ssid)).status).toBe("pending")

      // The back end asks the gateway for the session's hosted scanner, here as a web handler.
      const scanner = await gateway.fetch(new Request(`http://gateway.example/gateway/v0/sessions/${ssid}/scanner`))
      expect(scanner.status).toBe(200)
      const address = new URL(((await scanner.json()) as { url: string }).url)
      expect(address.href.startsWith(`${platformUrl}/scanner/`)).toBe(true)
      // The scanner scans with the session's token, as the device does.
      const scanned = await platform.withToken(address.searchParams.get("token")!).createScan(STATS)
      expect(scanned.externalId).toBe("order-1042")

      const results = await old.getResults(ssid)
      expect(results.status).toBe("success")
      expect(results.measurementsMm.waistGirth).toBe(scanned.measurementsMm.waistGirth)
      const viaFetch = await gateway.fetch(new Request(`http://gateway.example/scanning/v0/results/${ssid}`))
      expect(viaFetch.status).toBe(200)
      expect(Object.keys((await viaFetch.json()) as object)).toContain("results")
    } finally {
      await Promise.all([old.close(), platform.close(), closing(server)])
      await gateway.close()
    }

    // Closed: it answers 503 and touches nothing; its store is free for the next gateway, which finds the session there.
    expect((await gateway.fetch(new Request(`http://gateway.example/scanning/v0/results/${ssid}`))).status).toBe(503)
    const closedServer = await listening(gateway.handler)
    expect((await fetch(`${closedServer.url}/scanning/v0/results/${ssid}`)).status).toBe(503)
    await closing(closedServer.server)
    await gateway.close()
    const again = await createGateway(options())
    try {
      const read = await again.fetch(new Request(`http://gateway.example/scanning/v0/results/${ssid}`))
      expect(Object.keys((await read.json()) as object)).toContain("results")
    } finally {
      await again.close()
    }
  })

  it("as Express middleware, passes on what is none of its paths; alone, it answers such a request 404", async () => {
    const gateway = await createGateway(options())
    const mounted = await listening((req, res) =>
      gateway.handler(req, res, () => {
        res.writeHead(299).end("the integrator's own route")
      })
    )
    const alone = await listening(gateway.handler)
    try {
      const own = await fetch(`${mounted.url}/orders/1042`)
      expect([own.status, await own.text()]).toEqual([299, "the integrator's own route"])
      const token = await fetch(`${mounted.url}/tokens/anonymous?client_id=${CLIENT}`)
      expect(token.status).toBe(200)
      expect(Object.keys((await token.json()) as object)).toEqual(["uid", "access_token"])
      expect((await fetch(`${mounted.url}/scanning/v0/results/ss_unknown`)).status).toBe(404)
      expect((await fetch(`${alone.url}/orders/1042`)).status).toBe(404)
    } finally {
      await Promise.all([closing(mounted.server), closing(alone.server)])
      await gateway.close()
    }
  })

  it("refuses options it cannot use with code GatewayOptionError naming the option, before it opens anything, and shows no secret", async () => {
    const good = options()
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ ...good, platform: undefined }, "platform: expected { url, orgId, apiKey }"],
      [{ ...good, platform: { ...good.platform, url: "ftp://platform.example" } }, "platform.url: expected an http:// or https:// URL"],
      [{ ...good, platform: { ...good.platform, orgId: "" } }, "platform.orgId: expected a string that is not empty"],
      [{ ...good, platform: { ...good.platform, apiKey: 42 } }, "platform.apiKey: expected a string that is not empty"],
      [{ ...good, clientIds: [] }, "clientIds: expected the legacy client ids the gateway accepts, at least one"],
      [{ ...good, clientIds: [CLIENT, ""] }, "clientIds[1]: expected a string that is not empty"],
      [{ ...good, store: undefined }, "store: expected { directory } for the embedded store or { postgres } for a PostgreSQL URL"],
      [
        { ...good, store: { directory: store, postgres: "postgres://gw:s3cret-pw@db/gw" } },
        "store: give one of directory (the embedded store's folder) and postgres (a PostgreSQL URL)"
      ],
      [{ ...good, store: { postgres: "mysql://gw:s3cret-pw@db/gw" } }, "store.postgres: expected a postgres:// URL"],
      [{ ...good, estimationLengthUnit: "in" }, 'estimationLengthUnit: expected "mm" or "cm"'],
      [{ ...good, scannerAddress: "scanner" }, "scannerAddress: expected an http:// or https:// URL"],
      [{ ...good, sessionLifetime: -1 }, 'sessionLifetime: expected a duration above zero: milliseconds, or text such as "1 hour"'],
      [{ ...good, tokenLifetime: "soon" }, 'tokenLifetime: expected a duration above zero: milliseconds, or text such as "1 hour"'],
      [{ ...good, photoRetention: Number.POSITIVE_INFINITY }, 'photoRetention: expected a duration above zero: milliseconds, or text such as "1 hour"']
    ]
    for (const [given, message] of cases) {
      const error = await rejection(createGateway(given as GatewayOptions))
      expect([error.code, error.message]).toEqual(["GatewayOptionError", message])
      expect(`${error.message} ${String(error.value)}`).not.toMatch(new RegExp(`s3cret-pw|${API_KEY}|${CLIENT}`))
    }
  })

  it("rejects with code GatewayStoreError when its PostgreSQL cannot be reached, without the URL or its password", async () => {
    const url = "postgres://gateway:s3cret-pw@127.0.0.1:1/gateway"
    const error = await rejection(createGateway({ ...options(), store: { postgres: url } }))
    expect(error.code).toBe("GatewayStoreError")
    expect(`${error.message} ${String(error.stack)}`).not.toMatch(/s3cret-pw|127\.0\.0\.1:1/)
  })
})
