/**
 * The garment-fit service (spec 03), stateful: a product catalogue with size charts keyed by
 * brand id and SKU, estimation tokens from simulated estimations, size recommendations from
 * the chart and the token's body, and CreatePurchase validation. Requests are read as a
 * proto3 parser reads them; responses are printed in lowerCamelCase, or with the snake_case
 * keys of the spec's own examples (`keys: "snake"`).
 *
 * Choices where spec 03 says "not shown", each tested:
 * - The endpoints behind the client library's estimations are not shown: the simulator makes
 *   estimation tokens with `Simulator.fit.estimate` or `POST {fit_url}/_simulator/estimations`.
 * - A product with no sizes, or one not in the catalogue, is UNSUPPORTED (with a session id);
 *   GetRecommendedSize answers PRODUCT_NOT_FOUND for it.
 * - Error statuses: 400 malformed or invalid, 401 client key, 404 product, 500 internal, or 200
 *   for all with `errorStatus: "ok"`.
 * - CreatePurchase accepts a clientSessionId it has not seen (the call must "return without
 *   error in most cases"); an invalid order is 400 with `{status: error, error: {message}}`.
 * - Strict, as a protobuf-JSON parser is by default: a field a request message does not have,
 *   or any query parameter, is refused naming it (MALFORMED_REQUEST, or CreatePurchase's 400).
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either, Schema } from "effect"
import { GENDER_CODES, type MeasurementName, Proto3 } from "@scanbridge/model"
import { FIT_UNITS, type FittingPointName, Wire, buildPurchase, fitDialect } from "@scanbridge/fit"
import { ALL, type BodyStats, measurementsFor } from "./body.js"
import { strictDecoder, unknownFields, unknownParams } from "./limits.js"

export const DEMO_FIT_CLIENT_KEY = "ck_demo_0123456789"

/** One size of a chart: the body measurement, in mm, each fitting point is cut for. */
export interface ChartSize {
  readonly name: string
  readonly fit: Partial<Record<FittingPointName, number>>
}

export interface Product {
  readonly brandId: string
  readonly garmentSku: string
  /** Empty: the product exists but has no sizing data. */
  readonly sizes: ReadonlyArray<ChartSize>
}

const tops = (names: ReadonlyArray<string>, chest0: number, waist0: number, step: number): ReadonlyArray<ChartSize> =>
  names.map((name, i) => ({ name, fit: { CHEST: chest0 + i * step, WAIST: waist0 + i * step, SHOULDER_WIDTH: 400 + i * 20 } }))

/** The demo catalogue: a T-shirt, jeans, a dress, and a scarf without sizing data. */
export const DEMO_PRODUCTS: ReadonlyArray<Product> = [
  { brandId: "acme", garmentSku: "TEE-001", sizes: tops(["XS", "S", "M", "L", "XL", "XXL"], 820, 680, 60) },
  {
    brandId: "acme",
    garmentSku: "JEANS-002",
    sizes: ["28", "30", "32", "34", "36", "38"].map((name, i) => ({ name, fit: { WAIST: 710 + i * 50, HIP: 900 + i * 45, INSEAM: 780 + i * 10 } }))
  },
  { brandId: "acme", garmentSku: "DRESS-003", sizes: tops(["S", "M", "L"], 840, 680, 70) },
  { brandId: "acme", garmentSku: "SCARF-004", sizes: [] }
]

export interface FitOptions {
  readonly clientKeys?: ReadonlyArray<string>
  readonly products?: ReadonlyArray<Product>
  /** "snake" writes `recommended_size` and `error_type`, as the spec's examples do. */
  readonly keys?: "camel" | "snake"
  readonly errorStatus?: "mapped" | "ok"
}

/** The body measurement a fitting point is cut for (the simulator's reading). */
const BODY_OF: Readonly<Record<FittingPointName, MeasurementName>> = {
  NECK_GIRTH: "neckGirth",
  SHOULDER_WIDTH: "acrossBackShoulderWidth",
  SLEEVE_LENGTH_CENTER_BACK: "backNeckPointToWristLengthR",
  SLEEVE_LENGTH: "outerArmLengthR",
  CHEST: "bustGirth",
  BODY_WIDTH: "bustGirth",
  WAIST: "waistGirth",
  HIP: "hipGirth",
  INSEAM: "insideLegHeight",
  THIGH_GIRTH: "thighGirthR",
  DRESS_LENGTH: "backNeckPointToWaist",
  SKIRT_LENGTH: "outsideLegLengthR",
  MINISKIRT_LENGTH: "outsideLegLengthR",
  HALF_CALF_SKIRT_LENGTH: "outsideLegLengthR",
  ANKLE_SKIRT_LENGTH: "outsideLegLengthR",
  ANKLE_DRESS_LENGTH: "backNeckPointToGroundContoured",
  BODY_LENGTH: "backNeckPointToWaist",
  UNDERBUST: "underBustGirth"
}

export interface FittedSize {
  readonly name: string
  readonly index: number
  /** Mean of the fitting points' tightness: negative tight, positive loose. */
  readonly tightness: number
  readonly points: ReadonlyArray<{ readonly point: FittingPointName; readonly tightness: number }>
  readonly rank: number
}

