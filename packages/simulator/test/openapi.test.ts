/**
 * The OpenAPI documents of the four APIs: valid OpenAPI 3.1 by a real validator, served by the
 * simulator, and in step with its routes both ways, so the two cannot drift.
 */
import { validate } from "@readme/openapi-parser"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, FastCheck as fc } from "effect"
import {
  DEMO_ESTIMATION_CLIENT_ID,
  DEMO_FIT_CLIENT_KEY,
  DEMO_SESSION_CLIENT_ID,
  type Json,
  OPENAPI_APIS,
  type OpenApiName,
  Simulator,
  documentedRoutes,
  onTestClock,
  openApiDocument,
  openApiPath
} from "../src/index.js"
import { describeUnits } from "../src/openapi.js"
import { EstimationState } from "../src/estimation.js"
import { FitState } from "../src/fit.js"
import { PlatformState } from "../src/platform.js"
import { SessionState } from "../src/session.js"
import { routerOf } from "../src/simulator.js"

// The simulator's own routes, which no API document describes: the documents themselves, CORS
// preflight for every path, and the hosted scanner's page (HTML for a browser, not an API).
const INFRASTRUCTURE = new Set(["GET /openapi/{file}", "OPTIONS *", "GET /scanner/{locale}/"])

const served = (): ReadonlyArray<string> =>
  Chunk.toReadonlyArray(routerOf(new PlatformState(), new SessionState(), new EstimationState(), new FitState()).routes).map(
    (route) => `${route.method} ${openApiPath(route.path).path}`
  )

