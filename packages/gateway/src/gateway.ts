/**
 * The gateway as an Effect HttpApp and Layer: the session API, the estimation API and the widget,
 * each carried out on the platform client of the integrator's organisation, with its state in
 * the GatewayStore, which a sweeper keeps to what requests still need.
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import { Clock, Duration, Effect, Layer, Runtime, Schedule } from "effect"
import type { PlatformClient } from "@scanbridge/platform"
import { estimationRouter } from "./estimation-api.js"
import { GatewayConfig, type GatewayOptions, settingsOf } from "./options.js"
import { sessionRouter } from "./session-api.js"
import { GatewayStore, type GatewayStoreError } from "./store.js"
import { widgetRouter } from "./widget.js"

/** Every route of the gateway. Needs GatewayConfig, GatewayStore and PlatformClient. */
export const gatewayRouter = sessionRouter.pipe(HttpRouter.concat(estimationRouter), HttpRouter.concat(widgetRouter))

/** The gateway's configuration as a layer. */
export const configLayer = (options: GatewayOptions): Layer.Layer<GatewayConfig> => Layer.succeed(GatewayConfig, settingsOf(options))

/** How often the store is swept. */
export const SWEEP_EVERY = Duration.minutes(5)

/**
 * Expired tokens and sessions that never got a scan are kept a day after their expiry, so that a
 * late read is still told SESSION_EXPIRED or "access token expired" rather than "unknown", and a
 * clientScanningId is not free again while a scan created near the expiry may still come in.
 */
export const EXPIRED_KEPT = Duration.hours(24)

/** One sweep of the store: what no request needs any more (GatewayStoreService.sweep), by the settings' retentions. */
export const sweep: Effect.Effect<void, GatewayStoreError, GatewayStore | GatewayConfig> = Effect.gen(function* () {
  const store = yield* GatewayStore
  const config = yield* GatewayConfig
  const now = yield* Clock.currentTimeMillis
  const expiredBefore = now - Duration.toMillis(EXPIRED_KEPT)
  yield* store.sweep({
    now: expiredBefore,
    sessionsBefore: expiredBefore,
    photosBefore: now - config.photoRetentionMs,
    estimationsBefore: now - config.estimationRetentionMs
  })
})

/**
 * Sweeps the store every SWEEP_EVERY for the lifetime of the layer. A failed sweep is logged (a
 * store error names its operation and reason, never a value) and tried again at the next turn.
 */
export const sweeper: Layer.Layer<never, never, GatewayStore | GatewayConfig> = Layer.scopedDiscard(
  sweep.pipe(
    Effect.catchAll((e) => Effect.logWarning(`gateway: the store's sweep failed: ${e.message}`)),
    Effect.repeat(Schedule.spaced(SWEEP_EVERY)),
    Effect.forkScoped
  )
)

/**
 * No server span for a request to the gateway: @effect/platform's would record its full URL (an
 * SSID, a scanner address's stats in its query) and every request header off its short redaction
 * list (the estimation API's Access-Token). The gateway's own spans say what it does with no
 * secret in them. Every way of serving the gateway goes through this: `layer` (and so the CLI),
 * and `untracedRuntime` for a web handler made from a runtime (createGateway).
 */
const noServerSpans = (): boolean => true

/** `runtime`, whose web handlers (HttpApp.toWebHandlerRuntime) record no server span: see noServerSpans. */
export const untracedRuntime = <R>(runtime: Runtime.Runtime<R>): Runtime.Runtime<R> =>
  Runtime.setFiberRef(runtime, HttpMiddleware.currentTracerDisabledWhen, noServerSpans)

/**
 * Serves the gateway on the HttpServer in context for the lifetime of the layer, given the
 * platform client and the store, and sweeps the store meanwhile. No server spans: see noServerSpans.
 */
export const layer = (options: GatewayOptions): Layer.Layer<never, never, HttpServer.HttpServer | PlatformClient | GatewayStore> =>
  Layer.merge(HttpServer.serve(gatewayRouter).pipe(HttpMiddleware.withTracerDisabledWhen(noServerSpans)), sweeper).pipe(Layer.provide(configLayer(options)))
