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
import { JSONSchema, Schema } from "effect"
import { Wire as EstimationWire } from "@scanbridge/estimation"
import { FIT_UNITS, Wire as FitWire, fitDialect } from "@scanbridge/fit"
import { Wire as PlatformWire } from "@scanbridge/platform"
import { Wire as SessionWire, sessionDialect } from "@scanbridge/session"
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "./limits.js"
import { MAX_LIST_LIMIT } from "./platform.js"

export const OPENAPI_APIS = ["platform", "session", "estimation", "fit"] as const
export type OpenApiName = (typeof OPENAPI_APIS)[number]

/** A JSON value (an OpenAPI document is plain JSON). */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

type Method = "get" | "post" | "delete"

interface Body {
  readonly schema: string
  /** JSON unless said otherwise; a JSON body is taken as `text/plain` too. */
  readonly kind?: "form" | "multipart"
}

interface Response {
  readonly description: string
  /** The body's schema, or the schemas one of which it is. */
  readonly schema?: string | ReadonlyArray<string>
}

interface QueryOverride {
  /** Merged into the parameter's schema: bounds and defaults the wire leaves open. */
  readonly schema?: Readonly<Record<string, Json>>
  readonly notShown?: string
}

interface Operation {
  readonly method: Method
  /** The simulator's route, `:name` for a path parameter. */
  readonly route: string
  readonly summary: string
  readonly description?: string
  readonly request?: Body
  /** The query's schema, a name in the API's `queries` (each property becomes a parameter). */
  readonly query?: string
  readonly queryOverrides?: Readonly<Record<string, QueryOverride>>
  /** Query parameters with no schema of their own. */
  readonly queryParameters?: ReadonlyArray<{ readonly name: string; readonly description: string }>
  /** Status (or `4XX`, `5XX`) to its description and body schema. */
  readonly responses: Readonly<Record<string, Response>>
  readonly security?: ReadonlyArray<string>
  /** A choice of Scanbridge's where the document says "not shown". */
  readonly notShown?: string
  readonly simulatorOnly?: boolean
}

interface Api {
  readonly title: string
  /** The API's tag: what its operations are, in a line. */
  readonly tag: string
  readonly document: string
  readonly description: string
  readonly schemas: Readonly<Record<string, Schema.Schema.Any>>
  /**
   * Schemas of bodies whose values travel as text whatever their type (a form): documented as
   * the values they decode to, so that a generated client sends `height: 1750`, not `"1750"`.
   */
  readonly textSchemas?: Readonly<Record<string, Schema.Schema.Any>>
  /** Query schemas, documented as parameters (as their decoded values, as a form's). */
  readonly queries?: Readonly<Record<string, Schema.Schema.Any>>
  /**
   * The unit (or the meaning) of each quantity, by property name or by the names that lead to
   * it (`measurements.value`): effect's own descriptions ("a non-negative number") say none.
   */
  readonly units: Readonly<Record<string, string>>
  readonly securitySchemes: Readonly<Record<string, Json>>
  readonly operations: ReadonlyArray<Operation>
}

// --- Errors every API shares: the simulator's limits, the vendor's server errors --------------

/** The body of the simulator's own refusals (and of the platform's errors, whose shape it is). */
const MESSAGE = "ErrorMessage"

const TOO_LARGE: Response = {
  description: `The request body is beyond the simulator's limit (${MAX_BODY_BYTES} bytes unless \`maxBodyBytes\` says otherwise), refused as soon as its Content-Length or the bytes received pass it. The vendor's limit is not shown.`,
  schema: MESSAGE
}

const TOO_DEEP = `JSON nested deeper than ${MAX_JSON_DEPTH} levels (the simulator's limit)`

const SERVER_ERROR: Response = { description: "Server-side error; retry with exponential backoff.", schema: MESSAGE }

// --- Platform ---------------------------------------------------------------------------------

const PLATFORM_UNAUTHORIZED: Response = {
  description: "Bad or missing API key (or scan token), or an expired scan token. The 401 carries no CORS headers, so a browser sees an opaque network error.",
  schema: MESSAGE
}
/** A platform operation's responses: its own, and the 401 and 5XX that every one may answer. */
const platformResponses = (responses: Readonly<Record<string, Response>>): Readonly<Record<string, Response>> => ({
  ...responses,
  "401": PLATFORM_UNAUTHORIZED,
  "5XX": SERVER_ERROR
})
const PLATFORM_RATE: Response = { description: "Rate limit exceeded.", schema: MESSAGE }
const PLATFORM_QUOTA: Response = { description: "Quota exhausted (no scan is created), or rate limit exceeded.", schema: MESSAGE }
const KEY_ONLY = "The credential is for another organization, or is a scan token, which cannot do this (use the API key)."

