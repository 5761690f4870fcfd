/**
 * The Scan Platform REST API (spec 01), stateful: organizations with API keys and quotas,
 * stored scans, pagination, adjust, delete and scan tokens.
 *
 * Choices where the spec says "not shown", each tested:
 * - A scan token is presented as `Authorization: Bearer <jwt>`; an API key stays the raw header.
 * - A token creates exactly one scan; with the read scope it then reads that scan only. Tokens
 *   cannot list, adjust, delete or issue tokens (403).
 * - `limit` is 1-100. An `after` id the simulator never issued is a 400; a deleted one still
 *   marks its place, so paging survives deletes.
 * - Adjusting a failed scan is refused with 400 before any quota is spent.
 * - Create takes `customScanId` (the vendor's examples send it); a scan token issued with one
 *   gives it to the scan it creates, and a create with a token refuses another one (400). The
 *   list takes `customScanId` and keeps the scans with exactly that id.
 * - Unknown body keys (at any depth) and unknown query parameters are a 400 naming them, as a
 *   strict server answers: the live API may drop them silently, and a client must not rely on
 *   a field it does not send as the spec describes.
 * - A JPEG whose bytes contain `scanbridge-fail:<code>` fails with that code (for testing
 *   scan-level errors such as rightPhotoFacingWrongDirection).
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Either, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { Catalogue, HUMAN_RANGES, type MeasurementName } from "@scanbridge/model"
import { isBase64 } from "@scanbridge/model/internal"
import { Wire } from "@scanbridge/platform"
import { ALL, type BodyStats, STATS_ONLY, avatarFor, compositionFor, isBreadth, measurementsFor, postureFor } from "./body.js"
import { sign, verify } from "./internal/jwt.js"
import { queryOf, strictDecoder, unknownParams } from "./limits.js"
import { markedFailure } from "./marker.js"

export interface OrgOptions {
  readonly id: string
  readonly apiKeys: ReadonlyArray<string>
  /** Scans left; a free account's trial starts with 5. */
  readonly quota?: number
}

export interface PlatformOptions {
  readonly orgs?: ReadonlyArray<OrgOptions>
  /** How the last list page says so: all three are allowed by the spec. Default "empty". */
  readonly listEnd?: "missing" | "null" | "empty"
  /**
   * HMAC secret of scan tokens. Default: random to each start, so that no one can sign tokens
   * without it; give one to keep tokens valid across starts.
   */
  readonly tokenSecret?: Redacted.Redacted<string>
}

export const TRIAL_QUOTA = 5
export const MAX_LIST_LIMIT = 100
export const DEMO_ORG: OrgOptions = { id: "org_demo", apiKeys: ["sk_demo_0123456789"] }

/** A rejection: HTTP status and the `{message}` body. */
export class ApiFailure {
  readonly _tag = "ApiFailure"
  constructor(
    readonly status: number,
    readonly message: string
  ) {}
}

interface Org {
  readonly id: string
  quota: number
}

interface StoredScan {
  readonly seq: number
  readonly orgId: string
  readonly createdAt: number
  readonly memberId: string
  readonly method: "stats" | "photo" | "adjusted"
  readonly entry: Wire.EntryJson
}

type Principal =
  | { readonly kind: "key"; readonly orgId: string; readonly memberId: string }
  | {
      readonly kind: "token"
      readonly orgId: string
      readonly memberId: string
      readonly jti: string
      readonly scopes: ReadonlyArray<string>
      readonly customScanId: string | null
    }

/** The mark of a scan token whose scan is being created. */
const IN_USE = "(in use)"

const scanId = (seq: number) => `scan_${seq.toString(36).padStart(6, "0")}`
const seqOf = (id: string): number | undefined => {
  const m = /^scan_([0-9a-z]{6,})$/.exec(id)
  return m ? parseInt(m[1]!, 36) : undefined
}

/** The simulator's platform state; handlers mutate it synchronously, one request at a time. */
export class PlatformState {
  readonly orgs = new Map<string, Org>()
  readonly keys = new Map<string, { readonly orgId: string; readonly memberId: string }>()
  readonly scans = new Map<string, StoredScan>()
  /** Token id -> the scan it created, or IN_USE while a request creates it. */
  readonly spentTokens = new Map<string, string>()
  readonly listEnd: "missing" | "null" | "empty"
  readonly secret: Redacted.Redacted<string>
  private nextSeq = 1
  private nextJti = 1

