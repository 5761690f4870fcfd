/**
 * No secret leaves the gateway: every endpoint is driven through its happy and error paths (the
 * platform failing among them) with a recording tracer and a recording logger installed, and
 * neither the platform API key, nor a client id (accepted or refused), nor an access token, nor
 * photo bytes (base64 or raw) appears in a response's body or headers, a log line, an error, or a
 * span's name, attributes or failure. Spans of the serving layer (http.server) are checked too:
 * the gateway turns them off wherever it is served (Gateway.layer, which the CLI runs, and
 * Gateway.untracedRuntime, which createGateway's web handler runs on), since they would record
 * the request's URL and its Access-Token header as they are.
 *
 * The checks cannot pass by recording nothing: each asserts that the gateway's own spans and log
 * lines were recorded.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApp from "@effect/platform/HttpApp"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, FiberRef, HashSet, Layer, LogLevel, Logger, ManagedRuntime, Redacted, TestClock, type Tracer } from "effect"
import { PlatformClient } from "@scanbridge/platform"
import { Simulator, TEST_EPOCH_MS } from "@scanbridge/simulator"
import { Gateway, memoryStoreLayer } from "../src/index.js"
import { CLIENT_ID, OTHER_CLIENT_ID, PHOTO, STATS, createForm, postCreate, uploadForm } from "./support/estimation.js"
import { GatewayHarness, HARNESS_API_KEY, HARNESS_ORG, harnessLayer, recordingTracer, scanAsUser } from "./support/harness.js"

const REFUSED_CLIENT_ID = "cl_refused_secret_0077"
const PHOTO_BASE64 = Buffer.from(PHOTO).toString("base64")
/** Photo bytes as they could leak (the test photo is a few dozen bytes): base64, raw, hex. */
const PHOTO_TRACES = [PHOTO_BASE64.slice(0, 24), PHOTO_BASE64.slice(24), Buffer.from(PHOTO.subarray(2)).toString("latin1"), Buffer.from(PHOTO).toString("hex")]

interface Recorded {
  readonly where: string
  readonly text: string
}

/** Everything a span holds, as text: its name, attributes, events and failure. */
const spanText = (s: Tracer.Span): string => {
  const failure = s.status._tag === "Ended" && Exit.isFailure(s.status.exit) ? Cause.pretty(s.status.exit.cause) : ""
  return JSON.stringify([s.name, [...s.attributes].map(([k, v]) => [k, String(v)]), failure])
}

const recordingLogger = (lines: Array<string>) =>
  Logger.make(({ annotations, cause, message }) => {
    lines.push(JSON.stringify([message, [...annotations].map(([k, v]) => [k, String(v)]), Cause.isEmpty(cause) ? "" : Cause.pretty(cause)]))
  })

