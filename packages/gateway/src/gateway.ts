/**
 * The gateway as an Effect HttpApp and Layer: the session API, the estimation API and the widget,
 * each carried out on the platform client of the integrator's organisation, with its state in
 * the GatewayStore.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import { Layer } from "effect"
import type { PlatformClient } from "@scanbridge/platform"
import { estimationRouter } from "./estimation-api.js"
import { GatewayConfig, type GatewayOptions, settingsOf } from "./options.js"
import { sessionRouter } from "./session-api.js"
import type { GatewayStore } from "./store.js"
import { widgetRouter } from "./widget.js"

/** Every route of the gateway. Needs GatewayConfig, GatewayStore and PlatformClient. */
export const gatewayRouter = sessionRouter.pipe(HttpRouter.concat(estimationRouter), HttpRouter.concat(widgetRouter))

/** The gateway's configuration as a layer. */
export const configLayer = (options: GatewayOptions): Layer.Layer<GatewayConfig> => Layer.succeed(GatewayConfig, settingsOf(options))

/**
 * Serves the gateway on the HttpServer in context for the lifetime of the layer, given the
 * platform client and the store.
 */
export const layer = (options: GatewayOptions): Layer.Layer<never, never, HttpServer.HttpServer | PlatformClient | GatewayStore> =>
  HttpServer.serve(gatewayRouter).pipe(Layer.provide(configLayer(options)))
