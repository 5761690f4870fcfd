/**
 * The deprecated estimation API (spec 02, part B) served on the platform, at its own paths and
 * in its own shapes: anonymous tokens for the client ids the gateway accepts, estimations
 * created from stats, front and right photos, and a read that answers `in-progress` until the
 * estimation's platform scan exists, then `completed` with its outcome. The estimation's stats
 * and photos wait in the store; once both photos are in, one platform scan is created from them
 * (customScanId = the estimation id) and the photos are deleted (internal/scan-creation.ts).
 *
 * Choices where spec 02 says "not shown", each tested (test/estimation-wire.test.ts):
 * - An access token is 256 random bits, lives `tokenLifetime` (default one hour), and is kept
 *   only as its SHA-256. A request without one is 401 `{message}`, as is one with a token the
 *   store does not hold (never issued, or swept once expired) or one past its lifetime.
 * - A client id is accepted by its SHA-256 and never echoed. Create, upload and read take the
 *   token's client id only (401 otherwise); another client's estimation, like an unknown one,
 *   is 404.
 * - No CORS headers: the client id is a secret, so the API is called from back ends (the legacy
 *   simulator's preflight does not allow the Access-Token header either).
 * - `measurement_id` is any non-empty string: the platform has no such id, so there is none to
 *   check it against. `lang` is kept and answers stay in English.
 * - A refused upload is `{message}` naming the rule the photo breaks: 413 for a photo over
 *   3 MB (read as 3,145,728 bytes, as @scanbridge/estimation's checkPhoto reads it), or an upload
 *   body too large to hold one; 400 for a photo that is not a JPEG, under 720 x 1280 or not
 *   9:16 (width x height, after EXIF orientation). A refused photo is not kept. (The legacy
 *   simulator accepts any photo and fails the job with 301-304 instead: the gateway refuses it
 *   before the platform spends a scan on it.)
 * - Strict, as the legacy simulator: a query parameter, form field or multipart part the
 *   endpoint does not take is a 400 naming it; a parameter or field given twice is a 400 too.
 * - `send_input_queue` is true once both photos are in: the gateway then holds them for the
 *   platform and creates the scan at once. A create that fails does not fail the upload; the
 *   next read tries again, after looking the scan up by its customScanId, so that a create
 *   whose answer was lost never spends a second scan. A create that may have succeeded (a
 *   timeout, a lost connection, a 5xx) is left to settle 30 seconds first; the estimation reads
 *   `in-progress` meanwhile.
 * - A photo uploaded after the platform scan exists is not kept (the platform has the two it
 *   was created from): 200 with `send_input_queue` true, the message saying so.
 * - An estimation whose photos were swept (the gateway's photoRetention, default 24 hours)
 *   before the platform took them can never complete: its upload and read answer 410
 *   `{message}` saying so, rather than `in-progress` for ever.
 * - The read's outcome: `success` with code 101, or `fail` with a code mapped from the
 *   platform's (internal/estimation-result.ts). The platform failing is 503 `{message}` with
 *   its Retry-After, or 502 when it refuses the gateway itself (internal/platform-failure.ts);
 *   nothing is lost, and the next read picks up where this one stopped. The store failing is 500.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Duration, Effect, Either, Option, ParseResult, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { Wire, checkPhoto } from "@scanbridge/estimation"
import { previewValue } from "@scanbridge/model/internal"
import { PlatformClient } from "@scanbridge/platform"
import { boundedBody } from "./internal/body.js"
import { inProgressResponse, scanResponse } from "./internal/estimation-result.js"
import { type FormPart, isFile, readMultipart } from "./internal/multipart.js"
import { type PlatformFailure, platformRefusal } from "./internal/platform-failure.js"
import { type Refusal, answered, onlyFields, queryParams, refuse } from "./internal/refusal.js"
import { ensureScan, hasBothPhotos } from "./internal/scan-creation.js"
import { GatewayConfig, digest } from "./options.js"
import { type EstimationRecord, GatewayStore, type GatewayStoreError, type TokenRecord } from "./store.js"

/** Most bytes of a create form: its seven short fields take a few hundred. */
export const MAX_FORM_BYTES = 16 * 1024

/** Spec 02's "at most 3 MB", read as checkPhoto reads it: 3 MiB. */
const MAX_PHOTO_BYTES = 3 * 1024 * 1024

/** Most bytes of an upload: a photo at the limit, and room for the other two parts and the headers. */
export const MAX_UPLOAD_BYTES = MAX_PHOTO_BYTES + 64 * 1024

const CREATE_FIELDS = Object.keys(Wire.CreateForm.fields)
const UPLOAD_PARTS = ["client_id", "pattern", "image"]

