/**
 * EstimationClient: the deprecated estimation API as an Effect service over HttpClient. Four
 * steps (anonymous token, create, upload front and right, poll the read endpoint), one method
 * each, and `estimate`, which runs them all and returns the canonical scan.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { ConfigError } from "effect"
import { Config, Context, Duration, Effect, Either, Layer, Redacted, Schedule } from "effect"
import type { DecodeError, Scan, Stats } from "@scanbridge/model"
import { checkHumanStats, schemaDecoder } from "@scanbridge/model/adapter"
import { ApiClient, ApiStatusError, type RetryOptions } from "@scanbridge/http"
import { type UnitOptions, decodeReadResponseEither } from "./codec.js"
import { type EstimationHttpFailure, EstimationInputError, EstimationPhotoError, EstimationStatusError, EstimationTimeoutError } from "./errors.js"
import { checkPhoto } from "./jpeg.js"
import * as Wire from "./wire.js"

export interface AccessToken {
  readonly uid: string
  /** Sent as the `Access-Token` header. Its lifetime is not shown; `estimate` renews it on a 401. */
  readonly token: Redacted.Redacted<string>
}

export interface CreatedEstimation {
  readonly estimationId: string
  readonly createdAt: string
}

export interface UploadedPhoto {
  /** True once both photos are in and the job is scheduled. */
  readonly sendInputQueue: boolean
  readonly message: string
}

export interface Photos {
  /** JPEG bytes: checked against the spec's limits before upload. */
  readonly front: Uint8Array
  readonly right: Uint8Array
}

export interface AwaitOptions {
  readonly interval?: Duration.DurationInput
  readonly timeout?: Duration.DurationInput
}

export interface EstimationClientOptions {
  /** `{auth_url}`: the host of `tokens/anonymous`. */
  readonly authUrl: string
  /** `{estimation_url}`: the host of `estimation`. */
  readonly estimationUrl: string
  /** The integrator's client id: a static secret, for servers only. */
  readonly clientId: Redacted.Redacted<string> | string
  /** The measurement id the vendor provides. */
  readonly measurementId: string
  /** ISO 639-1 language of messages. Default `en`. */
  readonly lang?: string
  /** Pause between two reads while the job runs. Default 5 seconds, as the spec advises. */
  readonly pollInterval?: Duration.DurationInput
  /** Longest wait for a result. Default 2 minutes; staging "can take a few minutes". */
  readonly timeout?: Duration.DurationInput
  /** Retries of the GET steps on 5xx, 429 and transport errors. POSTs are never retried. */
  readonly retry?: RetryOptions
  /** Longest wait for one response. Default 60 seconds (`ApiClient.DEFAULT_TIMEOUT`). */
  readonly requestTimeout?: Duration.DurationInput
  /** Most bytes of one response body read; beyond, ApiResponseTooLargeError. Default 16 MiB (`ApiClient.DEFAULT_MAX_RESPONSE_BYTES`). */
  readonly maxResponseBytes?: number
  /** Units to read results in, instead of inferring them per record. */
  readonly units?: UnitOptions
  readonly transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
}

type Failure = EstimationHttpFailure | DecodeError

export interface EstimationClientService {
  /** Step 1: an anonymous access token for the client id. */
  readonly authenticate: () => Effect.Effect<AccessToken, Failure>
  /** Step 2: an estimation id for the user's stats (height mm, weight g), checked first. */
  readonly createEstimation: (token: AccessToken, stats: Stats) => Effect.Effect<CreatedEstimation, Failure | EstimationInputError>
  /** Step 3, once per pattern: the photo is checked against the spec's limits first. */
  readonly uploadPhoto: (
    token: AccessToken,
    estimationId: string,
    pattern: Wire.Pattern,
    jpeg: Uint8Array
  ) => Effect.Effect<UploadedPhoto, Failure | EstimationPhotoError>
  /** Step 4, once: the estimation now, as a pending, successful or failed scan. */
  readonly readEstimation: (token: AccessToken, estimationId: string) => Effect.Effect<Scan, Failure>
  /** Step 4 until the estimation completes, or EstimationTimeoutError. */
  readonly awaitEstimation: (token: AccessToken, estimationId: string, options?: AwaitOptions) => Effect.Effect<Scan, Failure | EstimationTimeoutError>
  /**
   * The whole flow: checks stats and photos before any request, then token, create, two
   * uploads and polling. A token the server stops accepting is renewed whenever that happens,
   * however often; a fresh token refused three times running is an error.
   */
  readonly estimate: (
    stats: Stats,
    photos: Photos,
    options?: AwaitOptions
  ) => Effect.Effect<Scan, Failure | EstimationInputError | EstimationPhotoError | EstimationTimeoutError>
}