describe("the OpenAPI documents", () => {
  it.each(OPENAPI_APIS)("%s is valid OpenAPI 3.1", async (api) => {
    const document = openApiDocument(api)
    expect(document).toMatchObject({ openapi: "3.1.0" })
    const result = await validate(structuredClone(document) as never)
    expect(result.valid ? [] : result.errors).toEqual([])
    expect(result.warnings).toEqual([])
  })

  it("describe every route the simulator serves, and no other", () => {
    const documented = OPENAPI_APIS.flatMap(documentedRoutes)
    const routes = served().filter((r) => !INFRASTRUCTURE.has(r))
    expect([...routes].sort()).toEqual([...documented].sort())
    expect(new Set(documented).size).toBe(documented.length)
  })

  it("mark Scanbridge's choices where the documents say \"not shown\", and the simulator's own routes", () => {
    const text = JSON.stringify(openApiDocument("platform"))
    expect(text).toContain('"x-scanbridge-not-shown":"How a scan token is presented on REST requests."')
    const session = openApiDocument("session") as { paths: Record<string, Record<string, { "x-scanbridge-simulator-only"?: boolean }>> }
    expect(session.paths["/_simulator/session/sessions/{ssid}/submit"]!.post!["x-scanbridge-simulator-only"]).toBe(true)
  })

  it.live("are served by the simulator at /openapi/<api>.json", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* Simulator
        for (const api of OPENAPI_APIS) {
          const response = yield* Effect.promise(() => fetch(`${sim.url}/openapi/${api}.json`))
          expect(response.status).toBe(200)
          expect(yield* Effect.promise(() => response.json())).toEqual(openApiDocument(api))
        }
        const missing = yield* Effect.promise(() => fetch(`${sim.url}/openapi/billing.json`))
        expect(missing.status).toBe(404)
      }).pipe(Effect.provide(Simulator.layer()))
    )
  )

  it("give integers as integers: the list's limit is an integer, not a string to decode", () => {
    const limit = operation("platform", "get", "/api/orgs/{orgId}/scans").parameters.find((p) => p.name === "limit")
    expect(limit?.schema).toMatchObject({ type: "integer", exclusiveMinimum: 0, maximum: 100, default: 30 })
    const form = documentOf("estimation")
    for (const field of ["age", "height", "weight"]) expect(form.components.schemas["CreateForm"]!.properties![field]).toMatchObject({ type: "integer" })
    expect(JSON.stringify(OPENAPI_APIS.map(openApiDocument))).not.toContain("a string to be decoded into a number")
  })

  it.each(OPENAPI_APIS)("%s names a unit or a meaning in the description of every number", (api) => {
    const document = documentOf(api)
    const bare = numericProperties(document).filter(({ schema }) => typeof schema.description !== "string" || GENERIC.test(schema.description))
    expect(bare.map(({ path }) => path)).toEqual([])
  })

  it("name the units of the stats and measurements", () => {
    const platform = documentOf("platform")
    const stats = platform.components.schemas["CreateScanRequest"]!.properties!["statsEstimations"]!.properties!
    expect(stats["height"]!.description).toContain("millimetres")
    expect(stats["weight"]!.description).toContain("grams")
    expect(stats["age"]!.description).toContain("years")
    const session = JSON.stringify(openApiDocument("session"))
    expect(session).toContain("body measurements in MILLIMETERS (millimetres), SKELETAL_MUSCLE_MASS in GRAMS")
    expect(JSON.stringify(openApiDocument("fit"))).toContain("body measurements in MILLIMETERS (millimetres)")
    expect(JSON.stringify(openApiDocument("estimation"))).toContain("The API states no unit: the simulator writes millimetres")
  })

  it("take every JSON request body as text/plain beside application/json", () => {
    for (const api of OPENAPI_APIS) {
      for (const [path, methods] of Object.entries(documentOf(api).paths)) {
        for (const op of Object.values(methods)) {
          const types = Object.keys(op.requestBody?.content ?? {})
          if (types.includes("application/json")) expect({ path, types }).toEqual({ path, types: ["application/json", "text/plain"] })
        }
      }
    }
  })

  it("document each error status the simulator answers, per operation", () =>
    Effect.gen(function* () {
      const sim = yield* Simulator
      yield* sim.platform.addOrg({ id: "org_spent", apiKeys: ["sk_spent"], quota: 0 })
      const big = "x".repeat(2 * MAX_BODY)
      const send = (method: string, path: string, init: { readonly headers?: Record<string, string>; readonly body?: string } = {}) =>
        Effect.promise(() => fetch(`${sim.url}${path}`, { method, ...init }).then(async (r) => ({ status: r.status, body: await r.text() })))
      const token = JSON.parse((yield* send("GET", `/tokens/anonymous?client_id=${DEMO_ESTIMATION_CLIENT_ID}`)).body) as { access_token: string }
      const estimation = yield* sim.fit.estimate({ age: 30, gender: "male", heightMm: 1750, weightG: 70_000 })
      const key = { authorization: "sk_demo_0123456789" }
      const access = { "access-token": token.access_token }
      const stats = JSON.stringify({ statsEstimations: { age: 30, gender: "male", height: 1750, weight: 70_000 } })
      // [api, method, documented path, request path, request, the status it answers]
      const cases: ReadonlyArray<
        readonly [OpenApiName, string, string, string, { readonly headers?: Record<string, string>; readonly body?: string }, number]
      > = [
        ["platform", "post", "/api/orgs/{orgId}/scans", "/api/orgs/org_demo/scans", { headers: key, body: "not json" }, 400],
        ["platform", "post", "/api/orgs/{orgId}/scans", "/api/orgs/org_demo/scans", { body: stats }, 401],
        ["platform", "post", "/api/orgs/{orgId}/scans", "/api/orgs/org_spent/scans", { headers: key, body: stats }, 403],
        ["platform", "post", "/api/orgs/{orgId}/scans", "/api/orgs/org_none/scans", { headers: key, body: stats }, 404],
        ["platform", "post", "/api/orgs/{orgId}/scans", "/api/orgs/org_demo/scans", { headers: key, body: big }, 413],
        ["platform", "post", "/api/orgs/{orgId}/scans", "/api/orgs/org_spent/scans", { headers: { authorization: "sk_spent" }, body: stats }, 429],
        ["platform", "get", "/api/orgs/{orgId}/scans", "/api/orgs/org_demo/scans?limit=0", { headers: key }, 400],
        ["platform", "get", "/api/orgs/{orgId}/scans", "/api/orgs/org_demo/scans?limit=10", { headers: key }, 200],
        ["platform", "get", "/api/orgs/{orgId}/scans", "/api/orgs/org_spent/scans", { headers: key }, 403],
        ["platform", "get", "/api/orgs/{orgId}/scans/{scanId}", "/api/orgs/org_demo/scans/scan_zzzzzz", { headers: key }, 404],
        ["platform", "get", "/api/orgs/{orgId}/scans/{scanId}", "/api/orgs/org_demo/scans/scan_zzzzzz", {}, 401],
        ["platform", "post", "/api/orgs/{orgId}/scans/{scanId}/adjust", "/api/orgs/org_demo/scans/scan_zzzzzz/adjust", { headers: key, body: "[" }, 400],
        [
          "platform",
          "post",
          "/api/orgs/{orgId}/scans/{scanId}/adjust",
          "/api/orgs/org_demo/scans/scan_zzzzzz/adjust",
          { headers: key, body: JSON.stringify({ parameters: [] }) },
          404
        ],
        ["platform", "delete", "/api/orgs/{orgId}/scans/{scanId}", "/api/orgs/org_demo/scans/scan_zzzzzz", { headers: key }, 404],
        ["platform", "post", "/api/orgs/{orgId}/scan-tokens", "/api/orgs/org_demo/scan-tokens", { headers: key, body: JSON.stringify({ scope: [] }) }, 400],
        ["platform", "post", "/api/orgs/{orgId}/scan-tokens", "/api/orgs/org_demo/scan-tokens", { headers: key, body: big }, 413],
        ["session", "post", "/scanning/v0/create-session", "/scanning/v0/create-session", { body: "not json" }, 400],
        ["session", "post", "/scanning/v0/create-session", "/scanning/v0/create-session", { body: "{}" }, 401],
        ["session", "post", "/scanning/v0/create-session", "/scanning/v0/create-session", { body: big }, 413],
        ["session", "post", "/scanning/v0/create-session", "/scanning/v0/create-session", { body: JSON.stringify({ clientId: DEMO_SESSION_CLIENT_ID }) }, 200],
        ["session", "get", "/scanning/v0/results/{ssid}", "/scanning/v0/results/ss_none", {}, 404],
        ["session", "post", "/_simulator/session/sessions/{ssid}/submit", "/_simulator/session/sessions/ss_none/submit", { body: "{}" }, 404],
        ["session", "post", "/_simulator/session/sessions/{ssid}/submit", "/_simulator/session/sessions/ss_none/submit", { body: "not json" }, 400],
        ["estimation", "get", "/tokens/anonymous", "/tokens/anonymous", {}, 400],
        ["estimation", "get", "/tokens/anonymous", "/tokens/anonymous?client_id=cl_none", {}, 401],
        ["estimation", "post", "/estimation", "/estimation", { body: "height=1" }, 401],
        [
          "estimation",
          "post",
          "/estimation",
          "/estimation",
          { headers: { ...access, "content-type": "application/x-www-form-urlencoded" }, body: "height=1" },
          400
        ],
        ["estimation", "post", "/estimation", "/estimation", { headers: access, body: big }, 413],
        ["estimation", "post", "/estimation/{id}/image", "/estimation/est_none/image", { headers: access, body: "" }, 404],
        ["estimation", "get", "/estimation/{id}", `/estimation/est_none?client_id=${DEMO_ESTIMATION_CLIENT_ID}`, { headers: access }, 404],
        ["estimation", "get", "/estimation/{id}", "/estimation/est_none", { headers: access }, 401],
        ["fit", "post", "/fit/v2/CreateSession", "/fit/v2/CreateSession", { body: "not json" }, 400],
        ["fit", "post", "/fit/v2/CreateSession", "/fit/v2/CreateSession", { body: "{}" }, 401],
        ["fit", "post", "/fit/v2/CreateSession", "/fit/v2/CreateSession", { body: big }, 413],
        [
          "fit",
          "post",
          "/fit/v2/GetRecommendedSize",
          "/fit/v2/GetRecommendedSize",
          {
            body: JSON.stringify({
              clientKey: DEMO_FIT_CLIENT_KEY,
              estimationToken: estimation.estimations.estimationToken,
              productInfo: { productId: { brandId: "acme", garmentSku: "NONE-000" } }
            })
          },
          404
        ],
        ["fit", "post", "/fit/v2/CreatePurchase", "/fit/v2/CreatePurchase", { body: "{}" }, 400],
        ["fit", "post", "/fit/v2/_simulator/estimations", "/fit/v2/_simulator/estimations", { body: "{}" }, 400]
      ]
      const answered = []
      for (const [api, method, path, requestPath, init, status] of cases) {
        const reply = yield* send(method.toUpperCase(), requestPath, init)
        const documented = Object.keys(operation(api, method, path).responses)
        answered.push({
          api,
          method,
          requestPath,
          status: reply.status,
          documented: documented.includes(String(reply.status)) || documented.includes(`${String(reply.status)[0]}XX`)
        })
        expect({ requestPath, status: reply.status }).toEqual({ requestPath, status })
      }
      expect(answered.filter((a) => !a.documented)).toEqual([])
    }).pipe(Effect.provide(Simulator.layer({ maxBodyBytes: MAX_BODY })), onTestClock()))

  it("describeUnits sets the description of the properties it names and changes nothing else", () =>
    fc.assert(
      // A rule names a path with dots, so a name holding one is not addressable.
      fc.property(
        fc.jsonValue(),
        fc.string({ minLength: 1, maxLength: 8 }).filter((n) => !n.includes(".")),
        (value, name) => {
          const json = value as Json
          expect(describeUnits(json, {})).toEqual(json)
          const schema = { type: "object", properties: { [name]: { type: "number", description: "a number" }, other: json } } as Json
          const described = describeUnits(schema, { [name]: "in grams" }) as unknown as Doc["components"]["schemas"][string]
          expect(described.properties![name]).toEqual({ type: "number", description: "in grams" })
          if (name !== "other") expect(described.properties!["other"]).toEqual(describeUnits(json, { [name]: "in grams" }))
        }
      )
    ))
})

