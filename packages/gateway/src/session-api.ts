/**
 * The deprecated session API (spec 02, part A) served on the platform, at its legacy paths and
 * in its legacy shapes (the legacy simulator, packages/simulator/src/session.ts, is the
 * reference of the wire):
 *
 * - `POST /scanning/v0/create-session` reads the body as a strict proto3 parser does (camel or
 *   snake keys, enum numbers; an unknown field or any query parameter is MALFORMED_REQUEST_BODY
 *   naming it, in the session's language, which is read first), checks the client id by its
 *   SHA-256 (never echoed), issues a platform scan token (scopes create and read, lifetime the
 *   session's, customScanId below), stores the session under a random SSID, and answers
 *   `scanningSession` with the token's expiry.
 * - `GET /scanning/v0/results/{SSID}` answers `results` once the platform holds the scan the
 *   session's token created (found by its customScanId, created in the session's window, and
 *   claimed in the store so that it belongs to one session), encoded as the legacy server
 *   printed results (@scanbridge/session's `encodeResultsEither`); `pending` with the expiry
 *   until then; `SESSION_EXPIRED` once the expiry passes with no scan; `INVALID_SESSION_ID` for
 *   an SSID the gateway never issued.
 * - `GET /gateway/v0/sessions/{SSID}/scanner` (the gateway's own): `{url, expireAtTimestamp}`,
 *   the hosted scanner's address for the session, for the integrator's back end and the widget.
 *
 * What the vendor's documents leave out, and what the gateway does:
 * - A clientScanningId given to two sessions at once ("may be reused"). The token's customScanId
 *   is the clientScanningId unless another session that holds no scan yet took it and expired
 *   less than five minutes ago (CLOCK_SKEW_MS) or not at all; then, and when it is absent or
 *   cannot be a customScanId (over 512 characters, a lone surrogate), a gateway id `gw_...`.
 *   The check and the store's write are one atomic step (createSessionUnlessOpen), so two
 *   sessions waiting at once never share a customScanId, and a scan belongs to one session
 *   (claimScan): two sessions can never be given each other's scans. The clientScanningId is
 *   echoed as given either way.
 * - Pending or not submitted: the platform has no scan until the user finishes, so the gateway
 *   cannot tell a user who has not started from one who is scanning. It answers `pending`
 *   (spec 02: "retry after a couple of seconds"), never USER_INPUT_NOT_SUBMITTED, which stops
 *   old code that polls.
 * - A failed platform scan is INVALID_USER_INPUT (the platform fails a scan for the photos or
 *   stats it was given), its message in the session's language with the platform's code in
 *   brackets; answered 200, as a results error describing the scan is.
 * - `include3dAvatarInResults`: the avatar is left out. The platform's avatar is a model file
 *   (OBJ, GLB) with a mesh of its own, and the session API's is a vertex list that old code
 *   draws with the vendor's static index data: the platform's vertices under those indices
 *   would draw a wrong body, which is worse than none.
 * - HTTP statuses (spec 02: "not shown"): those of @scanbridge/session's SESSION_ERROR_STATUS,
 *   which the legacy simulator answers too (INVALID_CLIENT_ID 401, MALFORMED_REQUEST_BODY 400,
 *   INVALID_SESSION_ID 404, INTERNAL_ERROR 500, the rest 200), and for an INTERNAL_ERROR the
 *   status the estimation API gives the same failure: the platform unavailable (5xx, 429, a
 *   timeout, no connection) 503 with the platform's Retry-After passed on, so that the same
 *   request is tried again later; the platform refusing the gateway's own request (its key,
 *   say) or answering what the gateway cannot use 502; the store failing 500. Nothing is lost:
 *   the next read finds the scan again.
 * - The hosted scanner's address (document 1: "not shown"): the gateway's scannerAddress, with
 *   `{LOCALE}` the session's languageCode where the scanner has it (else `en`) or the `locale`
 *   parameter, the form's parameters when the stats are given (under the widget's `userStats`
 *   names: heightCm, weightKg, or heightFt, heightIn, weightLbs; age; gender), and the scan
 *   token as a `token` query parameter. Unknown SSID 404 `{message}`; a session whose scan is
 *   in, or expired, 410; bad parameters 400 naming them; no scannerAddress configured 501.
 * - CORS `*` on GET results and the scanner endpoint (pages call them; the SSID is their only
 *   credential); none on create-session, whose client id is a back end's secret.
 *   `Cache-Control: no-store` on both: they carry personal data and a token.
 * - No response of the legacy API ever carries a field of the gateway's own: strict proto3
 *   parsers refuse one.
 *
 * The SSID, the client id, the scan token and the clientScanningId (which may be a user id)
 * appear in no log line or span: failures are logged by their kind only.
 */
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Either, Option, Redacted, Schema } from "effect"
import { type EncodeError, Proto3, isLocale } from "@scanbridge/model"
import { unknownFields, unknownNames } from "@scanbridge/model/internal"
import { PlatformClient, Wire as PlatformWire, hostedScannerUrl } from "@scanbridge/platform"
import {
  SESSION_ERROR_STATUS,
  type SessionErrorType,
  type SessionLanguage,
  Wire,
  encodeResultsEither,
  sessionErrorMessage,
  sessionLanguage
} from "@scanbridge/session"
import { type PlatformFailure, failureKind, platformRefusal } from "./internal/platform-failure.js"
import { readScannerQuery } from "./internal/scanner-query.js"
import { customScanIdOf, gatewayScanId, newSsid } from "./internal/session-ids.js"
import { CLOCK_SKEW_MS, asSessionScan, sessionScan } from "./internal/session-scan.js"
import { GatewayConfig, digest } from "./options.js"
import { GatewayStore, type GatewayStoreError, type SessionRecord } from "./store.js"