/** Runs `effect` with every log line, of any level, in `lines` (and nowhere else). */
const capturingLogs =
  (lines: Array<string>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    effect.pipe(Effect.locally(FiberRef.currentLoggers, HashSet.make(recordingLogger(lines))), Effect.locally(FiberRef.currentMinimumLogLevel, LogLevel.All))

const expectClean = (recorded: ReadonlyArray<Recorded>, secrets: ReadonlyArray<string>) => {
  for (const { where, text } of recorded)
    for (const secret of secrets) expect(text.includes(secret), `${where} holds a secret: ${secret.slice(0, 12)}...`).toBe(false)
}

describe("secrets through Gateway.layer (and the CLI, which serves it)", () => {
  it.effect("no API key, client id, access token or photo in a response, log line, error or span, on every endpoint's paths", () =>
    Effect.gen(function* () {
      const { spans, tracer } = yield* recordingTracer
      const lines: Array<string> = []
      const responses: Array<Recorded> = []
      // Responses that carry a credential by design: the token endpoint's (the access token it
      // issues) and the scanner address (the session's scan token, for the user's browser).
      const byDesign: Array<Recorded> = []
      const tokens: Array<string> = []

      yield* TestClock.setTime(TEST_EPOCH_MS)
      yield* Effect.gen(function* () {
        const { gatewayUrl, simulator } = yield* GatewayHarness
        const send = (path: string, init: RequestInit = {}, designed = false) =>
          Effect.promise(async () => {
            const response = await fetch(`${gatewayUrl}${path}`, init)
            const text = await response.text()
            const record = { where: `${init.method ?? "GET"} ${path} ${response.status}`, text: `${JSON.stringify([...response.headers])} ${text}` }
            ;(designed ? byDesign : responses).push(record)
            // biome-ignore lint/suspicious/noExplicitAny: a test reads any JSON it is given
            return { status: response.status, json: (text.startsWith("{") ? JSON.parse(text) : undefined) as any }
          })
        const json = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

        // The session API: refused client ids, a malformed body, pending, results, unknown SSID, the platform failing.
        expect((yield* send("/scanning/v0/create-session", json({ clientId: REFUSED_CLIENT_ID }))).status).toBe(401)
        expect((yield* send("/scanning/v0/create-session", json({ clientId: CLIENT_ID, bogus: CLIENT_ID }))).status).toBe(400)
        yield* simulator.injectFaults([503])
        expect((yield* send("/scanning/v0/create-session", json({ clientId: CLIENT_ID, clientScanningId: "user-1" }))).status).toBe(503)
        const created = yield* send("/scanning/v0/create-session", json({ clientId: CLIENT_ID, clientScanningId: "user-1" }))
        const ssid = created.json.scanningSession.scanningSessionId as string
        expect((yield* send(`/scanning/v0/results/${ssid}`)).json.pending).toBeDefined()
        expect((yield* send(`/gateway/v0/sessions/${ssid}/scanner?bogus=1`)).status).toBe(400)
        expect((yield* send(`/gateway/v0/sessions/${ssid}/scanner`, {}, true)).status).toBe(200)
        yield* scanAsUser(ssid, STATS)
        yield* simulator.injectFaults([503])
        expect((yield* send(`/scanning/v0/results/${ssid}`)).status).toBe(503)
        expect((yield* send(`/scanning/v0/results/${ssid}`)).json.results).toBeDefined()
        expect((yield* send("/scanning/v0/results/ssid_unknown")).status).toBe(404)

        // The estimation API: tokens for accepted and refused ids, forms, photos, reads.
        expect((yield* send(`/tokens/anonymous?client_id=${REFUSED_CLIENT_ID}`)).status).toBe(401)
        const issued = yield* send(`/tokens/anonymous?client_id=${CLIENT_ID}`, {}, true)
        const token = issued.json.access_token as string
        const other = (yield* send(`/tokens/anonymous?client_id=${OTHER_CLIENT_ID}`, {}, true)).json.access_token as string
        tokens.push(token, other)
        const headers = { "access-token": token }
        const form = { method: "POST", headers: { ...headers, "content-type": "application/x-www-form-urlencoded" } }
        expect((yield* send("/estimation", { ...form, body: createForm({ client_id: REFUSED_CLIENT_ID }) })).status).toBe(401)
        expect((yield* send("/estimation", { ...form, body: createForm({ height: "tall" }) })).status).toBe(400)
        expect((yield* send("/estimation", { ...form, headers: { ...form.headers, "access-token": `${token}x` }, body: createForm() })).status).toBe(401)
        const id = (yield* send("/estimation", { ...form, body: createForm() })).json.estimation_id as string
        const image = (pattern: string, bytes: Uint8Array, clientId = CLIENT_ID, accessToken = token) =>
          send(`/estimation/${id}/image`, { method: "POST", headers: { "access-token": accessToken }, body: uploadForm(pattern, bytes, clientId) })
        expect((yield* image("front", new Uint8Array([0x89, 0x50, 0x4e, 0x47, ...PHOTO]))).status).toBe(400)
        expect((yield* image("front", PHOTO, CLIENT_ID, other)).status).toBe(404)
        expect((yield* image("front", PHOTO, REFUSED_CLIENT_ID)).status).toBe(401)
        expect((yield* image("front", PHOTO)).status).toBe(200)
        expect((yield* send(`/estimation/${id}?client_id=${CLIENT_ID}`, { headers })).json.measurements[0].status).toBe("in-progress")
        // The create fails as one that may have created: logged, and adopted later.
        yield* simulator.injectFaults([500])
        expect((yield* image("right", PHOTO)).status).toBe(200)
        yield* TestClock.adjust("2 minutes")
        yield* simulator.injectFaults([503])
        expect((yield* send(`/estimation/${id}?client_id=${CLIENT_ID}`, { headers })).status).toBe(503)
        expect((yield* send(`/estimation/${id}?client_id=${REFUSED_CLIENT_ID}`, { headers })).status).toBe(401)
        expect((yield* send(`/estimation/${id}?client_id=${CLIENT_ID}`, { headers })).json.measurements[0].status).toBe("completed")
        expect((yield* postCreate(undefined)).status).toBe(401)

        // The widget.
        expect((yield* send("/widget/v0/widget.js")).status).toBe(200)
        expect((yield* send("/widget/v0/widget.css")).status).toBe(200)
      }).pipe(
        Effect.provide(harnessLayer({ gateway: { clientIds: [CLIENT_ID, OTHER_CLIENT_ID] }, platform: { retry: { times: 0 } } })),
        Effect.withTracer(tracer),
        capturingLogs(lines)
      )

      // Recorded, so that the checks below check something.
      expect(spans.map((s) => s.name)).toEqual(expect.arrayContaining(["Gateway.createSession", "PlatformClient.createScan"]))
      expect(lines.join("\n")).toContain("INTERNAL_ERROR")
      expect(lines.join("\n")).toContain("creating an estimation's platform scan failed")
      // No server spans: they would record the URL and the Access-Token header.
      expect(spans.filter((s) => s.name.startsWith("http.server"))).toEqual([])

      const secrets = [HARNESS_API_KEY, CLIENT_ID, OTHER_CLIENT_ID, REFUSED_CLIENT_ID, ...tokens, ...PHOTO_TRACES]
      expectClean(
        [...responses, ...lines.map((text) => ({ where: "log line", text })), ...spans.map((s) => ({ where: `span ${s.name}`, text: spanText(s) }))],
        secrets
      )
      // Those that carry a credential by design carry no other.
      expectClean(byDesign, [HARNESS_API_KEY, REFUSED_CLIENT_ID, CLIENT_ID, OTHER_CLIENT_ID, ...PHOTO_TRACES])
    })
  )
})

describe("secrets through a web handler on Gateway.untracedRuntime (createGateway's)", () => {
  it.live("records no server span with the URL or the Access-Token header, and still the gateway's own", () =>
    Effect.gen(function* () {
      const { spans, tracer } = yield* recordingTracer
      const { url } = yield* Simulator
      const managed = ManagedRuntime.make(
        Layer.mergeAll(
          Gateway.configLayer({ clientIds: [Redacted.make(CLIENT_ID)] }),
          memoryStoreLayer,
          PlatformClient.layer({ baseUrl: url, orgId: HARNESS_ORG, apiKey: Redacted.make(HARNESS_API_KEY) }).pipe(Layer.provide(FetchHttpClient.layer)),
          Layer.setTracer(tracer)
        )
      )
      const runtime = yield* Effect.promise(() => managed.runtime())
      const web = HttpApp.toWebHandlerRuntime(Gateway.untracedRuntime(runtime))(Gateway.gatewayRouter)
      const answer = (path: string, init: RequestInit = {}) =>
        Effect.promise(async () => {
          const response = await web(new Request(`http://gateway.invalid${path}`, init))
          return { status: response.status, text: `${JSON.stringify([...response.headers])} ${await response.text()}` }
        })
      const issued = yield* answer(`/tokens/anonymous?client_id=${CLIENT_ID}`)
      const token = JSON.parse(issued.text.slice(issued.text.indexOf(" {") + 1)).access_token as string
      const created = yield* answer("/estimation", {
        method: "POST",
        headers: { "access-token": token, "content-type": "application/x-www-form-urlencoded" },
        body: createForm()
      })
      expect(created.status).toBe(200)
      const session = yield* answer("/scanning/v0/create-session", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ clientId: CLIENT_ID, clientScanningId: "user-2" })
      })
      expect(session.status).toBe(200)
      yield* Effect.promise(() => managed.dispose())

      expect(spans.map((s) => s.name)).toContain("Gateway.createSession")
      expect(spans.filter((s) => s.name.startsWith("http.server"))).toEqual([])
      expectClean(
        [created, session, ...spans.map((s) => ({ where: `span ${s.name}`, text: spanText(s) }))].map((r) =>
          "where" in r ? r : { where: "response", text: r.text }
        ),
        [HARNESS_API_KEY, CLIENT_ID, token]
      )
    }).pipe(
      Effect.provide(Simulator.layer({ platform: { orgs: [{ id: HARNESS_ORG, apiKeys: [HARNESS_API_KEY], quota: 10 }] } })),
      Effect.provide(FetchHttpClient.layer)
    )
  )
})
