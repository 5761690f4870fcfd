import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import { DEMO_ESTIMATION_CLIENT_ID, DEMO_FIT_CLIENT_KEY, DEMO_PRODUCTS, DEMO_SESSION_CLIENT_ID, Simulator, type SimulatorOptions, onTestClock } from "../src/index.js"
import { nestedDeeperThan } from "../src/limits.js"

const ORG = "org_limits"
const KEY = "sk_limits"
const STATS = { statsEstimations: { age: 30, gender: "male", height: 1800, weight: 80_000 } }

const withSim = <A, E>(f: (url: string) => Effect.Effect<A, E, Simulator>, options: SimulatorOptions = {}) =>
  Effect.flatMap(Simulator, (sim) => f(sim.url)).pipe(
    Effect.provide(Simulator.layer({ platform: { orgs: [{ id: ORG, apiKeys: [KEY], quota: 100 }] }, ...options })),
    onTestClock()
  )

interface Reply {
  readonly status: number
  readonly body: string
}

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  Effect.promise(() => fetch(url, { method: "POST", body, headers }).then(async (r): Promise<Reply> => ({ status: r.status, body: await r.text() })))

/** A POST over a raw socket: the body in chunks, each sent when `gate` lets it, no Content-Length. */
const chunkedPost = (url: string, headers: Record<string, string>, chunks: ReadonlyArray<string>, gate: Promise<void> = Promise.resolve()) =>
  new Promise<Reply>((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } }, (res) => {
      let body = ""
      res.on("data", (c: Buffer) => (body += c.toString("utf8")))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.flushHeaders()
    const [first, ...rest] = chunks
    if (first !== undefined) req.write(first)
    void gate.then(() => {
      for (const c of rest) req.write(c)
      req.end()
    })
  })

const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

// One JSON endpoint of each API, with a body it accepts.
const endpoints = (url: string) => [
  { name: "platform create", url: `${url}/api/orgs/${ORG}/scans`, headers: { authorization: KEY }, body: STATS },
  { name: "session create-session", url: `${url}/scanning/v0/create-session`, headers: {}, body: { clientId: DEMO_SESSION_CLIENT_ID } },
  {
    name: "fit CreateSession",
    url: `${url}/fit/v2/CreateSession`,
    headers: {},
    body: { clientKey: DEMO_FIT_CLIENT_KEY, clientSessionId: "cs", productInfo: { productId: { brandId: DEMO_PRODUCTS[0]!.brandId, garmentSku: DEMO_PRODUCTS[0]!.garmentSku } } }
  }
]

