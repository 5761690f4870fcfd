/**
 * The session API's wire as the gateway serves it, pinned over raw HTTP: bodies, statuses,
 * headers and error forms of create-session, GET results and the gateway's scanner endpoint,
 * the results flow on the platform simulator (the user played by a scan created with the
 * session's token, as the hosted scanner creates it), expiry on the TestClock, the platform
 * failing, and two sessions given one clientScanningId. Where the legacy simulator answers the
 * same request, the gateway's answer is compared with its answer.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Option, TestClock } from "effect"
import { Wire as PlatformWire } from "@scanbridge/platform"
import { TEST_EPOCH_MS } from "@scanbridge/simulator"
import { GatewayStore, GatewayStoreError } from "../src/index.js"
import { makeMemoryStore } from "../src/store/memory.js"
import {
  GatewayHarness,
  HARNESS_API_KEY,
  HARNESS_CLIENT_ID,
  HARNESS_ORG,
  type HarnessOptions,
  harnessLayer,
  photo,
  recordingTracer,
  scanAsUser
} from "./support/harness.js"

const USER = { age: 34, gender: "female", heightMm: 1680, weightG: 61_000 } as const
const OTHER_USER = { age: 52, gender: "male", heightMm: 1850, weightG: 93_000 } as const
const HOUR = 60 * 60 * 1000

// The legacy simulator on the same server accepts the gateway's client id, so that one body
// can be sent to both.
const LEGACY = { session: { clientIds: [HARNESS_CLIENT_ID] } }

/**
 * Runs a test on the TestClock, started at TEST_EPOCH_MS. Nothing in these flows waits on the
 * clock (the gateway never sleeps; a fault test's platform client is not retried), so the test
 * moves it itself with TestClock.adjust, and not under onTestClock: two fibers adjusting the
 * TestClock at once can leave it behind (a sleep that was interrupted, a finished request's
 * timeout, stays in its list, and onTestClock moves to it while the test's own adjust passes it).
 */
const run = <A, E>(effect: Effect.Effect<A, E, GatewayHarness>, options: HarnessOptions = {}) =>
  // The clock is set before the gateway starts: setting it after would wake its sweeper at every
  // turn of its schedule from 1970 on.
  Effect.zipRight(TestClock.setTime(TEST_EPOCH_MS), Effect.provide(effect, harnessLayer({ ...options, simulator: { ...LEGACY, ...options.simulator } })))

interface Answer {
  readonly status: number
  readonly headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: a test reads any JSON it is given
  readonly json: any
  readonly text: string
}

/** A raw request to the gateway (or, with `to: "legacy"`, to the legacy simulator). */
const call = (method: string, path: string, body?: unknown, options: { readonly to?: "gateway" | "legacy"; readonly raw?: boolean } = {}) =>
  Effect.gen(function* () {
    const { gatewayUrl, simulatorUrl } = yield* GatewayHarness
    const base = options.to === "legacy" ? simulatorUrl : gatewayUrl
    const init: RequestInit = { method, headers: body === undefined ? {} : { "content-type": "application/json" } }
    if (body !== undefined) init.body = options.raw === true ? (body as string) : JSON.stringify(body)
    const response = yield* Effect.promise(() => fetch(`${base}${path}`, init))
    const text = yield* Effect.promise(() => response.text())
    let json: unknown
    try {
      json = text === "" ? undefined : JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, json, text } as Answer
  })

const create = (body: unknown = { clientId: HARNESS_CLIENT_ID }) => call("POST", "/scanning/v0/create-session", body)
const results = (ssid: string, to: "gateway" | "legacy" = "gateway") => call("GET", `/scanning/v0/results/${encodeURIComponent(ssid)}`, undefined, { to })
const scanner = (ssid: string, query = "") => call("GET", `/gateway/v0/sessions/${encodeURIComponent(ssid)}/scanner${query}`)

const createdSsid = (body?: unknown) =>
  Effect.map(create(body), (a) => {
    expect(a.status, a.text).toBe(200)
    return a.json.scanningSession.scanningSessionId as string
  })

/** The claims of the scan token in a scanner address: the platform's JWT, read without checking it. */
const tokenClaims = (url: string): Record<string, unknown> => {
  const token = new URL(url).searchParams.get("token")!
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"))
}

