/**
 * PlatformClient: the Scan Platform REST API as an Effect service over HttpClient. Results come
 * back as canonical scans; failures as one tagged error per status class.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type { ConfigError, ParseResult } from "effect"
import { Chunk, Config, Context, Effect, Layer, Option, Redacted, Schema, Stream } from "effect"
import { Catalogue, DecodeError, type MeasurementName, type RetryOptions, type Scan, previewValue, retrySchedule } from "@scanbridge/model"
import { decodeEntryEither, decodeListPageEither } from "./codec.js"
import {
  PlatformAlreadyDeletedError,
  type PlatformHttpError,
  PlatformInputError,
  isTransient,
  statusError,
  transportError
} from "./errors.js"
import { type Stats, checkStats, preparePhoto } from "./guards.js"
import * as Wire from "./wire.js"

// --- Inputs and results -------------------------------------------------------------------

export interface CreateScanInput extends Stats {
  /** Base64 JPEGs; a `data:image/jpeg;base64,` prefix is stripped. Omit for a stats-only scan. */
  readonly photos?: { readonly front: string; readonly right: string }
}

export interface AdjustParameter {
  readonly name: "weight" | MeasurementName
  /** Relative change in percent of the base scan's value, not an absolute value. */
  readonly percentage: number
}

export interface ListOptions {
  /** Scans per page; the platform's default is 30. */
  readonly limit?: number
  /** `descending` (newest first) is the platform's default. */
  readonly direction?: "ascending" | "descending"
  /** A scan id: the page starts after it. */
  readonly after?: string
}

export interface ListPage {
  /** One canonical scan per summary: stats and status, no results. */
  readonly results: ReadonlyArray<Scan>
  /** The `after` of the next page; null on the last one. */
  readonly nextOffsetId: string | null
}

export type Scope = "create" | "read"

export interface ScanTokenOptions {
  /** Defaults to both: a complete scan flow creates and then reads. */
  readonly scope?: ReadonlyArray<Scope>
  /** Seconds; the platform's default and maximum is 31536000 (one year). */
  readonly lifetimeSeconds?: number
  readonly customScanId?: string
}

export interface ScanToken {
  /** A JWT for one scan. Redacted: it is safe to give a device, not to log. */
  readonly token: Redacted.Redacted<string>
  readonly expiresAt: Date
}

export interface PlatformClientOptions {
  readonly baseUrl: string
  readonly orgId: string
  /** The organization API key, sent as the raw `Authorization` header. Server side only. */
  readonly apiKey: Redacted.Redacted<string> | string
  readonly retry?: RetryOptions
  readonly transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
}

type Failure = PlatformHttpError | DecodeError

export interface PlatformClientService {
  /** Consumes one scan of quota. Never retried. A scan that failed is returned, not raised. */
  readonly createScan: (input: CreateScanInput) => Effect.Effect<Scan, Failure | PlatformInputError>
  readonly getScan: (scanId: string) => Effect.Effect<Scan, Failure>
  readonly listScans: (options?: ListOptions) => Effect.Effect<ListPage, Failure>
  /** Every page, following nextOffsetId until it is missing, null or empty. */
  readonly listAllScans: (options?: Omit<ListOptions, "after">) => Stream.Stream<Scan, Failure>
  /** A new scan from an existing one. Consumes one scan of quota. Never retried. */
  readonly adjustScan: (
    scanId: string,
    parameters: ReadonlyArray<AdjustParameter>,
    options?: { readonly customScanId?: string }
  ) => Effect.Effect<Scan, Failure | PlatformInputError>
  /** Irreversible, and not idempotent: deleting again fails with PlatformAlreadyDeletedError. */
  readonly deleteScan: (scanId: string) => Effect.Effect<string, Failure | PlatformAlreadyDeletedError>
  readonly issueScanToken: (options?: ScanTokenOptions) => Effect.Effect<ScanToken, Failure | PlatformInputError>
  /**
   * The same client presenting a scan token (`Authorization: Bearer <token>`) instead of the
   * API key: what a device does with the token a server issued it.
   */
  readonly withToken: (token: Redacted.Redacted<string> | string) => PlatformClientService
}

export class PlatformClient extends Context.Tag("@scanbridge/platform/PlatformClient")<
  PlatformClient,
  PlatformClientService
