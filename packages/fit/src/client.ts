/**
 * FitClient: the garment-fit service as an Effect service over HttpClient. Support check,
 * size recommendation and order confirmation. The last never breaks the caller's checkout:
 * spec 03 says its errors must be invisible to end users, so they are logged and swallowed.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type { ConfigError } from "effect"
import { Config, Context, Effect, Either, Layer, Redacted } from "effect"
import { type DecodeError, type ProductId, type RetryOptions, type SizeDocument, retrySchedule } from "@scanbridge/model"
import { type Rejected, decodeCreateSessionResponseEither, decodeRecommendedSizeResponseEither } from "./codec.js"
import { FitHttpError, type FitRejection, FitTransportError, rejection } from "./errors.js"
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
  /** Retries of GetRecommendedSize on 5xx, 429 and transport errors; the other calls are not retried. */
  readonly retry?: RetryOptions
  readonly transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
}

type Failure = FitRejection | FitHttpError | FitTransportError | DecodeError

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
  readonly method: string
  readonly url: string
}

const isTransient = (e: { readonly _tag: string; readonly status?: number }) =>
  e._tag === "FitTransportError" || (e._tag === "FitHttpError" && (e.status === 429 || (e.status ?? 0) >= 500))

const make = (options: FitClientOptions): Effect.Effect<FitClientService, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const root = options.baseUrl.replace(/\/$/, "")
    const clientKey = Redacted.isRedacted(options.clientKey) ? options.clientKey : Redacted.make(options.clientKey)
    const schedule = retrySchedule(options.retry)
    // No filterStatusOk: error statuses are not shown, and the body says what happened.
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) => request.pipe(HttpClientRequest.prependUrl(root), HttpClientRequest.acceptJson)),
      options.transformClient ?? ((c: HttpClient.HttpClient) => c)
    )

    const post = (path: string, body: unknown): Effect.Effect<Answer, FitHttpError | FitTransportError> => {
      const url = `${root}${path}`
      return http.execute(HttpClientRequest.post(path).pipe(HttpClientRequest.bodyUnsafeJson(body))).pipe(
        Effect.mapError((e) => new FitTransportError({ method: "POST", url, message: `POST ${url}: no response (${e.message})` })),
        Effect.flatMap((response) =>
          response.json.pipe(
            Effect.map((json) => ({ status: response.status, body: json, method: "POST", url })),
            Effect.mapError(() => new FitHttpError({ method: "POST", url, status: response.status, message: `POST ${url} -> ${response.status}: the body is not JSON` }))
          )
        )
      )
    }

    // A body that is no fit message: the status says more than the decode error.
    const unreadable = (answer: Answer, error: DecodeError): FitHttpError | DecodeError =>
      answer.status >= 200 && answer.status < 300
        ? error
        : new FitHttpError({ method: answer.method, url: answer.url, status: answer.status, message: `${answer.method} ${answer.url} -> ${answer.status}: ${error.message}` })

    const refuse = (endpoint: string, answer: Answer, r: Rejected) =>
      rejection(r.errorType, {
        endpoint,
        wireValue: r.wireValue,
        status: answer.status,
        message: `${endpoint} -> ${r.errorType}${r.wireValue === r.errorType ? "" : ` (sent as ${r.wireValue})`}: ${r.message ?? "no message"}`
      })

    const productInfo = (product: ProductId) => ({ productId: { brandId: product.brandId, garmentSku: product.garmentSku } })

    const isProductSupported = (product: ProductId, clientSessionId: string) =>
      Effect.gen(function* () {
        const body: Wire.CreateSessionRequest = { clientKey: Redacted.value(clientKey), productInfo: productInfo(product), clientSessionId }
        const answer = yield* post("/CreateSession", body)
        const outcome = yield* Either.mapLeft(decodeCreateSessionResponseEither(answer.body), (e) => unreadable(answer, e))
        if (outcome._tag === "Rejected") return yield* Effect.fail(refuse("CreateSession", answer, outcome))
        return { supported: outcome.supported, status: outcome.status, sessionId: outcome.sessionId, product: outcome.product ?? product }
      }).pipe(Effect.withSpan("FitClient.isProductSupported", { attributes: { ...product } }))

    const recommendedSize = (estimationToken: string, product: ProductId) =>
      Effect.gen(function* () {
        const body: Wire.GetRecommendedSizeRequest = { clientKey: Redacted.value(clientKey), estimationToken: { token: estimationToken }, productInfo: productInfo(product) }
        const answer = yield* post("/GetRecommendedSize", body)
        const outcome = yield* Either.mapLeft(decodeRecommendedSizeResponseEither(answer.body, { estimationToken, product }), (e) => unreadable(answer, e))
        if (outcome._tag === "Rejected") return yield* Effect.fail(refuse("GetRecommendedSize", answer, outcome))
        return outcome.document
      }).pipe(
        Effect.retry({ schedule, while: isTransient }),
        Effect.withSpan("FitClient.recommendedSize", { attributes: { ...product } })
      )

    const recordPurchase = (order: PurchaseOrder) =>
      Effect.gen(function* () {
        const request = yield* buildPurchase(Redacted.value(clientKey), order)
        const answer = yield* post("/CreatePurchase", request)
        const ok = answer.status >= 200 && answer.status < 300 && (answer.body as { status?: unknown } | null)?.status === "success"
        if (!ok) {
          const message = (answer.body as { error?: { message?: unknown } } | null)?.error?.message
          return yield* Effect.fail(
            new FitHttpError({ method: "POST", url: answer.url, status: answer.status, message: `CreatePurchase -> ${answer.status}: ${typeof message === "string" ? message : "no message"}` })
          )
        }
        return true
      }).pipe(
        // Spec 03: errors must be invisible to end users and block nothing; log them, carry on.
        Effect.catchAll((error) =>
          Effect.as(Effect.logWarning(`CreatePurchase for order ${order.orderId} not recorded: ${error.message}`).pipe(Effect.annotateLogs({ error: error._tag })), false)
        ),
        Effect.withSpan("FitClient.recordPurchase", { attributes: { orderId: order.orderId } })
      )

    return { isProductSupported, recommendedSize, recordPurchase }
  })