  constructor(options: PlatformOptions = {}) {
    this.listEnd = options.listEnd ?? "empty"
    this.secret = options.tokenSecret ?? Redacted.make(randomBytes(32).toString("base64url"))
    for (const org of options.orgs ?? [DEMO_ORG]) this.addOrg(org)
  }

  addOrg(org: OrgOptions): void {
    this.orgs.set(org.id, { id: org.id, quota: org.quota ?? TRIAL_QUOTA })
    org.apiKeys.forEach((key, i) => this.keys.set(key, { orgId: org.id, memberId: `key_${org.id}_${i + 1}` }))
  }

  quota(orgId: string): number | undefined {
    return this.orgs.get(orgId)?.quota
  }

  setQuota(orgId: string, quota: number): void {
    const org = this.orgs.get(orgId)
    if (org) org.quota = quota
  }

  issueSeq(): number {
    return this.nextSeq++
  }

  issueJti(): string {
    return `tok_${this.nextJti++}`
  }

  get issuedSeqs(): number {
    return this.nextSeq - 1
  }
}

// --- Request helpers ----------------------------------------------------------------------

const fail = (status: number, message: string) => Effect.fail(new ApiFailure(status, message))

const json = (body: unknown) => HttpServerResponse.unsafeJson(body)

/** The body, read as a strict server reads it; no query parameter is taken beside a body. */
const readBody = <A, I>(schema: Schema.Schema<A, I>, what: string) => {
  const decode = strictDecoder(schema, what)
  return Effect.gen(function* () {
    yield* noQuery(what)
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = yield* Effect.orElse(request.json, () => fail(400, `${what}: the body is not JSON`))
    const parsed = decode(body)
    return Either.isLeft(parsed) ? yield* fail(400, parsed.left) : parsed.right
  })
}

/** A 400 for any query parameter, on the endpoints spec 01 gives none. */
const noQuery = (what: string) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const unknown = unknownParams(request, what, [])
    return unknown === undefined ? Effect.void : fail(400, unknown)
  })

const authenticate = (state: PlatformState, orgId: string) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const header = request.headers["authorization"]
    if (header === undefined || header === "") return yield* fail(401, "missing Authorization header")
    let principal: Principal
    if (header.startsWith("Bearer ")) {
      const result = verify(Redacted.value(state.secret), header.slice("Bearer ".length))
      if ("error" in result) return yield* fail(401, `invalid scan token: ${result.error}`)
      const c = result.claims
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      if (typeof c["exp"] !== "number" || c["exp"] <= now) return yield* fail(401, "scan token expired")
      principal = {
        kind: "token",
        orgId: String(c["sub"]),
        memberId: String(c["mid"]),
        jti: String(c["jti"]),
        scopes: String(c["scope"]).split(" "),
        customScanId: typeof c["cid"] === "string" ? c["cid"] : null
      }
    } else {
      const key = state.keys.get(header)
      if (key === undefined) return yield* fail(401, "invalid API key")
      principal = { kind: "key", ...key }
    }
    if (!state.orgs.has(orgId)) return yield* fail(404, `unknown organization ${orgId}`)
    if (principal.orgId !== orgId) return yield* fail(403, `this credential is not permitted for organization ${orgId}`)
    return principal
  })

const requireKey = (p: Principal, action: string) => (p.kind === "key" ? Effect.void : fail(403, `a scan token cannot ${action}; use the API key`))

const consumeQuota = (state: PlatformState, orgId: string) => {
  const org = state.orgs.get(orgId)!
  if (org.quota <= 0) return fail(429, `quota exhausted for organization ${orgId}`)
  org.quota -= 1
  return Effect.void
}

// --- Scans --------------------------------------------------------------------------------

const orgParams = HttpRouter.schemaPathParams(Schema.Struct({ orgId: Schema.String })).pipe(Effect.orDie)

/**
 * The scan-level codes the simulator invents, where the vendor shows none: what it can tell
 * about a photo without looking at the person (photoFailure), and the codes its tests ask for
 * with the fail marker. The platform's wire knows none of them: a client reads them with
 * category `unknown`, as it would read any code the vendor adds.
 */
export const SIMULATED_FAILURE_CODES = [
  "frontPhotoNotJpeg",
  "rightPhotoNotJpeg",
  "frontPhotoHasDataUrlPrefix",
  "rightPhotoHasDataUrlPrefix",
  "frontPhotoFacingWrongDirection",
  "personNotFound",
  "faceNotVisible",
  "photoTooDark"
] as const