>() {
  static readonly make = (options: PlatformClientOptions) => make(options)
  static readonly layer = (options: PlatformClientOptions): Layer.Layer<PlatformClient, never, HttpClient.HttpClient> =>
    Layer.effect(PlatformClient, make(options))
  /** Reads SCANBRIDGE_PLATFORM_URL, SCANBRIDGE_ORG_ID and SCANBRIDGE_API_KEY (redacted). */
  static readonly layerConfig = (
    options?: Omit<PlatformClientOptions, "baseUrl" | "orgId" | "apiKey">
  ): Layer.Layer<PlatformClient, ConfigError.ConfigError, HttpClient.HttpClient> =>
    Layer.effect(
      PlatformClient,
      Effect.flatMap(
        Config.all({
          baseUrl: Config.string("SCANBRIDGE_PLATFORM_URL"),
          orgId: Config.string("SCANBRIDGE_ORG_ID"),
          apiKey: Config.redacted("SCANBRIDGE_API_KEY")
        }),
        (config) => make({ ...options, ...config })
      )
    )
}

// --- Implementation -----------------------------------------------------------------------

const SCOPE_NAMES: Record<Scope, string> = { create: Wire.SCOPES.create, read: Wire.SCOPES.read }

const redacted = (value: Redacted.Redacted<string> | string) => (Redacted.isRedacted(value) ? value : Redacted.make(value))

const errorMessage = Schema.decodeUnknownOption(Wire.ErrorBody)

const decodeFailure = (format: string, e: ParseResult.ParseError) => DecodeError.fromParseIssue(format, e.issue)

// The error for a non-2xx response, with the body's `message` when it has one.
const fromResponse = (method: string, url: string, response: HttpClientResponse.HttpClientResponse) =>
  response.json.pipe(
    Effect.map((body) => Option.getOrNull(Option.map(errorMessage(body), (b) => b.message))),
    Effect.orElse(() => Effect.succeed(null)),
    Effect.map((message) => statusError(method, url, response.status, message))
  )