const json = (body: unknown) => HttpServerResponse.unsafeJson(body)
const iso = (ms: number) => new Date(ms).toISOString()
const random = (bytes: number) => randomBytes(bytes).toString("base64url")

// --- Tokens, clients and estimations ------------------------------------------------------

/** The request's access token, held by the store and within its lifetime. */
const accessToken = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const header = request.headers["access-token"]
  if (header === undefined || header === "") return yield* refuse(401, "missing Access-Token header")
  const token = yield* (yield* GatewayStore).token(digest(header))
  if (Option.isNone(token)) return yield* refuse(401, "invalid access token")
  if ((yield* Clock.currentTimeMillis) >= token.value.expiresAt) return yield* refuse(401, "access token expired")
  return token.value
})

const sameClient = (clientId: string | undefined, token: TokenRecord) => clientId !== undefined && digest(clientId) === token.clientKey

/** The estimation of the path, when it is the token's client's: another client's is as unknown. */
const estimationOf = (token: TokenRecord) =>
  Effect.gen(function* () {
    const id = (yield* HttpRouter.params)["id"] ?? ""
    const estimation = yield* (yield* GatewayStore).estimation(id)
    if (Option.isNone(estimation) || estimation.value.clientKey !== token.clientKey) return yield* refuse(404, `unknown estimation ${previewValue(id, 80)}`)
    return estimation.value
  })

/** Why an estimation can never complete: its photos were swept before the platform took them. */
const photosGone = (estimation: EstimationRecord) =>
  Effect.flatMap(GatewayConfig, (config) =>
    refuse(
      410,
      `estimation ${estimation.id} cannot complete: its photos were deleted ${Duration.format(config.photoRetentionMs)} after it was created, before the platform took them; create a new estimation`
    )
  )

// --- GET /tokens/anonymous ------------------------------------------------------------------

const issueToken = answered(
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { client_id } = yield* queryParams(request, "token request", ["client_id"])
    if (client_id === undefined || client_id === "") return yield* refuse(400, "client_id is required")
    const clientKey = digest(client_id)
    const config = yield* GatewayConfig
    if (!config.clientKeys.has(clientKey)) return yield* refuse(401, "invalid client_id")
    const token = random(32)
    const uid = `uid_${random(12)}`
    const now = yield* Clock.currentTimeMillis
    yield* (yield* GatewayStore).issueToken({ tokenHash: digest(token), uid, clientKey, expiresAt: now + config.tokenLifetimeMs })
    return json({ uid, access_token: token })
  })
)

// --- POST /estimation -----------------------------------------------------------------------

const decodeForm = Schema.decodeUnknownEither(Wire.CreateForm, { errors: "all" })

/** "height: Expected ..., actual "x"; age: is missing": the values quoted are the client's own stats. */
const formIssues = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => `${issue.path.join(".")}: ${issue.message}`)
    .join("; ")

const createEstimation = answered(
  Effect.gen(function* () {
    const token = yield* accessToken
    const request = yield* HttpServerRequest.HttpServerRequest
    yield* queryParams(request, "create request", [])
    const body = yield* boundedBody(MAX_FORM_BYTES, (n) => `the create form is ${n} bytes or more; the gateway takes at most ${MAX_FORM_BYTES}`)
    const params = new URLSearchParams(body.toString("utf8"))
    yield* onlyFields("create form", params.keys(), CREATE_FIELDS)
    const fields: Record<string, string | ReadonlyArray<string>> = {}
    for (const name of new Set(params.keys())) {
      const all = params.getAll(name)
      fields[name] = all.length === 1 ? all[0]! : all
    }
    const form = decodeForm(fields)
    if (Either.isLeft(form)) return yield* refuse(400, `invalid form: ${formIssues(form.left)}`)
    const { age, client_id, gender, height, lang, measurement_id, weight } = form.right
    if (!sameClient(client_id, token)) return yield* refuse(401, "client_id does not match the access token")
    if (measurement_id === "") return yield* refuse(400, "invalid measurement_id: it must not be empty")
    const id = `est_${random(16)}`
    const now = yield* Clock.currentTimeMillis
    yield* (yield* GatewayStore).createEstimation({
      id,
      clientKey: token.clientKey,
      stats: { age, gender, heightMm: height, weightG: weight },
      language: lang ?? "en",
      createdAt: now
    })
    return json({ created_at: iso(now), estimation_id: id })
  })
)

// --- POST /estimation/:id/image -------------------------------------------------------------

const tooLargeUpload = (n: number) =>
  `the upload is ${n} bytes or more: a photo may be at most 3 MB (${MAX_PHOTO_BYTES.toLocaleString("en")} bytes), and the gateway takes uploads of at most ${MAX_UPLOAD_BYTES.toLocaleString("en")} bytes`

