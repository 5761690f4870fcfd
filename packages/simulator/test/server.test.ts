import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Redacted } from "effect"
import { DEMO_ORG, DEMO_SESSION_CLIENT_ID, Simulator, type SimulatorOptions, TEST_EPOCH_MS, onTestClock } from "../src/index.js"
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

const CREATE_SCOPE = "api.platform.vendor.com/scans:create"
const STATS = { statsEstimations: { age: 30, gender: "male", height: 1800, weight: 80_000 } }

/** An effect against a simulator of its own, started for it and stopped after it. */
const onSim = <A>(options: SimulatorOptions, f: (url: string) => Effect.Effect<A>) =>
  Effect.flatMap(Simulator, (sim) => f(sim.url)).pipe(Effect.provide(Simulator.layer(options)))

const issueToken = (url: string) =>
  Effect.promise(() =>
    fetch(`${url}/api/orgs/${DEMO_ORG.id}/scan-tokens`, {
      method: "POST",
      headers: { authorization: DEMO_ORG.apiKeys[0]! },
      body: JSON.stringify({ scope: [CREATE_SCOPE] })
    })
      .then((r) => r.json() as Promise<{ token: string }>)
      .then((r) => r.token)
  )

const createWith = (url: string, token: string) =>
  Effect.promise(() =>
    fetch(`${url}/api/orgs/${DEMO_ORG.id}/scans`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(STATS) }).then(
      async (r) => ({
        status: r.status,
        body: await r.text()
      })
    )
  )

describe("the scan token secret", () => {
  it.live("refuses a token signed with the fixed secret that earlier versions used", () =>
    onSim({}, (url) =>
      Effect.gen(function* () {
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const forged = sign("scanbridge-simulator-secret", {
          iss: "scanbridge-simulator",
          sub: DEMO_ORG.id,
          mid: "m",
          jti: "tok_9",
          scope: CREATE_SCOPE,
          iat: now,
          exp: now + 600
        })
        const reply = yield* createWith(url, forged)
        expect(reply.status).toBe(401)
        expect(JSON.parse(reply.body)).toEqual({ message: "invalid scan token: bad token signature" })
      })
    )
  )

  it.live("is random to each start: a token of one start is refused by the next", () =>
    Effect.gen(function* () {
      const token = yield* onSim({}, issueToken)
      expect((yield* onSim({}, (url) => createWith(url, token))).status).toBe(401)
      // The same start verifies its own token.
      expect((yield* onSim({}, (url) => Effect.flatMap(issueToken(url), (own) => createWith(url, own)))).status).toBe(200)
    })
  )

  it.live("tokenSecret keeps tokens valid across starts", () =>
    Effect.gen(function* () {
      const options = { platform: { tokenSecret: Redacted.make("a secret of our own") } }
      const token = yield* onSim(options, issueToken)
      expect((yield* onSim(options, (url) => createWith(url, token))).status).toBe(200)
      expect((yield* onSim({ platform: { tokenSecret: Redacted.make("another") } }, (url) => createWith(url, token))).status).toBe(401)
    })
  )
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
      const post = (path: string, body: unknown) => Effect.promise(() => fetch(`${sim.url}${path}`, { method: "POST", body: JSON.stringify(body) }))
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
        Effect.promise(() =>
          fetch(`${sim.url}${path}`, { method: "POST", body: JSON.stringify(body) }).then((r) => r.json() as Promise<Record<string, unknown>>)
        )
      const keysOf = (ssid: string) =>
        Effect.promise(() => fetch(`${sim.url}/scanning/v0/results/${ssid}`).then(async (r) => Object.keys((await r.json()) as object)))
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
