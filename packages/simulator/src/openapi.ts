/**
 * OpenAPI 3.1 documents of the vendor's four APIs, made from the wire schemas the adapters
 * already have (effect's `JSONSchema`, OpenAPI 3.1 target), with the documented errors, the
 * auth schemes, the documents' quirks as descriptions, and Scanbridge's choices where the
 * vendor's documents say "not shown" marked `x-scanbridge-not-shown`. The simulator serves them
 * at `GET /openapi/<api>.json`; a test checks every route it serves against them, both ways.
 *
 * Paths are the simulator's: the vendor gives no host, and its `{fit_url}`-style bases are not
 * shown, so the documents describe the API as the simulator (and Scanbridge's clients) place it.
 * Routes under `_simulator` are the simulator's own controls, tagged as such.
 */
import { JSONSchema, type Schema } from "effect"
import { Wire as EstimationWire } from "@scanbridge/estimation"
import { Wire as FitWire } from "@scanbridge/fit"
import { Wire as PlatformWire } from "@scanbridge/platform"
import { Wire as SessionWire } from "@scanbridge/session"

export const OPENAPI_APIS = ["platform", "session", "estimation", "fit"] as const
export type OpenApiName = (typeof OPENAPI_APIS)[number]

/** A JSON value (an OpenAPI document is plain JSON). */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

type Method = "get" | "post" | "delete"

interface Body {
  readonly schema: string
  readonly contentType?: string
}

interface Operation {
  readonly method: Method
  /** The simulator's route, `:name` for a path parameter. */
  readonly route: string
  readonly summary: string
  readonly description?: string
  readonly request?: Body
  /** The query's schema (an object's properties become parameters). */
  readonly query?: string
  /** Query parameters with no schema of their own. */
  readonly queryParameters?: ReadonlyArray<{ readonly name: string; readonly description: string }>
  /** Status (or `default`) to its description and body schema. */
  readonly responses: Readonly<Record<string, { readonly description: string; readonly schema?: string; readonly contentType?: string }>>
  readonly security?: ReadonlyArray<string>
  /** A choice of Scanbridge's where the document says "not shown". */
  readonly notShown?: string
  readonly simulatorOnly?: boolean
}

interface Api {
  readonly title: string
  readonly document: string
  readonly description: string
  readonly schemas: Readonly<Record<string, Schema.Schema.Any>>
  readonly securitySchemes: Readonly<Record<string, Json>>
  readonly operations: ReadonlyArray<Operation>
}

const statusErrors = (schema: string, statuses: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, { description, schema }]))

const PLATFORM_ERRORS = statusErrors("ErrorBody", {
  "400": "Malformed body: wrong shape, missing required field, bad units. No scan is created and no quota used.",
  "401": "Bad or missing API key (or scan token). The 401 carries no CORS headers, so a browser sees an opaque network error.",
  "403": "Key valid but not permitted for this organization, or scope missing.",
  "404": "Unknown organization or scan, or the scan was already deleted.",
  "429": "Rate limit or quota exhausted.",
  "5XX": "Server-side error; retry with exponential backoff."
})

