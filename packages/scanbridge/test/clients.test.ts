/**
 * The Promise clients, against the simulator on a free loopback port: each is its Effect client
 * over fetch, its methods Promises, its streams async iterables, its failures ScanbridgeError.
 * Only calls that answer at once are made: nothing here waits on a clock.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ManagedRuntime } from "effect"
import { DEMO_ESTIMATION_CLIENT_ID, DEMO_FIT_CLIENT_KEY, DEMO_ORG, DEMO_SESSION_CLIENT_ID, Simulator } from "@scanbridge/simulator"
import { ScanbridgeError, estimationClient, fitClient, platformClient, sessionClient } from "../src/index.js"

const STATS = { age: 34, gender: "female", heightMm: 1680, weightG: 61_000 } as const
const API_KEY = DEMO_ORG.apiKeys[0]!

let simulator: ManagedRuntime.ManagedRuntime<Simulator, unknown>
let url: string
beforeAll(async () => {
  simulator = ManagedRuntime.make(Simulator.layer())
  url = (await simulator.runPromise(Simulator)).url
})
afterAll(() => simulator.dispose())

/** What `promise` rejected with, expected to be a ScanbridgeError. */
const rejection = async (promise: Promise<unknown>): Promise<ScanbridgeError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(ScanbridgeError)
  return error as ScanbridgeError
}

describe("platformClient", () => {
  it("runs the README's flow with Promises: a scan token, a scan with it, every page as an async iterable", async () => {
    const platform = await platformClient({ baseUrl: url, orgId: DEMO_ORG.id, apiKey: API_KEY })
    try {
      const { token } = await platform.issueScanToken({ customScanId: "order-1042" })
      const device = platform.withToken(token)
      const scan = await device.createScan(STATS)
      expect(scan.format).toBe("scanbridge.scan/v1")
      expect(scan.source.api).toBe("platform")
      expect(scan.status).toBe("success")
      expect(scan.measurementsMm.waistGirth).toBeGreaterThan(500)
      expect(await platform.getScan(scan.source.id!)).toEqual(scan)

      const ids: Array<string | null> = []
      for await (const s of platform.listAllScans({ limit: 1 })) ids.push(s.source.id)
      expect(ids).toContain(scan.source.id)
    } finally {
      await platform.close()
    }
  })

  it("rejects with ScanbridgeError, code the client error's tag: a bad input before sending, a wrong key from the server without the key in it", async () => {
    const platform = await platformClient({ baseUrl: url, orgId: DEMO_ORG.id, apiKey: API_KEY })
    const wrong = await platformClient({ baseUrl: url, orgId: DEMO_ORG.id, apiKey: "sk_not_a_key_of_the_org" })
    try {
      const refused = await rejection(platform.createScan({ ...STATS, heightMm: 168 }))
      expect(refused.code).toBe("PlatformInputError")
      expect(refused.message).toMatch(/heightMm: 168/)

      const denied = await rejection(wrong.getScan("scan_000001"))
      expect(denied).toMatchObject({ code: "PlatformStatusError", reason: "Unauthorized" })
      expect(`${denied.message} ${String(denied.stack)}`).not.toContain("sk_not_a_key_of_the_org")

      // A stream's failure too, thrown by the iteration.
      const iterated = await rejection(
        (async () => {
          for await (const _ of wrong.listAllScans()) void _
        })()
      )
      expect(iterated).toMatchObject({ code: "PlatformStatusError", reason: "Unauthorized" })
    } finally {
      await Promise.all([platform.close(), wrong.close()])
    }
  })
})

describe("sessionClient, estimationClient, fitClient", () => {
  it("sessionClient creates a session and reads it, not submitted yet", async () => {
    const session = await sessionClient({ baseUrl: url, clientId: DEMO_SESSION_CLIENT_ID })
    try {
      const created = await session.createSession({ clientScanningId: "order-7" })
      expect(created.scanningSessionId).toMatch(/^ss_/)
      const early = await session.getResults(created.scanningSessionId)
      expect(early.status).toBe("failure")
      expect(early.failure?.code).toBe("USER_INPUT_NOT_SUBMITTED")
    } finally {
      await session.close()
    }
  })

  it("estimationClient authenticates and creates an estimation", async () => {
    const estimation = await estimationClient({ authUrl: url, estimationUrl: url, clientId: DEMO_ESTIMATION_CLIENT_ID, measurementId: "ms_demo" })
    try {
      const token = await estimation.authenticate()
      const { estimationId } = await estimation.createEstimation(token, STATS)
      expect(estimationId).toMatch(/^est_/)
    } finally {
      await estimation.close()
    }
  })

  it("fitClient checks a product's support; a wrong client key rejects with ScanbridgeError", async () => {
    const fit = await fitClient({ baseUrl: `${url}/fit/v2`, clientKey: DEMO_FIT_CLIENT_KEY })
    const wrong = await fitClient({ baseUrl: `${url}/fit/v2`, clientKey: "ck_wrong" })
    try {
      const product = { brandId: "acme", garmentSku: "TEE-001" }
      expect(await fit.isProductSupported(product, "cs-42")).toMatchObject({ supported: true, status: "SUPPORTED", product })
      const denied = await rejection(wrong.isProductSupported(product, "cs-42"))
      expect(denied).toMatchObject({ code: "FitRejectionError", reason: "InvalidClientKey" })
      expect(denied.message).not.toContain("ck_wrong")
    } finally {
      await Promise.all([fit.close(), wrong.close()])
    }
  })
})
