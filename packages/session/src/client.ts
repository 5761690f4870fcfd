/**
 * SessionClient: the deprecated session API as an Effect service over HttpClient. A server
 * creates a session, hands its SSID to the widget, and reads the results as a canonical scan.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { ConfigError } from "effect"
import { Clock, Config, Context, Duration, Effect, Either, Layer, type Redacted, Schedule } from "effect"
import type { DecodeError, Scan } from "@scanbridge/model"
import { ApiClient, type ApiError, type RetryOptions } from "@scanbridge/http"
import { type DecodeOptions, decodeCreateSessionResponseEither, decodeResultsEither } from "./codec.js"
import { type SessionCreateError, SessionInputError, SessionTimeoutError, createError } from "./errors.js"
import * as Wire from "./wire.js"

export interface CreateSessionInput {
  /** Your own id for the session; echoed in every response. */
  readonly clientScanningId?: string
  /** ISO 639-1 (two letters) for instructions and messages; the server falls back to `en`. */
  readonly languageCode?: string
  /** Whether results carry the avatar's vertices. */
  readonly include3dAvatarInResults?: boolean
}

export interface CreatedSession {
  /** The SSID to hand to the widget. */
  readonly scanningSessionId: string
  readonly clientScanningId: string | null
  /** Null when the server leaves the expiry out. */
  readonly expiresAt: Date | null
}

export interface AwaitOptions {
  /** Pause between two polls. Default: the client's `pollInterval`. */
  readonly interval?: Duration.DurationInput
  /** Longest wait when the server gives no expiry. Default: the client's `maxWait`. */
  readonly maxWait?: Duration.DurationInput
}

export interface SessionClientOptions {
  /** `{scanner_url}`: the host of the session API, without `/scanning/v0`. */
  readonly baseUrl: string
  /** The integrator's client id: a static secret, for servers only. */
  readonly clientId: Redacted.Redacted<string> | string
  /** Pause between two polls of awaitResults. Default 2 seconds ("a couple of seconds"). */
  readonly pollInterval?: Duration.DurationInput
  /** Longest awaitResults wait when the server gives no expiry. Default 15 minutes. */
  readonly maxWait?: Duration.DurationInput
  /** Retries of GET results on 5xx, 429 and transport errors. create-session is never retried. */
  readonly retry?: RetryOptions
  /** Longest wait for one response. Default 60 seconds (`ApiClient.DEFAULT_TIMEOUT`). */
  readonly timeout?: Duration.DurationInput
  /** Most bytes of one response body read; beyond, ApiResponseTooLargeError. Default 16 MiB (`ApiClient.DEFAULT_MAX_RESPONSE_BYTES`). */
  readonly maxResponseBytes?: number
  /** How results are read; see DecodeOptions. */
  readonly decode?: DecodeOptions
  readonly transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
}

type Failure = ApiError | DecodeError

export interface SessionClientService {
  /** Not retried: each call creates a session. */
  readonly createSession: (input?: CreateSessionInput) => Effect.Effect<CreatedSession, SessionCreateError | SessionInputError | Failure>
  /**
   * The session's results now: a pending scan (with `expiresAt`), a successful one, or a failed
   * one whose `failure.code` is the results errorType (SESSION_EXPIRED, ...).
   */
  readonly getResults: (scanningSessionId: string) => Effect.Effect<Scan, Failure>
  /**
   * Polls until the session has results or an error. Stops with SessionTimeoutError when the
   * next poll would come after the session's expiry: an expired session never completes.
   */
  readonly awaitResults: (scanningSessionId: string, options?: AwaitOptions) => Effect.Effect<Scan, Failure | SessionTimeoutError>
}

export class SessionClient extends Context.Tag("@scanbridge/session/SessionClient")<SessionClient, SessionClientService>() {
  static readonly make = (options: SessionClientOptions) => make(options)
  static readonly layer = (options: SessionClientOptions): Layer.Layer<SessionClient, never, HttpClient.HttpClient> =>
    Layer.effect(SessionClient, make(options))
  /** Reads SCANBRIDGE_SESSION_URL and SCANBRIDGE_SESSION_CLIENT_ID (redacted). */
  static readonly layerConfig = (
    options?: Omit<SessionClientOptions, "baseUrl" | "clientId">
  ): Layer.Layer<SessionClient, ConfigError.ConfigError, HttpClient.HttpClient> =>
    Layer.effect(
      SessionClient,
      Effect.flatMap(Config.all({ baseUrl: Config.string("SCANBRIDGE_SESSION_URL"), clientId: Config.redacted("SCANBRIDGE_SESSION_CLIENT_ID") }), (config) =>
        make({ ...options, ...config })
      )
    )
}

// --- Implementation -----------------------------------------------------------------------

const LANGUAGE = /^[a-z]{2}$/

