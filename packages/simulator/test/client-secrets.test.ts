/**
 * No credential of any of the four clients reaches a tracer, a logger or an error: driven over
 * loopback against the simulator through success and error paths, with a recording tracer and
 * a recording logger installed.
 */
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Logger, LogLevel, type Option, Redacted, Tracer } from "effect"
import type { Context } from "effect"
import { EstimationClient, makeJpeg } from "@scanbridge/estimation"
import { FitClient } from "@scanbridge/fit"
import { PlatformClient } from "@scanbridge/platform"
import { SessionClient } from "@scanbridge/session"
import { DEMO_PRODUCTS, Simulator, onTestClock } from "../src/index.js"

const API_KEY = "sk_SECRET_platform_7f3a"
const SESSION_CLIENT_ID = "cl_SECRET_session_55"
const ESTIMATION_CLIENT_ID = "cl_SECRET_estimation_91"
const FIT_CLIENT_KEY = "ck_SECRET_fit_23"
const ORG = "org_secrets"
const STATS = { age: 30, gender: "female", heightMm: 1650, weightG: 58_000 } as const
const PHOTO = makeJpeg(1080, 1920)

class RecordingSpan implements Tracer.Span {
  readonly _tag = "Span"
  readonly spanId = Math.random().toString(16).slice(2)
  readonly traceId: string
  readonly sampled = true
  status: Tracer.SpanStatus
  readonly attributes = new Map<string, unknown>()
  readonly events: Array<[string, Record<string, unknown> | undefined]> = []
  readonly links: Array<Tracer.SpanLink>
  constructor(
    readonly name: string,
    readonly parent: Option.Option<Tracer.AnySpan>,
    readonly context: Context.Context<never>,
    links: ReadonlyArray<Tracer.SpanLink>,
    startTime: bigint,
    readonly kind: Tracer.SpanKind
  ) {
    this.traceId = parent._tag === "Some" ? parent.value.traceId : "trace"
    this.status = { _tag: "Started", startTime }
    this.links = [...links]
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>) {
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
  }
  attribute(key: string, value: unknown) {
    this.attributes.set(key, value)
  }
  event(name: string, _startTime: bigint, attributes?: Record<string, unknown>) {
    this.events.push([name, attributes])
  }
  addLinks(links: ReadonlyArray<Tracer.SpanLink>) {
    this.links.push(...links)
  }
}

const show = (u: unknown): string => {
  if (typeof u === "string") return u
  try {
    return `${String(u)} ${JSON.stringify(u)}`
  } catch {
    return String(u)
  }
}