/** Why a photo fails, as a scan-level error code, or null if the simulator accepts it. */
export const photoFailure = (side: "front" | "right", photo: string): string | null => {
  if (/^data:/i.test(photo)) return `${side}PhotoHasDataUrlPrefix`
  if (!isBase64(photo)) return `${side}PhotoNotJpeg`
  const bytes = Buffer.from(photo, "base64")
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8 || bytes[2] !== 0xff) return `${side}PhotoNotJpeg`
  return markedFailure(bytes)
}

const measurementItems = (values: Partial<Record<MeasurementName, number>>) =>
  ALL.flatMap((name) => (values[name] === undefined ? [] : [{ name, unit: Wire.UNITS.length, value: values[name]! }]))

const resultsFor = (stats: BodyStats, photo: boolean) => {
  const posture = postureFor(stats)
  const c = compositionFor(stats)
  const { angle, mass, percent } = Wire.UNITS
  return {
    measurements: measurementItems(measurementsFor(stats, photo ? ALL : STATS_ONLY)),
    avatar: { data: avatarFor(stats), format: "obj", type: "highResolution" },
    bodyComposition: photo
      ? { bodyFatPercentage: { unit: percent, value: c.percent }, bodyFatMass: { unit: mass, value: c.fatMass }, leanMass: { unit: mass, value: c.leanMass } }
      : null,
    posture: photo
      ? {
          front: {
            angles: posture.front.map((l) => ({ name: l.name, unit: angle, value: l.angle })),
            lines: posture.front.map((l) => ({ name: l.name, points: l.points }))
          },
          right: {
            angles: posture.right.map((l) => ({ name: l.name, unit: angle, angles: l.angles })),
            lines: posture.right.map((l) => ({ name: l.name, points: l.points }))
          }
        }
      : null
  }
}

const FAILED_RESULTS = { measurements: null, avatar: null, bodyComposition: null, posture: null } as const

const store = (state: PlatformState, orgId: string, memberId: string, method: StoredScan["method"], build: (id: string) => Wire.EntryJson) =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    const seq = state.issueSeq()
    const entry = build(scanId(seq))
    state.scans.set(entry.id, { seq, orgId, createdAt: Math.floor(now / 1000), memberId, method, entry })
    return entry
  })

const createScan = (state: PlatformState) =>
  Effect.gen(function* () {
    const { orgId } = yield* orgParams
    const principal = yield* authenticate(state, orgId)
    if (principal.kind === "token") {
      if (!principal.scopes.includes(Wire.SCOPES.create)) return yield* fail(403, `scan token lacks scope ${Wire.SCOPES.create}`)
      const spent = state.spentTokens.get(principal.jti)
      if (spent === IN_USE) return yield* fail(403, "scan token already in use by a scan being created")
      if (spent !== undefined) return yield* fail(403, `scan token already used for ${spent}`)
      // Spent before the body is read, in the same synchronous step as the check: requests that
      // race with one token cannot all pass the check while their bodies arrive.
      state.spentTokens.set(principal.jti, IN_USE)
    }
    return yield* createWith(state, orgId, principal).pipe(
      // A request that created nothing gives the token back, for the device to try again.
      Effect.onExit((exit) =>
        Effect.sync(() => {
          if (principal.kind === "token" && exit._tag === "Failure" && state.spentTokens.get(principal.jti) === IN_USE) state.spentTokens.delete(principal.jti)
        })
      )
    )
  })

const createWith = (state: PlatformState, orgId: string, principal: Principal) =>
  Effect.gen(function* () {
    const body = yield* readBody(Wire.CreateScanRequest, "create scan request")
    const input = (body.statsEstimations ?? body.photoScan)!
    const stats: BodyStats = { age: input.age, gender: input.gender, heightMm: input.height, weightG: input.weight }
    const photo = body.photoScan
    const failure = photo ? (photoFailure("front", photo.frontPhoto) ?? photoFailure("right", photo.rightPhoto)) : null
    const given = principal.kind === "token" ? principal.customScanId : null
    if (given !== null && body.customScanId !== undefined && body.customScanId !== given) {
      return yield* fail(
        400,
        `customScanId: the scan token was issued for customScanId ${JSON.stringify(given)}, the body gives ${JSON.stringify(body.customScanId)}; give the same or none`
      )
    }
    const customScanId = body.customScanId ?? given
    yield* consumeQuota(state, orgId)
    const entry = yield* store(state, orgId, principal.memberId, photo ? "photo" : "stats", (id) => ({
      id,
      status: failure === null ? "success" : "failure",
      ...(customScanId === null ? {} : { customScanId }),
      input: body.photoScan ? { photoScan: body.photoScan } : { statsEstimations: body.statsEstimations! },
      ...(failure === null ? resultsFor(stats, photo !== undefined) : { ...FAILED_RESULTS, error: { code: failure } })
    }))
    if (principal.kind === "token") state.spentTokens.set(principal.jti, entry.id)
    return json({ entry })
  })