describe("the simulator's limits", () => {
  it.effect("answers 413 to a body beyond maxBodyBytes, by its Content-Length or as it streams", () =>
    withSim(
      (url) =>
        Effect.gen(function* () {
          for (const e of endpoints(url)) {
            const big = JSON.stringify({ ...e.body, padding: "x".repeat(2_000) })
            const declared = yield* post(e.url, big, { ...e.headers, "content-type": "application/json" })
            expect(declared.status, e.name).toBe(413)
            expect(JSON.parse(declared.body).message).toContain("1000 bytes")
            const streamed = yield* Effect.promise(() => chunkedPost(e.url, { ...e.headers, "content-type": "application/json" }, [big.slice(0, 900), big.slice(900)]))
            expect(streamed.status, e.name).toBe(413)
            const fits = yield* post(e.url, JSON.stringify(e.body), { ...e.headers, "content-type": "application/json" })
            expect(fits.status, e.name).toBe(200)
          }
          // A form body is held to the limit as it streams too (the estimation API's creation).
          const fields = `client_id=${DEMO_ESTIMATION_CLIENT_ID}&padding=${"x".repeat(2_000)}`
          const { access_token } = yield* Effect.promise(() =>
            fetch(`${url}/tokens/anonymous?client_id=${DEMO_ESTIMATION_CLIENT_ID}`).then((r) => r.json() as Promise<{ access_token: string }>)
          )
          const streamedForm = yield* Effect.promise(() =>
            chunkedPost(`${url}/estimation`, { "content-type": "application/x-www-form-urlencoded", "access-token": access_token }, [fields.slice(0, 900), fields.slice(900)])
          )
          expect(streamedForm.status).toBe(413)
          const form = new FormData()
          form.append("client_id", DEMO_ESTIMATION_CLIENT_ID)
          form.append("image", new File([new Uint8Array(5_000)], "front.jpg", { type: "image/jpeg" }))
          const upload = yield* Effect.promise(() => fetch(`${url}/estimation/est_1/image`, { method: "POST", body: form }))
          expect(upload.status).toBe(413)
        }),
      { maxBodyBytes: 1000 }
    )
  )

  it.effect("answers 400 with a message, not an empty 500, to JSON nested beyond the depth limit", () =>
    withSim((url) =>
      Effect.gen(function* () {
        for (const e of endpoints(url)) {
          for (const body of [deep(100_000), JSON.stringify({ ...e.body, extra: JSON.parse(deep(65)) })]) {
            const reply = yield* post(e.url, body, { ...e.headers, "content-type": "application/json" })
            expect(reply.status, e.name).toBe(400)
            expect(JSON.parse(reply.body).message).toBe("the JSON body nests deeper than 64 levels")
          }
        }
      })
    )
  )

  it("measures depth without recursion, arrays and objects alike", () => {
    expect(nestedDeeperThan(JSON.parse(deep(64)), 64)).toBe(false)
    expect(nestedDeeperThan(JSON.parse(deep(65)), 64)).toBe(true)
    expect(nestedDeeperThan({ a: { b: [1, { c: null }] } }, 4)).toBe(false)
    expect(nestedDeeperThan({ a: { b: [1, { c: {} }] } }, 4)).toBe(true)
    expect(nestedDeeperThan(JSON.parse(deep(1_000_000)), 64)).toBe(true)
    expect(nestedDeeperThan("[[[", 0)).toBe(false)
  })

  it.effect("takes Content-Type text/plain as well as application/json on every JSON endpoint", () =>
    withSim((url) =>
      Effect.gen(function* () {
        for (const e of endpoints(url)) {
          for (const type of ["text/plain", "text/plain;charset=UTF-8", "application/json"]) {
            const reply = yield* post(e.url, JSON.stringify(e.body), { ...e.headers, "content-type": type })
            expect(reply.status, `${e.name} as ${type}`).toBe(200)
            expect(JSON.parse(reply.body), `${e.name} as ${type}`).not.toHaveProperty("error")
          }
        }
      })
    )
  )

  it.effect("spends a scan token before reading the body: 20 slow bodies racing one token create one scan", () =>
    withSim((url) =>
      Effect.gen(function* () {
        const sim = yield* Simulator
        const issued = yield* post(`${url}/api/orgs/${ORG}/scan-tokens`, JSON.stringify({ scope: ["api.platform.vendor.com/scans:create"] }), { authorization: KEY })
        const token = JSON.parse(issued.body).token as string
        const body = JSON.stringify(STATS)
        let release!: () => void
        const gate = new Promise<void>((resolve) => (release = resolve))
        const replies = Array.from({ length: 20 }, () =>
          chunkedPost(`${url}/api/orgs/${ORG}/scans`, { authorization: `Bearer ${token}`, "content-type": "application/json" }, [body.slice(0, 5), body.slice(5)], gate)
        )
        // Every request has reached the endpoint (and been answered or be waiting for its body)
        // before any body is complete.
        for (;;) {
          const log = yield* sim.requests
          const answered = log.filter((r) => r.method === "POST" && r.path.endsWith("/scans")).length
          if (answered >= 19) break
          yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
        }
        release()
        const statuses = (yield* Effect.promise(() => Promise.all(replies))).map((r) => r.status)
        expect(statuses.filter((s) => s === 200)).toHaveLength(1)
        expect(statuses.filter((s) => s === 403)).toHaveLength(19)
        expect(yield* sim.platform.quota(ORG)).toBe(99)
      })
    )
  )

  it.effect("gives a scan token back when its request created nothing", () =>
    withSim((url) =>
      Effect.gen(function* () {
        const issued = yield* post(`${url}/api/orgs/${ORG}/scan-tokens`, JSON.stringify({ scope: ["api.platform.vendor.com/scans:create"] }), { authorization: KEY })
        const auth = { authorization: `Bearer ${JSON.parse(issued.body).token as string}` }
        expect((yield* post(`${url}/api/orgs/${ORG}/scans`, "{not json", auth)).status).toBe(400)
        expect((yield* post(`${url}/api/orgs/${ORG}/scans`, JSON.stringify(STATS), auth)).status).toBe(200)
        const again = yield* post(`${url}/api/orgs/${ORG}/scans`, JSON.stringify(STATS), auth)
        expect(again.status).toBe(403)
        expect(again.body).toContain("already used")
      })
    )
  )

  it.effect("keeps the most recent requestLogLimit requests in its log", () =>
    withSim(
      (url) =>
        Effect.gen(function* () {
          const sim = yield* Simulator
          const get = (i: number) => Effect.promise(() => fetch(`${url}/scanning/v0/results/ss_${i}`).then((r) => r.text()))
          for (let i = 0; i < 8; i++) yield* get(i)
          expect((yield* sim.requests).map((r) => r.path)).toEqual([3, 4, 5, 6, 7].map((i) => `/scanning/v0/results/ss_${i}`))
          // Past twice the limit, where the log is trimmed: still the most recent five.
          for (let i = 8; i < 13; i++) yield* get(i)
          expect((yield* sim.requests).map((r) => r.path)).toEqual([8, 9, 10, 11, 12].map((i) => `/scanning/v0/results/ss_${i}`))
        }),
      { requestLogLimit: 5 }
    )
  )
})
