import { FetchHttpClient, HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Clock, ConfigProvider, Effect, Either, Layer, Redacted } from "effect"
import { DEMO_SESSION_CLIENT_ID, Simulator, type SimulatorOptions, type SimulatorService, onTestClock } from "@scanbridge/simulator"
import { Catalogue } from "@scanbridge/model"
import { SessionClient, type SessionClientOptions, type SessionClientService } from "../src/index.js"

const STATS = { age: 41, gender: "male", heightMm: 1790, weightG: 82_000 } as const

/**
 * A fresh simulator on a free loopback port and a client of it; both stop with the test. Time
 * runs on the TestClock: polls, processing and expiries take no time and do not depend on the
 * machine's speed.
 */
const withSession = <A, E>(
  f: (client: SessionClientService, sim: SimulatorService) => Effect.Effect<A, E, HttpClient.HttpClient>,
  options: SimulatorOptions = {},
  client: Partial<SessionClientOptions> = {}
) =>
  Effect.gen(function* () {
    const sim = yield* Simulator
    const session = yield* SessionClient.make({
      baseUrl: sim.url,
      clientId: Redacted.make(DEMO_SESSION_CLIENT_ID),
      pollInterval: "50 millis",
      retry: { base: "5 millis", times: 3 },
      ...client
    })
    return yield* f(session, sim)
  }).pipe(Effect.provide(Layer.merge(Simulator.layer(options), FetchHttpClient.layer)), onTestClock())

const resultsRequests = (sim: SimulatorService) => Effect.map(sim.requests, (log) => log.filter((r) => r.path.startsWith("/scanning/v0/results/")))

