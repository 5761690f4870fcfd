/**
 * The simulator as a strict server, over raw HTTP: the platform's customScanId (stored at
 * create, kept from the scan token, filtered by the list), and a 400 naming every body key and
 * query parameter an endpoint does not know, in each API's own error shape.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import {
  DEMO_ESTIMATION_CLIENT_ID,
  DEMO_FIT_CLIENT_KEY,
  DEMO_ORG,
  DEMO_SESSION_CLIENT_ID,
  Simulator,
  type SimulatorOptions,
  type SimulatorService
} from "../src/index.js"

const ORG = DEMO_ORG.id
const KEY = DEMO_ORG.apiKeys[0]!
const SCOPES = ["api.platform.vendor.com/scans:create", "api.platform.vendor.com/scans:read"]
const STATS = { age: 30, gender: "male", height: 1800, weight: 80_000 }

interface Reply {
  readonly status: number
  readonly body: unknown
}

/** An effect against a simulator of its own, started for it and stopped after it. */
const onSim = <A, E>(f: (sim: SimulatorService) => Effect.Effect<A, E>, options: SimulatorOptions = { platform: { orgs: [{ ...DEMO_ORG, quota: 100 }] } }) =>
  Effect.flatMap(Simulator, f).pipe(Effect.provide(Simulator.layer(options)))

const call = (url: string, init: RequestInit & { readonly json?: unknown } = {}) =>
  Effect.promise(async (): Promise<Reply> => {
    const { json, ...rest } = init
    const r = await fetch(
      url,
      json === undefined
        ? rest
        : { ...rest, body: JSON.stringify(json), headers: { "content-type": "application/json", ...(rest.headers as Record<string, string>) } }
    )
    const text = await r.text()
    return { status: r.status, body: text === "" ? null : (JSON.parse(text) as unknown) }
  })

const platform = (sim: SimulatorService, path: string, init: RequestInit & { readonly json?: unknown } = {}, auth = KEY) =>
  call(`${sim.url}/api/orgs/${ORG}${path}`, { ...init, headers: { authorization: auth, ...(init.headers as Record<string, string>) } })

const messageOf = (reply: Reply) => (reply.body as { message: string }).message

interface Summary {
  readonly id: string
  readonly customScanId?: string | null
}
const listed = (reply: Reply) => reply.body as { results: ReadonlyArray<Summary>; nextOffsetId?: string | null }