export class EstimationClient extends Context.Tag("@scanbridge/estimation/EstimationClient")<EstimationClient, EstimationClientService>() {
  static readonly make = (options: EstimationClientOptions) => make(options)
  static readonly layer = (options: EstimationClientOptions): Layer.Layer<EstimationClient, never, HttpClient.HttpClient> =>
    Layer.effect(EstimationClient, make(options))
  /**
   * Reads SCANBRIDGE_ESTIMATION_AUTH_URL, SCANBRIDGE_ESTIMATION_URL,
   * SCANBRIDGE_ESTIMATION_CLIENT_ID (redacted) and SCANBRIDGE_ESTIMATION_MEASUREMENT_ID.
   */
  static readonly layerConfig = (
    options?: Omit<EstimationClientOptions, "authUrl" | "estimationUrl" | "clientId" | "measurementId">
  ): Layer.Layer<EstimationClient, ConfigError.ConfigError, HttpClient.HttpClient> =>
    Layer.effect(
      EstimationClient,
      Effect.flatMap(
        Config.all({
          authUrl: Config.string("SCANBRIDGE_ESTIMATION_AUTH_URL"),
          estimationUrl: Config.string("SCANBRIDGE_ESTIMATION_URL"),
          clientId: Config.redacted("SCANBRIDGE_ESTIMATION_CLIENT_ID"),
          measurementId: Config.string("SCANBRIDGE_ESTIMATION_MEASUREMENT_ID")
        }),
        (config) => make({ ...options, ...config })
      )
    )
}

// --- Implementation -----------------------------------------------------------------------

const LANGUAGE = /^[a-z]{2}$/

// Renewals in a row, each token refused before any request succeeded with it: a client id the
// server no longer honours, not a token that expired.
const MAX_RENEWALS_IN_A_ROW = 3

const decodeAuth = schemaDecoder(Wire.AuthResponse, "estimation token response")
const decodeCreated = schemaDecoder(Wire.CreateResponse, "estimation creation response")
const decodeUploaded = schemaDecoder(Wire.UploadResponse, "estimation image upload response")

const photoError = (pattern: Wire.Pattern, jpeg: Uint8Array) =>
  Either.mapLeft(checkPhoto(jpeg), (p) => new EstimationPhotoError({ pattern, rule: p.rule, value: p.value, message: `${pattern} photo: ${p.message}` }))

/** The estimation API's errors by status: an unknown client or token, an unknown id, the rest. */
const classify = (r: ApiClient.FailedResponse): EstimationHttpFailure => {
  const message = ApiClient.bodyMessage(r.body)
  const fields = ApiClient.statusErrorFields(r, message === null ? "" : `: ${message}`)
  if (r.status === 401 || r.status === 403) return new EstimationStatusError({ ...fields, reason: "Unauthorized" })
  if (r.status === 404) return new EstimationStatusError({ ...fields, reason: "NotFound" })
  return new ApiStatusError(fields)
}

