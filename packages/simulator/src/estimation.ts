/**
 * The deprecated estimation API (spec 02, part B), stateful: anonymous tokens, estimations
 * created from stats, front and right photo uploads, and a read endpoint that answers
 * `in-progress` until the job is done, then `completed` with a success or a fail and a code.
 *
 * Choices where spec 02 says "not shown", each tested:
 * - Results are written in millimetres, body fat in whole percent and muscle mass in grams;
 *   options switch each (cm, percent x 10^4, kg), so clients can be tested against each.
 * - A token lives one hour; an unknown or expired token is 401 `{message}`, as are other
 *   refusals with their status (400 bad form, 404 unknown estimation).
 * - An upload is accepted whatever the photo; a photo that breaks the limits makes the job
 *   fail with a code: 301 not a JPEG, 302 over 3 MB, 303 under 720 x 1280, 304 not 9:16. A
 *   photo holding `scanbridge-fail:<code>` fails with that code (306 is the spec's example).
 * - The job runs for 2 s after the second photo (a staging mode: 2 min), or for a number of
 *   reads when `processingPolls` is set.
 * - Strict: a query parameter, form field or multipart part the spec does not list for the
 *   endpoint (token: client_id; create: its form fields; upload: client_id, pattern, image;
 *   read: client_id, lang) is a 400 `{message}` naming it.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Either, Schema } from "effect"
import { convertLength, convertMass } from "@scanbridge/model"
import { Wire, checkPhoto, estimationDialect } from "@scanbridge/estimation"
import { type BodyStats, ALL, compositionFor, measurementsFor } from "./body.js"
import { markedFailure } from "./marker.js"
import { hash } from "./internal/random.js"
import { formOf } from "./multipart.js"
import { unknownNames, unknownParams } from "./limits.js"

export const DEMO_ESTIMATION_CLIENT_ID = "cl_demo_0123456789"
export const TOKEN_LIFETIME_MS = 60 * 60 * 1000
export const PROCESSING_MS = { production: 2_000, staging: 120_000 } as const

export interface EstimationOptions {
  /** Client ids the token endpoint accepts. Default: DEMO_ESTIMATION_CLIENT_ID. */
  readonly clientIds?: ReadonlyArray<string>
  /** Measurement ids create accepts. Default: any that is not empty. */
  readonly measurementIds?: ReadonlyArray<string>
  readonly tokenLifetimeMs?: number
  /** "staging" runs jobs for minutes instead of seconds, as the spec warns. Default production. */
  readonly mode?: "production" | "staging"
  /** How long a job runs after the second photo; overrides the mode's. */
  readonly processingMs?: number
  /** Answer in-progress to this many reads after the second photo, then completed. Overrides time. */
  readonly processingPolls?: number
  readonly lengthUnit?: "mm" | "cm"
  readonly bodyFatScale?: "percent" | "e4"
  readonly muscleMassUnit?: "g" | "kg"
}

/** Codes of jobs that fail on a photo that breaks a limit (spec 02 shows only 306). */
export const PHOTO_FAILURE_CODES = { jpeg: 301, size: 302, resolution: 303, aspect: 304 } as const

interface Token {
  readonly clientId: string
  readonly uid: string
  readonly expiresAt: number
}

interface Job {
  readonly id: string
  readonly clientId: string
  readonly stats: BodyStats
  readonly createdAt: number
  readonly photos: { front?: string | null; right?: string | null }
  scheduledAt: number | null
  reads: number
}

export class EstimationState {
  readonly tokens = new Map<string, Token>()
  readonly jobs = new Map<string, Job>()
  readonly clientIds: ReadonlySet<string>
  private nextToken = 1
  private nextJob = 1
  constructor(readonly options: EstimationOptions = {}) {
    this.clientIds = new Set(options.clientIds ?? [DEMO_ESTIMATION_CLIENT_ID])
  }

  issueToken(clientId: string, now: number): { readonly uid: string; readonly token: string } {
    const n = this.nextToken++
    const uid = `uid_${n.toString(36).padStart(6, "0")}`
    const token = `at_${hash(`${clientId}|${n}`).toString(36)}${n.toString(36)}`
    this.tokens.set(token, { clientId, uid, expiresAt: now + (this.options.tokenLifetimeMs ?? TOKEN_LIFETIME_MS) })
    return { uid, token }
  }

  createJob(clientId: string, stats: BodyStats, now: number): Job {
    const id = `est_${(this.nextJob++).toString(36).padStart(8, "0")}`
    const job: Job = { id, clientId, stats, createdAt: now, photos: {}, scheduledAt: null, reads: 0 }
    this.jobs.set(id, job)
    return job
  }