describe("the platform's customScanId", () => {
  it.live("is stored at create, echoed by read and list, and the list filter returns only the scans with it", () =>
    onSim((sim) =>
      Effect.gen(function* () {
        const one = yield* platform(sim, "/scans", { method: "POST", json: { statsEstimations: STATS, customScanId: "order-1" } })
        const two = yield* platform(sim, "/scans", { method: "POST", json: { statsEstimations: STATS, customScanId: "order-2" } })
        const none = yield* platform(sim, "/scans", { method: "POST", json: { statsEstimations: STATS } })
        expect([one.status, two.status, none.status]).toEqual([200, 200, 200])
        const idOf = (r: Reply) => (r.body as { entry: { id: string; customScanId?: string } }).entry
        expect(idOf(one).customScanId).toBe("order-1")
        expect(idOf(none).customScanId).toBeUndefined()
        const read = yield* platform(sim, `/scans/${idOf(one).id}`)
        expect(idOf(read).customScanId).toBe("order-1")

        // Newest first: without the filter, results[0] is someone else's scan.
        const all = yield* platform(sim, "/scans")
        expect(listed(all).results.map((s) => s.id)).toEqual([idOf(none).id, idOf(two).id, idOf(one).id])
        const filtered = yield* platform(sim, "/scans?customScanId=order-1")
        expect(filtered.status).toBe(200)
        expect(listed(filtered).results).toEqual([expect.objectContaining({ id: idOf(one).id, customScanId: "order-1" })])
        const nobody = yield* platform(sim, "/scans?customScanId=order-3")
        expect(listed(nobody).results).toEqual([])
        // An exact match: a prefix or another case is another id.
        expect(listed(yield* platform(sim, "/scans?customScanId=order")).results).toEqual([])
        expect(listed(yield* platform(sim, "/scans?customScanId=ORDER-1")).results).toEqual([])
      })
    )
  )

  it.live("pages through the filtered scans only, and a repeated or over-long filter is a 400", () =>
    onSim((sim) =>
      Effect.gen(function* () {
        const ids: Array<string> = []
        for (const custom of ["a", "b", "a", "b", "a"]) {
          const r = yield* platform(sim, "/scans", { method: "POST", json: { statsEstimations: STATS, customScanId: custom } })
          if (custom === "a") ids.push((r.body as { entry: { id: string } }).entry.id)
        }
        const seen: Array<string> = []
        let after: string | null | undefined
        do {
          const page = listed(yield* platform(sim, `/scans?customScanId=a&limit=2&direction=ascending${after ? `&after=${after}` : ""}`))
          seen.push(...page.results.map((s) => s.id))
          after = page.nextOffsetId
        } while (after)
        expect(seen).toEqual(ids)

        const twice = yield* platform(sim, "/scans?customScanId=a&customScanId=b")
        expect(twice.status).toBe(400)
        expect(messageOf(twice)).toContain("customScanId")
        const long = yield* platform(sim, `/scans?customScanId=${"x".repeat(513)}`)
        expect(long.status).toBe(400)
        expect(messageOf(long)).toContain("customScanId")
      })
    )
  )

  it.live("is kept from the scan token; a create with the token and another id is a 400 that spends neither the token nor quota", () =>
    onSim((sim) =>
      Effect.gen(function* () {
        const issued = yield* platform(sim, "/scan-tokens", { method: "POST", json: { scope: SCOPES, customScanId: "order-7" } })
        const bearer = `Bearer ${(issued.body as { token: string }).token}`
        const quota = yield* sim.platform.quota(ORG)

        const other = yield* platform(sim, "/scans", { method: "POST", json: { statsEstimations: STATS, customScanId: "order-8" } }, bearer)
        expect(other.status).toBe(400)
        expect(messageOf(other)).toContain('"order-7"')
        expect(messageOf(other)).toContain('"order-8"')
        expect(yield* sim.platform.quota(ORG)).toBe(quota)

        const same = yield* platform(sim, "/scans", { method: "POST", json: { statsEstimations: STATS, customScanId: "order-7" } }, bearer)
        expect(same.status).toBe(200)
        expect((same.body as { entry: { customScanId: string } }).entry.customScanId).toBe("order-7")

        const again = yield* platform(sim, "/scan-tokens", { method: "POST", json: { scope: SCOPES, customScanId: "order-9" } })
        const silent = yield* platform(
          sim,
          "/scans",
          { method: "POST", json: { statsEstimations: STATS } },
          `Bearer ${(again.body as { token: string }).token}`
        )
        expect((silent.body as { entry: { customScanId: string } }).entry.customScanId).toBe("order-9")
        expect(listed(yield* platform(sim, "/scans?customScanId=order-9")).results).toHaveLength(1)
      })
    )
  )
})

