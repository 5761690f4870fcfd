/**
 * The simulator as a service: an HTTP server on 127.0.0.1 (a free port by default) serving the
 * vendor's APIs, with controls for tests: quotas, scripted and seeded faults, a request log.
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { createServer } from "node:http"
import { ApiFailure, type OrgOptions, type PlatformOptions, PlatformState, platformRouter } from "./platform.js"
import { type EstimationOptions, EstimationState, estimationRouter } from "./estimation.js"
import { type FitOptions, FitState, fitRouter } from "./fit.js"
import { BodyRefused, MAX_BODY_BYTES, MAX_JSON_DEPTH, discardRequestRest, limitedRequest, refusedByLength } from "./limits.js"
import { seeded } from "./internal/random.js"
import { OPENAPI_APIS, openApiDocument } from "./openapi.js"
import type { BodyStats } from "./body.js"
import type { Wire as FitWire } from "@scanbridge/fit"
import { type SessionOptions, SessionState, type SubmitInput, sessionRouter } from "./session.js"
import { scannerRouter } from "./scanner.js"

export interface FaultOptions {
  /** Seed of the generator that decides which requests fail. Same seed, same faults. */
  readonly seed?: number
  /** Share of requests answered 503, before they reach the API (0-1). */
  readonly serverErrorRate?: number
  /** Share of requests answered 429 (0-1). */
  readonly rateLimitRate?: number
  /** Added latency per request, drawn between min and max milliseconds. */
  readonly latencyMs?: { readonly min: number; readonly max: number }
}

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number
  /** Default 127.0.0.1: the simulator is for this machine. */
  readonly host?: string
  readonly platform?: PlatformOptions
  readonly session?: SessionOptions
  readonly estimation?: EstimationOptions
  readonly fit?: FitOptions
  readonly faults?: FaultOptions
  /** Larger request bodies are answered 413 before any API reads them. Default MAX_BODY_BYTES (16 MiB). */
  readonly maxBodyBytes?: number
  /** JSON bodies nested deeper are answered 400. Default MAX_JSON_DEPTH (64). */
  readonly maxJsonDepth?: number
  /** The request log keeps the most recent this many requests. Default REQUEST_LOG_LIMIT (10 000). */
  readonly requestLogLimit?: number
}

/** How many requests the log keeps by default: the most recent ones. */
export const REQUEST_LOG_LIMIT = 10_000

/** A scripted fault: its status, and a Retry-After header (seconds or an HTTP-date) to send. */
export interface Fault {
  readonly status: number
  readonly retryAfter?: string
}

export interface RequestRecord {
  readonly method: string
  readonly path: string
  readonly status: number
  /** Whether the response was an injected fault. */
  readonly injected: boolean
}

export interface SimulatorService {
  /** `http://127.0.0.1:<port>`: the base URL of every API. */
  readonly url: string
  readonly platform: {
    readonly addOrg: (org: OrgOptions) => Effect.Effect<void>
    readonly quota: (orgId: string) => Effect.Effect<number | undefined>
    readonly setQuota: (orgId: string, quota: number) => Effect.Effect<void>
  }
  readonly session: {
    /** Plays the user finishing the widget flow; false for an unknown SSID. */
    readonly submit: (scanningSessionId: string, input?: SubmitInput) => Effect.Effect<boolean>
  }
  readonly fit: {
    /** A simulated client-library estimation: the result, whose token the fit service now knows. */
    readonly estimate: (stats: BodyStats, inputType?: FitWire.InputType) => Effect.Effect<FitWire.EstimationResultJson>
    /** The orders CreatePurchase recorded, in arrival order. */
    readonly purchases: Effect.Effect<ReadonlyArray<unknown>>
  }
  /** The next requests get these statuses instead of reaching the API, in order. */
  readonly injectFaults: (statuses: ReadonlyArray<number | Fault>) => Effect.Effect<void>
  /** The requests so far, in arrival order: the most recent `requestLogLimit` of them. */
  readonly requests: Effect.Effect<ReadonlyArray<RequestRecord>>
}

export class Simulator extends Context.Tag("@scanbridge/simulator/Simulator")<Simulator, SimulatorService>() {
  /** Serves the simulator for the lifetime of the layer; the server stops with it. */
  static readonly layer = (options: SimulatorOptions = {}): Layer.Layer<Simulator, HttpServerError.ServeError> => layer(options)
}

// Browsers cannot read a 401: the platform sends it without CORS headers (spec 01).
const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "authorization, content-type"
}

const message = (status: number, text: string) => HttpServerResponse.unsafeJson({ message: text }, { status })