const PLATFORM_UNITS = PlatformWire.UNITS

// --- Session and fit: errors in the body, with a status that suits them -----------------------

/** Unit names in a quantity's description, from the dialect that writes them. */
const statUnits = (stats: ReadonlyArray<{ readonly spelling: { readonly name: string; readonly unit: string } }>): string =>
  stats.map(({ spelling }) => `${spelling.name} in ${spelling.unit}`).join(", ")

const PERCENT_E4 = "PERCENTAGE_E4 is percent x 10^4 (25.3 % is 253000)"

const POINT_UNIT = (axis: "x" | "y") =>
  `${axis === "x" ? "Horizontal" : "Vertical"} position of the point in the photo. The unit is not shown; the simulator writes pixels of a 1080 x 1920 photo, from its ${axis === "x" ? "left" : "top"} edge.`

const API: Readonly<Record<OpenApiName, Api>> = {
  platform: {
    title: "Scan Platform REST API",
    tag: "Scans of an organization: create, list, read, adjust, delete, and scan tokens.",
    document: "01-platform-rest-api.md",
    description:
      "The vendor's current API. Every endpoint takes the organization API key itself in `Authorization` (no prefix, no encoding); the key is secret and used from a server only. A failed scan is data: HTTP 200 with `entry.status` = `failure` and `entry.error.code`.",
    schemas: {
      CreateScanRequest: PlatformWire.CreateScanRequest,
      EntryEnvelope: PlatformWire.EntryEnvelope,
      ListPage: PlatformWire.ListPage,
      AdjustRequest: PlatformWire.AdjustRequest,
      DeleteResponse: PlatformWire.DeleteResponse,
      ScanTokenRequest: PlatformWire.ScanTokenRequest,
      ScanTokenResponse: PlatformWire.ScanTokenResponse,
      [MESSAGE]: PlatformWire.ErrorBody
    },
    queries: { ListQuery: PlatformWire.ListQuery },
    units: {
      age: "Age in whole years.",
      height: "Height (stature) in millimetres, a whole number (1.75 m is 1750).",
      weight: "Body weight in grams, a whole number (70 kg is 70000).",
      "outputStats.weight": "The adjusted body's weight, in grams.",
      percentage: "A relative change of the base scan's value, in percent: -10 is 10 % less.",
      "measurements.value": `The measurement in the item's \`unit\`: \`${PLATFORM_UNITS.length}\` (millimetres).`,
      "bodyFatPercentage.value": `Body fat as a share of body weight, in the item's \`unit\`: \`${PLATFORM_UNITS.percent}\` (0 to 100).`,
      "bodyFatMass.value": `Body fat mass in the item's \`unit\`: \`${PLATFORM_UNITS.mass}\` (grams).`,
      "leanMass.value": `Lean mass in the item's \`unit\`: \`${PLATFORM_UNITS.mass}\` (grams).`,
      "angles.value": `The line's angle in the item's \`unit\`: \`${PLATFORM_UNITS.angle}\` (\`${PLATFORM_UNITS.angleAliases.join("`, `")}\` is read too).`,
      "angles.angles": `The angles of the line's segments, in the item's \`unit\`: \`${PLATFORM_UNITS.angle}\`.`,
      "points.x": POINT_UNIT("x"),
      "points.y": POINT_UNIT("y"),
      createdAt: "When the scan was created, in UNIX seconds.",
      expiresAt: "When the token expires, in UNIX seconds.",
      lifetime: `How long the token is valid, in seconds, 1 to ${PlatformWire.MAX_TOKEN_LIFETIME_S} (a year); default ${PlatformWire.MAX_TOKEN_LIFETIME_S}.`,
      limit: `How many scans a page holds (a count); default ${PlatformWire.DEFAULT_LIST_LIMIT}.`
    },
    securitySchemes: {
      apiKey: { type: "apiKey", in: "header", name: "Authorization", description: "The organization API key itself, with no prefix and no encoding." },
      scanToken: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description:
          "A scan token from POST scan-tokens, valid for one scan. How a token is presented is not shown; Scanbridge sends `Authorization: Bearer <jwt>`.",
        "x-scanbridge-not-shown": "How a scan token is presented on REST requests."
      }
    },
    operations: [
      {
        method: "post",
        route: "/api/orgs/:orgId/scans",
        summary: "Create a scan (stats estimation or photo scan)",
        description:
          "Consumes one scan of quota. Wrong units are not rejected by the vendor: they spend quota on a nonsense scan (Scanbridge's client checks them first).",
        request: { schema: "CreateScanRequest" },
        responses: platformResponses({
          "200": { description: "The scan, `success` or `failure`.", schema: "EntryEnvelope" },
          "400": {
            description: `Malformed body: not JSON, ${TOO_DEEP}, wrong shape, a missing or unknown field, a \`customScanId\` other than the scan token's, a query parameter. No scan is created and no quota used.`,
            schema: MESSAGE
          },
          "403": {
            description: "The credential is for another organization; or a scan token without the create scope, already used, or in use by a create under way.",
            schema: MESSAGE
          },
          "404": { description: "Unknown organization.", schema: MESSAGE },
          "413": TOO_LARGE,
          "429": PLATFORM_QUOTA
        }),
        security: ["apiKey", "scanToken"]
      },
      {
        method: "get",
        route: "/api/orgs/:orgId/scans",
        summary: "List scans, a page at a time",
        description: `Page size defaults to ${PlatformWire.DEFAULT_LIST_LIMIT}.`,
        query: "ListQuery",
        queryOverrides: {
          limit: {
            schema: { maximum: MAX_LIST_LIMIT, default: PlatformWire.DEFAULT_LIST_LIMIT },
            notShown: `The largest page: the simulator takes at most ${MAX_LIST_LIMIT}.`
          }
        },
        responses: platformResponses({
          "200": { description: "A page of scan summaries.", schema: "ListPage" },
          "400": { description: `A query parameter out of range or unknown, or an \`after\` id that was never issued.`, schema: MESSAGE },
          "403": { description: KEY_ONLY, schema: MESSAGE },
          "404": { description: "Unknown organization.", schema: MESSAGE },
          "429": PLATFORM_RATE
        }),
        security: ["apiKey"]
      },
      {
        method: "get",
        route: "/api/orgs/:orgId/scans/:scanId",
        summary: "Read a scan",
        responses: platformResponses({
          "200": { description: "The scan.", schema: "EntryEnvelope" },
          "400": { description: "A query parameter (the endpoint takes none).", schema: MESSAGE },
          "403": {
            description: "The credential is for another organization; or a scan token without the read scope, or other than the one that created this scan.",
            schema: MESSAGE
          },
          "404": { description: "Unknown organization or scan, or the scan was deleted.", schema: MESSAGE },
          "429": PLATFORM_RATE
        }),
        security: ["apiKey", "scanToken"]
      },
      {
        method: "post",
        route: "/api/orgs/:orgId/scans/:scanId/adjust",
        summary: "Adjust a scan (a new scan from a base scan)",
        description: "Consumes one scan of quota. Percentages are relative changes of the base scan's values.",
        request: { schema: "AdjustRequest" },
        responses: platformResponses({
          "200": { description: "The adjusted scan.", schema: "EntryEnvelope" },
          "400": {
            description: `Malformed body (not JSON, ${TOO_DEEP}, wrong shape, a name that is neither \`weight\` nor a measurement, a percentage of -100 or less), a query parameter, or a base scan that failed. No quota is used.`,
            schema: MESSAGE
          },
          "403": { description: KEY_ONLY, schema: MESSAGE },
          "404": { description: "Unknown organization or base scan.", schema: MESSAGE },
          "413": TOO_LARGE,
          "429": PLATFORM_QUOTA
        }),
        security: ["apiKey"]
      },
      {
        method: "delete",
        route: "/api/orgs/:orgId/scans/:scanId",
        summary: "Delete a scan",
        description: "Not idempotent: a second delete is a 404. A scan token cannot delete.",
        responses: platformResponses({
          "200": { description: "Deleted.", schema: "DeleteResponse" },
          "400": { description: "A query parameter (the endpoint takes none).", schema: MESSAGE },
          "403": { description: KEY_ONLY, schema: MESSAGE },
          "404": { description: "Unknown organization or scan, or the scan was already deleted.", schema: MESSAGE },
          "429": PLATFORM_RATE
        }),
        security: ["apiKey"]
      },
      {
        method: "post",
        route: "/api/orgs/:orgId/scan-tokens",
        summary: "Issue a scan token",
        description: `Each token authorizes exactly one scan; lifetime default and maximum ${PlatformWire.MAX_TOKEN_LIFETIME_S} seconds.`,
        request: { schema: "ScanTokenRequest" },
        responses: platformResponses({
          "200": { description: "The token.", schema: "ScanTokenResponse" },
          "400": {
            description: `Malformed body: not JSON, ${TOO_DEEP}, a scope without \`${PlatformWire.SCOPES.create}\`, a lifetime out of range, an unknown field; or a query parameter.`,
            schema: MESSAGE
          },
          "403": { description: KEY_ONLY, schema: MESSAGE },
          "404": { description: "Unknown organization.", schema: MESSAGE },
          "413": TOO_LARGE,
          "429": PLATFORM_RATE
        }),
        security: ["apiKey"]
      }
    ]
  },
  session: {
    title: "Scanner session API (deprecated)",
    tag: "Scanning sessions: create one from a backend, then read its results.",
    document: "02-legacy-session-and-estimation-api.md",
    description:
      "Protobuf JSON: Scanbridge reads it as a proto3 JSON parser does (lowerCamelCase or the original field names, enums by name or number, 64-bit integers as strings). The client id goes in the create-session body; the session is created from a backend. Errors are in the body (`errorType`); one document example spells `MALFORMED_REQUEST`, which is not among the names.",
    schemas: {
      CreateScanningSessionRequest: SessionWire.CreateScanningSessionRequest,
      CreateScanningSessionResponse: SessionWire.CreateScanningSessionResponse,
      ScanningResults: SessionWire.ScanningResults,
      [MESSAGE]: PlatformWire.ErrorBody
    },
    units: {
      "measurements.value": `The value as a decimal string (int64), in the item's \`unit\`: body measurements in ${SessionWire.LENGTH_UNIT} (millimetres), ${statUnits(sessionDialect.statList)}; ${PERCENT_E4}.`,
      "angles.value": `The line's angle in the item's \`unit\`: ${SessionWire.ANGLE_DEGREES} (degrees) or ${SessionWire.ANGLE_RADIANS} (radians).`,
      "angles.angles": `The angles of the line's segments, in the item's \`unit\`: ${SessionWire.ANGLE_DEGREES} (degrees) or ${SessionWire.ANGLE_RADIANS} (radians).`,
      "points.x": POINT_UNIT("x"),
      "points.y": POINT_UNIT("y"),
      vertices: "The avatar mesh: x, y and z of each vertex in turn. The unit is not shown; the simulator writes metres."
    },
    securitySchemes: {},
    operations: [
      {
        method: "post",
        route: "/scanning/v0/create-session",
        summary: "Create a scanning session",
        description: "Exactly one of `scanningSession` or `error` in the response. The client id (`clientId`) is a static secret sent in the body.",
        request: { schema: "CreateScanningSessionRequest" },
        responses: {
          "200": {
            description: 'The session; with the simulator\'s `errorStatus: "ok"`, an error with `errorType` too.',
            schema: "CreateScanningSessionResponse"
          },
          "400": {
            description: `MALFORMED_REQUEST_BODY: not JSON, not the message, an unknown field or a query parameter. ${TOO_DEEP} is the simulator's {message}.`,
            schema: ["CreateScanningSessionResponse", MESSAGE]
          },
          "401": { description: "INVALID_CLIENT_ID: the client id is missing or not valid.", schema: "CreateScanningSessionResponse" },
          "413": TOO_LARGE
        },
        notShown:
          'HTTP status codes of error responses: the simulator answers a status that suits the error (or 200 with `errorStatus: "ok"`), the error in the body; a client must not depend on either.'
      },
      {
        method: "get",
        route: "/scanning/v0/results/:ssid",
        summary: "Read a session's results",
        description: "While the form is pending, the client retries after a couple of seconds.",
        responses: {
          "200": {
            description:
              'The results, pending, or an error the session ended with or is waiting on (SESSION_EXPIRED, USER_INPUT_NOT_SUBMITTED, INVALID_USER_INPUT, ABORTED); with `errorStatus: "ok"`, every error.',
            schema: "ScanningResults"
          },
          "400": { description: "ERROR_TYPE_UNSPECIFIED: a query parameter (the only parameter is the SSID in the path).", schema: "ScanningResults" },
          "404": { description: "INVALID_SESSION_ID: no such session.", schema: "ScanningResults" },
          "500": { description: "INTERNAL_ERROR.", schema: "ScanningResults" }
        },
        notShown: "HTTP status codes of error responses."
      },
      {
        method: "post",
        route: "/_simulator/session/sessions/:ssid/submit",
        summary: "Simulator only: submit a session's form as the widget would",
        description: "The body is JSON: `age`, `gender`, `heightMm`, `weightG`, `outcome`, `processingMs`, each optional (`{}` draws the stats from the SSID).",
        responses: {
          "200": { description: "Submitted." },
          "400": { description: `The body is not the submission (not JSON, ${TOO_DEEP}, a value out of range).`, schema: MESSAGE },
          "404": { description: "No such session.", schema: MESSAGE },
          "413": TOO_LARGE
        },
        simulatorOnly: true
      }
    ]
  },
  estimation: {
    title: "Estimation API (deprecated)",
    tag: "Estimation jobs: an anonymous token, a job from stats, two photos, then polling.",
    document: "02-legacy-session-and-estimation-api.md",
    description:
      "snake_case. An anonymous access token is fetched with the client id, then sent as `Access-Token`; `client_id` is also sent as a parameter in the later steps. No callbacks: the client polls GET estimation about every five seconds until `completed`. Units are not stated by the API; Scanbridge's codec infers and notes them.",
    schemas: {
      AuthResponse: EstimationWire.AuthResponse,
      CreateResponse: EstimationWire.CreateResponse,
      UploadResponse: EstimationWire.UploadResponse,
      ReadResponse: EstimationWire.ReadResponse,
      [MESSAGE]: PlatformWire.ErrorBody
    },
    textSchemas: { CreateForm: EstimationWire.CreateForm },
    units: {
      age: "Age in whole years.",
      height: "Height (stature) in millimetres, a whole number.",
      weight: "Body weight in grams, a whole number.",
      "input.height": "The height the job was created with, in millimetres.",
      "input.weight": "The weight the job was created with, in grams.",
      measurement:
        "Body measurements by key. The API states no unit: the simulator writes millimetres (centimetres with its `lengthUnit` option); Scanbridge's codec infers the unit from the body's proportions, notes it, and refuses what fits no unit (`lengthUnit` says it).",
      body_fat_percentage:
        "Body fat. The API states no scale: percent (25.3) or percent x 10^4 (253000). The simulator writes percent (x 10^4 with its `bodyFatScale` option); Scanbridge's codec infers the scale and notes it (`bodyFatScale` says it).",
      skeletal_muscle_mass:
        "Skeletal muscle mass. The API states no unit: grams or kilograms. The simulator writes grams (kilograms with its `muscleMassUnit` option); Scanbridge's codec infers the unit and notes it (`muscleMassUnit` says it).",
      code: `The job's outcome code: ${EstimationWire.SUCCESS_CODE} on success; a failed job's code says why, whose meanings are not shown (the simulator answers 301 to 304 for a photo that breaks a limit).`,
      version: "An opaque version; its type is not shown (a string or a number).",
      work_id: "An opaque job id; its type is not shown (a string or a number)."
    },
    securitySchemes: {
      accessToken: {
        type: "apiKey",
        in: "header",
        name: "Access-Token",
        description: "The anonymous access token from GET tokens/anonymous. Its lifetime is not shown."
      }
    },
    operations: [
      {
        method: "get",
        route: "/tokens/anonymous",
        summary: "Fetch an anonymous access token",
        queryParameters: [{ name: "client_id", description: "The integrator's client id." }],
        responses: {
          "200": { description: "The token.", schema: "AuthResponse" },
          "400": { description: "`client_id` is missing, or a query parameter the endpoint does not take.", schema: MESSAGE },
          "401": { description: "The client id is not valid.", schema: MESSAGE }
        },
        notShown: "The token's lifetime, and the error responses (the simulator answers `{message}` with a status that suits the error)."
      },
      {
        method: "post",
        route: "/estimation",
        summary: "Create an estimation job",
        request: { schema: "CreateForm", kind: "form" },
        responses: {
          "200": { description: "The job's id.", schema: "CreateResponse" },
          "400": {
            description: "Not the form (a field missing, unknown or out of range), an invalid `measurement_id`, or a query parameter.",
            schema: MESSAGE
          },
          "401": { description: "The access token is missing, unknown or expired, or `client_id` is not the token's.", schema: MESSAGE },
          "413": TOO_LARGE
        },
        security: ["accessToken"]
      },
      {
        method: "post",
        route: "/estimation/:id/image",
        summary: "Upload a photo (front or right)",
        description:
          "JPEG, at most 3 MB, aspect ratio 9:16, as multipart form data with `pattern`, `image` and `client_id`. A photo that breaks a limit is taken, and the job fails with a code.",
        request: { schema: "UploadForm", kind: "multipart" },
        responses: {
          "200": { description: "Accepted.", schema: "UploadResponse" },
          "400": {
            description:
              "Not a multipart form the simulator reads (no boundary, no closing boundary, too many parts), a `pattern` other than front or right, no `image`, an unknown part, or a query parameter.",
            schema: MESSAGE
          },
          "401": { description: "The access token is missing, unknown or expired, or `client_id` is not the token's.", schema: MESSAGE },
          "404": { description: "No such estimation for this client.", schema: MESSAGE },
          "413": TOO_LARGE
        },
        security: ["accessToken"]
      },
      {
        method: "get",
        route: "/estimation/:id",
        summary: "Read (poll) an estimation job",
        description: "A failed job has `estimation.status` = `fail` and a numeric `code`, usually caused by the photos; the meaning of each code is not shown.",
        queryParameters: [{ name: "client_id", description: "The client id the access token was fetched with." }],
        responses: {
          "200": { description: "The job.", schema: "ReadResponse" },
          "400": { description: "A query parameter the endpoint does not take.", schema: MESSAGE },
          "401": { description: "The access token is missing, unknown or expired, or `client_id` is missing or not the token's.", schema: MESSAGE },
          "404": { description: "No such estimation for this client.", schema: MESSAGE }
        },
        security: ["accessToken"],
        notShown: "The meaning of each failure code."
      }
    ]
  },
  fit: {
    title: "Garment-fit service",
    tag: "Size recommendations for a product and a body, and purchases.",
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
      EstimationResult: FitWire.EstimationResult,
      [MESSAGE]: PlatformWire.ErrorBody
    },
    units: {
      "measurements.value": `The value in the item's \`unit\`, a number or a decimal string: body measurements in ${FIT_UNITS.length} (millimetres), ${statUnits(fitDialect.statList)}.`,
      tightness: "How tight the fit is to be; the scale is not shown (the client library sends 0).",
      price: "Unit price in the order's currency, in major units (19.99, not 1999).",
      quantity: "How many were bought (a count).",
      createdAt: "When the order was placed, in UNIX milliseconds."
    },
    securitySchemes: {},
    operations: [
      {
        method: "post",
        route: "/fit/v2/CreateSession",
        summary: "Check whether a product is supported (create a fit session)",
        request: { schema: "CreateSessionRequest" },
        responses: {
          "200": { description: 'The support status; with the simulator\'s `errorStatus: "ok"`, an error too.', schema: "CreateSessionResponse" },
          "400": {
            description: `MALFORMED_REQUEST or INVALID_PRODUCT_ID. ${TOO_DEEP} is the simulator's {message}.`,
            schema: ["CreateSessionResponse", MESSAGE]
          },
          "401": { description: "INVALID_CLIENT_KEY.", schema: "CreateSessionResponse" },
          "413": TOO_LARGE
        },
        notShown:
          'HTTP status codes of error responses (the simulator answers a status that suits the error, or 200 with `errorStatus: "ok"`), and the fit service\'s base URL (Scanbridge places it at /fit/v2).'
      },
      {
        method: "post",
        route: "/fit/v2/GetRecommendedSize",
        summary: "Recommend a size for an estimation and a product",
        request: { schema: "GetRecommendedSizeRequest" },
        responses: {
          "200": { description: 'The recommendation; with the simulator\'s `errorStatus: "ok"`, an error too.', schema: "GetRecommendedSizeResponse" },
          "400": {
            description: `MALFORMED_REQUEST, INVALID_ESTIMATION_TOKEN or INVALID_PRODUCT_ID. ${TOO_DEEP} is the simulator's {message}.`,
            schema: ["GetRecommendedSizeResponse", MESSAGE]
          },
          "401": { description: "INVALID_CLIENT_KEY.", schema: "GetRecommendedSizeResponse" },
          "404": { description: "PRODUCT_NOT_FOUND: no size chart for the product.", schema: "GetRecommendedSizeResponse" },
          "413": TOO_LARGE
        },
        notShown: "HTTP status codes of error responses."
      },
      {
        method: "post",
        route: "/fit/v2/CreatePurchase",
        summary: "Record a purchase (order confirmation)",
        description:
          "Designed to return without error in most cases; errors are HTTP 4xx or 5xx with `{status: error, error: {message}}`. Log them, never show them.",
        request: { schema: "CreatePurchaseRequest" },
        responses: {
          "200": { description: "Recorded.", schema: "CreatePurchaseResponse" },
          "400": {
            description: `Not the order: not JSON, a field missing or invalid. ${TOO_DEEP} is the simulator's {message}.`,
            schema: ["CreatePurchaseResponse", MESSAGE]
          },
          "401": { description: "The client key is missing or not valid.", schema: "CreatePurchaseResponse" },
          "413": TOO_LARGE,
          "5XX": { description: "Failed.", schema: "CreatePurchaseResponse" }
        }
      },
      {
        method: "post",
        route: "/fit/v2/_simulator/estimations",
        summary: "Simulator only: an estimation result with a token, as the client library's estimation operations return",
        description: "The body is JSON: `age` (years), `gender`, `heightMm`, `weightG`, and optionally `inputType`.",
        responses: {
          "200": { description: "An estimation result.", schema: "EstimationResult" },
          "400": { description: `The body is not the stats (not JSON, ${TOO_DEEP}, a field missing).`, schema: MESSAGE },
          "413": TOO_LARGE
        },
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

const isRecord = (value: Json | undefined): value is { readonly [key: string]: Json } => typeof value === "object" && value !== null && !Array.isArray(value)

/** The rule of `units` for the property at `path`: the one naming most of the path's end. */
const unitOf = (units: Readonly<Record<string, string>>, path: ReadonlyArray<string>): string | undefined => {
  let best: { readonly length: number; readonly text: string } | undefined
  for (const [rule, text] of Object.entries(units)) {
    const names = rule.split(".")
    const matches = names.length <= path.length && names.every((name, i) => path[path.length - names.length + i] === name)
    if (matches && (best === undefined || names.length > best.length)) best = { length: names.length, text }
  }
  return best?.text
}

/**
 * `schema` with the description of each property `units` names, at any depth: `path` is the
 * property names that lead to `schema` (arrays and unions add none).
 */
export const describeUnits = (schema: Json, units: Readonly<Record<string, string>>, path: ReadonlyArray<string> = []): Json => {
  if (Array.isArray(schema)) return schema.map((item: Json) => describeUnits(item, units, path))
  if (!isRecord(schema)) return schema
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]): [string, Json] => {
      if (key !== "properties" || !isRecord(value)) return [key, describeUnits(value, units, path)]
      const properties = Object.entries(value).map(([name, property]): [string, Json] => {
        const at = [...path, name]
        const described = describeUnits(property, units, at)
        const unit = unitOf(units, at)
        return [name, unit === undefined || !isRecord(described) ? described : { ...described, description: unit }]
      })
      return [key, Object.fromEntries(properties)]
    })
  )
}