const scanParams = HttpRouter.schemaPathParams(Schema.Struct({ orgId: Schema.String, scanId: Schema.String })).pipe(Effect.orDie)

const findScan = (state: PlatformState, orgId: string, id: string) => {
  const scan = state.scans.get(id)
  return scan === undefined || scan.orgId !== orgId ? fail(404, `unknown scan ${id}`) : Effect.succeed(scan)
}

const getScan = (state: PlatformState) =>
  Effect.gen(function* () {
    const { orgId, scanId: id } = yield* scanParams
    const principal = yield* authenticate(state, orgId)
    if (principal.kind === "token") {
      if (!principal.scopes.includes(Wire.SCOPES.read)) return yield* fail(403, `scan token lacks scope ${Wire.SCOPES.read}`)
      if (state.spentTokens.get(principal.jti) !== id) return yield* fail(403, "a scan token reads only the scan it created")
    }
    yield* noQuery("read scan")
    const scan = yield* findScan(state, orgId, id)
    return json({ entry: scan.entry })
  })

// The wire's query, with the maximum limit the spec leaves open.
const ListParams = Schema.Struct({
  ...Wire.ListQuery.fields,
  limit: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, MAX_LIST_LIMIT)), { exact: true })
})
const decodeListQuery = strictDecoder(ListParams, "list query", "query parameter")

const summaryOf = (scan: StoredScan): Wire.Summary => {
  const input = scan.entry.input
  return {
    id: scan.entry.id,
    createdAt: scan.createdAt,
    status: scan.entry.status,
    memberId: scan.memberId,
    ...(scan.entry.customScanId === undefined ? {} : { customScanId: scan.entry.customScanId }),
    input: input.photoScan ? { photoScan: { ...input.photoScan, frontPhoto: null, rightPhoto: null } } : input
  }
}

const listScans = (state: PlatformState) =>
  Effect.gen(function* () {
    const { orgId } = yield* orgParams
    const principal = yield* authenticate(state, orgId)
    yield* requireKey(principal, "list scans")
    const parsed = decodeListQuery(queryOf(yield* HttpServerRequest.HttpServerRequest))
    if (Either.isLeft(parsed)) return yield* fail(400, parsed.left)
    const query = parsed.right
    const limit = query.limit ?? Wire.DEFAULT_LIST_LIMIT
    const descending = (query.direction ?? "descending") === "descending"
    let after: number | undefined
    if (query.after !== undefined) {
      after = seqOf(query.after)
      if (after === undefined || after < 1 || after > state.issuedSeqs) return yield* fail(400, `after: unknown scan id ${query.after}`)
    }
    const wanted = query.customScanId
    const all = [...state.scans.values()]
      .filter((s) => s.orgId === orgId && (wanted === undefined || s.entry.customScanId === wanted))
      .sort((a, b) => (descending ? b.seq - a.seq : a.seq - b.seq))
    const rest = after === undefined ? all : all.filter((s) => (descending ? s.seq < after! : s.seq > after!))
    const page = rest.slice(0, limit)
    const more = rest.length > page.length
    const results = page.map(summaryOf)
    const end = state.listEnd === "missing" ? {} : { nextOffsetId: state.listEnd === "null" ? null : "" }
    return json({ results, ...(more ? { nextOffsetId: page[page.length - 1]!.entry.id } : end) })
  })

const MeasurementOrWeight = Schema.String.pipe(Schema.filter((n) => Wire.isAdjustable(n) || `${JSON.stringify(n)} is neither weight nor a measurement name`))
const AdjustBody = Schema.Struct({
  ...Wire.AdjustRequest.fields,
  parameters: Schema.Array(Schema.Struct({ name: MeasurementOrWeight, percentage: Schema.Number.pipe(Schema.finite(), Schema.greaterThan(-100)) }))
})