/**
 * How each size fits a body: per fitting point, (garment - body) / body x 10, so 0.5 is a
 * garment 5 % larger. Ranked by the sum of squares: rank 1 fits best.
 */
export const fitSizes = (product: Product, body: Partial<Record<MeasurementName, number>>): ReadonlyArray<FittedSize> => {
  const scored = product.sizes.map((size, index) => {
    const points = (Object.entries(size.fit) as Array<[FittingPointName, number]>).flatMap(([point, garment]) => {
      const b = body[BODY_OF[point]]
      return b === undefined ? [] : [{ point, tightness: Math.round(((garment - b) / b) * 100) / 10 }]
    })
    const score = points.reduce((sum, p) => sum + p.tightness ** 2, 0)
    const tightness = points.length === 0 ? 0 : Math.round((points.reduce((s, p) => s + p.tightness, 0) / points.length) * 100) / 100
    return { name: size.name, index, points, tightness, score }
  })
  const order = [...scored].sort((a, b) => a.score - b.score)
  return scored.map((s) => ({ name: s.name, index: s.index, tightness: s.tightness, points: s.points, rank: order.indexOf(s) + 1 }))
}

interface Token {
  readonly stats: BodyStats
  readonly inputType: Wire.InputType
  readonly body: Partial<Record<MeasurementName, number>>
}

export class FitState {
  readonly tokens = new Map<string, Token>()
  readonly purchases: Array<unknown> = []
  readonly clientKeys: ReadonlySet<string>
  readonly products: ReadonlyMap<string, Product>
  private nextSession = 1
  private nextToken = 1
  constructor(readonly options: FitOptions = {}) {
    this.clientKeys = new Set(options.clientKeys ?? [DEMO_FIT_CLIENT_KEY])
    this.products = new Map((options.products ?? DEMO_PRODUCTS).map((p) => [`${p.brandId}/${p.garmentSku}`, p]))
  }

  sessionId(): string {
    return `fs_${(this.nextSession++).toString(36).padStart(6, "0")}`
  }

  /** A simulated estimation: its token, and the client library's result for it. */
  estimate(stats: BodyStats, inputType: Wire.InputType = "CAMERA_FLOW"): Wire.EstimationResultJson {
    const token = `et_${(this.nextToken++).toString(36).padStart(8, "0")}`
    const body = measurementsFor(stats, ALL)
    this.tokens.set(token, { stats, inputType, body })
    // The stats first, in the order of spec 03's example, then the lengths in catalogue order.
    const stat = (target: "subject.age" | "subject.gender" | "subject.weightG" | "subject.heightMm", value: number) => {
      const spelling = fitDialect.stats[target]!
      return { estimationType: spelling.name, value: String(value), unit: spelling.unit }
    }
    const measurements = [
      stat("subject.age", stats.age),
      stat("subject.gender", GENDER_CODES[stats.gender]),
      stat("subject.weightG", stats.weightG),
      stat("subject.heightMm", stats.heightMm),
      ...fitDialect.measurementList.map(({ name, spelling }) => ({ estimationType: spelling.name, value: String(body[name]!), unit: FIT_UNITS.length }))
    ]
    return {
      estimations: { estimationToken: { token }, measurements, avatarData: null, input: { preferredSystemOfMeasurement: "METRIC", tightness: 0, inputType } }
    }
  }
}

// --- Responses ----------------------------------------------------------------------------

const printCreateSession = Proto3.printer(Wire.CreateSessionResponse)
const printRecommended = Proto3.printer(Wire.GetRecommendedSizeResponse)

const STATUS: Readonly<Record<string, number>> = {
  INVALID_CLIENT_KEY: 401,
  MALFORMED_REQUEST: 400,
  INVALID_PRODUCT_ID: 400,
  INVALID_ESTIMATION_TOKEN: 400,
  PRODUCT_NOT_FOUND: 404,
  INTERNAL_ERROR: 500
}

// The spec's examples spell these keys in snake case.
const SNAKE: Readonly<Record<string, string>> = { recommendedSize: "recommended_size", errorType: "error_type" }
const spell = (state: FitState, value: unknown): unknown => {
  if (state.options.keys !== "snake" || typeof value !== "object" || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [SNAKE[k] ?? k, spell(state, v)]))
}

const respond = (state: FitState, body: unknown, errorType?: string) =>
  HttpServerResponse.unsafeJson(spell(state, body), {
    status: errorType === undefined || state.options.errorStatus === "ok" ? 200 : (STATUS[errorType] ?? 400)
  })

const readBody = <A, I>(schema: Schema.Schema<A, I>) => {
  const read = Proto3.reader(schema, "fit request")
  return Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const query = unknownParams(request, "fit request", [])
    if (query !== undefined) return Either.left(query)
    const json = yield* Effect.either(request.json)
    if (Either.isLeft(json)) return Either.left("the body is not JSON")
    return Either.flatMap(
      Either.mapLeft(read(json.right), (e) => e.message),
      (r) => {
        const unknown = unknownFields("fit request", r.ignored)
        return unknown === undefined ? Either.right(r.value) : Either.left(unknown)
      }
    )
  })
}

