/**
 * PlatformClient: the Scan Platform REST API as an Effect service over HttpClient. Results come
 * back as canonical scans; failures as one tagged error per status class.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { ConfigError, Duration } from "effect"
import { Chunk, Config, Context, Effect, Either, Layer, Option, Redacted, Stream } from "effect"
import { Catalogue, type DecodeError, type MeasurementName, type Scan, type Stats } from "@scanbridge/model"
import { previewValue, schemaDecoder } from "@scanbridge/model/adapter"
import { ApiClient, type RetryOptions } from "@scanbridge/http"
import { decodeEntryEither, decodeListPageEither } from "./codec.js"
import { PlatformAlreadyDeletedError, type PlatformHttpError, PlatformInputError, PlatformStatusError, type PlatformStatusReason } from "./errors.js"
import { checkStats, preparePhoto } from "./internal/guards.js"
import * as Wire from "./wire.js"

// --- Inputs and results -------------------------------------------------------------------

export interface CreateScanInput extends Stats {
  /** Base64 JPEGs; a `data:image/jpeg;base64,` prefix is stripped. Omit for a stats-only scan. */
  readonly photos?: { readonly front: string; readonly right: string }
  /**
   * The integrator's own id of the scan (an order number, say), up to 512 characters; the scan
   * reads back with it as `externalId`, and listScans({ customScanId }) finds it again. A scan
   * token issued with a customScanId already carries it: give the same one or none.
   */
  readonly customScanId?: string
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
  /** Only the scans created (or adjusted) with exactly this customScanId. */
  readonly customScanId?: string
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
  /** Retries of get and list on 5xx, 429 and transport errors; Retry-After is honoured. */
  readonly retry?: RetryOptions
  /** Longest wait for one response. Default 60 seconds (`ApiClient.DEFAULT_TIMEOUT`). */
  readonly timeout?: Duration.DurationInput
  /** Most bytes of one response body read; beyond, ApiResponseTooLargeError. Default 16 MiB (`ApiClient.DEFAULT_MAX_RESPONSE_BYTES`). */
  readonly maxResponseBytes?: number
  readonly transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
}

type Failure = PlatformHttpError | DecodeError

export interface PlatformClientService {
  /** Consumes one scan of quota. Never retried. A scan that failed is returned, not raised. */
  readonly createScan: (input: CreateScanInput) => Effect.Effect<Scan, Failure | PlatformInputError>
  readonly getScan: (scanId: string) => Effect.Effect<Scan, Failure>
  /** PlatformInputError: a customScanId filter longer than any the platform stores. */
  readonly listScans: (options?: ListOptions) => Effect.Effect<ListPage, Failure | PlatformInputError>
  /** Every page, following nextOffsetId until it is missing, null or empty. */
  readonly listAllScans: (options?: Omit<ListOptions, "after">) => Stream.Stream<Scan, Failure | PlatformInputError>
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

export class PlatformClient extends Context.Tag("@scanbridge/platform/PlatformClient")<PlatformClient, PlatformClientService>() {
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

const decodeDeleted = schemaDecoder(Wire.DeleteResponse, "platform delete response")
const decodeToken = schemaDecoder(Wire.ScanTokenResponse, "platform scan-token response")

const decodeListPage = (json: unknown): Either.Either<ListPage, DecodeError> =>
  Either.map(decodeListPageEither(json), (results) => {
    const next = (json as { nextOffsetId?: unknown }).nextOffsetId
    return { results, nextOffsetId: typeof next === "string" && next !== "" ? next : null }
  })

// The documented statuses, each with its reason and the words its message says it in.
const STATUSES: ReadonlyMap<number, readonly [PlatformStatusReason, string]> = new Map([
  [400, ["BadRequest", "bad request"]],
  [401, ["Unauthorized", "bad or missing credential"]],
  [403, ["Forbidden", "not permitted"]],
  [404, ["NotFound", "not found"]],
  [429, ["RateLimited", "rate limit or quota exhausted"]]
])

/** The platform's error for a response outside 2xx: its reason by status, with the body's `message`. */
const classify = (r: ApiClient.FailedResponse): PlatformStatusError => {
  const message = ApiClient.bodyMessage(r.body)
  const [reason, meaning] = STATUSES.get(r.status) ?? ["Server", r.status >= 500 ? "server error" : "undocumented status"]
  return new PlatformStatusError({ ...ApiClient.statusErrorFields(r, ` (${meaning})${message === null ? "" : `: ${message}`}`), reason })
}

// What a caller whose create or adjust timed out should know: it may have happened.
const MAY_EXIST = "the scan may have been created and its quota spent: look for it with listScans (newest first)"

const mayExist = (customScanId: string | undefined) => (customScanId === undefined ? MAY_EXIST : `${MAY_EXIST}, customScanId ${customScanId}`)

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * A customScanId the platform would refuse, refused here first, where the caller's mistake is
 * clearest. A lone surrogate too: a query string carries it as U+FFFD, so the list would look
 * for another id than the one stored.
 */
const checkCustomScanId = (id: string | undefined): Either.Either<string | undefined, PlatformInputError> => {
  if (id === undefined) return Either.right(id)
  const problem =
    typeof id !== "string"
      ? "expected a string"
      : id.length > Wire.MAX_CUSTOM_SCAN_ID
        ? `${id.length} characters; the platform takes at most ${Wire.MAX_CUSTOM_SCAN_ID}`
        : LONE_SURROGATE.test(id)
          ? "holds a lone surrogate (not well-formed UTF-16), which no request can carry unchanged"
          : undefined
  return problem === undefined
    ? Either.right(id)
    : Either.left(
        new PlatformInputError({ path: ["customScanId"], value: typeof id === "string" ? previewValue(id, 40) : id, message: `customScanId: ${problem}` })
      )
}

const make = (options: PlatformClientOptions): Effect.Effect<PlatformClientService, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const api = yield* ApiClient.make({
      api: "platform",
      baseUrl: `${options.baseUrl.replace(/\/$/, "")}/api/orgs/${encodeURIComponent(options.orgId)}`,
      auth: ApiClient.Auth.header("Authorization", options.apiKey),
      classify,
      ...(options.retry === undefined ? {} : { retry: options.retry }),
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
      ...(options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes }),
      ...(options.transformClient === undefined ? {} : { transformClient: options.transformClient })
    })