/** Named measurements change by their percentage; the rest of the body follows a part of it. */
export const adjustMeasurements = (
  base: Partial<Record<MeasurementName, number>>,
  baseWeightG: number,
  parameters: ReadonlyArray<{ readonly name: string; readonly percentage: number }>
) => {
  const weight = parameters.find((p) => p.name === "weight")?.percentage ?? 0
  const named = parameters.filter((p) => p.name !== "weight")
  const spread = named.length === 0 ? 0 : named.reduce((sum, p) => sum + p.percentage, 0) / named.length / 3
  // A girth grows with the square root of the mass a body gains (volume ~ girth^2 x height).
  const breadth = Math.sqrt(1 + weight / 100) * (1 + spread / 100)
  const out: Partial<Record<MeasurementName, number>> = {}
  for (const [name, value] of Object.entries(base) as Array<[MeasurementName, number]>) {
    const own = named.find((p) => p.name === name)
    out[name] = Math.round(own ? value * (1 + own.percentage / 100) : isBreadth(Catalogue.entry(name)) ? value * breadth : value)
  }
  const outputWeight = Math.round(baseWeightG * (1 + weight / 100) * (1 + spread / 100) ** 2)
  return { measurements: out, outputWeight: Math.min(Math.max(outputWeight, 0), HUMAN_RANGES.weightG.max * 2) }
}

const adjustScan = (state: PlatformState) =>
  Effect.gen(function* () {
    const { orgId, scanId: id } = yield* scanParams
    const principal = yield* authenticate(state, orgId)
    yield* requireKey(principal, "adjust a scan")
    const body = yield* readBody(AdjustBody, "adjust request")
    const base = yield* findScan(state, orgId, id)
    if (base.entry.status === "failure") return yield* fail(400, `scan ${id} failed; only a successful scan can be adjusted`)
    yield* consumeQuota(state, orgId)
    const baseInput = (base.entry.input.statsEstimations ?? base.entry.input.photoScan ?? base.entry.input.adjustedScan)!
    const baseValues = Object.fromEntries((base.entry.measurements ?? []).map((m) => [m.name, m.value]))
    const { measurements, outputWeight } = adjustMeasurements(baseValues, baseInput.weight, body.parameters)
    const baseScanType = base.entry.input.adjustedScan?.baseScanType ?? base.method
    const stats: BodyStats = { age: baseInput.age, gender: baseInput.gender, heightMm: baseInput.height, weightG: outputWeight }
    const entry = yield* store(state, orgId, principal.memberId, "adjusted", (newId) => ({
      id: newId,
      status: "success",
      ...(body.customScanId === undefined ? {} : { customScanId: body.customScanId }),
      input: {
        adjustedScan: {
          baseScanId: id,
          baseScanType,
          age: baseInput.age,
          gender: baseInput.gender,
          height: baseInput.height,
          weight: baseInput.weight,
          parameters: body.parameters
        }
      },
      measurements: measurementItems(measurements),
      avatar: { data: avatarFor(stats), format: "obj", type: "highResolution" },
      bodyComposition: null,
      posture: null,
      outputStats: { weight: outputWeight }
    }))
    return json({ entry })
  })

const deleteScan = (state: PlatformState) =>
  Effect.gen(function* () {
    const { orgId, scanId: id } = yield* scanParams
    const principal = yield* authenticate(state, orgId)
    yield* requireKey(principal, "delete a scan")
    yield* noQuery("delete scan")
    yield* findScan(state, orgId, id)
    state.scans.delete(id)
    return json({ id })
  })

const issueToken = (state: PlatformState) =>
  Effect.gen(function* () {
    const { orgId } = yield* orgParams
    const principal = yield* authenticate(state, orgId)
    yield* requireKey(principal, "issue scan tokens")
    const body = yield* readBody(Wire.ScanTokenRequest, "scan-token request")
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const expiresAt = now + (body.lifetime ?? Wire.MAX_TOKEN_LIFETIME_S)
    const token = sign(Redacted.value(state.secret), {
      iss: "scanbridge-simulator",
      sub: orgId,
      mid: principal.memberId,
      jti: state.issueJti(),
      scope: body.scope.join(" "),
      iat: now,
      exp: expiresAt,
      ...(body.customScanId === undefined ? {} : { cid: body.customScanId })
    })
    return json({ token, expiresAt })
  })

/** The six endpoints under /api/orgs/:orgId. */
export const platformRouter = (state: PlatformState) =>
  HttpRouter.empty.pipe(
    HttpRouter.post("/api/orgs/:orgId/scans", createScan(state)),
    HttpRouter.get("/api/orgs/:orgId/scans", listScans(state)),
    HttpRouter.get("/api/orgs/:orgId/scans/:scanId", getScan(state)),
    HttpRouter.post("/api/orgs/:orgId/scans/:scanId/adjust", adjustScan(state)),
    HttpRouter.del("/api/orgs/:orgId/scans/:scanId", deleteScan(state)),
    HttpRouter.post("/api/orgs/:orgId/scan-tokens", issueToken(state))
  )
