import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { DEMO_ORG, DEMO_SESSION_CLIENT_ID, Simulator, TEST_EPOCH_MS, onTestClock } from "../src/index.js"
import { sign, verify } from "../src/internal/jwt.js"

describe("scan tokens", () => {
  it("verifies what it signed and rejects tampering", () => {
    const token = sign("secret", { sub: "org_a", exp: 10 })
    expect(verify("secret", token)).toEqual({ claims: { sub: "org_a", exp: 10 } })
    expect(verify("other", token)).toEqual({ error: "bad token signature" })
    const [h, , s] = token.split(".")
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: "org_b", exp: 10 })).toString("base64url")}.${s}`
    expect(verify("secret", forged)).toEqual({ error: "bad token signature" })
    expect(verify("secret", "abc")).toEqual({ error: "not a JWT" })
  })
})

describe("the server", () => {
  it.live("listens on 127.0.0.1 on a free port, answers preflight, and stops with its scope", () =>
    Effect.gen(function* () {
      const url = yield* Effect.scoped(
        Effect.gen(function* () {
          const sim = yield* Simulator
          expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
          const preflight = yield* Effect.promise(() => fetch(`${sim.url}/api/orgs/${DEMO_ORG.id}/scans`, { method: "OPTIONS" }))
          expect(preflight.status).toBe(204)
          expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization")
          const unknown = yield* Effect.promise(() => fetch(`${sim.url}/nowhere`))
          expect(unknown.status).toBe(404)
          return sim.url
        }).pipe(Effect.provide(Simulator.layer()))
      )
      const after = yield* Effect.either(Effect.tryPromise(() => fetch(url)))
      expect(after._tag).toBe("Left")
    })
  )
})

describe("the session control endpoint", () => {
  it.live("plays the user: 404 for an unknown SSID, 400 for a bad body, then results", () =>
    Effect.gen(function* () {
      const sim = yield* Simulator
      const post = (path: string, body: unknown) =>
        Effect.promise(() => fetch(`${sim.url}${path}`, { method: "POST", body: JSON.stringify(body) }))
      const created = yield* post("/scanning/v0/create-session", { clientId: DEMO_SESSION_CLIENT_ID, clientScanningId: "c-1" })
      const ssid = ((yield* Effect.promise(() => created.json())) as { scanningSession: { scanningSessionId: string } }).scanningSession.scanningSessionId
      expect((yield* post("/_simulator/session/sessions/ss_nope/submit", {})).status).toBe(404)
      expect((yield* post(`/_simulator/session/sessions/${ssid}/submit`, { heightMm: 168 })).status).toBe(400)
      expect((yield* post(`/_simulator/session/sessions/${ssid}/submit`, { heightMm: 1680, outcome: "ABORTED" })).status).toBe(200)
      const results = yield* Effect.promise(() => fetch(`${sim.url}/scanning/v0/results/${ssid}`).then((r) => r.json()))
      expect(results).toEqual({
        scanningSessionId: ssid,
        clientScanningId: "c-1",
        error: { errorType: "ABORTED", message: "The scan was aborted." }
      })
    }).pipe(Effect.provide(Simulator.layer()))
  )
})

describe("onTestClock", () => {
  it.effect("moves the clock only to the sleeps due, and not while a request is in flight", () =>
    Effect.gen(function* () {
      const sim = yield* Simulator
      const post = (path: string, body: unknown) =>
        Effect.promise(() => fetch(`${sim.url}${path}`, { method: "POST", body: JSON.stringify(body) }).then((r) => r.json() as Promise<Record<string, unknown>>))
      const keysOf = (ssid: string) => Effect.promise(() => fetch(`${sim.url}/scanning/v0/results/${ssid}`).then(async (r) => Object.keys((await r.json()) as object)))
      expect(yield* Clock.currentTimeMillis).toBe(TEST_EPOCH_MS)
      const created = yield* post("/scanning/v0/create-session", { clientId: DEMO_SESSION_CLIENT_ID })
      const ssid = (created["scanningSession"] as { scanningSessionId: string }).scanningSessionId
      expect(yield* keysOf(ssid)).toEqual(["scanningSessionId", "pending"])
      // Requests over loopback took no time on the clock, however long they took on this machine.
      expect(yield* Clock.currentTimeMillis).toBe(TEST_EPOCH_MS)
      yield* Effect.sleep("999 millis")
      expect(yield* keysOf(ssid)).toEqual(["scanningSessionId", "pending"])
      yield* Effect.sleep("1 millis")
      expect(yield* keysOf(ssid)).toEqual(["scanningSessionId", "results"])
      expect(yield* Clock.currentTimeMillis).toBe(TEST_EPOCH_MS + 1000)
    }).pipe(Effect.provide(Simulator.layer({ session: { completeAfterMs: 1000 } })), onTestClock())
  )
})