const customScanIdOf = (ssid: string) =>
  Effect.map(scanner(ssid), (a) => {
    expect(a.status, a.text).toBe(200)
    return tokenClaims(a.json.url)["cid"]
  })

describe("create-session", () => {
  it.effect("answers scanningSession: a random SSID, the clientScanningId, the token's expiry, and nothing else", () =>
    run(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const a = yield* create({
          clientId: HARNESS_CLIENT_ID,
          clientScanningId: "order-7",
          scanningConfig: { languageCode: "ja", include3dAvatarInResults: true }
        })
        expect(a.status).toBe(200)
        expect(a.headers.get("content-type")).toMatch(/^application\/json/)
        // No CORS: create-session is for back ends, whose client id is a secret.
        expect(a.headers.get("access-control-allow-origin")).toBeNull()
        const ssid = a.json.scanningSession.scanningSessionId
        expect(ssid).toMatch(/^ss_[A-Za-z0-9_-]{32}$/)
        expect(a.json).toEqual({
          scanningSession: { scanningSessionId: ssid, clientScanningId: "order-7", expireAtTimestamp: new Date(now + HOUR).toISOString() }
        })
        const again = yield* create({ clientId: HARNESS_CLIENT_ID, clientScanningId: "order-8" })
        expect(again.json.scanningSession.scanningSessionId).not.toBe(ssid)
        // The scan token is the platform's, for the clientScanningId, with both scopes, for the session's lifetime.
        const claims = tokenClaims((yield* scanner(ssid)).json.url)
        expect(claims).toMatchObject({
          sub: HARNESS_ORG,
          cid: "order-7",
          scope: `${PlatformWire.SCOPES.create} ${PlatformWire.SCOPES.read}`,
          exp: (now + HOUR) / 1000
        })
      })
    )
  )

  it.effect("reads snake_case keys and leaves an absent clientScanningId out, as the legacy server", () =>
    run(
      Effect.gen(function* () {
        const body = { client_id: HARNESS_CLIENT_ID, scanning_config: { language_code: "ja", include_3d_avatar_in_results: false } }
        const gateway = yield* create(body)
        const legacy = yield* call("POST", "/scanning/v0/create-session", body, { to: "legacy" })
        expect(gateway.status).toBe(200)
        expect(Object.keys(gateway.json.scanningSession).sort()).toEqual(Object.keys(legacy.json.scanningSession).sort())
        expect(gateway.json.scanningSession.clientScanningId).toBeUndefined()
        // Without a clientScanningId, the platform's customScanId is the gateway's own.
        expect(yield* customScanIdOf(gateway.json.scanningSession.scanningSessionId)).toMatch(/^gw_[A-Za-z0-9_-]{22}$/)
      })
    )
  )

  const refusals: ReadonlyArray<readonly [string, unknown, boolean?]> = [
    ["an unknown field", { clientId: HARNESS_CLIENT_ID, redirectUrl: "https://example.com" }],
    ["an unknown field, in Japanese", { clientId: HARNESS_CLIENT_ID, scanningConfig: { languageCode: "ja", theme: "dark" } }],
    ["a field of the wrong type, in Japanese", { clientId: HARNESS_CLIENT_ID, clientScanningId: 7, scanningConfig: { languageCode: "ja" } }],
    ["a body that is not JSON", "{clientId:", true],
    ["a body that is not an object", [HARNESS_CLIENT_ID]],
    ["a wrong client id", { clientId: "cl_someone_else" }],
    ["a wrong client id, in Japanese", { clientId: "cl_someone_else", scanningConfig: { language_code: "ja" } }],
    ["no client id", { clientScanningId: "order-1" }],
    ["an empty body", "", true]
  ]
  for (const [what, body, raw] of refusals) {
    it.effect(`refuses ${what} as the legacy simulator does: the same status and error`, () =>
      run(
        Effect.gen(function* () {
          const gateway = yield* call("POST", "/scanning/v0/create-session", body, { raw: raw ?? false })
          const legacy = yield* call("POST", "/scanning/v0/create-session", body, { raw: raw ?? false, to: "legacy" })
          expect(gateway.status).toBeGreaterThanOrEqual(400)
          expect({ status: gateway.status, json: gateway.json }).toEqual({ status: legacy.status, json: legacy.json })
          expect(gateway.headers.get("content-type")).toMatch(/^application\/json/)
          expect(Object.keys(gateway.json)).toEqual(["error"])
          // The client id given is never echoed.
          expect(gateway.text).not.toContain("cl_someone_else")
        })
      )
    )
  }

  it.effect("names the error types and speaks the session's language", () =>
    run(
      Effect.gen(function* () {
        const unknown = yield* create({ clientId: HARNESS_CLIENT_ID, scanningConfig: { languageCode: "ja", theme: "dark" } })
        expect(unknown.status).toBe(400)
        expect(unknown.json.error.errorType).toBe("MALFORMED_REQUEST_BODY")
        expect(unknown.json.error.message).toMatch(/^リクエストの形式が正しくありません。 \(.*scanningConfig\.theme/)
        const wrong = yield* create({ clientId: "cl_nope" })
        expect(wrong.status).toBe(401)
        expect(wrong.json).toEqual({ error: { errorType: "INVALID_CLIENT_ID", message: "The client id is missing or not valid." } })
        // The query: "the only parameter is the SSID in the path" (results); create-session has none.
        const query = yield* call("POST", "/scanning/v0/create-session?clientId=x", { clientId: HARNESS_CLIENT_ID })
        expect(query.status).toBe(400)
        expect(query.json.error.message).toContain('unknown query parameter "clientId"')
      })
    )
  )

  it.effect("refuses a body larger than 64 KiB without reading it all", () =>
    run(
      Effect.gen(function* () {
        const a = yield* create({ clientId: HARNESS_CLIENT_ID, clientScanningId: "x".repeat(70 * 1024) })
        expect(a.status).toBe(400)
        expect(a.json.error.errorType).toBe("MALFORMED_REQUEST_BODY")
      })
    )
  )

  it.effect("gives a clientScanningId the platform cannot store a gateway customScanId, and echoes it as given", () =>
    run(
      Effect.gen(function* () {
        for (const id of ["y".repeat(513), "lone \uD800 surrogate"]) {
          const a = yield* create({ clientId: HARNESS_CLIENT_ID, clientScanningId: id })
          expect(a.status).toBe(200)
          expect(a.json.scanningSession.clientScanningId).toBe(id)
          expect(yield* customScanIdOf(a.json.scanningSession.scanningSessionId)).toMatch(/^gw_/)
        }
      })
    )
  )
})

