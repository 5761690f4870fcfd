/**
 * EstimationClient: the deprecated estimation API as an Effect service over HttpClient. Four
 * steps (anonymous token, create, upload front and right, poll the read endpoint), one method
 * each, and `estimate`, which runs them all and returns the canonical scan.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type { ConfigError } from "effect"
import { Config, Context, Duration, Effect, Either, Layer, Option, Redacted, Schedule, Schema } from "effect"
import { DecodeError, type RetryOptions, type Scan, type Stats, checkStats, retrySchedule } from "@scanbridge/model"
import { type UnitOptions, decodeReadResponseEither } from "./codec.js"
import {
  type EstimationHttpFailure,
  EstimationInputError,
  EstimationNotFoundError,
  EstimationPhotoError,
  EstimationTimeoutError,
  EstimationTransportError,
  isTransient,
  statusError
} from "./errors.js"
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
   * uploads and polling. A token the server stops accepting is renewed once per step.
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
const ErrorBody = Schema.Struct({ message: Schema.String })
const errorMessage = Schema.decodeUnknownOption(ErrorBody)

const decodeWith = <A, I>(schema: Schema.Schema<A, I>, format: string) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all" })
  return (json: unknown): Either.Either<A, DecodeError> => Either.mapLeft(decode(json), (e) => DecodeError.fromParseIssue(format, e.issue))
}
const decodeAuth = decodeWith(Wire.AuthResponse, "estimation token response")
const decodeCreated = decodeWith(Wire.CreateResponse, "estimation creation response")
const decodeUploaded = decodeWith(Wire.UploadResponse, "estimation image upload response")

const photoError = (pattern: Wire.Pattern, jpeg: Uint8Array) =>
  Either.mapLeft(checkPhoto(jpeg), (p) => new EstimationPhotoError({ pattern, rule: p.rule, value: p.value, message: `${pattern} photo: ${p.message}` }))

const make = (options: EstimationClientOptions): Effect.Effect<EstimationClientService, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const trim = (url: string) => url.replace(/\/$/, "")
    const authUrl = trim(options.authUrl)
    const estimationUrl = trim(options.estimationUrl)
    const clientId = Redacted.isRedacted(options.clientId) ? options.clientId : Redacted.make(options.clientId)
    const lang = options.lang ?? "en"
    const interval = options.pollInterval ?? "5 seconds"
    const timeout = options.timeout ?? "2 minutes"
    const schedule = retrySchedule(options.retry)
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(HttpClientRequest.acceptJson),
      HttpClient.filterStatusOk,
      options.transformClient ?? ((c: HttpClient.HttpClient) => c)
    )

    // One request: a 2xx body, or the error of its status or of the missing response.
    const send = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<unknown, EstimationHttpFailure> => {
      const { method, url } = request
      return http.execute(request).pipe(
        Effect.flatMap((response) => response.json),
        Effect.catchAll((error) => {
          if (error._tag === "ResponseError" && error.reason === "StatusCode") {
            return error.response.json.pipe(
              Effect.map((body) => Option.getOrNull(Option.map(errorMessage(body), (b) => b.message))),
              Effect.orElseSucceed(() => null),
              Effect.flatMap((body) => Effect.fail(statusError(method, url, error.response.status, body)))
            )
          }
          if (error._tag === "ResponseError") return Effect.fail(statusError(method, url, error.response.status, `unreadable body (${error.reason})`))
          return Effect.fail(new EstimationTransportError({ method, url, message: `${method} ${url}: no response (${error.reason})` }))
        })
      )
    }

    const withToken = (token: AccessToken) => HttpClientRequest.setHeader("Access-Token", Redacted.value(token.token))

    const authenticate = () =>
      send(HttpClientRequest.get(`${authUrl}/tokens/anonymous`).pipe(HttpClientRequest.setUrlParam("client_id", Redacted.value(clientId)))).pipe(
        Effect.retry({ schedule, while: isTransient }),
        Effect.flatMap(decodeAuth),
        Effect.map((r): AccessToken => ({ uid: r.uid, token: Redacted.make(r.access_token) })),
        Effect.withSpan("EstimationClient.authenticate")
      )

    const createEstimation = (token: AccessToken, stats: Stats) =>
      Effect.gen(function* () {
        const checked = yield* Either.mapLeft(checkStats(stats), (p) => new EstimationInputError(p))
        if (!LANGUAGE.test(lang)) {
          return yield* Effect.fail(new EstimationInputError({ path: ["lang"], value: lang, message: `lang: ${JSON.stringify(lang)} is not an ISO 639-1 code` }))
        }
        const form: Wire.CreateForm = {
          client_id: Redacted.value(clientId),
          measurement_id: options.measurementId,
          height: String(checked.heightMm),
          weight: String(checked.weightG),
          age: String(checked.age),
          gender: checked.gender,
          lang
        }
        const json = yield* send(HttpClientRequest.post(`${estimationUrl}/estimation`).pipe(withToken(token), HttpClientRequest.bodyUrlParams(form)))
        const r = yield* decodeCreated(json)
        return { estimationId: r.estimation_id, createdAt: r.created_at }
      }).pipe(Effect.withSpan("EstimationClient.createEstimation"))

    const uploadPhoto = (token: AccessToken, estimationId: string, pattern: Wire.Pattern, jpeg: Uint8Array) =>
      Effect.gen(function* () {
        yield* photoError(pattern, jpeg)
        // The fetch globals (FormData, File) that @effect/platform's bodies are typed with: the
        // part needs a file name, as a browser's upload would send it.
        const image = new File([new Uint8Array(jpeg)], `${pattern}.jpg`, { type: "image/jpeg" })
        const json = yield* send(
          HttpClientRequest.post(`${estimationUrl}/estimation/${encodeURIComponent(estimationId)}/image`).pipe(
            withToken(token),
            HttpClientRequest.bodyFormDataRecord({ client_id: Redacted.value(clientId), pattern, image })
          )
        )
        const r = yield* decodeUploaded(json)
        return { sendInputQueue: r.send_input_queue, message: r.message }
      }).pipe(Effect.withSpan("EstimationClient.uploadPhoto", { attributes: { estimationId, pattern } }))

    const readEstimation = (token: AccessToken, estimationId: string) => {
      const request = HttpClientRequest.get(`${estimationUrl}/estimation/${encodeURIComponent(estimationId)}`).pipe(
        withToken(token),
        HttpClientRequest.setUrlParams({ client_id: Redacted.value(clientId), lang })
      )
      return send(request).pipe(
        Effect.retry({ schedule, while: isTransient }),
        Effect.flatMap((json) => decodeReadResponseEither(json, options.units)),
        Effect.flatMap((scans) => {
          const scan = scans.find((s) => s.source.id === estimationId)
          if (scan !== undefined) return Effect.succeed(scan)
          const message = `GET ${request.url} -> 200: the read response holds no estimation ${estimationId}`
          return Effect.fail(new EstimationNotFoundError({ method: "GET", url: request.url, status: 200, message }))
        }),
        Effect.withSpan("EstimationClient.readEstimation", { attributes: { estimationId } })
      )
    }

    const awaitEstimation = (token: AccessToken, estimationId: string, wait: AwaitOptions = {}) =>
      readEstimation(token, estimationId).pipe(
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

    const estimate = (stats: Stats, photos: Photos, wait: AwaitOptions = {}) =>
      Effect.gen(function* () {
        // Everything that can be refused locally is, before the first request.
        yield* Either.mapLeft(checkStats(stats), (p) => new EstimationInputError(p))
        yield* photoError("front", photos.front)
        yield* photoError("right", photos.right)
        let token = yield* authenticate()
        // The token's lifetime is not shown: on a 401 or 403, get a new one and try again once.
        const renewing = <A, E>(step: (t: AccessToken) => Effect.Effect<A, E | Failure>) =>
          Effect.catchTag(step(token), "EstimationUnauthorizedError", () =>
            Effect.flatMap(authenticate(), (fresh) => {
              token = fresh
              return step(fresh)
            })
          )
        const { estimationId } = yield* renewing((t) => createEstimation(t, stats))
        yield* renewing((t) => uploadPhoto(t, estimationId, "front", photos.front))
        yield* renewing((t) => uploadPhoto(t, estimationId, "right", photos.right))
        return yield* renewing((t) => awaitEstimation(t, estimationId, wait))
      }).pipe(Effect.withSpan("EstimationClient.estimate"))

    return { authenticate, createEstimation, uploadPhoto, readEstimation, awaitEstimation, estimate }
  })
