/**
 * The deprecated session API (spec 02, part A), stateful: create-session, GET results, and a
 * control endpoint that plays the user's part in the widget. Requests are read as a proto3
 * parser would (camel or snake keys, enum numbers); responses are printed as the legacy
 * server printed them.
 *
 * A session moves: created -> (the user submits stats and photos) -> processing -> results,
 * or -> an error outcome. GET results answers, in order:
 * - an unknown SSID: INVALID_SESSION_ID;
 * - results or an error outcome, once processing is done before the expiry: for good;
 * - past the expiry: SESSION_EXPIRED;
 * - submitted, processing: pending with the expiry;
 * - nothing submitted: USER_INPUT_NOT_SUBMITTED.
 *
 * Choices where spec 02 says "not shown", each tested: sessions live one hour; results that
 * were ready before the expiry stay readable after it; errors carry an HTTP status that suits
 * them (or 200 with `errorStatus: "ok"`), and the client must not depend on either. Messages
 * and statuses are @scanbridge/session's SESSION_ERROR_MESSAGES and SESSION_ERROR_STATUS, which
 * the gateway answers with too.
 *
 * Strict, as a protobuf-JSON parser is by default: a create-session body with a field the
 * message does not have is MALFORMED_REQUEST_BODY naming it; a query parameter (spec 02: "the
 * only parameter is the SSID in the path") is refused the same way, or on GET results with
 * ERROR_TYPE_UNSPECIFIED (its enum has no malformed type), both 400.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Either, Schema } from "effect"
import { GENDER_CODES, HUMAN_RANGES, Proto3, convertAngle } from "@scanbridge/model"
import {
  SESSION_ERROR_STATUS,
  SESSION_POSTURE,
  type SessionErrorType,
  type SessionLanguage,
  Wire,
  sessionDialect,
  sessionErrorMessage,
  sessionLanguage
} from "@scanbridge/session"
import { type BodyStats, ALL, avatarVertices, compositionFor, measurementsFor, postureFor, statsFor } from "./body.js"
import { unknownFields, unknownParams } from "./limits.js"

export const DEMO_SESSION_CLIENT_ID = "cl_demo_0123456789"
export const SESSION_LIFETIME_MS = 60 * 60 * 1000

export interface SessionOptions {
  /** Client ids create-session accepts. Default: DEMO_SESSION_CLIENT_ID. */
  readonly clientIds?: ReadonlyArray<string>
  /** How long a session lives. Default one hour. */
  readonly lifetimeMs?: number
  /**
   * Play the user automatically: every session is submitted when created, with stats derived
   * from its SSID, and has results this many milliseconds later. Without it the control
   * endpoint (or `Simulator.session.submit`) plays the user.
   */
  readonly completeAfterMs?: number
  /** Processing time after a submit: GET results is pending meanwhile. Default 0. */
  readonly processingMs?: number
  /** The unit of posture angles in results. Default degrees. */
  readonly angleUnit?: "degrees" | "radians"
  /** "mapped" (default): 400/401/404/500 for errors; "ok": every answer is 200. */
  readonly errorStatus?: "mapped" | "ok"
  /** Send MALFORMED_REQUEST, the name one of the spec's examples shows, for a malformed body. */
  readonly malformedAlias?: boolean
}

/** What the user submits in the widget, and how the scan ends. */
export interface SubmitInput {
  readonly age?: number
  readonly gender?: "male" | "female"
  readonly heightMm?: number
  readonly weightG?: number
  /** "success" (default) or a results error type the scan ends with. */
  readonly outcome?: "success" | "INVALID_USER_INPUT" | "ABORTED" | "INTERNAL_ERROR"
  /** Overrides the simulator's processingMs for this session. */
  readonly processingMs?: number
}

type Outcome = NonNullable<SubmitInput["outcome"]>

interface Session {
  readonly ssid: string
  readonly clientScanningId: string
  readonly language: SessionLanguage
  readonly avatar: boolean
  readonly expiresAt: number
  submitted: { readonly stats: BodyStats; readonly outcome: Outcome; readonly readyAt: number } | null
}

// --- State --------------------------------------------------------------------------------

export class SessionState {
  readonly sessions = new Map<string, Session>()
  readonly clientIds: ReadonlySet<string>
  private nextSeq = 1
  constructor(readonly options: SessionOptions = {}) {
    this.clientIds = new Set(options.clientIds ?? [DEMO_SESSION_CLIENT_ID])
  }

  create(now: number, clientScanningId: string, language: SessionLanguage, avatar: boolean): Session {
    const ssid = `ss_${(this.nextSeq++).toString(36).padStart(8, "0")}`
    const session: Session = {
      ssid,
      clientScanningId,
      language,
      avatar,
      expiresAt: now + (this.options.lifetimeMs ?? SESSION_LIFETIME_MS),
      submitted: null
    }
    const auto = this.options.completeAfterMs
    if (auto !== undefined) session.submitted = { stats: statsFor(ssid), outcome: "success", readyAt: now + auto }
    this.sessions.set(ssid, session)
    return session
  }