describe("the platform as a strict server", () => {
  it.live("refuses unknown body keys, at any depth, with a 400 naming each, before any quota is spent", () =>
    onSim((sim) =>
      Effect.gen(function* () {
        const quota = yield* sim.platform.quota(ORG)
        const top = yield* platform(sim, "/scans", { method: "POST", json: { statsEstimations: STATS, customScanID: "order-1" } })
        expect(top.status).toBe(400)
        expect(messageOf(top)).toMatch(/^create scan request: unknown key "customScanID"/)
        const nested = yield* platform(sim, "/scans", { method: "POST", json: { statsEstimations: { ...STATS, heightCm: 180 }, bogus: 1 } })
        expect(nested.status).toBe(400)
        expect(messageOf(nested)).toBe('create scan request: unknown keys "bogus", "statsEstimations.heightCm"')
        expect(yield* sim.platform.quota(ORG)).toBe(quota)

        const token = yield* platform(sim, "/scan-tokens", { method: "POST", json: { scope: SCOPES, lifetme: 60 } })
        expect(token.status).toBe(400)
        expect(messageOf(token)).toContain('unknown key "lifetme"')

        const base = yield* platform(sim, "/scans", { method: "POST", json: { statsEstimations: STATS } })
        const id = (base.body as { entry: { id: string } }).entry.id
        const adjust = yield* platform(sim, `/scans/${id}/adjust`, { method: "POST", json: { parameters: [{ name: "weight", percentage: 5, unit: "%" }] } })
        expect(adjust.status).toBe(400)
        expect(messageOf(adjust)).toContain('unknown key "parameters[0].unit"')
        expect(yield* sim.platform.quota(ORG)).toBe(quota! - 1)
      })
    )
  )

  it.live("refuses unknown query parameters on every endpoint with a 400 naming them", () =>
    onSim((sim) =>
      Effect.gen(function* () {
        const base = yield* platform(sim, "/scans", { method: "POST", json: { statsEstimations: STATS } })
        const id = (base.body as { entry: { id: string } }).entry.id
        const quota = yield* sim.platform.quota(ORG)
        const attempts: ReadonlyArray<readonly [string, RequestInit & { readonly json?: unknown }]> = [
          ["/scans?bogus=1", {}],
          ["/scans?limit=2&bogus=1", {}],
          [`/scans/${id}?bogus=1`, {}],
          ["/scans?bogus=1", { method: "POST", json: { statsEstimations: STATS } }],
          [`/scans/${id}/adjust?bogus=1`, { method: "POST", json: { parameters: [] } }],
          ["/scan-tokens?bogus=1", { method: "POST", json: { scope: SCOPES } }],
          [`/scans/${id}?bogus=1`, { method: "DELETE" }]
        ]
        for (const [path, init] of attempts) {
          const reply = yield* platform(sim, path, init)
          expect(reply.status, `${init.method ?? "GET"} ${path}`).toBe(400)
          expect(messageOf(reply)).toContain('unknown query parameter "bogus"')
        }
        // Nothing happened: no quota spent, the scan still there.
        expect(yield* sim.platform.quota(ORG)).toBe(quota)
        expect((yield* platform(sim, `/scans/${id}`)).status).toBe(200)
        const many = yield* platform(sim, "/scans?a=1&b=2&limit=1")
        expect(messageOf(many)).toContain('unknown query parameters "a", "b"')
      })
    )
  )

  it.live("names any unknown key it is sent, whatever its spelling (property)", () =>
    onSim((sim) =>
      Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(
            FastCheck.string({ minLength: 1, maxLength: 20 }).filter((k) => !["statsEstimations", "photoScan", "customScanId", "__proto__"].includes(k)),
            async (key) => {
              const reply = await Effect.runPromise(platform(sim, "/scans", { method: "POST", json: { statsEstimations: STATS, [key]: 1 } }))
              expect(reply.status).toBe(400)
              expect(messageOf(reply)).toContain(`unknown key ${JSON.stringify(key)}`)
              const query = await Effect.runPromise(platform(sim, `/scans?${new URLSearchParams({ [key]: "1" }).toString()}`))
              const known = ["limit", "direction", "after", "customScanId"].includes(key)
              if (!known) {
                expect(query.status).toBe(400)
                expect(messageOf(query)).toContain(`unknown query parameter ${JSON.stringify(key)}`)
              }
            }
          ),
          { numRuns: 40 }
        )
      )
    )
  )
})