/** The media types of a request body: a JSON body is read whatever its type, `text/plain` too. */
const requestContent = (body: Body): Record<string, Json> => {
  const schema = { schema: ref(body.schema) }
  if (body.kind === "form") return { "application/x-www-form-urlencoded": schema }
  if (body.kind === "multipart") return { "multipart/form-data": schema }
  return { "application/json": schema, "text/plain": schema }
}

const REQUEST_DESCRIPTION: Readonly<Record<NonNullable<Body["kind"]> | "json", string>> = {
  json: "JSON, sent as `application/json` or as `text/plain` alike (a browser sends `text/plain` without a CORS preflight): the body is read as JSON whatever its type.",
  form: "A URL-encoded form: each value travels as text and is read as the type shown.",
  multipart: "A multipart form."
}

const responseContent = (schema: string | ReadonlyArray<string>): Json => ({
  "application/json": { schema: typeof schema === "string" ? ref(schema) : { anyOf: schema.map(ref) } }
})

/** One query schema as parameters: each property's decoded type (a query is text whatever it holds). */
const queryParametersOf = (api: Api, op: Operation): ReadonlyArray<Json> => {
  if (op.query === undefined) return []
  const query = api.queries?.[op.query]
  if (query === undefined) throw new Error(`openapi: ${op.route} names the query ${op.query}, which its API does not have`)
  const schema = describeUnits(json(JSONSchema.make(Schema.typeSchema(query), { target: "openApi3.1" })), api.units)
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {}
  return Object.entries(properties).map(([name, property]) => {
    const { description, title: _title, ...rest } = isRecord(property) ? property : {}
    const override = op.queryOverrides?.[name]
    return {
      name,
      in: "query",
      required: false,
      ...(description === undefined ? {} : { description }),
      schema: { ...rest, ...override?.schema },
      ...(override?.notShown === undefined ? {} : { "x-scanbridge-not-shown": override.notShown })
    }
  })
}