  /** The user's part: stats and photos are in; results follow after processing. */
  submit(now: number, ssid: string, input: SubmitInput): boolean {
    const session = this.sessions.get(ssid)
    if (session === undefined) return false
    const base = statsFor(ssid)
    session.submitted = {
      stats: {
        age: input.age ?? base.age,
        gender: input.gender ?? base.gender,
        heightMm: input.heightMm ?? base.heightMm,
        weightG: input.weightG ?? base.weightG
      },
      outcome: input.outcome ?? "success",
      readyAt: now + (input.processingMs ?? this.options.processingMs ?? 0)
    }
    return true
  }
}

// --- Responses ----------------------------------------------------------------------------

const printCreate = Proto3.printer(Wire.CreateScanningSessionResponse)
const printResults = Proto3.printer(Wire.ScanningResults)

const respond = (state: SessionState, body: unknown, key?: SessionErrorType, status?: number) =>
  HttpServerResponse.unsafeJson(body, { status: key === undefined || state.options.errorStatus === "ok" ? 200 : (status ?? SESSION_ERROR_STATUS[key] ?? 200) })

const createError = (state: SessionState, language: SessionLanguage, type: Wire.CreateErrorType, detail?: string) => {
  const alias = type === "MALFORMED_REQUEST_BODY" && state.options.malformedAlias === true
  return respond(
    state,
    printCreate({ error: { errorType: alias ? Wire.MALFORMED_REQUEST_ALIAS : type, message: sessionErrorMessage(language, type, detail) } }),
    type
  )
}

const iso = (ms: number) => new Date(ms).toISOString()

const readRequest = Proto3.reader(Wire.CreateScanningSessionRequest, "create-session request")

const createSession = (state: SessionState) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const query = unknownParams(request, "create-session request", [])
    if (query !== undefined) return createError(state, "en", "MALFORMED_REQUEST_BODY", query)
    const json = yield* Effect.either(request.json)
    if (Either.isLeft(json)) return createError(state, "en", "MALFORMED_REQUEST_BODY", "the body is not JSON")
    // The language is read first, so that even a rejection speaks it.
    const raw = json.right as { scanningConfig?: { languageCode?: unknown }; scanning_config?: { language_code?: unknown } } | null
    const rawCode = raw?.scanningConfig?.languageCode ?? raw?.scanning_config?.language_code
    const read = readRequest(json.right)
    if (Either.isLeft(read))
      return createError(state, sessionLanguage(typeof rawCode === "string" ? rawCode : undefined), "MALFORMED_REQUEST_BODY", read.left.message)
    const body = read.right.value
    const language = sessionLanguage(body.scanningConfig?.languageCode)
    const unknown = unknownFields("create-session request", read.right.ignored)
    if (unknown !== undefined) return createError(state, language, "MALFORMED_REQUEST_BODY", unknown)
    if (body.clientId === undefined || !state.clientIds.has(body.clientId)) return createError(state, language, "INVALID_CLIENT_ID")
    const now = yield* Clock.currentTimeMillis
    const session = state.create(now, body.clientScanningId ?? "", language, body.scanningConfig?.include3dAvatarInResults ?? false)
    return respond(
      state,
      printCreate({
        scanningSession: { scanningSessionId: session.ssid, clientScanningId: session.clientScanningId, expireAtTimestamp: iso(session.expiresAt) }
      })
    )
  })

const measurementItems = (stats: BodyStats): Array<Wire.MeasurementItem> => {
  const lengths = measurementsFor(stats, ALL)
  const c = compositionFor(stats)
  const statValue: Record<string, number> = {
    "subject.age": stats.age,
    "subject.gender": GENDER_CODES[stats.gender],
    "subject.heightMm": stats.heightMm,
    "subject.weightG": stats.weightG,
    "composition.bodyFatPercent": Math.round(c.percent * 10_000),
    "composition.skeletalMuscleMassG": c.skeletalMuscleMass
  }
  const items = [
    ...sessionDialect.measurementList.map(({ name, spelling }) => ({
      n: spelling.number,
      item: { measurementType: spelling.name, value: String(lengths[name]!), unit: Wire.LENGTH_UNIT }
    })),
    ...sessionDialect.statList.map(({ target, spelling }) => ({
      n: spelling.number,
      item: { measurementType: spelling.name, value: String(statValue[target]!), unit: spelling.unit }
    }))
  ]
  return items.sort((a, b) => a.n - b.n).map((i) => i.item)
}

const POSTURE_SESSION_NAME: Readonly<Record<string, string>> = { ...SESSION_POSTURE.front, ...SESSION_POSTURE.right }