describe("GET results", () => {
  it.effect("answers pending, then the results once the platform holds the scan, then the same results again", () =>
    run(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const ssid = yield* createdSsid({ clientId: HARNESS_CLIENT_ID, clientScanningId: "order-7", scanningConfig: { include3dAvatarInResults: true } })
        const pending = yield* results(ssid)
        expect(pending.status).toBe(200)
        expect(pending.headers.get("content-type")).toMatch(/^application\/json/)
        expect(pending.headers.get("access-control-allow-origin")).toBe("*")
        expect(pending.headers.get("cache-control")).toBe("no-store")
        expect(pending.json).toEqual({
          scanningSessionId: ssid,
          clientScanningId: "order-7",
          pending: { expireAtTimestamp: new Date(now + HOUR).toISOString() }
        })

        const scan = yield* scanAsUser(ssid, USER)
        // New code finds the scan on the platform by the old code's clientScanningId.
        expect(scan.externalId).toBe("order-7")
        const done = yield* results(ssid)
        expect(done.status).toBe(200)
        expect(Object.keys(done.json)).toEqual(["scanningSessionId", "clientScanningId", "results"])
        expect(done.json.scanningSessionId).toBe(ssid)
        // The avatar was asked for and is left out (see session-api.ts): never a wrong mesh.
        expect(Object.keys(done.json.results)).toEqual(["measurements", "posture"])
        const items = done.json.results.measurements as ReadonlyArray<{ measurementType: string; value: string; unit: string }>
        // int64 as strings, in the enum's order, with their UnitType.
        for (const item of items) expect(item.value).toMatch(/^\d+$/)
        expect(items.find((i) => i.measurementType === "HEIGHT")).toEqual({ measurementType: "HEIGHT", value: "1680", unit: "MILLIMETERS" })
        expect(items.find((i) => i.measurementType === "WEIGHT")).toEqual({ measurementType: "WEIGHT", value: "61000", unit: "GRAMS" })
        expect(items.find((i) => i.measurementType === "GENDER")).toEqual({ measurementType: "GENDER", value: "2", unit: "GENDER" })
        expect(items.find((i) => i.measurementType === "AGE")).toEqual({ measurementType: "AGE", value: "34", unit: "YEARS" })
        expect(items.find((i) => i.measurementType === "HIP_GIRTH")?.unit).toBe("MILLIMETERS")
        expect(items.map((i) => i.measurementType)).toContain("BODY_FAT_PERCENTAGE")
        expect(done.json.results.posture.front.angles[0].unit).toBe("ANGLE_UNIT_TYPE_DEGREES")
        expect(done.json.results.posture.right.lines.map((l: { name: string }) => l.name)).toEqual(["BODY_LINE", "BACK_WAIST_LINE"])

        const again = yield* results(ssid)
        expect(again.json).toEqual(done.json)
        // The claim is in the store: one platform list, then reads of that one scan.
        expect(Option.map(yield* (yield* GatewayHarness).store.session(ssid), (s) => s.scanId)).toEqual(Option.some(scan.source.id))
      })
    )
  )

  it.effect("answers SESSION_EXPIRED once the expiry passes with no scan, in the session's language", () =>
    run(
      Effect.gen(function* () {
        const ssid = yield* createdSsid({ clientId: HARNESS_CLIENT_ID, clientScanningId: "late", scanningConfig: { languageCode: "ja" } })
        yield* TestClock.adjust(HOUR - 1)
        expect((yield* results(ssid)).json.pending).toBeDefined()
        yield* TestClock.adjust(1)
        const expired = yield* results(ssid)
        expect(expired.status).toBe(200)
        expect(expired.json).toEqual({
          scanningSessionId: ssid,
          clientScanningId: "late",
          error: { errorType: "SESSION_EXPIRED", message: "スキャンセッションの有効期限が切れました。" }
        })
        // The token expired with the session: the scanner can no longer create the scan.
        expect(yield* Effect.flip(scanAsUser(ssid, USER).pipe(Effect.catchAllDefect((d) => Effect.fail(d))))).toBeDefined()
      })
    )
  )

  it.effect("keeps results readable after the expiry when the scan was made before it, as the legacy server", () =>
    run(
      Effect.gen(function* () {
        const ssid = yield* createdSsid()
        yield* TestClock.adjust(HOUR - 1000)
        yield* scanAsUser(ssid, USER)
        yield* TestClock.adjust(2 * HOUR)
        const late = yield* results(ssid)
        expect(late.json.results).toBeDefined()
      })
    )
  )

  it.effect("answers INVALID_SESSION_ID, 404, for an SSID it never issued, and ERROR_TYPE_UNSPECIFIED, 400, for a query", () =>
    run(
      Effect.gen(function* () {
        const unknown = yield* results("ss_not-a-session")
        const legacy = yield* results("ss_not-a-session", "legacy")
        expect(unknown.status).toBe(404)
        expect(unknown.headers.get("access-control-allow-origin")).toBe("*")
        expect({ status: unknown.status, json: unknown.json }).toEqual({ status: legacy.status, json: legacy.json })
        expect(unknown.json).toEqual({
          scanningSessionId: "ss_not-a-session",
          error: { errorType: "INVALID_SESSION_ID", message: "The scanning session id is not valid." }
        })
        const ssid = yield* createdSsid()
        const query = yield* call("GET", `/scanning/v0/results/${ssid}?lang=ja`)
        const legacyQuery = yield* call("GET", "/scanning/v0/results/ss_00000001?lang=ja", undefined, { to: "legacy" })
        expect(query.status).toBe(400)
        // ERROR_TYPE_UNSPECIFIED is the enum's zero: proto3 JSON leaves it out.
        expect(query.json.error).toEqual({ message: 'results request: unknown query parameter "lang"' })
        expect(query.json.error).toEqual(legacyQuery.json.error)
      })
    )
  )

  it.effect("answers a failed platform scan as INVALID_USER_INPUT, in the session's language, the platform's code kept", () =>
    run(
      Effect.gen(function* () {
        const ssid = yield* createdSsid({ clientId: HARNESS_CLIENT_ID, scanningConfig: { languageCode: "ja" } })
        const scan = yield* scanAsUser(ssid, { ...USER, failWith: "personNotFound" })
        expect(scan.status).toBe("failure")
        const failed = yield* results(ssid)
        expect(failed.status).toBe(200)
        expect(failed.json).toEqual({
          scanningSessionId: ssid,
          error: { errorType: "INVALID_USER_INPUT", message: "送信された写真または測定データを使用できませんでした。 (personNotFound)" }
        })
      })
    )
  )
})

