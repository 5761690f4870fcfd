import { FetchHttpClient, type HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer, Logger, LogLevel } from "effect"
import {
  DEMO_FIT_CLIENT_KEY,
  DEMO_PRODUCTS,
  Simulator,
  type SimulatorOptions,
  type SimulatorService,
  fitSizes,
  measurementsFor,
  onTestClock
} from "@scanbridge/simulator"
import { ALL } from "@scanbridge/simulator"
import { FitClient, type FitClientOptions, type FitClientService, type PurchaseOrder, decodeEstimationResultEither } from "../src/index.js"

const STATS = { age: 34, gender: "male", heightMm: 1780, weightG: 76_000 } as const
const TEE = { brandId: "acme", garmentSku: "TEE-001" }
const JEANS = { brandId: "acme", garmentSku: "JEANS-002" }
const SCARF = { brandId: "acme", garmentSku: "SCARF-004" }

const ORDER: PurchaseOrder = {
  clientSessionId: "cs-42",
  orderId: "order-9001",
  items: [{ sku: "TEE-001", brand: "Acme", size: "M", price: 19.9, quantity: 2 }],
  createdAt: new Date("2026-11-22T10:00:00.000Z"),
  currency: "EUR",
  countryCode: "DE",
  languageCode: "de"
}

/** A fresh simulator on a free loopback port and a client of it; both stop with the test. Retries back off on the TestClock. */
const withFit = <A, E>(
  f: (client: FitClientService, sim: SimulatorService) => Effect.Effect<A, E, HttpClient.HttpClient>,
  options: SimulatorOptions = {},
  client: Partial<FitClientOptions> = {}
) =>
  Effect.gen(function* () {
    const sim = yield* Simulator
    const fit = yield* FitClient.make({ baseUrl: `${sim.url}/fit/v2`, clientKey: DEMO_FIT_CLIENT_KEY, retry: { base: "5 millis", times: 3 }, ...client })
    return yield* f(fit, sim)
  }).pipe(Effect.provide(Layer.merge(Simulator.layer(options), FetchHttpClient.layer)), onTestClock())

/** Runs an effect with its log lines captured. */
const capturingLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
  const lines: Array<{ level: string; message: string }> = []
  const logger = Logger.make(
    ({ logLevel, message }) => void lines.push({ level: logLevel.label, message: String(Array.isArray(message) ? message.join(" ") : message) })
  )
  return Effect.map(effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)), Logger.withMinimumLogLevel(LogLevel.Debug)), (a) => ({
    result: a,
    lines
  }))
}

const tokenOf = (sim: SimulatorService) => Effect.map(sim.fit.estimate(STATS), (r) => r.estimations.estimationToken!.token!)