describe("the deprecated APIs as strict servers", () => {
  it.live("session: an unknown create-session field is MALFORMED_REQUEST_BODY naming it; a query parameter a 400", () =>
    onSim(
      (sim) =>
        Effect.gen(function* () {
          const create = yield* call(`${sim.url}/scanning/v0/create-session`, {
            method: "POST",
            json: { clientId: DEMO_SESSION_CLIENT_ID, redirectUrl: "https://x" }
          })
          expect(create.status).toBe(400)
          const error = (create.body as { error: { errorType: string; message: string } }).error
          expect(error.errorType).toBe("MALFORMED_REQUEST_BODY")
          expect(error.message).toContain('unknown field "redirectUrl"')
          const nested = yield* call(`${sim.url}/scanning/v0/create-session`, {
            method: "POST",
            json: { clientId: DEMO_SESSION_CLIENT_ID, scanningConfig: { colour: "red" } }
          })
          expect((nested.body as { error: { message: string } }).error.message).toContain('unknown field "scanningConfig.colour"')
          const good = yield* call(`${sim.url}/scanning/v0/create-session`, {
            method: "POST",
            json: { clientId: DEMO_SESSION_CLIENT_ID, client_scanning_id: "order-1" }
          })
          expect(good.status).toBe(200)
          const ssid = (good.body as { scanningSession: { scanningSessionId: string } }).scanningSession.scanningSessionId
          const results = yield* call(`${sim.url}/scanning/v0/results/${ssid}?bogus=1`)
          expect(results.status).toBe(400)
          expect((results.body as { error: { message: string } }).error.message).toContain('unknown query parameter "bogus"')
          expect((yield* call(`${sim.url}/scanning/v0/results/${ssid}`)).status).not.toBe(400)
        }),
      {}
    )
  )

  it.live("estimation: unknown query parameters, form fields and multipart parts are a 400 naming them", () =>
    onSim(
      (sim) =>
        Effect.gen(function* () {
          const bogusToken = yield* call(`${sim.url}/tokens/anonymous?client_id=${DEMO_ESTIMATION_CLIENT_ID}&bogus=1`)
          expect(bogusToken.status).toBe(400)
          expect(messageOf(bogusToken)).toContain('unknown query parameter "bogus"')
          const issued = yield* call(`${sim.url}/tokens/anonymous?client_id=${DEMO_ESTIMATION_CLIENT_ID}`)
          const headers = { "access-token": (issued.body as { access_token: string }).access_token }
          const form = { client_id: DEMO_ESTIMATION_CLIENT_ID, measurement_id: "m1", height: "1800", weight: "80000", age: "30", gender: "male" }
          const extra = yield* call(`${sim.url}/estimation`, { method: "POST", headers, body: new URLSearchParams({ ...form, unit: "cm" }) })
          expect(extra.status).toBe(400)
          expect(messageOf(extra)).toContain('unknown field "unit"')
          const created = yield* call(`${sim.url}/estimation`, { method: "POST", headers, body: new URLSearchParams({ ...form, lang: "en" }) })
          expect(created.status).toBe(200)
          const id = (created.body as { estimation_id: string }).estimation_id
          const parts = new FormData()
          parts.append("client_id", DEMO_ESTIMATION_CLIENT_ID)
          parts.append("pattern", "front")
          parts.append("image", new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xd9])], { type: "image/jpeg" }), "front.jpg")
          parts.append("side", "left")
          const upload = yield* call(`${sim.url}/estimation/${id}/image`, { method: "POST", headers, body: parts })
          expect(upload.status).toBe(400)
          expect(messageOf(upload)).toContain('unknown field "side"')
          const read = yield* call(`${sim.url}/estimation/${id}?client_id=${DEMO_ESTIMATION_CLIENT_ID}&lang=ja&bogus=1`, { headers })
          expect(read.status).toBe(400)
          expect(messageOf(read)).toContain('unknown query parameter "bogus"')
          expect((yield* call(`${sim.url}/estimation/${id}?client_id=${DEMO_ESTIMATION_CLIENT_ID}&lang=ja`, { headers })).status).toBe(200)
        }),
      {}
    )
  )

  it.live("fit: an unknown field is MALFORMED_REQUEST, CreatePurchase's 400 names it, and query parameters are refused", () =>
    onSim(
      (sim) =>
        Effect.gen(function* () {
          const product = { productId: { brandId: "acme", garmentSku: "TEE-001" } }
          const session = yield* call(`${sim.url}/fit/v2/CreateSession`, {
            method: "POST",
            json: { clientKey: DEMO_FIT_CLIENT_KEY, productInfo: { ...product, colour: "red" } }
          })
          expect(session.status).toBe(400)
          const error = (session.body as { error: { errorType: string; message: string } }).error
          expect(error.errorType).toBe("MALFORMED_REQUEST")
          expect(error.message).toContain('unknown field "productInfo.colour"')
          const query = yield* call(`${sim.url}/fit/v2/CreateSession?bogus=1`, {
            method: "POST",
            json: { clientKey: DEMO_FIT_CLIENT_KEY, productInfo: product }
          })
          expect(query.status).toBe(400)
          expect((query.body as { error: { message: string } }).error.message).toContain('unknown query parameter "bogus"')
          const order = {
            clientKey: DEMO_FIT_CLIENT_KEY,
            clientSessionId: "s1",
            orderId: "o1",
            items: [],
            createdAt: 1,
            currency: "EUR",
            countryCode: "DE",
            languageCode: "de"
          }
          const purchase = yield* call(`${sim.url}/fit/v2/CreatePurchase`, { method: "POST", json: { ...order, coupon: "X" } })
          expect(purchase.status).toBe(400)
          expect(purchase.body).toEqual({ status: "error", error: { message: expect.stringContaining('unknown key "coupon"') } })
        }),
      {}
    )
  )
})