describe("the platform failing", () => {
  // No retries in the gateway's client: each injected fault is one failed platform call.
  const once: HarnessOptions = { platform: { retry: { times: 0 }, timeout: "5 seconds" } }

  it.effect("create-session: INTERNAL_ERROR, 503, with the platform's Retry-After; then a session is created", () =>
    run(
      Effect.gen(function* () {
        const { simulator } = yield* GatewayHarness
        yield* simulator.injectFaults([{ status: 429, retryAfter: "120" }])
        const limited = yield* create({ clientId: HARNESS_CLIENT_ID, scanningConfig: { languageCode: "ja" } })
        expect(limited.status).toBe(503)
        expect(limited.headers.get("retry-after")).toBe("120")
        expect(limited.json).toEqual({ error: { errorType: "INTERNAL_ERROR", message: "内部エラーが発生しました。" } })
        yield* simulator.injectFaults([500])
        const failed = yield* create()
        expect(failed.status).toBe(503)
        expect(failed.headers.get("retry-after")).toBeNull()
        expect(failed.json.error.errorType).toBe("INTERNAL_ERROR")
        expect(failed.text).not.toContain(HARNESS_API_KEY)
        // The platform refusing the gateway's own request (its API key, say): 502, no retry asked for.
        yield* simulator.injectFaults([401])
        const refused = yield* create()
        expect(refused.status).toBe(502)
        expect(refused.json.error.errorType).toBe("INTERNAL_ERROR")
        const ok = yield* create()
        expect(ok.status, ok.text).toBe(200)
      }),
      once
    )
  )

  it.effect("results: INTERNAL_ERROR on 503, 429 and a timeout, and no scan is lost or spent twice", () => {
    let hang: RegExp | null = null
    let hanging = false
    const options: HarnessOptions = {
      platform: {
        ...once.platform,
        // A platform that never answers the requests that match: the client's timeout ends them.
        transformClient: HttpClient.transform((effect, request) =>
          hang?.test(request.url)
            ? Effect.zipRight(
                Effect.sync(() => {
                  hanging = true
                }),
                Effect.never
              )
            : effect
        )
      }
    }
    // The request, with the clock moved on once the platform call hangs, until its timeout ends it.
    const timingOut = <A, E, R>(request: Effect.Effect<A, E, R>) =>
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(request)
        for (;;) {
          yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
          const exit = yield* Fiber.poll(fiber)
          if (Option.isSome(exit)) return yield* exit.value
          if (hanging) yield* TestClock.adjust("1 second")
        }
      })
    return run(
      Effect.gen(function* () {
        const { simulator, platform, store } = yield* GatewayHarness
        const ssid = yield* createdSsid({ clientId: HARNESS_CLIENT_ID, clientScanningId: "order-9" })

        yield* simulator.injectFaults([503])
        const unavailable = yield* results(ssid)
        expect(unavailable.status).toBe(503)
        expect(unavailable.headers.get("access-control-allow-origin")).toBe("*")
        expect(unavailable.json).toEqual({
          scanningSessionId: ssid,
          clientScanningId: "order-9",
          error: { errorType: "INTERNAL_ERROR", message: "An internal error occurred." }
        })

        const scan = yield* scanAsUser(ssid, USER)
        const before = yield* simulator.platform.quota(HARNESS_ORG)

        // The list fails: nothing is claimed.
        yield* simulator.injectFaults([{ status: 429, retryAfter: "7" }])
        const limited = yield* results(ssid)
        expect(limited.status).toBe(503)
        expect(limited.headers.get("retry-after")).toBe("7")
        expect(limited.json.error.errorType).toBe("INTERNAL_ERROR")

        // The scan is claimed, and reading it times out: the claim stays.
        hang = /\/scans\/scan_/
        const timedOut = yield* timingOut(results(ssid))
        expect(timedOut.status).toBe(503)
        expect(timedOut.json.error.errorType).toBe("INTERNAL_ERROR")
        expect(Option.map(yield* store.session(ssid), (s) => s.scanId)).toEqual(Option.some(scan.source.id))
        hang = null

        const done = yield* results(ssid)
        expect(done.status).toBe(200)
        expect(done.json.results.measurements.find((i: { measurementType: string }) => i.measurementType === "HEIGHT").value).toBe("1680")
        // One scan on the platform, the user's; the reads spent no quota.
        expect(yield* simulator.platform.quota(HARNESS_ORG)).toBe(before)
        const listed = yield* platform.listScans({ customScanId: "order-9" })
        expect(listed.results.map((s) => s.source.id)).toEqual([scan.source.id])
      }),
      options
    )
  })
})