const decodePurchase = strictDecoder(Wire.CreatePurchaseRequestSchema, "malformed request")

const productOf = (state: FitState, info: { readonly productId?: { readonly brandId?: string; readonly garmentSku?: string } } | undefined) => {
  const id = info?.productId
  if (id === undefined || !id.brandId || !id.garmentSku) return { id: null, product: undefined }
  return { id: { brandId: id.brandId, garmentSku: id.garmentSku }, product: state.products.get(`${id.brandId}/${id.garmentSku}`) }
}

const createSession = (state: FitState) =>
  Effect.gen(function* () {
    const error = (errorType: string, message: string) => respond(state, printCreateSession({ error: { errorType, message } }), errorType)
    const body = yield* readBody(Wire.CreateSessionRequest)
    if (Either.isLeft(body)) return error("MALFORMED_REQUEST", body.left)
    if (body.right.clientKey === undefined || !state.clientKeys.has(body.right.clientKey))
      return error("INVALID_CLIENT_KEY", "the client key is missing or not valid")
    const { id, product } = productOf(state, body.right.productInfo)
    if (id === null) return error("INVALID_PRODUCT_ID", "productInfo.productId needs a brandId and a garmentSku")
    const supported = product !== undefined && product.sizes.length > 0 ? "SUPPORTED" : "UNSUPPORTED"
    return respond(state, printCreateSession({ support: { productId: id, supported, sessionId: state.sessionId() } }))
  })

const getRecommendedSize = (state: FitState) =>
  Effect.gen(function* () {
    const error = (errorType: string, message: string) => respond(state, printRecommended({ error: { errorType, message } }), errorType)
    const body = yield* readBody(Wire.GetRecommendedSizeRequest)
    if (Either.isLeft(body)) return error("MALFORMED_REQUEST", body.left)
    if (body.right.clientKey === undefined || !state.clientKeys.has(body.right.clientKey))
      return error("INVALID_CLIENT_KEY", "the client key is missing or not valid")
    const token = state.tokens.get(body.right.estimationToken?.token ?? "")
    if (token === undefined) return error("INVALID_ESTIMATION_TOKEN", "unknown estimation token")
    const { id, product } = productOf(state, body.right.productInfo)
    if (id === null) return error("INVALID_PRODUCT_ID", "productInfo.productId needs a brandId and a garmentSku")
    if (product === undefined || product.sizes.length === 0) return error("PRODUCT_NOT_FOUND", `no size chart for ${id.brandId} ${id.garmentSku}`)
    const best = fitSizes(product, token.body).find((s) => s.rank === 1)!
    return respond(state, printRecommended({ recommendation: { recommendedSize: best.name } }))
  })

const createPurchase = (state: FitState) =>
  Effect.gen(function* () {
    const failed = (status: number, message: string) => HttpServerResponse.unsafeJson({ status: "error", error: { message } }, { status })
    const request = yield* HttpServerRequest.HttpServerRequest
    const query = unknownParams(request, "CreatePurchase request", [])
    if (query !== undefined) return failed(400, query)
    const json = yield* Effect.either(request.json)
    if (Either.isLeft(json)) return failed(400, "the body is not JSON")
    const body = decodePurchase(json.right)
    if (Either.isLeft(body)) return failed(400, body.left)
    const { clientKey, ...order } = body.right
    if (!state.clientKeys.has(clientKey)) return failed(401, "the client key is missing or not valid")
    const built = buildPurchase(clientKey, order)
    if (Either.isLeft(built)) return failed(400, built.left.message)
    state.purchases.push(built.right)
    return HttpServerResponse.unsafeJson({ status: "success" })
  })

const EstimateBody = Schema.Struct({
  age: Schema.Int,
  gender: Schema.Literal("male", "female"),
  heightMm: Schema.Int,
  weightG: Schema.Int,
  inputType: Schema.optionalWith(Schema.Literal("CAMERA_FLOW", "SELFIE_FLOW", "INPUT_TYPE_UNSPECIFIED", "MANUAL_STATS"), { exact: true })
})

const estimate = (state: FitState) =>
  Effect.gen(function* () {
    const body = yield* HttpServerRequest.schemaBodyJson(EstimateBody, { onExcessProperty: "error" }).pipe(Effect.either)
    if (Either.isLeft(body)) return HttpServerResponse.unsafeJson({ message: `estimate: ${String(body.left)}` }, { status: 400 })
    const { inputType, ...stats } = body.right
    return HttpServerResponse.unsafeJson(state.estimate(stats, inputType))
  })

/** The fit service under /fit/v2 (`{fit_url}`), and the estimation control endpoint. */
export const fitRouter = (state: FitState) =>
  HttpRouter.empty.pipe(
    HttpRouter.post("/fit/v2/CreateSession", createSession(state)),
    HttpRouter.post("/fit/v2/GetRecommendedSize", getRecommendedSize(state)),
    HttpRouter.post("/fit/v2/CreatePurchase", createPurchase(state)),
    HttpRouter.post("/fit/v2/_simulator/estimations", estimate(state))
  )