const make = (options: EstimationClientOptions): Effect.Effect<EstimationClientService, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const lang = options.lang ?? "en"
    const interval = options.pollInterval ?? "5 seconds"
    const timeout = options.timeout ?? "2 minutes"
    // Spec 02: client_id is a parameter of every step, in the query of the GETs and in the
    // forms of the POSTs; the access token is a header of its own. Neither may show.
    const shared = {
      auth: ApiClient.Auth.param("client_id", options.clientId),
      redactedHeaders: ["access-token"],
      classify,
      ...(options.retry === undefined ? {} : { retry: options.retry }),
      ...(options.requestTimeout === undefined ? {} : { timeout: options.requestTimeout }),
      ...(options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes }),
      ...(options.transformClient === undefined ? {} : { transformClient: options.transformClient })
    }
    const authApi = yield* ApiClient.make({ api: "estimation", baseUrl: options.authUrl, ...shared })
    const http = yield* ApiClient.make({ api: "estimation", baseUrl: options.estimationUrl, ...shared })
    const tokenHeader = (token: AccessToken) => ({ "Access-Token": token.token })

    const authenticate = () =>
      authApi.execute({ method: "GET", path: "/tokens/anonymous", idempotent: true, decode: decodeAuth }).pipe(
        Effect.map((r): AccessToken => ({ uid: r.uid, token: Redacted.make(r.access_token) })),
        Effect.withSpan("EstimationClient.authenticate")
      )

    const createEstimation = (token: AccessToken, stats: Stats) =>
      Effect.gen(function* () {
        const checked = yield* Either.mapLeft(checkHumanStats(stats), (p) => new EstimationInputError(p))
        if (!LANGUAGE.test(lang)) {
          return yield* Effect.fail(
            new EstimationInputError({ path: ["lang"], value: lang, message: `lang: ${JSON.stringify(lang)} is not an ISO 639-1 code` })
          )
        }
        const form = {
          measurement_id: options.measurementId,
          height: checked.heightMm,
          weight: checked.weightG,
          age: checked.age,
          gender: checked.gender,
          lang
        }
        const r = yield* http.execute({
          method: "POST",
          path: "/estimation",
          headers: tokenHeader(token),
          body: http.form(Wire.CreateForm, form),
          idempotent: false,
          onTimeout: "an estimation may have been created; its id is unknown, so create another",
          decode: decodeCreated
        })
        return { estimationId: r.estimation_id, createdAt: r.created_at }
      }).pipe(Effect.withSpan("EstimationClient.createEstimation"))

    const uploadPhoto = (token: AccessToken, estimationId: string, pattern: Wire.Pattern, jpeg: Uint8Array) =>
      Effect.gen(function* () {
        yield* photoError(pattern, jpeg)
        // The fetch globals (FormData, File) that @effect/platform's bodies are typed with: the
        // part needs a file name, as a browser's upload would send it.
        const image = new File([new Uint8Array(jpeg)], `${pattern}.jpg`, { type: "image/jpeg" })
        const r = yield* http.execute({
          method: "POST",
          path: `/estimation/${encodeURIComponent(estimationId)}/image`,
          headers: tokenHeader(token),
          body: http.multipart({ pattern, image }),
          idempotent: false,
          onTimeout: `the ${pattern} photo may have been received: readEstimation ${estimationId} tells whether the job is queued`,
          decode: decodeUploaded
        })
        return { sendInputQueue: r.send_input_queue, message: r.message }
      }).pipe(Effect.withSpan("EstimationClient.uploadPhoto", { attributes: { estimationId, pattern } }))

    const readEstimation = (token: AccessToken, estimationId: string) => {
      const path = `/estimation/${encodeURIComponent(estimationId)}`
      return http
        .execute({
          method: "GET",
          path,
          query: { lang },
          headers: tokenHeader(token),
          idempotent: true,
          decode: (json) => decodeReadResponseEither(json, options.units)
        })
        .pipe(
          Effect.flatMap((scans) => {
            const scan = scans.find((s) => s.source.id === estimationId)
            if (scan !== undefined) return Effect.succeed(scan)
            const url = http.redactedUrl(path, { lang })
            const message = `GET ${url} -> 200: the read response holds no estimation ${estimationId}`
            return Effect.fail(new EstimationStatusError({ api: http.api, method: "GET", url, status: 200, message, reason: "NotFound" }))
          }),
          Effect.withSpan("EstimationClient.readEstimation", { attributes: { estimationId } })
        )
    }

    // Reads until the estimation completes, or the wait runs out.
    const poll = <E>(read: Effect.Effect<Scan, E>, estimationId: string, wait: AwaitOptions) =>
      read.pipe(
        Effect.repeat({
          schedule: Schedule.passthrough(Schedule.spaced(wait.interval ?? interval)) as Schedule.Schedule<Scan, Scan>,
          while: (scan) => scan.status === "pending"
        }),
        Effect.timeoutFail({
          duration: wait.timeout ?? timeout,
          onTimeout: () =>
            new EstimationTimeoutError({
              estimationId,
              message: `estimation ${estimationId} still in progress after ${Duration.format(Duration.decode(wait.timeout ?? timeout))}`
            })
        }),
        Effect.withSpan("EstimationClient.awaitEstimation", { attributes: { estimationId } })
      )

    const awaitEstimation = (token: AccessToken, estimationId: string, wait: AwaitOptions = {}) => poll(readEstimation(token, estimationId), estimationId, wait)

    const estimate = (stats: Stats, photos: Photos, wait: AwaitOptions = {}) =>
      Effect.gen(function* () {
        // Everything that can be refused locally is, before the first request.
        yield* Either.mapLeft(checkHumanStats(stats), (p) => new EstimationInputError(p))
        yield* photoError("front", photos.front)
        yield* photoError("right", photos.right)
        let token = yield* authenticate()
        let refusedInARow = 0
        // The token's lifetime is not shown: whenever a request is refused with 401 or 403, get
        // a new token and send it again, for as long as new tokens keep working.
        // Suspended, so that each run (each poll of a read) sends the token current at that time.
        const renewing = <A, E>(step: (t: AccessToken) => Effect.Effect<A, E | Failure>): Effect.Effect<A, E | Failure> =>
          Effect.suspend(() => step(token)).pipe(
            Effect.tap(() => Effect.sync(() => void (refusedInARow = 0))),
            Effect.catchIf(
              (e): e is E & EstimationStatusError => e instanceof EstimationStatusError && e.reason === "Unauthorized" && refusedInARow < MAX_RENEWALS_IN_A_ROW,
              () =>
                Effect.flatMap(authenticate(), (fresh) => {
                  token = fresh
                  refusedInARow += 1
                  return renewing(step)
                })
            )
          )
        const { estimationId } = yield* renewing((t) => createEstimation(t, stats))
        yield* renewing((t) => uploadPhoto(t, estimationId, "front", photos.front))
        yield* renewing((t) => uploadPhoto(t, estimationId, "right", photos.right))
        // Each read renews on its own: a job that outlives several tokens still completes.
        return yield* poll(
          renewing((t) => readEstimation(t, estimationId)),
          estimationId,
          wait
        )
      }).pipe(Effect.withSpan("EstimationClient.estimate"))

    return { authenticate, createEstimation, uploadPhoto, readEstimation, awaitEstimation, estimate }
  })