/** The largest create-session body read: a clientScanningId and two settings fit many times over. */
export const MAX_CREATE_BODY_BYTES = 64 * 1024

const CORS = { "access-control-allow-origin": "*" }
const NO_STORE = { "cache-control": "no-store" }

const printCreate = Proto3.printer(Wire.CreateScanningSessionResponse)
const printResults = Proto3.printer(Wire.ScanningResults)
const readCreate = Proto3.reader(Wire.CreateScanningSessionRequest, "create-session request")

const iso = (ms: number) => new Date(ms).toISOString()

const statusOf = (type: SessionErrorType): number => SESSION_ERROR_STATUS[type] ?? 200

/** What can stop a session endpoint that is no fault of the request. */
type Failure = PlatformFailure | GatewayStoreError | EncodeError

/**
 * An INTERNAL_ERROR's status and headers, as the estimation API answers the same failure
 * (internal/platform-failure.ts): the platform unavailable 503 with its Retry-After, the platform
 * refusing the gateway's own request or answering what it cannot use 502, the store 500.
 */
const internalError = (failure: Failure): { readonly status: number; readonly headers: Record<string, string> } => {
  if (failure._tag === "GatewayStoreError") return { status: 500, headers: {} }
  if (failure._tag === "EncodeError") return { status: 502, headers: {} }
  const { status, retryAfter } = platformRefusal(failure)
  return { status, headers: retryAfter === undefined ? {} : { "retry-after": String(retryAfter) } }
}

/** A failure logged by its kind alone: its message may hold a customScanId, which may be a user id. */
const logFailure = (call: string, failure: Failure) =>
  Effect.logWarning(
    `${call}: answered INTERNAL_ERROR (${failure._tag === "GatewayStoreError" || failure._tag === "EncodeError" ? failure._tag : failureKind(failure)})`
  )

const queryNames = (request: HttpServerRequest.HttpServerRequest) => [...new URL(request.url, "http://gateway.invalid").searchParams.keys()]

/** The language a session's messages are written in, from what the store holds. */
const messageLanguage = (session: SessionRecord | undefined): SessionLanguage => sessionLanguage(session?.language)

// --- create-session -----------------------------------------------------------------------

const createError = (language: SessionLanguage, type: Wire.CreateErrorType, detail?: string, answer = { status: statusOf(type), headers: {} }) =>
  HttpServerResponse.unsafeJson(printCreate({ error: { errorType: type, message: sessionErrorMessage(language, type, detail) } }), answer)

/**
 * The session's language as stored: its languageCode where the hosted scanner speaks it (the
 * scanner's default locale), else `en`, as spec 02 says for an absent or unsupported one.
 */
const languageOf = (code: string | undefined): string => (code !== undefined && /^[a-z]{2}$/.test(code) && isLocale(code) ? code : "en")

const lifetimeSeconds = (ms: number) => Math.min(PlatformWire.MAX_TOKEN_LIFETIME_S, Math.max(1, Math.ceil(ms / 1000)))

