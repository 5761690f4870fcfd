/**
 * The gateway in front of the platform simulator, both on 127.0.0.1 at free ports, for the
 * gateway's tests: `harnessLayer(options)` starts them for the lifetime of the layer, and
 * `GatewayHarness` gives their URLs, the simulator's controls, the platform as the integrator's
 * new code sees it (the organisation's API key), and the gateway's store. The store is a
 * parameter (default: the in-memory one), so that a test runs the same flows on the SQL stores.
 *
 * Time: run tests with the simulator's `onTestClock()`; the simulator, the gateway and the
 * platform client all read Effect's Clock.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer, Tracer } from "effect"
import { createServer } from "node:http"
import { makeJpeg } from "@scanbridge/estimation"
import type { Scan, Stats } from "@scanbridge/model"
import { PlatformClient, type PlatformClientOptions, type PlatformClientService } from "@scanbridge/platform"
import { FAIL_MARKER, Simulator, type SimulatorOptions, type SimulatorService } from "@scanbridge/simulator"
import { Gateway, type GatewayOptions, GatewayStore, type GatewayStoreService, memoryStoreLayer } from "../../src/index.js"

/** The integrator's organisation on the platform simulator. */
export const HARNESS_ORG = "org_gateway"
/** Its API key: the gateway's credential (a secret: tests check it never leaks). */
export const HARNESS_API_KEY = "sk_gateway_0123456789abcdef"
/** The legacy client id the gateway accepts. */
export const HARNESS_CLIENT_ID = "cl_gateway_0123456789abcdef"
/** Scans the organisation may create: plenty, so that only a test that sets it meets the limit. */
export const HARNESS_QUOTA = 10_000

export interface HarnessOptions<E = never, R = never> {
  /** The gateway's store. Default: memoryStoreLayer. */
  readonly store?: Layer.Layer<GatewayStore, E, R>
  /** Overrides of the gateway's options. Default: HARNESS_CLIENT_ID, the simulator's hosted scanner. */
  readonly gateway?: Partial<GatewayOptions>
  /** Whether the gateway is told the simulator's hosted scanner address. Default true. */
  readonly scanner?: boolean
  /** Overrides of the gateway's platform client (retry, timeout, transformClient). */
  readonly platform?: Omit<PlatformClientOptions, "baseUrl" | "orgId" | "apiKey">
  /** The simulator's options; the organisation above is added to its platform's. */
  readonly simulator?: SimulatorOptions
}

export interface GatewayHarnessService {
  /** `http://127.0.0.1:<port>`: the simulator's APIs, the platform's among them. */
  readonly simulatorUrl: string
  /** `http://127.0.0.1:<port>`: the gateway, the base URL old code is pointed at. */
  readonly gatewayUrl: string
  readonly simulator: SimulatorService
  /** The platform with the organisation's API key, as the integrator's new code reads it. */
  readonly platform: PlatformClientService
  /** The store the gateway runs on. */
  readonly store: GatewayStoreService
}

export class GatewayHarness extends Context.Tag("@scanbridge/gateway/test/GatewayHarness")<GatewayHarness, GatewayHarnessService>() {}

const urlOf = (address: HttpServer.Address) => (address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}` : `http+unix://${address.path}`)

/** The simulator and a gateway in front of it, on loopback, for the lifetime of the layer. */
export const harnessLayer = <E = never, R = never>(options: HarnessOptions<E, R> = {}) => {
  const org = { id: HARNESS_ORG, apiKeys: [HARNESS_API_KEY], quota: HARNESS_QUOTA }
  const simulatorOptions: SimulatorOptions = {
    ...options.simulator,
    platform: { ...options.simulator?.platform, orgs: [...(options.simulator?.platform?.orgs ?? []), org] }
  }
  const gateway = Layer.unwrapEffect(
    Effect.map(Simulator, (simulator) => {
      const platformOptions = { baseUrl: simulator.url, orgId: HARNESS_ORG, apiKey: HARNESS_API_KEY }
      const scanner = options.scanner === false ? {} : { scannerAddress: `${simulator.url}/scanner/{LOCALE}/` }
      const served = Gateway.layer({ clientIds: [HARNESS_CLIENT_ID], ...scanner, ...options.gateway }).pipe(
        Layer.provide(PlatformClient.layer({ ...platformOptions, ...options.platform }))
      )
      const harness = Layer.effect(
        GatewayHarness,
        Effect.gen(function* () {
          const server = yield* HttpServer.HttpServer
          return {
            simulatorUrl: simulator.url,
            gatewayUrl: urlOf(server.address),
            simulator,
            platform: yield* PlatformClient.make(platformOptions),
            store: yield* GatewayStore
          }
        })
      )
      return Layer.merge(served, harness).pipe(
        Layer.provideMerge(options.store ?? (memoryStoreLayer as unknown as Layer.Layer<GatewayStore, E, R>)),
        Layer.provide(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
      )
    })
  )
  return gateway.pipe(Layer.provideMerge(Simulator.layer(simulatorOptions)), Layer.provideMerge(FetchHttpClient.layer))
}

/** What the user does in the hosted scanner: the stats, and how the scan ends (a platform failure code). */
export interface UserScan extends Stats {
  readonly failWith?: string
}

/** A 9:16 JPEG the simulator accepts, marked to fail with `code` when given. */
export const photo = (code?: string): string =>
  Buffer.from(makeJpeg(1080, 1920, code === undefined ? {} : { comment: `${FAIL_MARKER}${code}` })).toString("base64")

/**
 * Plays the user in the hosted scanner, as the simulator's scanner page does: asks the gateway
 * for the session's scanner address, and creates the scan with the scan token it carries.
 */
export const scanAsUser = (ssid: string, user: UserScan) =>
  Effect.gen(function* () {
    const { gatewayUrl, platform } = yield* GatewayHarness
    const response = yield* Effect.promise(() => fetch(`${gatewayUrl}/gateway/v0/sessions/${encodeURIComponent(ssid)}/scanner`))
    const body = (yield* Effect.promise(() => response.json())) as { readonly url?: string; readonly message?: string }
    if (body.url === undefined) return yield* Effect.dieMessage(`scanner address of ${ssid}: ${response.status} ${body.message}`)
    const token = new URL(body.url).searchParams.get("token")!
    const { failWith, ...stats } = user
    return yield* platform.withToken(token).createScan({ ...stats, photos: { front: photo(failWith), right: photo(failWith) } })
  }) satisfies Effect.Effect<Scan, unknown, GatewayHarness>

/**
 * The tracer in context, recording every span it starts: for tests of what the gateway's spans
 * hold. Run the code under test with `Effect.withTracer(tracer)`, then read `spans`.
 */
export const recordingTracer: Effect.Effect<{ readonly spans: ReadonlyArray<Tracer.Span>; readonly tracer: Tracer.Tracer }> = Effect.map(
  Effect.tracer,
  (native) => {
    const spans: Array<Tracer.Span> = []
    const tracer = Tracer.make({
      span: (...args) => {
        const span = native.span(...args)
        spans.push(span)
        return span
      },
      context: native.context
    })
    return { spans, tracer }
  }
)
