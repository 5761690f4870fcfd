/**
 * The legacy gateway for code that does not use Effect: `createGateway(options)` opens the store,
 * makes the platform client and hands back the gateway as a Node request listener and a web
 * handler, and `close()`, which releases them. The gateway's package and its HTTP server code load
 * on the first call, not with the plain API.
 *
 * What the gateway answers is the same whichever way it is mounted: `handler` turns a Node
 * request into a web Request for the web handler that `fetch` is, and both run the router that
 * `scanbridge gateway` serves, with the body limit the command's server has (10 MiB).
 * Once closed, both answer 503 and touch nothing: a server still draining requests gets an
 * answer, not a store that is gone.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { ReadableStream as NodeReadableStream } from "node:stream/web"
import { Cause, Chunk, Duration, Effect, Exit, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { previewValue } from "@scanbridge/model/internal"
import { GATEWAY_OPTION_ERROR, type Hide, ScanbridgeError, errorOfCause, hidingUrls } from "./errors.js"
import type { Gateway, GatewayOptions, NodeRequest, NodeResponse } from "./types.js"

/** The body limit of @effect/platform-node's server, which `scanbridge gateway` runs on. */
const MAX_BODY_BYTES = 10 * 1024 * 1024

const refuse = (option: string, message: string, value?: unknown): never => {
  throw new ScanbridgeError({ _tag: GATEWAY_OPTION_ERROR, message: `${option}: ${message}`, ...(value === undefined ? {} : { value }) })
}

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null

/** A string that is not empty, or a GatewayOptionError naming the option; a secret's value is never shown. */
const text = (option: string, u: unknown, secret = false): string =>
  typeof u === "string" && u.trim() !== "" ? u : refuse(option, "expected a string that is not empty", secret ? undefined : previewValue(u))

const httpUrl = (option: string, u: unknown): string => {
  const given = text(option, u)
  let url: URL | undefined
  try {
    url = new URL(given)
  } catch {
    url = undefined
  }
  return url !== undefined && (url.protocol === "http:" || url.protocol === "https:")
    ? given
    : refuse(option, "expected an http:// or https:// URL", previewValue(u))
}

const duration = (option: string, u: unknown): Duration.Duration | undefined => {
  if (u === undefined) return undefined
  const decoded = typeof u === "number" || typeof u === "string" ? Duration.decodeUnknown(u) : Option.none()
  return Option.isSome(decoded) && Duration.toMillis(decoded.value) > 0 && Duration.isFinite(decoded.value)
    ? decoded.value
    : refuse(option, 'expected a duration above zero: milliseconds, or text such as "1 hour"', previewValue(u))
}

type Store = { readonly _tag: "Embedded"; readonly directory: string } | { readonly _tag: "Postgres"; readonly url: string }

const storeOf = (u: unknown): Store => {
  if (!isObject(u)) return refuse("store", "expected { directory } for the embedded store or { postgres } for a PostgreSQL URL")
  const given = ["directory", "postgres"].filter((key) => u[key] !== undefined)
  if (given.length !== 1) return refuse("store", "give one of directory (the embedded store's folder) and postgres (a PostgreSQL URL)")
  if (given[0] === "directory") return { _tag: "Embedded", directory: text("store.directory", u["directory"]) }
  const url = text("store.postgres", u["postgres"], true)
  return /^postgres(ql)?:\/\//i.test(url) ? { _tag: "Postgres", url } : refuse("store.postgres", "expected a postgres:// URL")
}

