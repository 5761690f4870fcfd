/**
 * docs/gateway.md's tables, from the gateway's own data: its routes (the router the gateway
 * serves), the session API's error statuses and the estimation failure codes. A route added to
 * the gateway with no line here fails `pnpm run docs`, so the doc cannot miss an endpoint.
 */
import { Chunk } from "effect"
import { SESSION_ERROR_STATUS, Wire } from "@scanbridge/session"
import { Gateway } from "../../packages/gateway/src/index.js"
import { FAILURE_CODES, OTHER_FAILURE_CODE } from "../../packages/gateway/src/internal/estimation-result.js"
import { code, table } from "./tables.js"

/** What each route is for, by `METHOD path` as the router holds it. */
const ROUTES: Readonly<Record<string, readonly [api: string, what: string]>> = {
  "POST /scanning/v0/create-session": [
    "session",
    "issues a platform scan token for the session and answers `scanningSession` (SSID, `clientScanningId`, expiry) or `error`"
  ],
  "GET /scanning/v0/results/:ssid": ["session", "`results` once the platform holds the session's scan, `pending` until then, or `error`"],
  "OPTIONS /scanning/v0/results/:ssid": ["session", "CORS preflight, for pages that read results"],
  "GET /gateway/v0/sessions/:ssid/scanner": ["gateway's own", "`{url, expireAtTimestamp}`: the session's hosted-scanner address, with its scan token"],
  "OPTIONS /gateway/v0/sessions/:ssid/scanner": ["gateway's own", "CORS preflight"],
  "GET /tokens/anonymous": ["estimation", "`{uid, access_token}` for an accepted `client_id`"],
  "POST /estimation": ["estimation", "stores the form's stats: `{created_at, estimation_id}`"],
  "POST /estimation/:id/image": ["estimation", "stores a `front` or `right` JPEG; with both in, creates the platform scan and deletes the photos"],
  "GET /estimation/:id": ["estimation", "`in-progress`, then `completed` with `success` or `fail` and its code"],
  "GET /widget/v0/widget.js": ["widget", "the script defining `BodygramScanningWidget`"],
  "GET /widget/v0/widget.css": ["widget", "its stylesheet"]
}

export const gatewayRouteTable = (): string => {
  const routes = Chunk.toReadonlyArray(Gateway.gatewayRouter.routes).map((r) => `${r.method} ${r.path}`)
  const missing = routes.filter((route) => ROUTES[route] === undefined)
  if (missing.length > 0) throw new Error(`tools/docs/gateway.ts: no description of the gateway's route(s) ${missing.join(", ")}`)
  return table(
    ["method", "path", "API", "what the gateway answers"],
    routes.map((route) => {
      const [method, path] = route.split(" ") as [string, string]
      const [api, what] = ROUTES[route]!
      return [method, code(path), api, what]
    })
  )
}

export const gatewaySessionStatusTable = (): string => {
  const types = [...new Set([...Object.keys(Wire.CREATE_ERROR_TYPE.numbers), ...Object.keys(Wire.RESULTS_ERROR_TYPE.numbers)])]
  const where = (type: string) =>
    [type in Wire.CREATE_ERROR_TYPE.numbers ? "create-session" : "", type in Wire.RESULTS_ERROR_TYPE.numbers ? "results" : ""]
      .filter((s) => s !== "")
      .join(", ")
  return table(
    ["errorType", "in", "HTTP status"],
    types.map((type) => [code(type), where(type), String(SESSION_ERROR_STATUS[type as keyof typeof SESSION_ERROR_STATUS] ?? 200)])
  )
}

export const gatewayFailureCodeTable = (): string => {
  const byCode = new Map<number, Array<string>>()
  for (const [platform, legacy] of FAILURE_CODES) byCode.set(legacy, [...(byCode.get(legacy) ?? []), platform])
  return table(
    ["platform error code", "estimation code"],
    [...[...byCode].map(([legacy, platform]) => [platform.map(code).join(", "), String(legacy)]), ["any other", String(OTHER_FAILURE_CODE)]]
  )
}