describe("FitClient against the simulator", () => {
  it.effect("checks support, recommends the size the chart gives for the body, records the order", () =>
    withFit((client, sim) =>
      Effect.gen(function* () {
        const token = yield* tokenOf(sim)
        const support = yield* client.isProductSupported(TEE, "cs-42")
        expect(support).toMatchObject({ supported: true, status: "SUPPORTED", product: TEE })
        expect(support.sessionId).toMatch(/^fs_/)

        const doc = yield* client.recommendedSize(token, TEE)
        const expected = fitSizes(DEMO_PRODUCTS[0]!, measurementsFor(STATS, ALL)).find((s) => s.rank === 1)!.name
        expect(doc).toEqual({
          format: "scanbridge.size/v1",
          source: { api: "fit", estimationToken: token },
          product: TEE,
          recommendedSize: expected,
          sizes: [],
          notes: []
        })
        expect(["S", "M", "L"]).toContain(doc.recommendedSize)
        const jeans = yield* client.recommendedSize(token, JEANS)
        expect(jeans.recommendedSize).toBe(fitSizes(DEMO_PRODUCTS[1]!, measurementsFor(STATS, ALL)).find((s) => s.rank === 1)!.name)

        expect(yield* client.recordPurchase(ORDER)).toBe(true)
        expect(yield* sim.fit.purchases).toEqual([
          {
            clientKey: DEMO_FIT_CLIENT_KEY,
            clientSessionId: "cs-42",
            orderId: "order-9001",
            items: [{ sku: "TEE-001", brand: "Acme", size: "M", price: 19.9, quantity: 2 }],
            createdAt: Date.parse("2026-11-22T10:00:00.000Z"),
            currency: "EUR",
            countryCode: "DE",
            languageCode: "de"
          }
        ])
      })
    )
  )

  it.effect("says unsupported for a product without sizing data or unknown, and PRODUCT_NOT_FOUND for its size", () =>
    withFit((client, sim) =>
      Effect.gen(function* () {
        expect(yield* client.isProductSupported(SCARF, "cs-1")).toMatchObject({ supported: false, status: "UNSUPPORTED" })
        expect(yield* client.isProductSupported({ brandId: "acme", garmentSku: "NOPE" }, "cs-1")).toMatchObject({ supported: false })
        const error = yield* Effect.flip(client.recommendedSize(yield* tokenOf(sim), SCARF))
        expect(error).toMatchObject({
          _tag: "FitRejectionError",
          reason: "ProductNotFound",
          endpoint: "GetRecommendedSize",
          wireValue: "PRODUCT_NOT_FOUND",
          status: 404
        })
        const empty = yield* Effect.flip(client.isProductSupported({ brandId: "", garmentSku: "TEE-001" }, "cs-1"))
        expect(empty).toMatchObject({ _tag: "FitRejectionError", reason: "InvalidProductId" })
      })
    )
  )

  it.effect("raises FitRejectionError with the reason of each errorType, whatever the HTTP status", () =>
    Effect.gen(function* () {
      for (const errorStatus of ["mapped", "ok"] as const) {
        const key = yield* withFit((client) => Effect.flip(client.isProductSupported(TEE, "cs-1")), { fit: { errorStatus } }, { clientKey: "ck_wrong" })
        expect(key).toMatchObject({
          _tag: "FitRejectionError",
          reason: "InvalidClientKey",
          endpoint: "CreateSession",
          status: errorStatus === "ok" ? 200 : 401
        })
        expect(JSON.stringify(key)).not.toContain("ck_wrong")
        const token = yield* withFit((client) => Effect.flip(client.recommendedSize("et_nope", TEE)), { fit: { errorStatus } })
        expect(token).toMatchObject({ _tag: "FitRejectionError", reason: "InvalidEstimationToken" })
      }
    })
  )

  it.effect("reads the snake_case keys of the spec's examples, with an aliased note", () =>
    withFit(
      (client, sim) =>
        Effect.gen(function* () {
          const doc = yield* client.recommendedSize(yield* tokenOf(sim), TEE)
          expect(doc.notes).toEqual([{ kind: "aliased", path: "recommendation.recommendedSize", detail: "recommended_size read as recommendedSize" }])
          const error = yield* Effect.flip(client.recommendedSize("et_nope", TEE))
          expect(error).toMatchObject({ _tag: "FitRejectionError", reason: "InvalidEstimationToken" })
        }),
      { fit: { keys: "snake" } }
    )
  )

  it.effect("never retries GetRecommendedSize, a POST: a 503 is returned after one request", () =>
    withFit((client, sim) =>
      Effect.gen(function* () {
        const token = yield* tokenOf(sim)
        yield* sim.injectFaults([503])
        const error = yield* Effect.flip(client.recommendedSize(token, TEE))
        expect(error).toMatchObject({ _tag: "ApiStatusError", api: "fit", status: 503 })
        const posts = (yield* sim.requests).filter((r) => r.path.endsWith("/GetRecommendedSize"))
        expect(posts.map((r) => r.status)).toEqual([503])
        expect((yield* client.recommendedSize(token, TEE)).recommendedSize).not.toBeNull()
      })
    )
  )

  describe("recordPurchase never breaks the caller's flow", () => {
    it.effect("a server error: false, and a warning in the log", () =>
      withFit((client, sim) =>
        Effect.gen(function* () {
          yield* sim.injectFaults([500])
          const { result, lines } = yield* capturingLogs(client.recordPurchase(ORDER))
          expect(result).toBe(false)
          expect(lines).toEqual([{ level: "WARN", message: expect.stringContaining("CreatePurchase for order order-9001 not recorded") }])
          expect(yield* sim.fit.purchases).toEqual([])
        })
      )
    )

    it.effect("a refusal with the spec's error body: false, and the server's message in the log", () =>
      withFit(
        (client) =>
          Effect.gen(function* () {
            const { result, lines } = yield* capturingLogs(client.recordPurchase(ORDER))
            expect(result).toBe(false)
            expect(lines[0]!.message).toContain("the client key is missing or not valid")
            expect(lines[0]!.message).not.toContain("ck_wrong")
          }),
        {},
        { clientKey: "ck_wrong" }
      )
    )

    it.effect("an invalid order is refused before sending: false, and why in the log", () =>
      withFit((client, sim) =>
        Effect.gen(function* () {
          const { result, lines } = yield* capturingLogs(client.recordPurchase({ ...ORDER, createdAt: 1_763_805_600 }))
          expect(result).toBe(false)
          expect(lines[0]!.message).toContain("seconds")
          expect(yield* sim.requests).toEqual([])
        })
      )
    )

    it.effect("no server at all: false", () =>
      Effect.gen(function* () {
        const client = yield* FitClient.make({ baseUrl: "http://127.0.0.1:9/fit/v2", clientKey: DEMO_FIT_CLIENT_KEY })
        const { result, lines } = yield* capturingLogs(client.recordPurchase(ORDER))
        expect(result).toBe(false)
        expect(lines[0]!.message).toContain("no response")
      }).pipe(Effect.provide(FetchHttpClient.layer), onTestClock())
    )
  })

  it.effect("reads the simulator's client-library estimation as a canonical scan", () =>
    withFit((_, sim) =>
      Effect.gen(function* () {
        const result = yield* sim.fit.estimate(STATS, "INPUT_TYPE_UNSPECIFIED")
        const scan = yield* decodeEstimationResultEither(result)
        expect(scan.source).toEqual({ api: "fit", id: result.estimations.estimationToken!.token })
        expect(scan.method).toBe("selfie")
        expect(scan.subject).toEqual({ age: 34, gender: "male", heightMm: 1780, weightG: 76_000 })
        expect(Object.keys(scan.measurementsMm)).toHaveLength(33)
        expect(scan.notes.map((n) => n.kind)).toEqual(["dropped", "assumed"])
      })
    )
  )

  it.effect("reads no response body beyond maxResponseBytes", () =>
    withFit(
      (client) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(client.isProductSupported(TEE, "cs-1"))
          expect(error).toMatchObject({ _tag: "ApiResponseTooLargeError", api: "fit", method: "POST", maxBytes: 16 })
        }),
      {},
      { maxResponseBytes: 16 }
    )
  )

  it.live("reads its settings from config with layerConfig", () =>
    Effect.gen(function* () {
      const sim = yield* Simulator
      const config = ConfigProvider.fromMap(
        new Map([
          ["SCANBRIDGE_FIT_URL", `${sim.url}/fit/v2`],
          ["SCANBRIDGE_FIT_CLIENT_KEY", DEMO_FIT_CLIENT_KEY]
        ])
      )
      const support = yield* Effect.flatMap(FitClient, (c) => c.isProductSupported(TEE, "cs-1")).pipe(
        Effect.provide(FitClient.layerConfig().pipe(Layer.provide(Layer.setConfigProvider(config))))
      )
      expect(support.supported).toBe(true)
      const missing = yield* Effect.either(
        Effect.flatMap(FitClient, (c) => c.isProductSupported(TEE, "cs-1")).pipe(
          Effect.provide(FitClient.layerConfig().pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))))
        )
      )
      expect(Either.isLeft(missing) && missing.left._tag).toBe("ConfigError")
    }).pipe(Effect.provide(Layer.merge(Simulator.layer(), FetchHttpClient.layer)))
  )
})