const API: Readonly<Record<OpenApiName, Api>> = {
  platform: {
    title: "Scan Platform REST API",
    document: "01-platform-rest-api.md",
    description:
      "The vendor's current API. Every endpoint takes the organization API key itself in `Authorization` (no prefix, no encoding); the key is secret and used from a server only. A failed scan is data: HTTP 200 with `entry.status` = `failure` and `entry.error.code`.",
    schemas: {
      CreateScanRequest: PlatformWire.CreateScanRequest,
      EntryEnvelope: PlatformWire.EntryEnvelope,
      ListPage: PlatformWire.ListPage,
      ListQuery: PlatformWire.ListQuery,
      AdjustRequest: PlatformWire.AdjustRequest,
      DeleteResponse: PlatformWire.DeleteResponse,
      ScanTokenRequest: PlatformWire.ScanTokenRequest,
      ScanTokenResponse: PlatformWire.ScanTokenResponse,
      ErrorBody: PlatformWire.ErrorBody
    },
    securitySchemes: {
      apiKey: { type: "apiKey", in: "header", name: "Authorization", description: "The organization API key itself, with no prefix and no encoding." },
      scanToken: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description: "A scan token from POST scan-tokens, valid for one scan. How a token is presented is not shown; Scanbridge sends `Authorization: Bearer <jwt>`.",
        "x-scanbridge-not-shown": "How a scan token is presented on REST requests."
      }
    },
    operations: [
      {
        method: "post",
        route: "/api/orgs/:orgId/scans",
        summary: "Create a scan (stats estimation or photo scan)",
        description: "Consumes one scan of quota. Wrong units are not rejected by the vendor: they spend quota on a nonsense scan (Scanbridge's client checks them first).",
        request: { schema: "CreateScanRequest" },
        responses: { "200": { description: "The scan, `success` or `failure`.", schema: "EntryEnvelope" }, ...PLATFORM_ERRORS },
        security: ["apiKey", "scanToken"]
      },
      {
        method: "get",
        route: "/api/orgs/:orgId/scans",
        summary: "List scans, a page at a time",
        description: "Page size defaults to 30.",
        query: "ListQuery",
        responses: { "200": { description: "A page of scan summaries.", schema: "ListPage" }, ...PLATFORM_ERRORS },
        security: ["apiKey"]
      },
      {
        method: "get",
        route: "/api/orgs/:orgId/scans/:scanId",
        summary: "Read a scan",
        responses: { "200": { description: "The scan.", schema: "EntryEnvelope" }, ...PLATFORM_ERRORS },
        security: ["apiKey", "scanToken"]
      },
      {
        method: "post",
        route: "/api/orgs/:orgId/scans/:scanId/adjust",
        summary: "Adjust a scan (a new scan from a base scan)",
        description: "Consumes one scan of quota. Percentages are relative changes of the base scan's values.",
        request: { schema: "AdjustRequest" },
        responses: { "200": { description: "The adjusted scan.", schema: "EntryEnvelope" }, ...PLATFORM_ERRORS },
        security: ["apiKey"]
      },
      {
        method: "delete",
        route: "/api/orgs/:orgId/scans/:scanId",
        summary: "Delete a scan",
        description: "Not idempotent: a second delete is a 404. A scan token cannot delete.",
        responses: { "200": { description: "Deleted.", schema: "DeleteResponse" }, ...PLATFORM_ERRORS },
        security: ["apiKey"]
      },
      {
        method: "post",
        route: "/api/orgs/:orgId/scan-tokens",
        summary: "Issue a scan token",
        description: "Each token authorizes exactly one scan; lifetime default and maximum 31536000 seconds.",
        request: { schema: "ScanTokenRequest" },
        responses: { "200": { description: "The token.", schema: "ScanTokenResponse" }, ...PLATFORM_ERRORS },
        security: ["apiKey"]
      }
    ]
  },
  session: {
    title: "Scanner session API (deprecated)",
    document: "02-legacy-session-and-estimation-api.md",
    description:
      "Protobuf JSON: Scanbridge reads it as a proto3 JSON parser does (lowerCamelCase or the original field names, enums by name or number, 64-bit integers as strings). The client id goes in the create-session body; the session is created from a backend. Errors are in the body (`errorType`); one document example spells `MALFORMED_REQUEST`, which is not among the names.",
    schemas: {
      CreateScanningSessionRequest: SessionWire.CreateScanningSessionRequest,
      CreateScanningSessionResponse: SessionWire.CreateScanningSessionResponse,
      ScanningResults: SessionWire.ScanningResults
    },
    securitySchemes: {},
    operations: [
      {
        method: "post",
        route: "/scanning/v0/create-session",
        summary: "Create a scanning session",
        description: "Exactly one of `scanningSession` or `error` in the response. The client id (`clientId`) is a static secret sent in the body.",
        request: { schema: "CreateScanningSessionRequest" },
        responses: { "200": { description: "The session, or an error with `errorType`.", schema: "CreateScanningSessionResponse" } },
        notShown: "HTTP status codes of error responses: Scanbridge's simulator answers 200 with the error in the body."
      },
      {
        method: "get",
        route: "/scanning/v0/results/:ssid",
        summary: "Read a session's results",
        description: "While the form is pending, the client retries after a couple of seconds.",
        responses: { "200": { description: "The results, pending, or an error.", schema: "ScanningResults" } },
        notShown: "HTTP status codes of error responses."
      },
      {
        method: "post",
        route: "/_simulator/session/sessions/:ssid/submit",
        summary: "Simulator only: submit a session's form as the widget would",
        responses: { "200": { description: "Submitted." } },
        simulatorOnly: true
      }
    ]
  },
  estimation: {
    title: "Estimation API (deprecated)",
    document: "02-legacy-session-and-estimation-api.md",
    description:
      "snake_case. An anonymous access token is fetched with the client id, then sent as `Access-Token`; `client_id` is also sent as a parameter in the later steps. No callbacks: the client polls GET estimation about every five seconds until `completed`. Units are not stated by the API; Scanbridge's codec infers and notes them.",
    schemas: {
      AuthResponse: EstimationWire.AuthResponse,
      CreateForm: EstimationWire.CreateForm,
      CreateResponse: EstimationWire.CreateResponse,
      UploadResponse: EstimationWire.UploadResponse,
      ReadResponse: EstimationWire.ReadResponse
    },
    securitySchemes: {
      accessToken: { type: "apiKey", in: "header", name: "Access-Token", description: "The anonymous access token from GET tokens/anonymous. Its lifetime is not shown." }
    },
    operations: [
      {
        method: "get",
        route: "/tokens/anonymous",
        summary: "Fetch an anonymous access token",
        queryParameters: [{ name: "client_id", description: "The integrator's client id." }],
        responses: { "200": { description: "The token.", schema: "AuthResponse" } },
        notShown: "The token's lifetime."
      },
      {
        method: "post",
        route: "/estimation",
        summary: "Create an estimation job",
        request: { schema: "CreateForm", contentType: "application/x-www-form-urlencoded" },
        responses: { "200": { description: "The job's id.", schema: "CreateResponse" } },
        security: ["accessToken"]
      },
      {
        method: "post",
        route: "/estimation/:id/image",
        summary: "Upload a photo (front or right)",
        description: "JPEG, at most 3 MB, aspect ratio 9:16, as multipart form data with `pattern`, `image` and `client_id`.",
        request: { schema: "UploadForm", contentType: "multipart/form-data" },
        responses: { "200": { description: "Accepted.", schema: "UploadResponse" } },
        security: ["accessToken"]
      },
      {
        method: "get",
        route: "/estimation/:id",
        summary: "Read (poll) an estimation job",
        description: "A failed job has `estimation.status` = `fail` and a numeric `code`, usually caused by the photos; the meaning of each code is not shown.",
        queryParameters: [{ name: "client_id", description: "The client id the access token was fetched with." }],
        responses: { "200": { description: "The job.", schema: "ReadResponse" } },
        security: ["accessToken"],
        notShown: "The meaning of each failure code."
      }
    ]
  },
  fit: {
    title: "Garment-fit service",
    document: "03-fit-service-and-client-library.md",
    description:
      "The client key is sent as `clientKey` in every request body; no header is used. Errors are `{error: {errorType, message}}` in the body (one example writes `error_type`); the message is for debugging only. CreatePurchase is called from the integrator's server after payment, and its errors must never be visible to end users.",
    schemas: {
      CreateSessionRequest: FitWire.CreateSessionRequest,
      CreateSessionResponse: FitWire.CreateSessionResponse,
      GetRecommendedSizeRequest: FitWire.GetRecommendedSizeRequest,
      GetRecommendedSizeResponse: FitWire.GetRecommendedSizeResponse,
      CreatePurchaseRequest: FitWire.CreatePurchaseRequestSchema,
      CreatePurchaseResponse: FitWire.CreatePurchaseResponse,
      EstimationResult: FitWire.EstimationResult
    },
    securitySchemes: {},
    operations: [
      {
        method: "post",
        route: "/fit/v2/CreateSession",
        summary: "Check whether a product is supported (create a fit session)",
        request: { schema: "CreateSessionRequest" },
        responses: { "200": { description: "Exactly one of the support status or an error.", schema: "CreateSessionResponse" } },
        notShown: "HTTP status codes of error responses, and the fit service's base URL (Scanbridge places it at /fit/v2)."
      },
      {
        method: "post",
        route: "/fit/v2/GetRecommendedSize",
        summary: "Recommend a size for an estimation and a product",
        request: { schema: "GetRecommendedSizeRequest" },
        responses: { "200": { description: "Exactly one of the recommendation or an error.", schema: "GetRecommendedSizeResponse" } },
        notShown: "HTTP status codes of error responses."
      },
      {
        method: "post",
        route: "/fit/v2/CreatePurchase",
        summary: "Record a purchase (order confirmation)",
        description: "Designed to return without error in most cases; errors are HTTP 4xx or 5xx with `{status: error, error: {message}}`.",
        request: { schema: "CreatePurchaseRequest" },
        responses: {
          "200": { description: "Recorded.", schema: "CreatePurchaseResponse" },
          "4XX": { description: "Refused; log it, never show it.", schema: "CreatePurchaseResponse" },
          "5XX": { description: "Failed; log it, never show it.", schema: "CreatePurchaseResponse" }
        }
      },
      {
        method: "post",
        route: "/fit/v2/_simulator/estimations",
        summary: "Simulator only: an estimation result with a token, as the client library's estimation operations return",
        responses: { "200": { description: "An estimation result.", schema: "EstimationResult" } },
        simulatorOnly: true
      }
    ]
  }
}