describe("the four clients' secrets", () => {
  it.effect("appear in no span name or attribute, log line or error text, on success and error paths", () => {
    const spans: Array<RecordingSpan> = []
    const tracer = Tracer.make({
      span: (name, parent, context, links, startTime, kind) => {
        const span = new RecordingSpan(name, parent, context, links, startTime, kind)
        spans.push(span)
        return span
      },
      context: (f) => f()
    })
    const logs: Array<string> = []
    const logger = Logger.make(({ message, annotations, cause, spans: logSpans }) => {
      logs.push([show(message), show([...annotations]), Cause.pretty(cause), show([...logSpans])].join(" | "))
    })
    const errors: Array<unknown> = []
    const tokens: Array<string> = []
    const failed = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.tap(Effect.flip(effect), (e) => Effect.sync(() => errors.push(e)))

    const flows = Effect.gen(function* () {
      const sim = yield* Simulator

      // The platform: a key and a device's scan token.
      const platform = yield* PlatformClient.make({ baseUrl: sim.url, orgId: ORG, apiKey: API_KEY, retry: { base: "5 millis", times: 2 } })
      const issued = yield* platform.issueScanToken()
      tokens.push(Redacted.value(issued.token))
      const device = platform.withToken(issued.token)
      const scan = yield* device.createScan(STATS)
      yield* device.getScan(scan.source.id!)
      yield* failed(device.listScans())
      yield* sim.injectFaults([503])
      yield* platform.getScan(scan.source.id!)
      yield* platform.adjustScan(scan.source.id!, [{ name: "weight", percentage: 3 }])
      yield* platform.deleteScan(scan.source.id!)
      yield* failed(platform.deleteScan(scan.source.id!))
      yield* failed(device.createScan(STATS))
      const wrong = yield* PlatformClient.make({ baseUrl: sim.url, orgId: ORG, apiKey: `${API_KEY}_wrong` })
      yield* failed(wrong.listScans())
      const unreachable = yield* PlatformClient.make({ baseUrl: "http://127.0.0.1:9", orgId: ORG, apiKey: API_KEY, retry: { times: 0 } })
      yield* failed(unreachable.getScan("scan_000001"))

      // The session API: the client id in the body of create-session.
      const session = yield* SessionClient.make({ baseUrl: sim.url, clientId: SESSION_CLIENT_ID, retry: { base: "5 millis", times: 2 } })
      const created = yield* session.createSession()
      yield* sim.session.submit(created.scanningSessionId, { processingMs: 0 })
      yield* sim.injectFaults([503])
      yield* session.getResults(created.scanningSessionId)
      const wrongSession = yield* SessionClient.make({ baseUrl: sim.url, clientId: `${SESSION_CLIENT_ID}_wrong` })
      yield* failed(wrongSession.createSession())
      yield* sim.injectFaults([502])
      yield* failed(session.createSession())

      // The estimation API: the client id in queries and forms, tokens in Access-Token, renewed.
      const estimation = yield* EstimationClient.make({
        authUrl: sim.url,
        estimationUrl: sim.url,
        clientId: ESTIMATION_CLIENT_ID,
        measurementId: "ms_demo",
        pollInterval: "120 millis",
        retry: { base: "5 millis", times: 2 }
      })
      yield* estimation.estimate(STATS, { front: PHOTO, right: PHOTO })
      const token = yield* estimation.authenticate()
      tokens.push(Redacted.value(token.token))
      const { estimationId } = yield* estimation.createEstimation(token, STATS)
      yield* sim.injectFaults([503])
      yield* estimation.readEstimation(token, estimationId)
      yield* failed(estimation.readEstimation(token, "est_unknown"))
      yield* failed(estimation.readEstimation({ uid: "u", token: Redacted.make(`${Redacted.value(token.token)}x`) }, estimationId))
      const wrongEstimation = yield* EstimationClient.make({
        authUrl: sim.url,
        estimationUrl: sim.url,
        clientId: `${ESTIMATION_CLIENT_ID}_wrong`,
        measurementId: "ms_demo"
      })
      yield* failed(wrongEstimation.authenticate())

      // The fit service: the client key in every body; an estimation token in one.
      const fit = yield* FitClient.make({ baseUrl: `${sim.url}/fit/v2`, clientKey: FIT_CLIENT_KEY })
      const product = { brandId: DEMO_PRODUCTS[0]!.brandId, garmentSku: DEMO_PRODUCTS[0]!.garmentSku }
      const fitToken = (yield* sim.fit.estimate(STATS)).estimations.estimationToken!.token!
      tokens.push(fitToken)
      yield* fit.isProductSupported(product, "cs-1")
      yield* fit.recommendedSize(fitToken, product)
      yield* failed(fit.recommendedSize(`${fitToken}_unknown`, product))
      yield* fit.recordPurchase({
        clientSessionId: "cs-1",
        orderId: "o-1",
        items: [{ sku: product.garmentSku, brand: "Acme", size: "M", price: 10, quantity: 1 }],
        createdAt: new Date(),
        currency: "EUR",
        countryCode: "DE",
        languageCode: "de"
      })
      yield* sim.injectFaults([500])
      yield* fit.recordPurchase({
        clientSessionId: "cs-1",
        orderId: "o-2",
        items: [{ sku: product.garmentSku, brand: "Acme", size: "M", price: 10, quantity: 1 }],
        createdAt: new Date(),
        currency: "EUR",
        countryCode: "DE",
        languageCode: "de"
      })
      const wrongFit = yield* FitClient.make({ baseUrl: `${sim.url}/fit/v2`, clientKey: `${FIT_CLIENT_KEY}_wrong` })
      yield* failed(wrongFit.isProductSupported(product, "cs-2"))
    })

    return flows.pipe(
      Effect.provide(
        Layer.merge(
          Simulator.layer({
            platform: { orgs: [{ id: ORG, apiKeys: [API_KEY], quota: 100 }] },
            session: { clientIds: [SESSION_CLIENT_ID] },
            estimation: { clientIds: [ESTIMATION_CLIENT_ID], processingPolls: 4, tokenLifetimeMs: 200 },
            fit: { clientKeys: [FIT_CLIENT_KEY] }
          }),
          FetchHttpClient.layer
        )
      ),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Logger.withMinimumLogLevel(LogLevel.All),
      Effect.withTracer(tracer),
      onTestClock(),
      Effect.andThen(() => {
        const secrets = [API_KEY, SESSION_CLIENT_ID, ESTIMATION_CLIENT_ID, FIT_CLIENT_KEY, ...tokens]
        // The flows ran: every API was traced, the estimation token was renewed, a purchase logged.
        expect(tokens).toHaveLength(3)
        const clientSpans = spans.filter((s) => s.kind === "client")
        expect(new Set(clientSpans.map((s) => String(s.attributes.get("url.path")).split("/")[1]))).toEqual(
          new Set(["api", "scanning", "tokens", "estimation", "fit"])
        )
        expect(clientSpans.some((s) => s.attributes.get("http.request.header.access-token") === "<redacted>")).toBe(true)
        expect(clientSpans.some((s) => String(s.attributes.get("url.query")).includes("client_id=<redacted>"))).toBe(true)
        expect(clientSpans.some((s) => s.attributes.get("http.response.status_code") === 401)).toBe(true)
        expect(logs.some((l) => l.includes("CreatePurchase for order o-2 not recorded"))).toBe(true)
        expect(errors.length).toBeGreaterThanOrEqual(10)

        const texts = [
          ...spans.flatMap((s) => [
            s.name,
            ...[...s.attributes].map(([k, v]) => `${k}=${show(v)}`),
            ...s.events.map((e) => show(e)),
            s.status._tag === "Ended" && Exit.isFailure(s.status.exit) ? Cause.pretty(s.status.exit.cause) : ""
          ]),
          ...logs,
          ...errors.flatMap((e) => [show(e), (e as { message?: string }).message ?? "", Cause.pretty(Cause.fail(e))])
        ]
        for (const secret of secrets) {
          const leaks = texts.filter((t) => t.includes(secret))
          expect(leaks, `${secret} leaked`).toEqual([])
        }
      })
    )
  })
})