/** What createGateway was given, checked: a GatewayOptionError naming the first option it cannot use. */
const checked = (options: GatewayOptions) => {
  if (!isObject(options)) return refuse("options", "expected an object")
  const platform: unknown = options.platform
  if (!isObject(platform)) return refuse("platform", "expected { url, orgId, apiKey }")
  const clientIds: unknown = options.clientIds
  if (!Array.isArray(clientIds) || clientIds.length === 0) return refuse("clientIds", "expected the legacy client ids the gateway accepts, at least one")
  const unit: unknown = options.estimationLengthUnit
  if (unit !== undefined && unit !== "mm" && unit !== "cm") refuse("estimationLengthUnit", 'expected "mm" or "cm"', previewValue(unit))
  const scannerAddress = options.scannerAddress === undefined ? undefined : httpUrl("scannerAddress", options.scannerAddress)
  return {
    platform: {
      url: httpUrl("platform.url", platform["url"]),
      orgId: text("platform.orgId", platform["orgId"]),
      apiKey: text("platform.apiKey", platform["apiKey"], true),
      ...(options.platform.retry === undefined ? {} : { retry: options.platform.retry }),
      ...(platform["timeout"] === undefined ? {} : { timeout: duration("platform.timeout", platform["timeout"]) })
    },
    clientIds: clientIds.map((id, i) => text(`clientIds[${i}]`, id, true)),
    store: storeOf(options.store),
    estimationLengthUnit: (unit ?? "mm") as "mm" | "cm",
    scannerAddress,
    sessionLifetime: duration("sessionLifetime", options.sessionLifetime),
    tokenLifetime: duration("tokenLifetime", options.tokenLifetime),
    photoRetention: duration("photoRetention", options.photoRetention),
    estimationRetention: duration("estimationRetention", options.estimationRetention)
  }
}

/**
 * Every secret of the call out of a message: the PostgreSQL URL and its password, and the API key
 * and the client ids where they stand as words of their own (so that a short test id does not
 * hide the letters of every word).
 */
const hiding = (options: ReturnType<typeof checked>): Hide => {
  const urls = hidingUrls(options.store._tag === "Postgres" ? [options.store.url] : [])
  const words = [options.platform.apiKey, ...options.clientIds]
    .sort((a, b) => b.length - a.length)
    .map((secret) => new RegExp(`(?<![\\w-])${secret.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w-])`, "g"))
  return (message) => words.reduce((hidden, secret) => hidden.replace(secret, "***"), urls(message))
}

/**
 * The package leaves out `pg`, which both stores run on (an optional peer dependency, as for a
 * PostgreSQL migration): its absence said as what to install, not as a defect.
 */
const notInstalled = (error: unknown): ScanbridgeError | undefined =>
  error instanceof Error && (error as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND" && /'pg'/.test(error.message)
    ? new ScanbridgeError({
        _tag: "GatewayStoreError",
        message: "createGateway: the gateway's stores run on pg, which is not installed: npm install pg (and @electric-sql/pglite for the embedded store)"
      })
    : undefined

/** A Node request as a web Request: its own path and query, headers and body, aborted when its response closes unfinished. */
const webRequestOf = (req: IncomingMessage, res: ServerResponse): Request => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one)
  }
  const aborted = new AbortController()
  res.once("close", () => {
    if (!res.writableFinished) aborted.abort()
  })
  const method = req.method ?? "GET"
  const body = method === "GET" || method === "HEAD" ? {} : { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" }
  // The host is no part of what the gateway reads (the router takes the path): a fixed one, so that a forged Host header cannot break the URL.
  return new Request(new URL(req.url ?? "/", "http://gateway.invalid"), { method, headers, signal: aborted.signal, ...body })
}

/**
 * Answers a Node request through the web handler, so that `handler` and `fetch` answer alike and
 * the package bundles no Node HTTP server. A request that is no valid web Request (a header value
 * fetch refuses) is answered 400.
 */
const answerNode = async (web: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  let request: Request
  try {
    request = webRequestOf(req, res)
  } catch {
    res.writeHead(400).end()
    return
  }
  try {
    const response = await web(request)
    const cookies = response.headers.getSetCookie()
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") res.setHeader(name, value)
    })
    if (cookies.length > 0) res.setHeader("set-cookie", cookies)
    res.statusCode = response.status
    if (response.body === null) res.end()
    else await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res)
  } catch {
    // The client went away mid-answer, or the answer could not be written: nothing more to say to it.
    if (!res.headersSent) res.writeHead(500)
    res.end()
  }
}

/** A request target's path; none for one that is no URL, which is then none of the gateway's. */
const pathOf = (target: string | undefined): string => {
  try {
    return new URL(target ?? "/", "http://gateway.invalid").pathname
  } catch {
    return ""
  }
}

