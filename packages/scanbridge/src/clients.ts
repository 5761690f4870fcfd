/**
 * The four API clients for code that does not use Effect: each is its Effect client, built from
 * the client's own layer over a fetch-based HttpClient, with every method turned into one that
 * returns a Promise (a stream of results into an async iterable). Failures reject with
 * `ScanbridgeError`, whose `code` is the client error's tag.
 *
 * A client package is loaded when its first client is made, not with the plain API, so code that
 * only normalizes never loads an HTTP client.
 */
import type { HttpClient } from "@effect/platform/HttpClient"
import { type Context, Effect, Exit, Layer, ManagedRuntime, Predicate, Runtime, Stream } from "effect"
import type { EstimationClientOptions, EstimationClientService } from "@scanbridge/estimation"
import type { FitClientOptions, FitClientService } from "@scanbridge/fit"
import type { PlatformClientOptions, PlatformClientService } from "@scanbridge/platform"
import type { SessionClientOptions, SessionClientService } from "@scanbridge/session"
import { errorOfCause } from "./errors.js"

/**
 * A client's service with Promises for Effects: a method that returns an Effect returns a
 * Promise of its value, one that returns a Stream an async iterable of its items, and one that
 * returns another client (the platform's `withToken`) that client, plain as well.
 */
export type Plain<S> = {
  readonly [K in keyof S]: S[K] extends (...args: infer Args) => Effect.Effect<infer A, infer _E, never>
    ? (...args: Args) => Promise<A>
    : S[K] extends (...args: infer Args) => Stream.Stream<infer A, infer _E, never>
      ? (...args: Args) => AsyncIterable<A>
      : S[K] extends (...args: infer Args) => infer Client
        ? Client extends object
          ? (...args: Args) => Plain<Client>
          : S[K]
        : S[K]
}

/** A plain client, and `close()`, which releases what its layer holds. */
export type PlainClient<S> = Plain<S> & {
  readonly close: () => Promise<void>
}

export type PlatformClient = PlainClient<PlatformClientService>
export type SessionClient = PlainClient<SessionClientService>
export type EstimationClient = PlainClient<EstimationClientService>
export type FitClient = PlainClient<FitClientService>

const isStream = (u: unknown): u is Stream.Stream<unknown, unknown> => Predicate.hasProperty(u, Stream.StreamTypeId)

/** `service` with its Effects run on `runtime`. */
const plainOf = <S extends object>(service: S, runtime: Runtime.Runtime<never>): Plain<S> => {
  const run = Runtime.runPromiseExit(runtime)
  const lift =
    (method: (...args: ReadonlyArray<unknown>) => unknown) =>
    (...args: ReadonlyArray<unknown>): unknown => {
      const result = method(...args)
      if (Effect.isEffect(result)) {
        // A client method needs nothing its layer does not provide.
        return run(result as Effect.Effect<unknown, unknown>).then((exit) => {
          if (Exit.isSuccess(exit)) return exit.value
          throw errorOfCause(exit.cause)
        })
      }
      // Each iteration runs the stream from its start, as running a Stream does.
      if (isStream(result))
        return Stream.toAsyncIterableRuntime(
          Stream.catchAllCause(result, (cause) => Stream.fail(errorOfCause(cause))),
          runtime
        )
      return Predicate.isObject(result) ? plainOf(result, runtime) : result
    }
  return Object.fromEntries(
    Object.entries(service).map(([name, value]) => [name, typeof value === "function" ? lift(value as (...args: ReadonlyArray<unknown>) => unknown) : value])
  ) as Plain<S>
}

/** The client `tag` provides, built from `layer` over fetch. */
const connect = async <I, S extends object>(tag: Context.Tag<I, S>, layer: Layer.Layer<I, never, HttpClient>): Promise<PlainClient<S>> => {
  const FetchHttpClient = await import("@effect/platform/FetchHttpClient")
  const managed = ManagedRuntime.make(Layer.provide(layer, FetchHttpClient.layer))
  const exit = await Effect.runPromiseExit(Effect.zip(managed.runtimeEffect, tag.pipe(Effect.provide(managed))))
  if (Exit.isFailure(exit)) {
    await managed.dispose()
    throw errorOfCause(exit.cause)
  }
  const [runtime, service] = exit.value
  return { ...plainOf(service, runtime as Runtime.Runtime<never>), close: () => managed.dispose() }
}

/** A client made from its Tag and the Tag's `layer(options)`, loaded when the first one is made. */
const clientOf =
  <Options, I, S extends object>(load: () => Promise<readonly [Context.Tag<I, S>, (options: Options) => Layer.Layer<I, never, HttpClient>]>) =>
  async (options: Options): Promise<PlainClient<S>> => {
    const [tag, layer] = await load()
    return connect(tag, layer(options))
  }

/**
 * The Scan Platform client (`PlatformClient` of @scanbridge/platform) over fetch. Secrets may be
 * given as strings; they are kept Redacted from here on.
 */
export const platformClient: (options: PlatformClientOptions) => Promise<PlatformClient> = clientOf(() =>
  import("@scanbridge/platform").then(({ PlatformClient }) => [PlatformClient, PlatformClient.layer] as const)
)

/** The deprecated session API's client (`SessionClient` of @scanbridge/session) over fetch. */
export const sessionClient: (options: SessionClientOptions) => Promise<SessionClient> = clientOf(() =>
  import("@scanbridge/session").then(({ SessionClient }) => [SessionClient, SessionClient.layer] as const)
)

/** The deprecated estimation API's client (`EstimationClient` of @scanbridge/estimation) over fetch. */
export const estimationClient: (options: EstimationClientOptions) => Promise<EstimationClient> = clientOf(() =>
  import("@scanbridge/estimation").then(({ EstimationClient }) => [EstimationClient, EstimationClient.layer] as const)
)

/** The garment-fit service's client (`FitClient` of @scanbridge/fit) over fetch. */
export const fitClient: (options: FitClientOptions) => Promise<FitClient> = clientOf(() =>
  import("@scanbridge/fit").then(({ FitClient }) => [FitClient, FitClient.layer] as const)
)