/** The upload's parts by name, the last of a name. */
const uploadParts = (body: Uint8Array, contentType: string) =>
  Effect.gen(function* () {
    const parts = readMultipart(body, contentType)
    if (Either.isLeft(parts)) return yield* refuse(400, parts.left)
    yield* onlyFields(
      "upload form",
      parts.right.map((p) => p.name),
      UPLOAD_PARTS
    )
    return new Map(parts.right.map((p) => [p.name, p] as const))
  })

const text = (part: FormPart | undefined) => (part === undefined || isFile(part) ? undefined : Buffer.from(part.bytes).toString("utf8"))

/** The upload's answer. */
const uploaded = (estimation: EstimationRecord, both: boolean, message: string) =>
  json({ created_at: iso(estimation.createdAt), estimation_id: estimation.id, message, send_input_queue: both })

const uploadPhoto = answered(
  Effect.gen(function* () {
    const token = yield* accessToken
    const estimation = yield* estimationOf(token)
    const request = yield* HttpServerRequest.HttpServerRequest
    yield* queryParams(request, "upload request", [])
    const body = yield* boundedBody(MAX_UPLOAD_BYTES, tooLargeUpload)
    const parts = yield* uploadParts(body, request.headers["content-type"] ?? "")
    if (!sameClient(text(parts.get("client_id")), token)) return yield* refuse(401, "client_id does not match the access token")
    const pattern = text(parts.get("pattern"))
    if (pattern !== "front" && pattern !== "right") return yield* refuse(400, "pattern must be front or right")
    const image = parts.get("image")
    if (image === undefined || !isFile(image)) return yield* refuse(400, "image is required (a JPEG file part)")
    const problem = checkPhoto(image.bytes)
    if (Either.isLeft(problem)) return yield* refuse(problem.left.rule === "size" ? 413 : 400, `${pattern} photo refused: ${problem.left.message}`)
    // Once the scan exists, or is recorded while this photo arrives, the store keeps no photo.
    const record = estimation.scanId !== null ? estimation : yield* (yield* GatewayStore).putPhoto(estimation.id, pattern, image.bytes)
    if (record.scanId !== null) return uploaded(record, true, `the estimation is scheduled already; this ${pattern} photo was not kept`)
    if (!hasBothPhotos(record)) return uploaded(record, false, `${pattern} photo received`)
    // The platform takes the photos now, so they leave the store now; a create that fails is
    // logged where it fails and tried again by the next read.
    const state = yield* ensureScan(record).pipe(
      Effect.catchAll((e) =>
        Effect.as(
          e._tag === "GatewayStoreError"
            ? Effect.logError("the gateway's store failed; the next read tries again").pipe(Effect.annotateLogs("estimation", record.id))
            : Effect.void,
          undefined
        )
      )
    )
    if (state?._tag === "PhotosGone") return yield* photosGone(record)
    return uploaded(record, true, "both photos received; the estimation is scheduled")
  })
)

/** The platform's failures as the refusals a legacy client reads; the store's stay as they are. */
const platformFailed = <A, R>(effect: Effect.Effect<A, PlatformFailure | GatewayStoreError, R>): Effect.Effect<A, Refusal | GatewayStoreError, R> =>
  Effect.mapError(effect, (e) => (e._tag === "GatewayStoreError" ? e : platformRefusal(e)))

// --- GET /estimation/:id --------------------------------------------------------------------

const readEstimation = answered(
  Effect.gen(function* () {
    const token = yield* accessToken
    const request = yield* HttpServerRequest.HttpServerRequest
    const { client_id } = yield* queryParams(request, "read request", ["client_id", "lang"])
    if (!sameClient(client_id, token)) return yield* refuse(401, "client_id is required and must match the access token")
    const estimation = yield* estimationOf(token)
    const state = yield* platformFailed(ensureScan(estimation))
    if (state._tag === "Waiting") return json(inProgressResponse(estimation))
    if (state._tag === "PhotosGone") return yield* photosGone(estimation)
    const scan = yield* platformFailed((yield* PlatformClient).getScan(state.scanId))
    const response = scanResponse(estimation, scan, (yield* GatewayConfig).estimationLengthUnit)
    if (Either.isLeft(response)) {
      yield* Effect.logError("a platform scan could not be written as an estimation").pipe(Effect.annotateLogs("estimation", estimation.id))
      return yield* refuse(502, "the platform's scan could not be written in the estimation shape")
    }
    return json(response.right)
  })
)

/** The token endpoint and the estimation API, each at the path spec 02 gives it. */
export const estimationRouter = HttpRouter.empty.pipe(
  HttpRouter.get("/tokens/anonymous", issueToken),
  HttpRouter.post("/estimation", createEstimation),
  HttpRouter.post("/estimation/:id/image", uploadPhoto),
  HttpRouter.get("/estimation/:id", readEstimation)
)
