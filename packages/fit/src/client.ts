/**
 * FitClient: the garment-fit service as an Effect service over HttpClient. Support check,
 * size recommendation and order confirmation. The last never breaks the caller's checkout:
 * spec 03 says its errors must be invisible to end users, so they are logged and swallowed.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { ConfigError, Duration } from "effect"
import { Config, Context, Effect, Either, Layer, Redacted } from "effect"
import type { DecodeError, ProductId, SizeDocument } from "@scanbridge/model"
import { ApiClient, type ApiError, ApiStatusError, type RetryOptions } from "@scanbridge/http"
import { type Rejected, decodeCreateSessionResponseEither, decodeRecommendedSizeResponseEither } from "./codec.js"
import { type FitRejectionError, rejection } from "./errors.js"
import { type PurchaseOrder, buildPurchase } from "./purchase.js"
import * as Wire from "./wire.js"

export interface ProductSupport {
  /** True only when the service says SUPPORTED. */
  readonly supported: boolean
  readonly status: Wire.SupportStatus
  /** The session the service created; null when it sent none. */
  readonly sessionId: string | null
  readonly product: ProductId
}

export interface FitClientOptions {
  /** `{fit_url}`, with its version path: `https://fit.example.com/v2`. */
  readonly baseUrl: string
  /** The client key: sent in every body, and the same one that initializes the widget. */
  readonly clientKey: Redacted.Redacted<string> | string
  /**
   * How a request that may be repeated is repeated. None of the three calls is: each creates
   * state on the service (a session, a recommendation, an order). Kept for Retry-After's cap.
   */
  readonly retry?: RetryOptions
  /** Longest wait for one response. Default 60 seconds (`ApiClient.DEFAULT_TIMEOUT`). */
  readonly timeout?: Duration.DurationInput
  /** Most bytes of one response body read; beyond, ApiResponseTooLargeError. Default 16 MiB (`ApiClient.DEFAULT_MAX_RESPONSE_BYTES`). */
  readonly maxResponseBytes?: number
  readonly transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
}

type Failure = FitRejectionError | ApiError | DecodeError

export interface FitClientService {
  /** CreateSession: whether the garment has sizing data, and a session id. */
  readonly isProductSupported: (product: ProductId, clientSessionId: string) => Effect.Effect<ProductSupport, Failure>
  /** GetRecommendedSize, as a `scanbridge.size/v1` document. */
  readonly recommendedSize: (estimationToken: string, product: ProductId) => Effect.Effect<SizeDocument, Failure>
  /**
   * CreatePurchase, after payment. Never fails: an invalid order, a refusal or a network error
   * is logged (level Warning, never the client key) and the result is false.
   */
  readonly recordPurchase: (order: PurchaseOrder) => Effect.Effect<boolean>
}

export class FitClient extends Context.Tag("@scanbridge/fit/FitClient")<FitClient, FitClientService>() {
  static readonly make = (options: FitClientOptions) => make(options)
  static readonly layer = (options: FitClientOptions): Layer.Layer<FitClient, never, HttpClient.HttpClient> => Layer.effect(FitClient, make(options))
  /** Reads SCANBRIDGE_FIT_URL and SCANBRIDGE_FIT_CLIENT_KEY (redacted). */
  static readonly layerConfig = (
    options?: Omit<FitClientOptions, "baseUrl" | "clientKey">
  ): Layer.Layer<FitClient, ConfigError.ConfigError, HttpClient.HttpClient> =>
    Layer.effect(
      FitClient,
      Effect.flatMap(Config.all({ baseUrl: Config.string("SCANBRIDGE_FIT_URL"), clientKey: Config.redacted("SCANBRIDGE_FIT_CLIENT_KEY") }), (config) =>
        make({ ...options, ...config })
      )
    )
}

// --- Implementation -----------------------------------------------------------------------

interface Answer {
  readonly status: number
  readonly body: unknown
}

const answer = (body: unknown, status: number) => Either.right<Answer>({ status, body })