const MAX_BODY = 1024

/** The descriptions effect's JSONSchema writes, which say no unit. */
const GENERIC = /^(an? (non-negative |positive |finite )?(number|integer)|a number between .*)$/

interface SchemaNode {
  readonly type?: string
  readonly description?: string
  readonly properties?: Record<string, SchemaNode>
  readonly items?: SchemaNode
  readonly anyOf?: ReadonlyArray<SchemaNode>
  readonly additionalProperties?: SchemaNode | boolean
  readonly enum?: ReadonlyArray<unknown>
  readonly $ref?: string
}

interface OperationNode {
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly schema: SchemaNode }>
  readonly requestBody?: { readonly content: Record<string, unknown> }
  readonly responses: Record<string, unknown>
}

interface Doc {
  readonly paths: Record<string, Record<string, OperationNode>>
  readonly components: { readonly schemas: Record<string, SchemaNode> }
}

const documentOf = (api: OpenApiName): Doc => openApiDocument(api) as unknown as Doc

const operation = (api: OpenApiName, method: string, path: string): OperationNode => {
  const op = documentOf(api).paths[path]?.[method]
  if (op === undefined) throw new Error(`no ${method} ${path} in ${api}`)
  return op
}

/**
 * Every property whose value is a number (directly, in a union without enum names, through a
 * $ref to a number, or as a map of numbers), with the path that leads to it; a parameter
 * counts as described by its own description.
 */