describe("SessionClient against the simulator", () => {
  it.effect("runs the flow: create, not submitted yet, submit, pending, results with avatar", () =>
    withSession((client, sim) =>
      Effect.gen(function* () {
        const created = yield* client.createSession({ clientScanningId: "order-7", languageCode: "ja", include3dAvatarInResults: true })
        expect(created.scanningSessionId).toMatch(/^ss_/)
        expect(created.clientScanningId).toBe("order-7")
        expect(created.expiresAt!.getTime()).toBeGreaterThan((yield* Clock.currentTimeMillis) + 59 * 60 * 1000)
        const ssid = created.scanningSessionId

        const early = yield* client.getResults(ssid)
        expect(early.status).toBe("failure")
        expect(early.failure).toEqual({ code: "USER_INPUT_NOT_SUBMITTED", category: "session", message: "ユーザーはまだ測定データと写真を送信していません。" })

        expect(yield* sim.session.submit(ssid, { ...STATS, processingMs: 300 })).toBe(true)
        const pending = yield* client.getResults(ssid)
        expect(pending.status).toBe("pending")
        expect(pending.expiresAt).toBe(created.expiresAt!.toISOString())
        expect(pending.externalId).toBe("order-7")

        const scan = yield* client.awaitResults(ssid)
        expect(scan.status).toBe("success")
        expect(scan.source).toEqual({ api: "session", id: ssid })
        expect(scan.method).toBe("photo")
        expect(scan.subject).toEqual({ age: 41, gender: "male", heightMm: 1790, weightG: 82_000 })
        expect(Object.keys(scan.measurementsMm).sort()).toEqual(Catalogue.measurements.map((e) => e.name).sort())
        expect(scan.composition?.bodyFatPercent).toBeGreaterThan(5)
        expect(scan.composition?.skeletalMuscleMassG).toBeGreaterThan(20_000)
        expect(scan.posture?.right?.lines.bodyLine).toHaveLength(5)
        expect(scan.avatar?.format).toBe("vertices")
        expect(scan.avatar?.vertices).toHaveLength(18)
        expect(scan.notes).toEqual([])
        // 1 early read, 1 pending read, then polls every 50 ms until the results, 300 ms after
        // the submission: at 0, 50, ..., 300 ms on the TestClock.
        const polls = (yield* resultsRequests(sim)).length
        expect(polls).toBe(2 + 7)
      })
    )
  )

  it.effect("leaves the avatar out unless the session asked for it", () =>
    withSession((client, sim) =>
      Effect.gen(function* () {
        const { scanningSessionId: ssid } = yield* client.createSession()
        yield* sim.session.submit(ssid)
        const scan = yield* client.awaitResults(ssid)
        expect(scan.status).toBe("success")
        expect(scan.avatar).toBeNull()
        expect(scan.externalId).toBeNull()
      })
    )
  )

  it.effect("completes sessions by itself with completeAfterMs, pending meanwhile", () =>
    withSession(
      (client, sim) =>
        Effect.gen(function* () {
          const { scanningSessionId: ssid } = yield* client.createSession()
          expect((yield* client.getResults(ssid)).status).toBe("pending")
          const scan = yield* client.awaitResults(ssid)
          expect(scan.status).toBe("success")
          expect(scan.subject.heightMm).toBeGreaterThan(1500)
          // 1 pending read, then polls every 50 ms until the session completes at 200 ms: 0, 50, ..., 200.
          expect((yield* resultsRequests(sim)).length).toBe(1 + 5)
        }),
      { session: { completeAfterMs: 200 } }
    )
  )

  it.effect("returns a failed scan when the flow ends in an error", () =>
    withSession((client, sim) =>
      Effect.gen(function* () {
        const { scanningSessionId: ssid } = yield* client.createSession()
        yield* sim.session.submit(ssid, { outcome: "INVALID_USER_INPUT" })
        const scan = yield* client.awaitResults(ssid)
        expect(scan.status).toBe("failure")
        expect(scan.failure).toEqual({ code: "INVALID_USER_INPUT", category: "session", message: "The submitted photos or measurements could not be used." })
      })
    )
  )

  it.effect("reads radians as degrees, the same angles a degrees server sends", () =>
    Effect.gen(function* () {
      const run = (angleUnit: "degrees" | "radians") =>
        withSession(
          (client, sim) =>
            Effect.gen(function* () {
              const { scanningSessionId: ssid } = yield* client.createSession()
              yield* sim.session.submit(ssid, STATS)
              return yield* client.awaitResults(ssid)
            }),
          { session: { angleUnit } }
        )
      const degrees = yield* run("degrees")
      const radians = yield* run("radians")
      const shoulder = degrees.posture!.front!.angles.shoulder!
      expect(radians.posture!.front!.angles.shoulder!).toBeCloseTo(shoulder, 9)
      expect(radians.posture!.right!.angles.bodyLine![2]).toBeCloseTo(degrees.posture!.right!.angles.bodyLine![2]!, 9)
      expect(radians.notes.filter((n) => n.kind === "converted").length).toBe(6)
      expect(radians.notes[0]!.path).toBe("results.posture.front.angles[0]")
    })
  )

  it.effect("stops at the session's expiry with SessionTimeoutError, and the server then says SESSION_EXPIRED", () =>
    withSession(
      (client, sim) =>
        Effect.gen(function* () {
          const { scanningSessionId: ssid, expiresAt } = yield* client.createSession()
          yield* sim.session.submit(ssid, { processingMs: 60_000 })
          const started = yield* Clock.currentTimeMillis
          const error = yield* Effect.flip(client.awaitResults(ssid, { interval: "100 millis" }))
          expect(error._tag).toBe("SessionTimeoutError")
          if (error._tag !== "SessionTimeoutError") return
          expect(error.expiresAt).toBe(expiresAt!.toISOString())
          // It gives up before the expiry instead of polling an expired session.
          const stopped = yield* Clock.currentTimeMillis
          expect(stopped).toBeLessThan(expiresAt!.getTime())
          expect(stopped + 100).toBeGreaterThanOrEqual(expiresAt!.getTime())
          expect(stopped - started).toBeGreaterThanOrEqual(300)
          yield* Effect.sleep("450 millis")
          const late = yield* client.getResults(ssid)
          expect(late.failure?.code).toBe("SESSION_EXPIRED")
        }),
      { session: { lifetimeMs: 500 } }
    )
  )

  it.effect("gives up after maxWait when the server gives no expiry", () =>
    Effect.gen(function* () {
      // A server whose pending answer leaves the expiry out (proto3 omits an unset field).
      const pendingForever = HttpClient.make((request) =>
        Effect.succeed(HttpClientResponse.fromWeb(request, new Response(JSON.stringify({ scanningSessionId: "ss_1", pending: {} }))))
      )
      const client = yield* SessionClient.make({ baseUrl: "http://sessions.invalid", clientId: "x", pollInterval: "40 millis" }).pipe(
        Effect.provideService(HttpClient.HttpClient, pendingForever)
      )
      const started = yield* Clock.currentTimeMillis
      const error = yield* Effect.flip(client.awaitResults("ss_1", { maxWait: "200 millis" }))
      expect(error).toMatchObject({ _tag: "SessionTimeoutError", scanningSessionId: "ss_1", expiresAt: null })
      expect(error.message).toContain("still pending after 200ms")
      // It stops at the last poll before maxWait runs out, rather than waiting past it.
      const waited = (yield* Clock.currentTimeMillis) - started
      expect(waited + 40).toBeGreaterThanOrEqual(200)
      expect(waited).toBeLessThanOrEqual(200)
    }).pipe(onTestClock())
  )

  it.effect("answers an unknown SSID with a failed scan INVALID_SESSION_ID, whatever the HTTP status", () =>
    Effect.gen(function* () {
      for (const errorStatus of ["mapped", "ok"] as const) {
        const scan = yield* withSession((client) => client.getResults("ss_nope"), { session: { errorStatus } })
        expect(scan.status).toBe("failure")
        expect(scan.failure?.code).toBe("INVALID_SESSION_ID")
        expect(scan.source.id).toBe("ss_nope")
      }
    })
  )

  it.effect("raises SessionCreateError InvalidClientId for a wrong client id, whatever the HTTP status", () =>
    Effect.gen(function* () {
      for (const [errorStatus, status] of [
        ["mapped", 401],
        ["ok", 200]
      ] as const) {
        const error = yield* withSession((client) => Effect.flip(client.createSession()), { session: { errorStatus } }, { clientId: "cl_wrong" })
        expect(error).toMatchObject({ _tag: "SessionCreateError", reason: "InvalidClientId" })
        expect(error).toMatchObject({ wireValue: "INVALID_CLIENT_ID", status })
        expect(error.message).toContain("The client id is missing or not valid.")
        // The client id is a secret: it never appears in an error.
        expect(JSON.stringify(error)).not.toContain("cl_wrong")
      }
    })
  )

  it.effect("reads the MALFORMED_REQUEST alias as SessionCreateError MalformedRequest", () =>
    withSession(
      (client) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(client.createSession({ languageCode: "ja" }))
          expect(error).toMatchObject({ _tag: "SessionCreateError", reason: "MalformedRequest" })
          expect(error).toMatchObject({ wireValue: "MALFORMED_REQUEST", status: 400 })
          expect(error.message).toContain("sent as MALFORMED_REQUEST")
        }),
      { session: { malformedAlias: true } },
      // A body that is not JSON: what a broken integration sends.
      { transformClient: HttpClient.mapRequest((request) => HttpClientRequest.bodyText(request, "{clientId:", "application/json")) }
    )
  )

  it.effect("refuses a language code that is not ISO 639-1 before sending; an unsupported one falls back to English", () =>
    withSession((client, sim) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(client.createSession({ languageCode: "english" }))
        expect(error).toMatchObject({ _tag: "SessionInputError", path: ["languageCode"], value: "english" })
        expect((yield* sim.requests).length).toBe(0)
        const { scanningSessionId: ssid } = yield* client.createSession({ languageCode: "xx" })
        const scan = yield* client.getResults(ssid)
        expect(scan.failure?.message).toBe("The user has not submitted measurement data and photos yet.")
      })
    )
  )

  it.effect("retries GET results on 503, never create-session", () =>
    withSession((client, sim) =>
      Effect.gen(function* () {
        const { scanningSessionId: ssid } = yield* client.createSession()
        yield* sim.injectFaults([503, 503])
        expect((yield* client.getResults(ssid)).failure?.code).toBe("USER_INPUT_NOT_SUBMITTED")
        expect((yield* resultsRequests(sim)).map((r) => r.status)).toEqual([503, 503, 200])
        yield* sim.injectFaults([503])
        const error = yield* Effect.flip(client.createSession())
        expect(error).toMatchObject({ _tag: "ApiStatusError", api: "session", status: 503 })
        expect((yield* sim.requests).filter((r) => r.path === "/scanning/v0/create-session").length).toBe(2)
      })
    )
  )

  it.effect("reads no response body beyond maxResponseBytes, and does not ask again for a read that may be repeated", () =>
    withSession(
      (client, sim) =>
        Effect.gen(function* () {
          expect(yield* Effect.flip(client.getResults("ss_unknown"))).toMatchObject({
            _tag: "ApiResponseTooLargeError",
            api: "session",
            method: "GET",
            maxBytes: 16
          })
          expect(yield* resultsRequests(sim)).toHaveLength(1)
        }),
      {},
      { maxResponseBytes: 16 }
    )
  )

  it.live("reports a server that does not answer as ApiTransportError", () =>
    Effect.gen(function* () {
      const client = yield* SessionClient.make({ baseUrl: "http://127.0.0.1:9", clientId: "x", retry: { times: 0 } })
      const error = yield* Effect.flip(client.getResults("ss_1"))
      expect(error._tag).toBe("ApiTransportError")
      expect(error.message).toContain("http://127.0.0.1:9/scanning/v0/results/ss_1")
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )

  it.live("reads its settings from config with layerConfig", () =>
    Effect.gen(function* () {
      const sim = yield* Simulator
      const config = ConfigProvider.fromMap(
        new Map([
          ["SCANBRIDGE_SESSION_URL", sim.url],
          ["SCANBRIDGE_SESSION_CLIENT_ID", DEMO_SESSION_CLIENT_ID]
        ])
      )
      const created = yield* Effect.flatMap(SessionClient, (c) => c.createSession()).pipe(
        Effect.provide(SessionClient.layerConfig().pipe(Layer.provide(Layer.setConfigProvider(config))))
      )
      expect(created.scanningSessionId).toMatch(/^ss_/)
      const missing = yield* Effect.either(
        Effect.flatMap(SessionClient, (c) => c.createSession()).pipe(
          Effect.provide(SessionClient.layerConfig().pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))))
        )
      )
      expect(Either.isLeft(missing) && missing.left._tag).toBe("ConfigError")
    }).pipe(Effect.provide(Layer.merge(Simulator.layer(), FetchHttpClient.layer)))
  )
})