const make = (options: FitClientOptions): Effect.Effect<FitClientService, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    // errorBodies "data": error statuses are not shown, and the body says what happened.
    const http = yield* ApiClient.make({
      api: "fit",
      baseUrl: options.baseUrl,
      auth: ApiClient.Auth.bodyField("clientKey", options.clientKey),
      errorBodies: "data",
      ...(options.retry === undefined ? {} : { retry: options.retry }),
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
      ...(options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes }),
      ...(options.transformClient === undefined ? {} : { transformClient: options.transformClient })
    })
    const clientKey = ApiClient.redactedOf(options.clientKey)

    const refuse = (endpoint: string, status: number, r: Rejected) =>
      rejection(r.errorType, {
        endpoint,
        wireValue: r.wireValue,
        status,
        message: `${endpoint} -> ${r.errorType}${r.wireValue === r.errorType ? "" : ` (sent as ${r.wireValue})`}: ${r.message ?? "no message"}`
      })

    const productInfo = (product: ProductId) => ({ productId: { brandId: product.brandId, garmentSku: product.garmentSku } })

    // Each of the three calls creates state on the service: none is ever sent twice.
    const isProductSupported = (product: ProductId, clientSessionId: string) =>
      Effect.gen(function* () {
        const { outcome, status } = yield* http.execute({
          method: "POST",
          path: "/CreateSession",
          body: http.json(Wire.CreateSessionRequest, { productInfo: productInfo(product), clientSessionId }),
          idempotent: false,
          onTimeout: "a session may have been created; ask again for a new one",
          decode: (json, status) => Either.map(decodeCreateSessionResponseEither(json), (outcome) => ({ outcome, status }))
        })
        if (outcome._tag === "Rejected") return yield* Effect.fail(refuse("CreateSession", status, outcome))
        return { supported: outcome.supported, status: outcome.status, sessionId: outcome.sessionId, product: outcome.product ?? product }
      }).pipe(Effect.withSpan("FitClient.isProductSupported", { attributes: { ...product } }))

    const recommendedSize = (estimationToken: string, product: ProductId) =>
      Effect.gen(function* () {
        const { outcome, status } = yield* http.execute({
          method: "POST",
          path: "/GetRecommendedSize",
          body: http.json(Wire.GetRecommendedSizeRequest, { estimationToken: { token: estimationToken }, productInfo: productInfo(product) }),
          idempotent: false,
          onTimeout: "the service may have computed a recommendation; asking again is safe but spends another",
          decode: (json, status) => Either.map(decodeRecommendedSizeResponseEither(json, { estimationToken, product }), (outcome) => ({ outcome, status }))
        })
        if (outcome._tag === "Rejected") return yield* Effect.fail(refuse("GetRecommendedSize", status, outcome))
        return outcome.document
      }).pipe(Effect.withSpan("FitClient.recommendedSize", { attributes: { ...product } }))

    const recordPurchase = (order: PurchaseOrder) =>
      Effect.gen(function* () {
        const { clientKey: _, ...request } = yield* buildPurchase(Redacted.value(clientKey), order)
        const reply = yield* http.execute({
          method: "POST",
          path: "/CreatePurchase",
          body: http.json(Wire.CreatePurchaseRequestSchema, request),
          idempotent: false,
          onTimeout: `order ${order.orderId} may have been recorded`,
          decode: answer
        })
        const ok = reply.status >= 200 && reply.status < 300 && (reply.body as { status?: unknown } | null)?.status === "success"
        if (!ok) {
          const message = (reply.body as { error?: { message?: unknown } } | null)?.error?.message
          return yield* Effect.fail(
            new ApiStatusError({
              api: http.api,
              method: "POST",
              url: http.redactedUrl("/CreatePurchase"),
              status: reply.status,
              message: `CreatePurchase -> ${reply.status}: ${typeof message === "string" ? message : "no message"}`
            })
          )
        }
        return true
      }).pipe(
        // Spec 03: errors must be invisible to end users and block nothing; log them, carry on.
        Effect.catchAll((error) =>
          Effect.as(
            Effect.logWarning(`CreatePurchase for order ${order.orderId} not recorded: ${error.message}`).pipe(Effect.annotateLogs({ error: error._tag })),
            false
          )
        ),
        Effect.withSpan("FitClient.recordPurchase", { attributes: { orderId: order.orderId } })
      )

    return { isProductSupported, recommendedSize, recordPurchase }
  })
