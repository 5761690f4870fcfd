/**
 * The run of `scanbridge gateway` (see gateway.ts for its flags), loaded when the command runs:
 * the flags and the environment become the gateway's options, its store and its platform client;
 * the gateway serves until the command is interrupted, and then closes its server and its store.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Config, Console, Context, Effect, Layer, Option, Redacted } from "effect"
import { createServer } from "node:http"
import { Gateway, type GatewayStore, type GatewayStoreError, embeddedStoreLayer, postgresStoreLayer } from "@scanbridge/gateway"
import { PlatformClient } from "@scanbridge/platform"
import { DEFAULT_STORE } from "./gateway-defaults.js"
import { CliError, UsageError } from "./errors.js"

export interface GatewayArgs {
  readonly port: number
  readonly host: string
  readonly platformUrl: Option.Option<string>
  readonly org: Option.Option<string>
  readonly apiKeyFile: Option.Option<string>
  readonly clients: Option.Option<string>
  readonly store: Option.Option<Redacted.Redacted<string>>
  readonly estimationLengthUnit: "mm" | "cm"
  readonly scannerUrl: Option.Option<string>
}

/** The environment's names for what the flags may leave out (PlatformClient.layerConfig's, and the gateway's own). */
const ENV = {
  platformUrl: "SCANBRIDGE_PLATFORM_URL",
  org: "SCANBRIDGE_ORG_ID",
  apiKey: "SCANBRIDGE_API_KEY",
  clients: "SCANBRIDGE_GATEWAY_CLIENTS"
} as const

/** Where the gateway keeps its state, as --store says it. */
export type StoreChoice = { readonly _tag: "Embedded"; readonly directory: string } | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted<string> }

const POSTGRES = /^postgres(ql)?:\/\//i

/**
 * --store's value: a folder, or a PostgreSQL URL without a password. A password would sit in the
 * process's command line, which every user of the machine can read: refused without showing it.
 */
export const storeOf = (given: Option.Option<Redacted.Redacted<string>>): Effect.Effect<StoreChoice, UsageError> => {
  const value = Option.match(given, { onNone: () => DEFAULT_STORE, onSome: Redacted.value })
  if (value === "") return Effect.fail(new UsageError({ message: "gateway: --store: expected a folder or a postgres:// URL, not nothing" }))
  if (!POSTGRES.test(value)) {
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(value)
      ? Effect.fail(new UsageError({ message: "gateway: --store: expected a folder or a postgres:// URL; no other database is supported" }))
      : Effect.succeed({ _tag: "Embedded", directory: value })
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return Effect.fail(new UsageError({ message: "gateway: --store: not a PostgreSQL URL; expected postgres://USER@HOST:PORT/DATABASE" }))
  }
  // libpq and pg read a password from the query too (?password=...).
  if (url.password !== "" || [...url.searchParams.keys()].some((name) => /password/i.test(name))) {
    return Effect.fail(
      new UsageError({
        message:
          "gateway: --store: the URL holds a password, which any user of this machine can read on a command line (ps, /proc); give the URL without it, and the password in PGPASSWORD or ~/.pgpass"
      })
    )
  }
  return Effect.succeed({ _tag: "Postgres", url: Redacted.make(value) })
}

/** The store as the listening line names it: the folder, or the URL (which holds no password). */
const storeShown = (store: StoreChoice) => (store._tag === "Embedded" ? store.directory : Redacted.value(store.url))

/** A flag's value, or else the environment's; a usage error naming both when neither is given. */
const flagOrEnv = (flag: string, given: Option.Option<string>, name: string) =>
  Option.match(given, {
    onSome: Effect.succeed,
    onNone: () =>
      Config.option(Config.string(name)).pipe(
        Effect.mapError(() => new CliError({ message: `gateway: cannot read ${name}` })),
        Effect.flatMap(
          Option.match({
            onSome: (value) => (value.trim() === "" ? Effect.fail(missing(flag, name)) : Effect.succeed(value.trim())),
            onNone: () => Effect.fail(missing(flag, name))
          })
        )
      )
  })

const missing = (flag: string, name: string) => new UsageError({ message: `gateway: give ${flag}, or set ${name}` })

/** The platform's base URL: http or https, without credentials of its own. */
const platformUrlOf = (text: string): Effect.Effect<URL, UsageError> => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return Effect.fail(new UsageError({ message: "gateway: --platform-url: expected an http:// or https:// URL" }))
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return Effect.fail(new UsageError({ message: "gateway: --platform-url: expected an http:// or https:// URL" }))
  if (url.username !== "" || url.password !== "")
    return Effect.fail(
      new UsageError({ message: "gateway: --platform-url: the URL holds credentials; the API key goes in SCANBRIDGE_API_KEY or --api-key-file" })
    )
  return Effect.succeed(url)
}

/** A file's text; an unreadable file names itself and the flag, never what it holds. */
const readSecretFile = (flag: string, path: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path)).pipe(
    Effect.mapError((e) => new CliError({ message: `gateway: ${flag} ${path}: cannot read it (${e._tag === "SystemError" ? e.reason : e._tag})` }))
  )