const SIMULATOR_TAG = "Scanbridge simulator only"

/** The OpenAPI 3.1 document of one API. */
export const openApiDocument = (name: OpenApiName): Json => {
  const api = API[name]
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const generated: Record<string, Json> = {}
  // A response may hold keys a client does not know yet; a request holds only the keys shown,
  // so that a generated client catches a misspelt field the API would drop or refuse.
  const requests = new Set(api.operations.flatMap((op) => (op.request === undefined ? [] : [op.request.schema])))
  const fromSchema = (schemaName: string, schema: Schema.Schema.Any) =>
    json(
      JSONSchema.fromAST(schema.ast, {
        definitions,
        definitionPath: "#/components/schemas/",
        target: "openApi3.1",
        additionalPropertiesStrategy: requests.has(schemaName) ? "strict" : "allow"
      })
    )
  for (const [schemaName, schema] of Object.entries(api.schemas)) generated[schemaName] = fromSchema(schemaName, schema)
  for (const [schemaName, schema] of Object.entries(api.textSchemas ?? {})) generated[schemaName] = fromSchema(schemaName, Schema.typeSchema(schema))
  for (const [id, definition] of Object.entries(definitions)) generated[id] ??= json(definition)
  if (name === "estimation") generated.UploadForm = UPLOAD_FORM
  const schemas = Object.fromEntries(Object.entries(generated).map(([schemaName, schema]) => [schemaName, describeUnits(schema, api.units)]))
  const paths: Record<string, Record<string, Json>> = {}
  for (const op of api.operations) {
    const { path, parameters } = openApiPath(op.route)
    const operation: Record<string, Json> = {
      operationId: `${name}.${op.method}${path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
      summary: op.summary,
      ...(op.description === undefined ? {} : { description: op.description }),
      tags: [op.simulatorOnly === true ? SIMULATOR_TAG : api.title],
      parameters: [
        ...parameters.map((p) => ({ name: p, in: "path", required: true, schema: { type: "string" } })),
        ...queryParametersOf(api, op),
        ...(op.queryParameters ?? []).map((q) => ({ name: q.name, in: "query", required: true, description: q.description, schema: { type: "string" } }))
      ],
      ...(op.request === undefined
        ? {}
        : { requestBody: { required: true, description: REQUEST_DESCRIPTION[op.request.kind ?? "json"], content: requestContent(op.request) } }),
      responses: Object.fromEntries(
        // By status, so that a table's order is the document's: 200, 400, 401, ..., 5XX.
        Object.entries(op.responses)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([status, r]) => [status, { description: r.description, ...(r.schema === undefined ? {} : { content: responseContent(r.schema) }) }])
      ),
      ...(op.security === undefined ? { security: [] } : { security: op.security.map((s) => ({ [s]: [] })) }),
      ...(op.notShown === undefined ? {} : { "x-scanbridge-not-shown": op.notShown }),
      ...(op.simulatorOnly === true ? { "x-scanbridge-simulator-only": true } : {})
    }
    paths[path] = { ...paths[path], [op.method]: operation }
  }
  const simulatorOnly = api.operations.some((op) => op.simulatorOnly === true)
  return {
    openapi: "3.1.0",
    info: {
      title: api.title,
      version: "scanbridge-0.2",
      description: `${api.description}\n\nFrom the vendor's document ${api.document}, whose endpoint reference is "still being written"; generated by Scanbridge from its wire schemas. \`x-scanbridge-not-shown\` marks Scanbridge's choices where the document says "not shown". Besides the errors each operation lists, the simulator answers any request 429 or 503 when a test injects faults, and an unknown path 404.`,
      license: { name: "MIT", identifier: "MIT" }
    },
    servers: [
      {
        url: "{baseUrl}",
        description: "The vendor's host is not shown. Scanbridge's simulator serves every API on one host (http://127.0.0.1:<port>).",
        variables: { baseUrl: { default: "http://127.0.0.1:8787" } },
        "x-scanbridge-not-shown": "The vendor's base URL."
      }
    ],
    tags: [
      { name: api.title, description: api.tag },
      ...(simulatorOnly ? [{ name: SIMULATOR_TAG, description: "The simulator's own controls, not part of the vendor's API." }] : [])
    ],
    paths,
    components: { schemas, securitySchemes: api.securitySchemes }
  }
}

/** Every route a document describes, as `METHOD /path/{param}`. */
export const documentedRoutes = (name: OpenApiName): ReadonlyArray<string> =>
  API[name].operations.map((op) => `${op.method.toUpperCase()} ${openApiPath(op.route).path}`)