describe("the simulator's session API on the wire", () => {
  it.live("reads proto field names and enum numbers, and prints names, int64 strings and no defaults", () =>
    Effect.gen(function* () {
      const sim = yield* Simulator
      const http = yield* HttpClient.HttpClient
      const post = (body: unknown) => http.execute(HttpClientRequest.post(`${sim.url}/scanning/v0/create-session`).pipe(HttpClientRequest.bodyUnsafeJson(body)))
      const created = yield* Effect.flatMap(
        post({ client_id: DEMO_SESSION_CLIENT_ID, scanning_config: { language_code: "ja", include_3d_avatar_in_results: true } }),
        (r) => r.json
      )
      const ssid = (created as { scanningSession: { scanningSessionId: string } }).scanningSession.scanningSessionId
      // No clientScanningId was given: the server leaves the empty echo out.
      expect(Object.keys((created as { scanningSession: object }).scanningSession).sort()).toEqual(["expireAtTimestamp", "scanningSessionId"])
      yield* sim.session.submit(ssid, STATS)
      const results = (yield* Effect.flatMap(http.get(`${sim.url}/scanning/v0/results/${ssid}`), (r) => r.json)) as {
        results: {
          measurements: Array<{ measurementType: string; value: string; unit: string }>
          avatar: unknown
          posture: { front: { angles: Array<Record<string, unknown>> } }
        }
      }
      const height = results.results.measurements.find((m) => m.measurementType === "HEIGHT")
      expect(height).toEqual({ measurementType: "HEIGHT", value: "1790", unit: "MILLIMETERS" })
      expect(results.results.measurements.map((m) => m.measurementType)[0]).toBe("SKELETAL_MUSCLE_MASS")
      expect(results.results.avatar).toBeDefined()
      // The foot's angle is 0: the printer leaves a default value out.
      const foot = results.results.posture.front.angles.find((a) => a["name"] === "FOOT")
      expect(foot).toEqual({ name: "FOOT", unit: "ANGLE_UNIT_TYPE_DEGREES" })

      const wrongType = (yield* Effect.flatMap(
        post({ clientId: DEMO_SESSION_CLIENT_ID, scanningConfig: { languageCode: "ja", include3dAvatarInResults: "yes" } }),
        (r) => Effect.map(r.json, (body) => ({ status: r.status, body }))
      )) as { status: number; body: { error: { errorType: string; message: string } } }
      expect(wrongType.status).toBe(400)
      expect(wrongType.body.error.errorType).toBe("MALFORMED_REQUEST_BODY")
      expect(wrongType.body.error.message).toContain("リクエストの形式が正しくありません。")
      expect(wrongType.body.error.message).toContain("scanningConfig.include3dAvatarInResults")
    }).pipe(Effect.provide(Layer.merge(Simulator.layer(), FetchHttpClient.layer)))
  )
})