// The upload's form (multipart): documented here, since the wire has no schema for a form of files.
const UPLOAD_FORM: Json = {
  type: "object",
  required: ["pattern", "image", "client_id"],
  properties: {
    pattern: { type: "string", enum: ["front", "right"] },
    image: { type: "string", contentMediaType: "image/jpeg", description: "The photo's bytes." },
    client_id: { type: "string" }
  }
}

/** `/api/orgs/:orgId/scans` as OpenAPI's `/api/orgs/{orgId}/scans`, with its parameters' names. */
export const openApiPath = (route: string): { readonly path: string; readonly parameters: ReadonlyArray<string> } => {
  const parameters: Array<string> = []
  const path = route.replace(/:([A-Za-z]+)/g, (_, name: string) => (parameters.push(name), `{${name}}`))
  return { path, parameters }
}

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` })

const json = (value: unknown): Json => JSON.parse(JSON.stringify(value)) as Json

/** The OpenAPI 3.1 document of one API. */
export const openApiDocument = (name: OpenApiName): Json => {
  const api = API[name]
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const schemas: Record<string, Json> = {}
  for (const [schemaName, schema] of Object.entries(api.schemas)) {
    schemas[schemaName] = json(JSONSchema.fromAST(schema.ast, { definitions, definitionPath: "#/components/schemas/", target: "openApi3.1", additionalPropertiesStrategy: "allow" }))
  }
  for (const [id, definition] of Object.entries(definitions)) schemas[id] ??= json(definition)
  if (name === "estimation") schemas.UploadForm = UPLOAD_FORM
  const paths: Record<string, Record<string, Json>> = {}
  for (const op of api.operations) {
    const { path, parameters } = openApiPath(op.route)
    const queryParameters =
      op.query === undefined
        ? []
        : Object.entries((schemas[op.query] as { properties?: Record<string, Json> }).properties ?? {}).map(([q, schema]) => ({ name: q, in: "query", required: false, schema }))
    const operation: Record<string, Json> = {
      operationId: `${name}.${op.method}${path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
      summary: op.summary,
      ...(op.description === undefined ? {} : { description: op.description }),
      tags: [op.simulatorOnly === true ? "Scanbridge simulator only" : api.title],
      parameters: [
        ...parameters.map((p) => ({ name: p, in: "path", required: true, schema: { type: "string" } })),
        ...queryParameters,
        ...(op.queryParameters ?? []).map((q) => ({ name: q.name, in: "query", required: true, description: q.description, schema: { type: "string" } }))
      ],
      ...(op.request === undefined ? {} : { requestBody: { required: true, content: { [op.request.contentType ?? "application/json"]: { schema: ref(op.request.schema) } } } }),
      responses: Object.fromEntries(
        Object.entries(op.responses).map(([status, r]) => [
          status,
          { description: r.description, ...(r.schema === undefined ? {} : { content: { [r.contentType ?? "application/json"]: { schema: ref(r.schema) } } }) }
        ])
      ),
      ...(op.security === undefined ? { security: [] } : { security: op.security.map((s) => ({ [s]: [] })) }),
      ...(op.notShown === undefined ? {} : { "x-scanbridge-not-shown": op.notShown }),
      ...(op.simulatorOnly === true ? { "x-scanbridge-simulator-only": true } : {})
    }
    paths[path] = { ...paths[path], [op.method]: operation }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: api.title,
      version: "scanbridge-0.2",
      description: `${api.description}\n\nFrom the vendor's document ${api.document}, whose endpoint reference is "still being written"; generated by Scanbridge from its wire schemas. \`x-scanbridge-not-shown\` marks Scanbridge's choices where the document says "not shown".`
    },
    servers: [
      {
        url: "{baseUrl}",
        description: "The vendor's host is not shown. Scanbridge's simulator serves every API on one host (http://127.0.0.1:<port>).",
        variables: { baseUrl: { default: "http://127.0.0.1:8787" } },
        "x-scanbridge-not-shown": "The vendor's base URL."
      }
    ],
    tags: [{ name: api.title }, { name: "Scanbridge simulator only", description: "The simulator's own controls, not part of the vendor's API." }],
    paths,
    components: { schemas, securitySchemes: api.securitySchemes }
  }
}

/** Every route a document describes, as `METHOD /path/{param}`. */
export const documentedRoutes = (name: OpenApiName): ReadonlyArray<string> =>
  API[name].operations.map((op) => `${op.method.toUpperCase()} ${openApiPath(op.route).path}`)