const make = (options: PlatformClientOptions): Effect.Effect<PlatformClientService, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const base = yield* HttpClient.HttpClient
    const root = `${options.baseUrl.replace(/\/$/, "")}/api/orgs/${encodeURIComponent(options.orgId)}`
    const schedule = retrySchedule(options.retry)
    const transform = options.transformClient ?? ((c: HttpClient.HttpClient) => c)

    const build = (authorization: Redacted.Redacted<string>): PlatformClientService => {
      const http = base.pipe(
        HttpClient.mapRequest((request) =>
          request.pipe(
            HttpClientRequest.prependUrl(root),
            // The header is in @effect/platform's redacted names: it never shows in logs or errors.
            HttpClientRequest.setHeader("Authorization", Redacted.value(authorization)),
            HttpClientRequest.acceptJson
          )
        ),
        HttpClient.filterStatusOk,
        transform
      )

      // One request: a 2xx body, or the tagged error of its status or of the missing response.
      const send = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<unknown, PlatformHttpError> => {
        const method = request.method
        const url = `${root}${request.url}`
        return http.execute(request).pipe(
          Effect.flatMap((response) => response.json),
          Effect.catchAll((error) => {
            if (error._tag === "ResponseError" && error.reason === "StatusCode") {
              return Effect.flatMap(fromResponse(method, url, error.response), Effect.fail)
            }
            if (error._tag === "ResponseError") {
              return Effect.fail(statusError(method, url, error.response.status, `unreadable body (${error.reason})`))
            }
            return Effect.fail(transportError(method, url, error.reason))
          })
        )
      }

      // GET and list may repeat; create and adjust may not, since each spends quota.
      const sendIdempotent = (request: HttpClientRequest.HttpClientRequest) =>
        send(request).pipe(Effect.retry({ schedule, while: isTransient }))

      const createScan = (input: CreateScanInput) =>
        Effect.gen(function* () {
          const stats = yield* checkStats(input)
          const wireStats = { age: stats.age, gender: stats.gender, height: stats.heightMm, weight: stats.weightG }
          const body =
            input.photos === undefined
              ? { statsEstimations: wireStats }
              : {
                  photoScan: {
                    ...wireStats,
                    frontPhoto: yield* preparePhoto(["photos", "front"], input.photos.front),
                    rightPhoto: yield* preparePhoto(["photos", "right"], input.photos.right)
                  }
                }
          const json = yield* send(HttpClientRequest.post("/scans").pipe(HttpClientRequest.bodyUnsafeJson(body)))
          return yield* decodeEntryEither(json)
        }).pipe(Effect.withSpan("PlatformClient.createScan"))

      const getScan = (scanId: string) =>
        sendIdempotent(HttpClientRequest.get(`/scans/${encodeURIComponent(scanId)}`)).pipe(
          Effect.flatMap((json) => decodeEntryEither(json)),
          Effect.withSpan("PlatformClient.getScan", { attributes: { scanId } })
        )

      const listScans = (list: ListOptions = {}) => {
        const params: Record<string, string> = {}
        if (list.limit !== undefined) params["limit"] = String(list.limit)
        if (list.direction !== undefined) params["direction"] = list.direction
        if (list.after !== undefined) params["after"] = list.after
        return sendIdempotent(HttpClientRequest.get("/scans").pipe(HttpClientRequest.setUrlParams(params))).pipe(
          Effect.flatMap((json) =>
            Effect.map(decodeListPageEither(json), (results): ListPage => {
              const next = (json as { nextOffsetId?: unknown }).nextOffsetId
              return { results, nextOffsetId: typeof next === "string" && next !== "" ? next : null }
            })
          ),
          Effect.withSpan("PlatformClient.listScans")
        )
      }

      const listAllScans = (list: Omit<ListOptions, "after"> = {}) =>
        Stream.paginateChunkEffect(undefined as string | undefined, (after) =>
          Effect.map(listScans(after === undefined ? list : { ...list, after }), (page) => {
            // A server that hands back the cursor it was given would loop forever: stop there.
            const next = page.results.length === 0 || page.nextOffsetId === after ? null : page.nextOffsetId
            return [Chunk.fromIterable(page.results), Option.fromNullable(next)] as const
          })
        )

      const adjustScan = (scanId: string, parameters: ReadonlyArray<AdjustParameter>, adjust: { readonly customScanId?: string } = {}) =>
        Effect.gen(function* () {
          for (const [i, p] of parameters.entries()) {
            if (!Wire.isAdjustable(p.name)) {
              const guess = Catalogue.suggest(p.name)
              yield* Effect.fail(
                new PlatformInputError({
                  path: ["parameters", i, "name"],
                  value: p.name,
                  message: `parameters[${i}].name: ${previewValue(p.name)} is neither weight nor a measurement name${guess ? `; did you mean ${guess.name}?` : ""}`
                })
              )
            }
            if (!Number.isFinite(p.percentage)) {
              yield* Effect.fail(new PlatformInputError({ path: ["parameters", i, "percentage"], value: p.percentage, message: `parameters[${i}].percentage: expected a finite percentage` }))
            }
          }
          const body = { parameters, ...(adjust.customScanId === undefined ? {} : { customScanId: adjust.customScanId }) }
          const json = yield* send(
            HttpClientRequest.post(`/scans/${encodeURIComponent(scanId)}/adjust`).pipe(HttpClientRequest.bodyUnsafeJson(body))
          )
          return yield* decodeEntryEither(json)
        }).pipe(Effect.withSpan("PlatformClient.adjustScan", { attributes: { scanId } }))

      const decodeDeleted = Schema.decodeUnknown(Wire.DeleteResponse)

      const deleteScan = (scanId: string) =>
        send(HttpClientRequest.del(`/scans/${encodeURIComponent(scanId)}`)).pipe(
          Effect.catchTag("PlatformNotFoundError", (e) =>
            Effect.fail(new PlatformAlreadyDeletedError({ ...e, scanId, message: `${e.message} (already deleted, or never existed)` }))
          ),
          Effect.flatMap((json) =>
            Effect.mapError(decodeDeleted(json), (e) => decodeFailure("platform delete response", e))
          ),
          Effect.map((r) => r.id),
          Effect.withSpan("PlatformClient.deleteScan", { attributes: { scanId } })
        )

      const decodeToken = Schema.decodeUnknown(Wire.ScanTokenResponse)

      const issueScanToken = (token: ScanTokenOptions = {}) =>
        Effect.gen(function* () {
          const lifetime = token.lifetimeSeconds
          if (lifetime !== undefined && (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > Wire.MAX_TOKEN_LIFETIME_S)) {
            return yield* Effect.fail(
              new PlatformInputError({ path: ["lifetimeSeconds"], value: lifetime, message: `lifetimeSeconds: whole seconds, 1-${Wire.MAX_TOKEN_LIFETIME_S}` })
            )
          }
          const body = {
            scope: (token.scope ?? ["create", "read"]).map((s) => SCOPE_NAMES[s]),
            ...(lifetime === undefined ? {} : { lifetime }),
            ...(token.customScanId === undefined ? {} : { customScanId: token.customScanId })
          }
          const json = yield* send(HttpClientRequest.post("/scan-tokens").pipe(HttpClientRequest.bodyUnsafeJson(body)))
          const r = yield* Effect.mapError(decodeToken(json), (e) => decodeFailure("platform scan-token response", e))
          return { token: Redacted.make(r.token), expiresAt: new Date(r.expiresAt * 1000) }
        }).pipe(Effect.withSpan("PlatformClient.issueScanToken"))

      return {
        createScan,
        getScan,
        listScans,
        listAllScans,
        adjustScan,
        deleteScan,
        issueScanToken,
        withToken: (token) => build(Redacted.make(`Bearer ${Redacted.value(redacted(token))}`))
      }
    }

    return build(redacted(options.apiKey))
  })