const checkInput = (input: CreateSessionInput): Effect.Effect<void, SessionInputError> =>
  input.languageCode === undefined || LANGUAGE.test(input.languageCode)
    ? Effect.void
    : Effect.fail(
        new SessionInputError({
          path: ["languageCode"],
          value: input.languageCode,
          message: `languageCode: ${JSON.stringify(input.languageCode)} is not an ISO 639-1 code (two lower-case letters, like en or ja)`
        })
      )

const make = (options: SessionClientOptions): Effect.Effect<SessionClientService, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    // errorBodies "data": the spec shows no statuses, and an error's body says what happened.
    const http = yield* ApiClient.make({
      api: "session",
      baseUrl: `${options.baseUrl.replace(/\/$/, "")}/scanning/v0`,
      auth: ApiClient.Auth.bodyField("clientId", options.clientId),
      errorBodies: "data",
      ...(options.retry === undefined ? {} : { retry: options.retry }),
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
      ...(options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes }),
      ...(options.transformClient === undefined ? {} : { transformClient: options.transformClient })
    })
    const interval = Duration.decode(options.pollInterval ?? "2 seconds")
    const maxWait = Duration.decode(options.maxWait ?? "15 minutes")

    const createSession = (input: CreateSessionInput = {}) =>
      Effect.gen(function* () {
        yield* checkInput(input)
        const config = {
          ...(input.languageCode === undefined ? {} : { languageCode: input.languageCode }),
          ...(input.include3dAvatarInResults === undefined ? {} : { include3dAvatarInResults: input.include3dAvatarInResults })
        }
        const body = {
          ...(input.clientScanningId === undefined ? {} : { clientScanningId: input.clientScanningId }),
          ...(Object.keys(config).length === 0 ? {} : { scanningConfig: config })
        }
        const { o, status } = yield* http.execute({
          method: "POST",
          path: "/create-session",
          body: http.json(Wire.CreateScanningSessionRequest, body),
          idempotent: false,
          onTimeout: `the session may have been created: without its SSID it cannot be read, so create another${input.clientScanningId === undefined ? "" : ` (results echo clientScanningId ${input.clientScanningId})`}`,
          decode: (json, status) => Either.map(decodeCreateSessionResponseEither(json), (o) => ({ o, status }))
        })
        if (o._tag === "Rejected") {
          return yield* Effect.fail(
            createError(o.errorType, {
              wireValue: o.wireValue,
              status,
              message: `create-session -> ${o.errorType}${o.wireValue === o.errorType ? "" : ` (sent as ${o.wireValue})`}: ${o.message ?? "no message"}`
            })
          )
        }
        return { scanningSessionId: o.scanningSessionId, clientScanningId: o.clientScanningId, expiresAt: o.expiresAt === null ? null : new Date(o.expiresAt) }
      }).pipe(Effect.withSpan("SessionClient.createSession"))

    const getResults = (ssid: string) =>
      http
        .execute({
          method: "GET",
          path: `/results/${encodeURIComponent(ssid)}`,
          // A 503 page is retried; a results error the server meant (INTERNAL_ERROR) is data.
          idempotent: true,
          decode: (json) => decodeResultsEither(json, options.decode)
        })
        .pipe(Effect.withSpan("SessionClient.getResults", { attributes: { ssid } }))

    const awaitResults = (ssid: string, wait: AwaitOptions = {}) =>
      Effect.gen(function* () {
        const every = wait.interval === undefined ? interval : Duration.decode(wait.interval)
        const started = yield* Clock.currentTimeMillis
        const longest = wait.maxWait === undefined ? maxWait : Duration.decode(wait.maxWait)
        const fallback = started + Duration.toMillis(longest)
        const deadline = (scan: Scan) => (scan.expiresAt === null ? fallback : Date.parse(scan.expiresAt))
        const last = yield* getResults(ssid).pipe(
          Effect.repeat({
            schedule: Schedule.passthrough(Schedule.spaced(every)) as Schedule.Schedule<Scan, Scan>,
            // Poll again only if that poll comes before the expiry.
            while: (scan) => scan.status === "pending" && Effect.map(Clock.currentTimeMillis, (now) => now + Duration.toMillis(every) < deadline(scan))
          })
        )
        if (last.status !== "pending") return last
        return yield* Effect.fail(
          new SessionTimeoutError({
            scanningSessionId: ssid,
            expiresAt: last.expiresAt,
            message:
              last.expiresAt === null
                ? `session ${ssid} still pending after ${Duration.format(longest)}`
                : `session ${ssid} still pending; it expires at ${last.expiresAt}, before the next poll`
          })
        )
      }).pipe(Effect.withSpan("SessionClient.awaitResults", { attributes: { ssid } }))

    return { createSession, getResults, awaitResults }
  })