/** Every route the simulator serves: the four APIs', their OpenAPI documents, and CORS preflight. */
export const routerOf = (platform: PlatformState, session: SessionState, estimation: EstimationState, fit: FitState) =>
  platformRouter(platform).pipe(
    HttpRouter.concat(sessionRouter(session)),
    HttpRouter.concat(estimationRouter(estimation)),
    HttpRouter.concat(fitRouter(fit)),
    HttpRouter.concat(scannerRouter),
    // The APIs' OpenAPI documents (openapi.ts), one per API: /openapi/platform.json.
    HttpRouter.get(
      "/openapi/:file",
      Effect.flatMap(HttpRouter.params, ({ file }) => {
        const api = OPENAPI_APIS.find((name) => `${name}.json` === file)
        return Effect.succeed(
          api === undefined
            ? message(404, `no such document; there are ${OPENAPI_APIS.map((n) => `${n}.json`).join(", ")}`)
            : HttpServerResponse.unsafeJson(openApiDocument(api))
        )
      })
    ),
    HttpRouter.options("*", Effect.succeed(HttpServerResponse.empty({ status: 204 })))
  )

const layer = (options: SimulatorOptions) =>
  Layer.unwrapEffect(
    Effect.sync(() => {
      const platform = new PlatformState(options.platform)
      const session = new SessionState(options.session)
      const estimation = new EstimationState(options.estimation)
      const fit = new FitState(options.fit)
      const log: Array<RequestRecord> = []
      const scripted: Array<Fault> = []
      const faults = options.faults ?? {}
      const random = seeded(faults.seed ?? 1)
      const logLimit = Math.max(0, options.requestLogLimit ?? REQUEST_LOG_LIMIT)
      const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES
      const maxJsonDepth = options.maxJsonDepth ?? MAX_JSON_DEPTH

      const router = routerOf(platform, session, estimation, fit)

      const handle = router.pipe(
        Effect.catchAll((e) => {
          if (e instanceof ApiFailure) return Effect.succeed(message(e.status, e.message))
          if (e._tag === "RouteNotFound") return Effect.succeed(message(404, "no such endpoint"))
          return Effect.succeed(message(400, "unreadable request"))
        })
      )

      const answer = (request: HttpServerRequest.HttpServerRequest) =>
        Effect.gen(function* () {
          const latency = faults.latencyMs
          if (latency) yield* Effect.sleep(latency.min + random() * (latency.max - latency.min))
          const roll = random()
          const script = scripted.shift()
          const fault =
            script?.status ??
            (roll < (faults.serverErrorRate ?? 0) ? 503 : roll < (faults.serverErrorRate ?? 0) + (faults.rateLimitRate ?? 0) ? 429 : undefined)
          const refusal = refusedByLength(request, maxBodyBytes)
          const response = Option.isSome(refusal)
            ? message(refusal.value.status, refusal.value.message)
            : fault === undefined || request.method === "OPTIONS"
              ? yield* handle.pipe(
                  Effect.provideService(HttpServerRequest.HttpServerRequest, limitedRequest(request, maxBodyBytes, maxJsonDepth)),
                  Effect.catchSomeDefect((d) => (d instanceof BodyRefused ? Option.some(Effect.succeed(message(d.status, d.message))) : Option.none()))
                )
              : HttpServerResponse.setHeaders(
                  message(fault, fault === 429 ? "rate limit exceeded (injected)" : "service unavailable (injected)"),
                  script?.retryAfter === undefined ? {} : { "retry-after": script.retryAfter }
                )
          if (logLimit > 0) {
            // Trimmed in batches, once per logLimit requests rather than an O(n) shift per request.
            if (log.length >= 2 * logLimit) log.splice(0, log.length - logLimit)
            log.push({ method: request.method, path: request.url, status: response.status, injected: fault !== undefined })
          }
          return response.status === 401 ? response : HttpServerResponse.setHeaders(response, CORS)
        })

      const app = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => Effect.ensuring(answer(request), discardRequestRest(request)))

      const service = Effect.map(HttpServer.HttpServer, (server): SimulatorService => {
        const address = server.address
        const url = address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}` : `http+unix://${address.path}`
        return {
          url,
          platform: {
            addOrg: (org) => Effect.sync(() => platform.addOrg(org)),
            quota: (orgId) => Effect.sync(() => platform.quota(orgId)),
            setQuota: (orgId, quota) => Effect.sync(() => platform.setQuota(orgId, quota))
          },
          session: {
            submit: (ssid, input = {}) => Effect.map(Clock.currentTimeMillis, (now) => session.submit(now, ssid, input))
          },
          fit: {
            estimate: (stats, inputType) => Effect.sync(() => fit.estimate(stats, inputType)),
            purchases: Effect.sync(() => [...fit.purchases])
          },
          injectFaults: (statuses) => Effect.sync(() => void scripted.push(...statuses.map((s) => (typeof s === "number" ? { status: s } : s)))),
          requests: Effect.sync(() => log.slice(-logLimit))
        }
      })

      // No server spans: they would show the vendor's side of every request, credentials
      // included, in the tracer of the client under test.
      const serve = HttpServer.serve(app).pipe(HttpMiddleware.withTracerDisabledWhen(() => true))
      return Layer.merge(serve, Layer.effect(Simulator, service)).pipe(
        Layer.provide(NodeHttpServer.layer(createServer, { port: options.port ?? 0, host: options.host ?? "127.0.0.1" }))
      )
    })
  )