const numericProperties = (document: Doc): ReadonlyArray<{ readonly path: string; readonly schema: SchemaNode }> => {
  const numeric = (schema: SchemaNode): boolean => {
    if (schema.type === "number" || schema.type === "integer") return true
    if (schema.$ref !== undefined) {
      // A named union of a name and a number is a protobuf enum, not a quantity.
      const target = document.components.schemas[schema.$ref.split("/").pop()!] ?? {}
      return target.anyOf?.some((s) => s.type === "string") === true ? false : numeric(target)
    }
    if (schema.anyOf !== undefined) return schema.anyOf.some(numeric) && !schema.anyOf.some((s) => s.enum !== undefined)
    return typeof schema.additionalProperties === "object" && numeric(schema.additionalProperties)
  }
  const found: Array<{ readonly path: string; readonly schema: SchemaNode }> = []
  const walk = (schema: SchemaNode, path: string): void => {
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (numeric(property)) found.push({ path: `${path}.${name}`, schema: property })
      walk(property, `${path}.${name}`)
    }
    if (schema.items !== undefined) walk(schema.items, `${path}[]`)
    for (const branch of schema.anyOf ?? []) walk(branch, path)
  }
  for (const [name, schema] of Object.entries(document.components.schemas)) walk(schema, name)
  for (const [path, methods] of Object.entries(document.paths))
    for (const [method, op] of Object.entries(methods))
      for (const p of op.parameters) if (numeric(p.schema) && !("description" in p)) found.push({ path: `${method} ${path} ${p.name}`, schema: {} })
  return found
}