    const service = (http: typeof api): PlatformClientService => {
      const createScan = (input: CreateScanInput) =>
        Effect.gen(function* () {
          const stats = yield* checkStats(input)
          const customScanId = yield* checkCustomScanId(input.customScanId)
          const wireStats = { age: stats.age, gender: stats.gender, height: stats.heightMm, weight: stats.weightG }
          const body: Wire.CreateScanRequest = {
            ...(input.photos === undefined
              ? { statsEstimations: wireStats }
              : {
                  photoScan: {
                    ...wireStats,
                    frontPhoto: yield* preparePhoto(["photos", "front"], input.photos.front),
                    rightPhoto: yield* preparePhoto(["photos", "right"], input.photos.right)
                  }
                }),
            ...(customScanId === undefined ? {} : { customScanId })
          }
          return yield* http.execute({
            method: "POST",
            path: "/scans",
            body: http.json(Wire.CreateScanRequest, body),
            idempotent: false,
            onTimeout: mayExist(customScanId),
            decode: (json) => decodeEntryEither(json)
          })
        }).pipe(Effect.withSpan("PlatformClient.createScan"))

      const getScan = (scanId: string) =>
        http
          .execute({ method: "GET", path: `/scans/${encodeURIComponent(scanId)}`, idempotent: true, decode: (json) => decodeEntryEither(json) })
          .pipe(Effect.withSpan("PlatformClient.getScan", { attributes: { scanId } }))

      const listScans = (list: ListOptions = {}) =>
        Effect.gen(function* () {
          const query: Record<string, string> = {}
          if (list.limit !== undefined) query["limit"] = String(list.limit)
          if (list.direction !== undefined) query["direction"] = list.direction
          if (list.after !== undefined) query["after"] = list.after
          const customScanId = yield* checkCustomScanId(list.customScanId)
          if (customScanId !== undefined) query["customScanId"] = customScanId
          return yield* http.execute({ method: "GET", path: "/scans", query, idempotent: true, decode: decodeListPage })
        }).pipe(Effect.withSpan("PlatformClient.listScans"))

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
              yield* Effect.fail(
                new PlatformInputError({
                  path: ["parameters", i, "percentage"],
                  value: p.percentage,
                  message: `parameters[${i}].percentage: expected a finite percentage`
                })
              )
            }
          }
          const customScanId = yield* checkCustomScanId(adjust.customScanId)
          const body: Wire.AdjustRequest = { parameters, ...(customScanId === undefined ? {} : { customScanId }) }
          return yield* http.execute({
            method: "POST",
            path: `/scans/${encodeURIComponent(scanId)}/adjust`,
            body: http.json(Wire.AdjustRequest, body),
            idempotent: false,
            onTimeout: mayExist(customScanId),
            decode: (json) => decodeEntryEither(json)
          })
        }).pipe(Effect.withSpan("PlatformClient.adjustScan", { attributes: { scanId } }))

      // Not idempotent: a second delete is a 404, so a delete is never repeated.
      const deleteScan = (scanId: string) =>
        http.execute({ method: "DELETE", path: `/scans/${encodeURIComponent(scanId)}`, idempotent: false, decode: decodeDeleted }).pipe(
          Effect.catchTag(
            "PlatformStatusError",
            (e): Effect.Effect<never, PlatformStatusError | PlatformAlreadyDeletedError> =>
              e.reason === "NotFound"
                ? Effect.fail(new PlatformAlreadyDeletedError({ ...e, scanId, message: `${e.message} (already deleted, or never existed)` }))
                : Effect.fail(e)
          ),
          Effect.map((r) => r.id),
          Effect.withSpan("PlatformClient.deleteScan", { attributes: { scanId } })
        )

      const issueScanToken = (token: ScanTokenOptions = {}) =>
        Effect.gen(function* () {
          const lifetime = token.lifetimeSeconds
          if (lifetime !== undefined && (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > Wire.MAX_TOKEN_LIFETIME_S)) {
            return yield* Effect.fail(
              new PlatformInputError({ path: ["lifetimeSeconds"], value: lifetime, message: `lifetimeSeconds: whole seconds, 1-${Wire.MAX_TOKEN_LIFETIME_S}` })
            )
          }
          const customScanId = yield* checkCustomScanId(token.customScanId)
          const body: Wire.ScanTokenRequest = {
            scope: (token.scope ?? ["create", "read"]).map((s) => SCOPE_NAMES[s]),
            ...(lifetime === undefined ? {} : { lifetime }),
            ...(customScanId === undefined ? {} : { customScanId })
          }
          // A POST that creates a token: not repeated.
          const r = yield* http.execute({
            method: "POST",
            path: "/scan-tokens",
            body: http.json(Wire.ScanTokenRequest, body),
            idempotent: false,
            decode: decodeToken
          })
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
        withToken: (token) => service(http.withAuth(ApiClient.Auth.bearer(token)))
      }
    }

    return service(api)
  })