/** The platform API key: --api-key-file's (its first line), or else SCANBRIDGE_API_KEY. */
const apiKeyOf = (args: GatewayArgs) =>
  Option.match(args.apiKeyFile, {
    onSome: (path) =>
      Effect.flatMap(readSecretFile("--api-key-file", path), (text) => {
        const key = text.split(/\r?\n/)[0]!.trim()
        return key === ""
          ? Effect.fail(new UsageError({ message: `gateway: --api-key-file ${path}: the file holds no key on its first line` }))
          : Effect.succeed(Redacted.make(key))
      }),
    onNone: () =>
      Config.option(Config.redacted(ENV.apiKey)).pipe(
        Effect.mapError(() => new CliError({ message: `gateway: cannot read ${ENV.apiKey}` })),
        Effect.flatMap((key) =>
          Option.isSome(key) && Redacted.value(key.value).trim() !== ""
            ? Effect.succeed(Redacted.make(Redacted.value(key.value).trim()))
            : Effect.fail(
                new UsageError({
                  message: `gateway: no platform API key: set ${ENV.apiKey}, or give --api-key-file FILE (never the key itself on the command line, where other users of this machine can read it)`
                })
              )
        )
      )
  })

/** The client ids of a --clients file: one per line, blank lines and # comments skipped. */
export const clientIdsOfFile = (text: string): ReadonlyArray<string> =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))

/** The legacy client ids the gateway accepts: --clients's, or else SCANBRIDGE_GATEWAY_CLIENTS's. */
const clientIdsOf = (args: GatewayArgs) =>
  Option.match(args.clients, {
    onSome: (path) => Effect.map(readSecretFile("--clients", path), clientIdsOfFile),
    onNone: () =>
      Config.option(Config.redacted(ENV.clients)).pipe(
        Effect.mapError(() => new CliError({ message: `gateway: cannot read ${ENV.clients}` })),
        Effect.map(
          Option.match({
            onNone: (): ReadonlyArray<string> => [],
            onSome: (ids) =>
              Redacted.value(ids)
                .split(",")
                .map((id) => id.trim())
                .filter((id) => id !== "")
          })
        )
      )
  }).pipe(
    Effect.filterOrFail(
      (ids) => ids.length > 0,
      () =>
        new UsageError({
          message: `gateway: no legacy client ids to accept: give --clients FILE (one per line) or set ${ENV.clients} (comma-separated); every create-session and token request would be refused`
        })
    ),
    Effect.map((ids) => [...new Set(ids)].map((id) => Redacted.make(id)))
  )

const storeLayer = (store: StoreChoice): Layer.Layer<GatewayStore, GatewayStoreError> =>
  store._tag === "Embedded" ? embeddedStoreLayer(store.directory) : postgresStoreLayer({ url: store.url })

/** The system's error code (EADDRINUSE, EACCES, ...) of a failure to listen. */
const codeOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined

export const runGateway = (args: GatewayArgs) =>
  Effect.gen(function* () {
    const platformUrl = yield* Effect.flatMap(flagOrEnv("--platform-url", args.platformUrl, ENV.platformUrl), platformUrlOf)
    const orgId = yield* flagOrEnv("--org", args.org, ENV.org)
    const store = yield* storeOf(args.store)
    const apiKey = yield* apiKeyOf(args)
    const clientIds = yield* clientIdsOf(args)

    const gateway = Gateway.layer({
      clientIds,
      estimationLengthUnit: args.estimationLengthUnit,
      ...Option.match(args.scannerUrl, { onNone: () => ({}), onSome: (scannerAddress) => ({ scannerAddress }) })
    })
    const server = NodeHttpServer.layer(createServer, { port: args.port, host: args.host }).pipe(
      Layer.mapError((e) => new CliError({ message: `gateway: cannot listen on ${args.host} port ${args.port} (${codeOf(e.cause) ?? e._tag})` }))
    )
    const platform = PlatformClient.layer({ baseUrl: platformUrl.href.replace(/\/$/, ""), orgId, apiKey }).pipe(Layer.provide(FetchHttpClient.layer))
    const stored = storeLayer(store).pipe(Layer.mapError((e) => new CliError({ message: `gateway: --store: ${e.message}` })))
    const running = Layer.provideMerge(gateway, Layer.mergeAll(server, platform, stored))

    yield* Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(running)
        const address = Context.get(context, HttpServer.HttpServer).address
        const url = address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}` : `http+unix://${address.path}`
        const ids = clientIds.length === 1 ? "1 client id" : `${clientIds.length} client ids`
        yield* Console.error(
          `scanbridge gateway listening on ${url} (platform ${platformUrl.origin}${platformUrl.pathname.replace(/\/$/, "")}, org ${orgId}, store ${storeShown(store)}, ${ids})`
        )
        return yield* Effect.never
      })
    )
  })