describe("the store failing", () => {
  it.effect("answers INTERNAL_ERROR, 500, on every endpoint, saying nothing of what the store said", () =>
    run(
      Effect.gen(function* () {
        const created = yield* create({ clientId: HARNESS_CLIENT_ID, scanningConfig: { languageCode: "ja" } })
        expect(created.status).toBe(500)
        expect(created.json).toEqual({ error: { errorType: "INTERNAL_ERROR", message: "内部エラーが発生しました。" } })
        const read = yield* results("ss_any")
        expect(read.status).toBe(500)
        expect(read.json).toEqual({ scanningSessionId: "ss_any", error: { errorType: "INTERNAL_ERROR", message: "An internal error occurred." } })
        const address = yield* scanner("ss_any")
        expect(address.status).toBe(500)
        for (const answer of [created, read, address]) expect(answer.text).not.toContain("disk full")
      }),
      {
        store: Layer.sync(GatewayStore, () => {
          const down = Effect.fail(new GatewayStoreError({ message: "disk full at order-1" }))
          return { ...makeMemoryStore(), session: () => down, createSession: () => down, openSessionWith: () => down }
        })
      }
    )
  )
})

describe("what the gateway records", () => {
  it.effect("puts the clientScanningId, which may be a user id, in no span", () =>
    Effect.gen(function* () {
      const { spans, tracer } = yield* recordingTracer
      yield* run(
        Effect.gen(function* () {
          const ssid = yield* createdSsid({ clientId: HARNESS_CLIENT_ID, clientScanningId: "user-4711@example.com" })
          expect((yield* results(ssid)).json.pending).toBeDefined()
          yield* scanAsUser(ssid, USER)
          expect((yield* results(ssid)).json.results).toBeDefined()
          expect((yield* results(ssid)).json.results).toBeDefined()
        })
      ).pipe(Effect.withTracer(tracer))
      const names = spans.map((s) => s.name)
      expect(names).toContain("Gateway.sessionResults")
      expect(names).toContain("PlatformClient.getScan")
      const recorded = JSON.stringify(spans.map((s) => [s.name, [...s.attributes]]))
      expect(recorded).not.toContain("user-4711")
    })
  )
})