/** Issues the session's scan token and stores the session, its customScanId chosen by the rule above. */
const openSession = (request: Wire.CreateScanningSessionRequest, clientKey: string) =>
  Effect.gen(function* () {
    const config = yield* GatewayConfig
    const store = yield* GatewayStore
    const platform = yield* PlatformClient
    const now = yield* Clock.currentTimeMillis
    // A session that took a customScanId keeps it until this long after its expiry.
    const openAfter = now - CLOCK_SKEW_MS
    const issue = (customScanId: string) =>
      Effect.map(
        platform.issueScanToken({ scope: ["create", "read"], lifetimeSeconds: lifetimeSeconds(config.sessionLifetimeMs), customScanId }),
        (token): SessionRecord => ({
          ssid: newSsid(),
          clientScanningId: request.clientScanningId ?? "",
          customScanId,
          clientKey,
          language: languageOf(request.scanningConfig?.languageCode),
          avatar: request.scanningConfig?.include3dAvatarInResults ?? false,
          scanToken: token.token,
          createdAt: now,
          expiresAt: token.expiresAt.getTime(),
          scanId: null
        })
      )
    const own = customScanIdOf(request.clientScanningId)
    if (own !== undefined && !(yield* store.openSessionWith(own, openAfter))) {
      const session = yield* issue(own)
      // Another create with this clientScanningId may have come in between: then this token,
      // never handed out, is left to expire (tokens cost no quota).
      if (yield* store.createSessionUnlessOpen(session, openAfter)) return session
    }
    const session = yield* issue(gatewayScanId())
    yield* store.createSession(session)
    return session
  })

const createSession = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const query = unknownNames("create-session request", "query parameter", queryNames(request))
  if (query !== undefined) return createError("en", "MALFORMED_REQUEST_BODY", query)
  // Refused unread when its length says so; a body sent in chunks is cut off at the limit.
  if (Number(request.headers["content-length"] ?? 0) > MAX_CREATE_BODY_BYTES)
    return createError("en", "MALFORMED_REQUEST_BODY", `the body is larger than ${MAX_CREATE_BODY_BYTES} bytes`)
  const json = yield* Effect.either(HttpIncomingMessage.withMaxBodySize(request.json, Option.some(MAX_CREATE_BODY_BYTES)))
  if (Either.isLeft(json)) return createError("en", "MALFORMED_REQUEST_BODY", "the body is not JSON")
  // The language is read first, so that even a rejection speaks it.
  const raw = json.right as { scanningConfig?: { languageCode?: unknown }; scanning_config?: { language_code?: unknown } } | null
  const rawLanguage = sessionLanguage(raw?.scanningConfig?.languageCode ?? raw?.scanning_config?.language_code)
  const read = readCreate(json.right)
  if (Either.isLeft(read)) return createError(rawLanguage, "MALFORMED_REQUEST_BODY", read.left.message)
  const body = read.right.value
  const language = sessionLanguage(body.scanningConfig?.languageCode)
  const unknown = unknownFields("create-session request", read.right.ignored)
  if (unknown !== undefined) return createError(language, "MALFORMED_REQUEST_BODY", unknown)
  const config = yield* GatewayConfig
  const clientKey = body.clientId === undefined ? undefined : digest(body.clientId)
  if (clientKey === undefined || !config.clientKeys.has(clientKey)) return createError(language, "INVALID_CLIENT_ID")
  return yield* openSession(body, clientKey).pipe(
    Effect.map((session) =>
      HttpServerResponse.unsafeJson(
        printCreate({
          scanningSession: { scanningSessionId: session.ssid, clientScanningId: session.clientScanningId, expireAtTimestamp: iso(session.expiresAt) }
        })
      )
    ),
    Effect.catchAll((failure) => Effect.as(logFailure("create-session", failure), createError(language, "INTERNAL_ERROR", undefined, internalError(failure))))
  )
}).pipe(Effect.withSpan("Gateway.createSession"))

// --- results ------------------------------------------------------------------------------

const ssidParams = HttpRouter.schemaPathParams(Schema.Struct({ ssid: Schema.String })).pipe(Effect.orDie)

