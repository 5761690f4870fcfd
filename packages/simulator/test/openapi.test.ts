/**
 * The OpenAPI documents of the four APIs: valid OpenAPI 3.1 by a real validator, served by the
 * simulator, and in step with its routes both ways, so the two cannot drift.
 */
import { validate } from "@readme/openapi-parser"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect } from "effect"
import { OPENAPI_APIS, Simulator, documentedRoutes, openApiDocument, openApiPath } from "../src/index.js"
import { EstimationState } from "../src/estimation.js"
import { FitState } from "../src/fit.js"
import { PlatformState } from "../src/platform.js"
import { SessionState } from "../src/session.js"
import { routerOf } from "../src/simulator.js"

// The simulator's own routes, which no API document describes: the documents themselves, and
// CORS preflight for every path.
const INFRASTRUCTURE = new Set(["GET /openapi/{file}", "OPTIONS *"])

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
})