describe("the scanner endpoint", () => {
  it.effect("gives the hosted scanner's address with the scan token, in the session's locale, and the expiry", () =>
    run(
      Effect.gen(function* () {
        const { simulatorUrl } = yield* GatewayHarness
        const now = yield* Clock.currentTimeMillis
        const ssid = yield* createdSsid({ clientId: HARNESS_CLIENT_ID, scanningConfig: { languageCode: "ja" } })
        const a = yield* scanner(ssid)
        expect(a.status).toBe(200)
        expect(a.headers.get("access-control-allow-origin")).toBe("*")
        expect(a.headers.get("cache-control")).toBe("no-store")
        expect(Object.keys(a.json)).toEqual(["url", "expireAtTimestamp"])
        expect(a.json.expireAtTimestamp).toBe(new Date(now + HOUR).toISOString())
        const url = new URL(a.json.url)
        expect(`${url.origin}${url.pathname}`).toBe(`${simulatorUrl}/scanner/ja/`)
        expect([...url.searchParams.keys()]).toEqual(["token"])

        const fr = new URL((yield* scanner(yield* createdSsid({ clientId: HARNESS_CLIENT_ID, scanningConfig: { languageCode: "fr" } }))).json.url)
        expect(fr.pathname).toBe("/scanner/fr/")
        const unsupported = new URL((yield* scanner(yield* createdSsid({ clientId: HARNESS_CLIENT_ID, scanningConfig: { languageCode: "xx" } }))).json.url)
        expect(unsupported.pathname).toBe("/scanner/en/")
      })
    )
  )

  it.effect("passes the widget's userStats as the form's parameters, metric and imperial, and a locale", () =>
    run(
      Effect.gen(function* () {
        const ssid = yield* createdSsid()
        const metric = new URL((yield* scanner(ssid, "?heightCm=168&weightKg=61&age=34&gender=female")).json.url)
        expect(Object.fromEntries(metric.searchParams)).toMatchObject({ height: "168", weight: "61", age: "34", gender: "female" })
        const imperial = new URL(
          (yield* scanner(ssid, "?systemOfMeasurement=imperial&heightFt=5&heightIn=6&weightLbs=134&age=34&gender=female&locale=pt-BR")).json.url
        )
        expect(imperial.pathname).toBe("/scanner/pt-BR/")
        expect(Object.fromEntries(imperial.searchParams)).toMatchObject({ height: "5", inches: "6", weight: "134", age: "34", gender: "female" })
        expect(imperial.searchParams.get("token")).toBe(metric.searchParams.get("token"))
      })
    )
  )

  it.effect("refuses bad parameters (400), an unknown SSID (404), a session done or expired (410)", () =>
    run(
      Effect.gen(function* () {
        const ssid = yield* createdSsid()
        const refused = [
          ["?heightCm=168&weightKg=61&age=34", /gender/],
          ["?heightCm=1.68&weightKg=61&age=34&gender=female", /heightCm: 1\.68 is outside the human range/],
          ["?heightCm=168&weightLbs=134&age=34&gender=female", /weightLbs: not a metric stat/],
          ["?heightCm=abc&weightKg=61&age=34&gender=female", /heightCm: expected a number of cm/],
          ["?theme=dark", /unknown query parameter "theme"/],
          ["?locale=pt", /did you mean pt-BR/],
          ["?age=30&age=31", /age given more than once/]
        ] as const
        for (const [query, message] of refused) {
          const a = yield* scanner(ssid, query)
          expect(a.status, query).toBe(400)
          expect(a.json.message, query).toMatch(message)
        }
        const unknown = yield* scanner("ss_nope")
        expect(unknown.status).toBe(404)
        expect(unknown.json).toEqual({ message: "no such scanning session" })

        yield* scanAsUser(ssid, USER)
        expect((yield* results(ssid)).json.results).toBeDefined()
        const done = yield* scanner(ssid)
        expect(done.status).toBe(410)

        const other = yield* createdSsid()
        yield* TestClock.adjust(HOUR)
        const expired = yield* scanner(other)
        expect(expired.status, expired.text).toBe(410)
        expect(expired.json.message).toMatch(/expired/)
      })
    )
  )

  it.effect("answers 501 when the gateway has no scanner address", () =>
    run(
      Effect.gen(function* () {
        const a = yield* scanner(yield* createdSsid())
        expect(a.status).toBe(501)
        expect(a.json.message).toMatch(/scannerAddress/)
      }),
      { scanner: false }
    )
  )
})