  processingMs(): number {
    return this.options.processingMs ?? PROCESSING_MS[this.options.mode ?? "production"]
  }
}

// --- Helpers ------------------------------------------------------------------------------

class Refusal {
  constructor(
    readonly status: number,
    readonly message: string
  ) {}
}

const refuse = (status: number, message: string) => Effect.fail(new Refusal(status, message))

const answer = <E, R>(
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E | Refusal, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, Exclude<E, Refusal>, R> =>
  Effect.catchAll(handler, (e) =>
    e instanceof Refusal ? Effect.succeed(HttpServerResponse.unsafeJson({ message: e.message }, { status: e.status })) : Effect.fail(e as Exclude<E, Refusal>)
  )

const iso = (ms: number) => new Date(ms).toISOString()

const tokenOf = (state: EstimationState) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const header = request.headers["access-token"]
    if (header === undefined || header === "") return yield* refuse(401, "missing Access-Token header")
    const token = state.tokens.get(header)
    if (token === undefined) return yield* refuse(401, "invalid access token")
    if ((yield* Clock.currentTimeMillis) >= token.expiresAt) return yield* refuse(401, "access token expired")
    return token
  })

const jobOf = (state: EstimationState, token: Token, id: string) => {
  const job = state.jobs.get(id)
  return job === undefined || job.clientId !== token.clientId ? refuse(404, `unknown estimation ${id}`) : Effect.succeed(job)
}

const idParams = HttpRouter.schemaPathParams(Schema.Struct({ id: Schema.String })).pipe(Effect.orDie)

/** A 400 for query parameters the endpoint does not take. */
const onlyParams = (what: string, allowed: ReadonlyArray<string>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const unknown = unknownParams(request, what, allowed)
    return unknown === undefined ? Effect.void : refuse(400, unknown)
  })

/** A 400 for fields (form fields, multipart parts) the endpoint does not take. */
const onlyFields = (what: string, names: Iterable<string>, allowed: ReadonlyArray<string>) => {
  const unknown = unknownNames(
    what,
    "field",
    [...names].filter((n) => !allowed.includes(n))
  )
  return unknown === undefined ? Effect.void : refuse(400, unknown)
}

const CREATE_FIELDS = Object.keys(Wire.CreateForm.fields)
const UPLOAD_FIELDS = ["client_id", "pattern", "image"]

// --- Endpoints ----------------------------------------------------------------------------

const anonymousToken = (state: EstimationState) =>
  answer(
    Effect.gen(function* () {
      yield* onlyParams("token request", ["client_id"])
      const query = yield* HttpServerRequest.schemaSearchParams(Schema.Struct({ client_id: Schema.optional(Schema.String) })).pipe(Effect.orDie)
      if (query.client_id === undefined || query.client_id === "") return yield* refuse(400, "client_id is required")
      if (!state.clientIds.has(query.client_id)) return yield* refuse(401, "invalid client_id")
      const issued = state.issueToken(query.client_id, yield* Clock.currentTimeMillis)
      return HttpServerResponse.unsafeJson({ uid: issued.uid, access_token: issued.token })
    })
  )

const create = (state: EstimationState) =>
  answer(
    Effect.gen(function* () {
      const token = yield* tokenOf(state)
      yield* onlyParams("create request", [])
      const request = yield* HttpServerRequest.HttpServerRequest
      const given = yield* Effect.either(request.urlParamsBody)
      if (Either.isRight(given))
        yield* onlyFields(
          "create form",
          given.right.map(([name]) => name),
          CREATE_FIELDS
        )
      const form = yield* HttpServerRequest.schemaBodyUrlParams(Wire.CreateForm).pipe(
        Effect.catchAll((e) => refuse(400, `invalid form: ${e._tag === "ParseError" ? e.message : "the body is not application/x-www-form-urlencoded"}`))
      )
      if (form.client_id !== token.clientId) return yield* refuse(401, "client_id does not match the access token")
      const ids = state.options.measurementIds
      if (form.measurement_id === "" || (ids !== undefined && !ids.includes(form.measurement_id))) return yield* refuse(400, "invalid measurement_id")
      const now = yield* Clock.currentTimeMillis
      const job = state.createJob(token.clientId, { age: form.age, gender: form.gender, heightMm: form.height, weightG: form.weight }, now)
      return HttpServerResponse.unsafeJson({ created_at: iso(now), estimation_id: job.id })
    })
  )

/** Why a photo makes the job fail, as the job's code, or null. */
const photoCode = (bytes: Uint8Array): string | null => {
  const problem = checkPhoto(bytes)
  if (Either.isLeft(problem)) return String(PHOTO_FAILURE_CODES[problem.left.rule])
  return markedFailure(bytes)
}