const getResults = Effect.gen(function* () {
  const { ssid } = yield* ssidParams
  const request = yield* HttpServerRequest.HttpServerRequest
  const store = yield* GatewayStore
  const found = yield* Effect.either(store.session(ssid))
  const session = Either.isRight(found) ? Option.getOrUndefined(found.right) : undefined
  const language = messageLanguage(session)
  const head = session === undefined ? { scanningSessionId: ssid } : { scanningSessionId: session.ssid, clientScanningId: session.clientScanningId }
  const answer = (body: Partial<Wire.ScanningResultsJson>, status = 200, headers: Record<string, string> = {}) =>
    HttpServerResponse.unsafeJson(printResults({ ...head, ...body }), { status, headers })
  const error = (type: Wire.ResultsErrorType, detail?: string, status = statusOf(type), headers: Record<string, string> = {}) =>
    answer({ error: { errorType: type, message: detail ?? sessionErrorMessage(language, type) } }, status, headers)
  const failed = (failure: Failure) => {
    const { status, headers } = internalError(failure)
    return Effect.as(logFailure("results", failure), error("INTERNAL_ERROR", undefined, status, headers))
  }

  // The results request has no malformed type: as the legacy simulator, ERROR_TYPE_UNSPECIFIED, 400.
  const query = unknownNames("results request", "query parameter", queryNames(request))
  if (query !== undefined) return error("ERROR_TYPE_UNSPECIFIED", query, 400)
  if (Either.isLeft(found)) return yield* failed(found.left)
  if (session === undefined) return error("INVALID_SESSION_ID")
  const scan = yield* Effect.either(sessionScan(session))
  if (Either.isLeft(scan)) return yield* failed(scan.left)
  if (Option.isSome(scan.right)) {
    const encoded = encodeResultsEither(asSessionScan(scan.right.value, session, language))
    if (Either.isLeft(encoded)) return yield* failed(encoded.left)
    const printed = encoded.right.value
    return HttpServerResponse.unsafeJson(printed, { status: printed.error === undefined ? 200 : statusOf(printed.error.errorType as SessionErrorType) })
  }
  if ((yield* Clock.currentTimeMillis) >= session.expiresAt) return error("SESSION_EXPIRED")
  return answer({ pending: { expireAtTimestamp: iso(session.expiresAt) } })
}).pipe(
  Effect.map((response) => HttpServerResponse.setHeaders(response, { ...CORS, ...NO_STORE })),
  Effect.withSpan("Gateway.sessionResults")
)

// --- the hosted scanner's address ---------------------------------------------------------

const message = (status: number, text: string, headers: Record<string, string> = {}) => HttpServerResponse.unsafeJson({ message: text }, { status, headers })

const scannerAddress = Effect.gen(function* () {
  const { ssid } = yield* ssidParams
  const query = readScannerQuery(yield* HttpServerRequest.HttpServerRequest)
  if (Either.isLeft(query)) return message(400, query.left)
  const found = yield* Effect.either((yield* GatewayStore).session(ssid))
  if (Either.isLeft(found)) return yield* Effect.as(logFailure("scanner", found.left), message(500, "internal error: the gateway's store failed"))
  if (Option.isNone(found.right)) return message(404, "no such scanning session")
  const session = found.right.value
  if (session.scanId !== null) return message(410, "this scanning session has its scan already")
  if ((yield* Clock.currentTimeMillis) >= session.expiresAt) return message(410, "this scanning session has expired")
  const address = (yield* GatewayConfig).scannerAddress
  if (address === undefined) return message(501, "this gateway has no hosted scanner address (its scannerAddress option)")
  const { locale, subject, systemOfMeasurement } = query.right
  const url = hostedScannerUrl({ address, locale: locale ?? session.language, systemOfMeasurement, ...(subject === undefined ? {} : { subject }) })
  if (Either.isLeft(url)) {
    // The address is the gateway's own setting; anything else is the request's.
    const [field] = url.left.path
    return field === "address" ? message(500, `the gateway's scannerAddress: ${url.left.message}`) : message(400, url.left.message)
  }
  const withToken = new URL(url.right)
  withToken.searchParams.set("token", Redacted.value(session.scanToken))
  return HttpServerResponse.unsafeJson({ url: withToken.href, expireAtTimestamp: iso(session.expiresAt) })
}).pipe(
  Effect.map((response) => HttpServerResponse.setHeaders(response, { ...CORS, ...NO_STORE })),
  Effect.withSpan("Gateway.scannerAddress")
)

// Preflight, for pages whose requests are not simple ones: the two GET endpoints pages call.
const preflight = Effect.succeed(
  HttpServerResponse.empty({ status: 204, headers: { ...CORS, "access-control-allow-methods": "GET, OPTIONS", "access-control-max-age": "600" } })
)

/** The session API's routes and the gateway's session endpoint. Needs GatewayConfig, GatewayStore and PlatformClient. */
export const sessionRouter = HttpRouter.empty.pipe(
  HttpRouter.post("/scanning/v0/create-session", createSession),
  HttpRouter.get("/scanning/v0/results/:ssid", getResults),
  HttpRouter.options("/scanning/v0/results/:ssid", preflight),
  HttpRouter.get("/gateway/v0/sessions/:ssid/scanner", scannerAddress),
  HttpRouter.options("/gateway/v0/sessions/:ssid/scanner", preflight)
)