describe("one clientScanningId, two sessions", () => {
  it.effect("never gives a session another's scan: the second waiting session gets a gateway customScanId", () =>
    run(
      Effect.gen(function* () {
        const { platform } = yield* GatewayHarness
        const body = { clientId: HARNESS_CLIENT_ID, clientScanningId: "order-1" }
        const a = yield* createdSsid(body)
        const b = yield* createdSsid(body)
        expect(yield* customScanIdOf(a)).toBe("order-1")
        expect(yield* customScanIdOf(b)).toMatch(/^gw_/)
        // B's user finishes first; then A's.
        yield* scanAsUser(b, OTHER_USER)
        expect((yield* results(a)).json.pending).toBeDefined()
        yield* scanAsUser(a, USER)
        const height = (answer: Answer) => answer.json.results.measurements.find((i: { measurementType: string }) => i.measurementType === "HEIGHT").value
        const [ra, rb] = [yield* results(a), yield* results(b)]
        expect([height(ra), height(rb)]).toEqual(["1680", "1850"])
        // Both echo the clientScanningId they were given.
        expect([ra.json.clientScanningId, rb.json.clientScanningId]).toEqual(["order-1", "order-1"])

        // A holds its scan: a third session may take the id again, and waits for its own scan.
        const c = yield* createdSsid(body)
        expect(yield* customScanIdOf(c)).toBe("order-1")
        expect((yield* results(c)).json.pending).toBeDefined()
        yield* scanAsUser(c, OTHER_USER)
        expect(height(yield* results(c))).toBe("1850")
        expect(height(yield* results(a))).toBe("1680")
        expect((yield* platform.listScans({ customScanId: "order-1" })).results).toHaveLength(2)
      })
    )
  )

  it.effect("lets one of many sessions created at once take the clientScanningId, and each reads its own scan", () =>
    run(
      Effect.gen(function* () {
        const body = { clientId: HARNESS_CLIENT_ID, clientScanningId: "order-race" }
        const ssids = yield* Effect.all(
          Array.from({ length: 8 }, () => createdSsid(body)),
          { concurrency: "unbounded" }
        )
        const ids = yield* Effect.forEach(ssids, customScanIdOf)
        expect(ids.filter((id) => id === "order-race")).toHaveLength(1)
        expect(new Set(ids).size).toBe(8)
        yield* Effect.forEach(ssids, (ssid, i) => scanAsUser(ssid, { ...USER, heightMm: 1600 + i }))
        const heights = yield* Effect.forEach(ssids, (ssid) =>
          Effect.map(results(ssid), (a) => a.json.results.measurements.find((m: { measurementType: string }) => m.measurementType === "HEIGHT").value)
        )
        expect(heights).toEqual(ssids.map((_, i) => String(1600 + i)))
      })
    )
  )

  it.effect("lets one session take the clientScanningId even when every create passes the first check (the store's write decides)", () =>
    run(
      Effect.gen(function* () {
        const body = { clientId: HARNESS_CLIENT_ID, clientScanningId: "order-checked" }
        const ssids = yield* Effect.forEach(Array.from({ length: 3 }), () => createdSsid(body))
        const ids = yield* Effect.forEach(ssids, customScanIdOf)
        expect(ids[0]).toBe("order-checked")
        expect(ids.slice(1).every((id) => typeof id === "string" && id.startsWith("gw_"))).toBe(true)
      }),
      // A store whose first check always finds the id free, as when creates race between it and the write.
      { store: Layer.sync(GatewayStore, () => ({ ...makeMemoryStore(), openSessionWith: () => Effect.succeed(false) })) }
    )
  )

  it.effect("keeps the id from a session that expired unused until five minutes after its expiry", () =>
    run(
      Effect.gen(function* () {
        const body = { clientId: HARNESS_CLIENT_ID, clientScanningId: "order-2" }
        const a = yield* createdSsid(body)
        yield* TestClock.adjust(HOUR + 4 * 60 * 1000)
        const b = yield* createdSsid(body)
        expect(yield* customScanIdOf(b)).toMatch(/^gw_/)
        yield* TestClock.adjust(60 * 1000)
        const c = yield* createdSsid(body)
        expect(yield* customScanIdOf(c)).toBe("order-2")
        expect((yield* results(a)).json.error.errorType).toBe("SESSION_EXPIRED")
        expect((yield* results(c)).json.pending).toBeDefined()
      })
    )
  )
})

// The photos the harness's user sends are JPEGs the simulator accepts.
it("makes photos the platform takes", () => {
  expect(Buffer.from(photo(), "base64").subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]))
})