/** The gateway's paths as patterns (`:id` one segment, `*` the rest), to tell Express's other routes from its. */
const pathsOf = (router: { readonly routes: Chunk.Chunk<{ readonly path: string }>; readonly mounts: Chunk.Chunk<readonly [string, ...Array<unknown>]> }) => {
  const exact = Chunk.toReadonlyArray(router.routes).map(
    (route) =>
      new RegExp(
        `^${route.path
          .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
          .replace(/:[^/]+/g, "[^/]+")
          .replace(/\*/g, ".*")}/?$`
      )
  )
  const prefixes = Chunk.toReadonlyArray(router.mounts).map(([prefix]) => prefix)
  return (path: string) => exact.some((re) => re.test(path)) || prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))
}

/**
 * The legacy gateway (@scanbridge/gateway) as a request listener and a web handler: the session
 * and estimation APIs and the widget at their old paths, carried out on the platform. Rejects
 * with ScanbridgeError: GatewayOptionError for options it cannot use, GatewayStoreError for a
 * store that cannot be opened. Secrets are given as strings and kept Redacted from here on.
 */
export const createGateway = async (options: GatewayOptions): Promise<Gateway> => {
  const given = checked(options)
  const hide = hiding(given)
  const [{ Gateway: Routes, embeddedStoreLayer, postgresStoreLayer }, { PlatformClient }, FetchHttpClient, HttpApp, IncomingMessage] = await Promise.all([
    import("@scanbridge/gateway"),
    import("@scanbridge/platform"),
    import("@effect/platform/FetchHttpClient"),
    import("@effect/platform/HttpApp"),
    import("@effect/platform/HttpIncomingMessage")
  ]).catch((error: unknown) => {
    throw notInstalled(error) ?? errorOfCause(Cause.die(error), hide)
  })
  const store = given.store._tag === "Embedded" ? embeddedStoreLayer(given.store.directory) : postgresStoreLayer({ url: Redacted.make(given.store.url) })
  const platform = PlatformClient.layer({
    baseUrl: given.platform.url,
    orgId: given.platform.orgId,
    apiKey: Redacted.make(given.platform.apiKey),
    ...(given.platform.retry === undefined ? {} : { retry: given.platform.retry }),
    ...(given.platform.timeout === undefined ? {} : { timeout: given.platform.timeout })
  }).pipe(Layer.provide(FetchHttpClient.layer))
  const config = Routes.configLayer({
    clientIds: given.clientIds.map((id) => Redacted.make(id)),
    estimationLengthUnit: given.estimationLengthUnit,
    ...(given.scannerAddress === undefined ? {} : { scannerAddress: given.scannerAddress }),
    ...(given.sessionLifetime === undefined ? {} : { sessionLifetime: given.sessionLifetime }),
    ...(given.tokenLifetime === undefined ? {} : { tokenLifetime: given.tokenLifetime }),
    ...(given.photoRetention === undefined ? {} : { photoRetention: given.photoRetention }),
    ...(given.estimationRetention === undefined ? {} : { estimationRetention: given.estimationRetention })
  })
  // The sweeper too, as Gateway.layer runs it for the CLI: without it expired tokens and sessions
  // and the photos the platform never took would stay in the store for ever.
  const managed = ManagedRuntime.make(Layer.provideMerge(Routes.sweeper, Layer.mergeAll(config, store, platform)))
  const app = IncomingMessage.withMaxBodySize(Routes.gatewayRouter, Option.some(MAX_BODY_BYTES))
  const built = await Effect.runPromiseExit(managed.runtimeEffect)
  if (Exit.isFailure(built)) {
    await managed.dispose()
    throw errorOfCause(built.cause, hide)
  }
  const web = HttpApp.toWebHandlerRuntime(Routes.untracedRuntime(built.value))(app)
  const isGateways = pathsOf(Routes.gatewayRouter)
  let closed: Promise<void> | undefined

  const handler = (request: NodeRequest, response: NodeResponse, next?: (error?: unknown) => void): void => {
    const req = request as IncomingMessage
    const res = response as ServerResponse
    if (next !== undefined && !isGateways(pathOf(req.url))) return next()
    if (closed !== undefined) {
      res.statusCode = 503
      res.end()
      return
    }
    void answerNode(web, req, res)
  }
  return {
    handler,
    fetch: (request) => (closed !== undefined ? Promise.resolve(new Response(null, { status: 503 })) : web(request)),
    close: () => {
      closed ??= managed.dispose()
      return closed
    }
  }
}