const upload = (state: EstimationState) =>
  answer(
    Effect.gen(function* () {
      const token = yield* tokenOf(state)
      const { id } = yield* idParams
      const job = yield* jobOf(state, token, id)
      yield* onlyParams("upload request", [])
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = yield* Effect.orElse(request.arrayBuffer, () => refuse(400, "the body could not be read"))
      const parts = yield* formOf(new Uint8Array(body), request.headers["content-type"] ?? "").pipe(
        Effect.catchTag("MultipartRefused", (e) => refuse(400, e.message))
      )
      yield* onlyFields("upload form", parts.keys(), UPLOAD_FIELDS)
      const clientId = parts.get("client_id")
      const pattern = parts.get("pattern")
      const image = parts.get("image")
      if (clientId !== token.clientId) return yield* refuse(401, "client_id does not match the access token")
      if (pattern !== "front" && pattern !== "right") return yield* refuse(400, "pattern must be front or right")
      if (!(image instanceof Uint8Array)) return yield* refuse(400, "image is required (a JPEG file part)")
      job.photos[pattern] = photoCode(image)
      const now = yield* Clock.currentTimeMillis
      const both = job.photos.front !== undefined && job.photos.right !== undefined
      if (both && job.scheduledAt === null) job.scheduledAt = now
      return HttpServerResponse.unsafeJson({
        created_at: iso(job.createdAt),
        estimation_id: job.id,
        message: both ? "both photos received; the estimation is scheduled" : `${pattern} photo received`,
        send_input_queue: both
      })
    })
  )

const resultOf = (state: EstimationState, job: Job): Wire.Result => {
  const o = state.options
  const lengthUnit = o.lengthUnit ?? "mm"
  const mm = measurementsFor(job.stats, ALL)
  const measurement: Record<string, number> = {}
  for (const { name, spelling } of estimationDialect.measurementList) measurement[spelling.name] = Math.round(convertLength(mm[name]!, "mm", lengthUnit))
  const c = compositionFor(job.stats)
  return {
    body_composition: {
      body_fat_percentage: Math.round(o.bodyFatScale === "e4" ? c.percent * 10_000 : c.percent),
      skeletal_muscle_mass: Math.round(convertMass(c.skeletalMuscleMass, "g", o.muscleMassUnit ?? "g"))
    },
    measurement,
    status: "success",
    version: "sim-1",
    work_id: `work_${job.id}`
  }
}

const itemOf = (state: EstimationState, job: Job, now: number): Wire.ReadItemJson => {
  const head = { created_at: iso(job.createdAt), estimation_id: job.id }
  if (job.scheduledAt === null) return { ...head, status: "in-progress", estimation: {} }
  job.reads++
  const polls = state.options.processingPolls
  const done = polls !== undefined ? job.reads > polls : now >= job.scheduledAt + state.processingMs()
  if (!done) return { ...head, status: "in-progress", estimation: {} }
  const s = job.stats
  const input = { age: s.age, gender: s.gender, height: s.heightMm, weight: s.weightG }
  const job_ = { version: "sim-1", work_id: `work_${job.id}` }
  const code = job.photos.front ?? job.photos.right ?? null
  if (code !== null) return { ...head, status: "completed", estimation: { code: Number(code), input, status: "fail", ...job_ } }
  return { ...head, status: "completed", estimation: { code: Wire.SUCCESS_CODE, input, result: resultOf(state, job), status: "success", ...job_ } }
}

const read = (state: EstimationState) =>
  answer(
    Effect.gen(function* () {
      const token = yield* tokenOf(state)
      const { id } = yield* idParams
      yield* onlyParams("read request", ["client_id", "lang"])
      const query = yield* HttpServerRequest.schemaSearchParams(Schema.Struct({ client_id: Schema.optional(Schema.String) })).pipe(Effect.orDie)
      if (query.client_id !== token.clientId) return yield* refuse(401, "client_id is required and must match the access token")
      const job = yield* jobOf(state, token, id)
      const item = itemOf(state, job, yield* Clock.currentTimeMillis)
      const failed = item.estimation.status === "fail"
      return HttpServerResponse.unsafeJson({
        measurements: [item],
        message: failed ? `the estimation failed with code ${item.estimation.code}` : "success",
        result: true
      })
    })
  )

/** The token endpoint and the estimation API, each under the path spec 02 gives it. */
export const estimationRouter = (state: EstimationState) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/tokens/anonymous", anonymousToken(state)),
    HttpRouter.post("/estimation", create(state)),
    HttpRouter.post("/estimation/:id/image", upload(state)),
    HttpRouter.get("/estimation/:id", read(state))
  )