const resultsFor = (state: SessionState, session: Session, stats: BodyStats): NonNullable<Wire.ScanningResults["results"]> => {
  const radians = state.options.angleUnit === "radians"
  const unit = radians ? Wire.ANGLE_RADIANS : Wire.ANGLE_DEGREES
  const angle = (deg: number) => (radians ? convertAngle(deg, "deg", "rad") : deg)
  const posture = postureFor(stats)
  return {
    measurements: measurementItems(stats),
    ...(session.avatar ? { avatar: { meshVerticesOnly: { vertices: avatarVertices(stats).flat() } } } : {}),
    posture: {
      front: {
        angles: posture.front.map((p) => ({ name: POSTURE_SESSION_NAME[p.name]!, value: angle(p.angle), unit })),
        lines: posture.front.map((p) => ({ name: POSTURE_SESSION_NAME[p.name]!, points: p.points }))
      },
      right: {
        angles: posture.right.map((p) => ({ name: POSTURE_SESSION_NAME[p.name]!, angles: p.angles.map(angle), unit })),
        lines: posture.right.map((p) => ({ name: POSTURE_SESSION_NAME[p.name]!, points: p.points }))
      }
    }
  }
}

const ssidParams = HttpRouter.schemaPathParams(Schema.Struct({ ssid: Schema.String })).pipe(Effect.orDie)

const getResults = (state: SessionState) =>
  Effect.gen(function* () {
    const { ssid } = yield* ssidParams
    const session = state.sessions.get(ssid)
    const head = (s: Session) => ({ scanningSessionId: s.ssid, clientScanningId: s.clientScanningId })
    const error = (s: Session | undefined, type: Wire.ResultsErrorType, detail?: string, status?: number) =>
      respond(
        state,
        printResults({
          ...(s ? head(s) : { scanningSessionId: ssid }),
          error: { errorType: type, message: detail ?? sessionErrorMessage(s?.language ?? "en", type) }
        }),
        type,
        status
      )
    const query = unknownParams(yield* HttpServerRequest.HttpServerRequest, "results request", [])
    if (query !== undefined) return error(session, "ERROR_TYPE_UNSPECIFIED", query, 400)
    if (session === undefined) return error(undefined, "INVALID_SESSION_ID")
    const now = yield* Clock.currentTimeMillis
    const done = session.submitted !== null && session.submitted.readyAt <= Math.min(now, session.expiresAt)
    if (done) {
      const { outcome, stats } = session.submitted!
      if (outcome !== "success") return error(session, outcome)
      return respond(state, printResults({ ...head(session), results: resultsFor(state, session, stats) }))
    }
    if (now >= session.expiresAt) return error(session, "SESSION_EXPIRED")
    if (session.submitted === null) return error(session, "USER_INPUT_NOT_SUBMITTED")
    return respond(state, printResults({ ...head(session), pending: { expireAtTimestamp: iso(session.expiresAt) } }))
  })

const SubmitBody = Schema.Struct({
  age: Schema.optionalWith(Schema.Int.pipe(Schema.between(HUMAN_RANGES.age.min, HUMAN_RANGES.age.max)), { exact: true }),
  gender: Schema.optionalWith(Schema.Literal("male", "female"), { exact: true }),
  heightMm: Schema.optionalWith(Schema.Int.pipe(Schema.between(HUMAN_RANGES.heightMm.min, HUMAN_RANGES.heightMm.max)), { exact: true }),
  weightG: Schema.optionalWith(Schema.Int.pipe(Schema.between(HUMAN_RANGES.weightG.min, HUMAN_RANGES.weightG.max)), { exact: true }),
  outcome: Schema.optionalWith(Schema.Literal("success", "INVALID_USER_INPUT", "ABORTED", "INTERNAL_ERROR"), { exact: true }),
  processingMs: Schema.optionalWith(Schema.NonNegativeInt, { exact: true })
})

/** The control endpoint: what the widget would send when the user finishes the flow. */
const submit = (state: SessionState) =>
  Effect.gen(function* () {
    const { ssid } = yield* ssidParams
    const body = yield* HttpServerRequest.schemaBodyJson(SubmitBody, { onExcessProperty: "error" }).pipe(Effect.either)
    if (Either.isLeft(body)) return HttpServerResponse.unsafeJson({ message: `submit: ${String(body.left)}` }, { status: 400 })
    const now = yield* Clock.currentTimeMillis
    if (!state.submit(now, ssid, body.right)) return HttpServerResponse.unsafeJson({ message: `unknown session ${ssid}` }, { status: 404 })
    return HttpServerResponse.unsafeJson({ scanningSessionId: ssid, submitted: true })
  })

/** The session API under /scanning/v0, and its control endpoint under /_simulator/session. */
export const sessionRouter = (state: SessionState) =>
  HttpRouter.empty.pipe(
    HttpRouter.post("/scanning/v0/create-session", createSession(state)),
    HttpRouter.get("/scanning/v0/results/:ssid", getResults(state)),
    HttpRouter.post("/_simulator/session/sessions/:ssid/submit", submit(state))
  )
