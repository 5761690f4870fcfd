/**
 * The types the plain API's surface names, written without Effect. The package bundles effect
 * and the Scanbridge packages, so its users install none of them: a type of theirs named here
 * would not resolve in a user's compiler (or would turn into `any` under skipLibCheck). Types of
 * the Scanbridge packages that name no Effect type are imported and written into the bundled
 * declarations (tsup.config.ts); the others are restated here, and test/declarations.test.ts
 * holds each to the type it restates, so that a change there fails the typecheck rather than
 * leaving these wrong.
 */
import type { DecodeOptions, LengthUnit, Path, Stats } from "@scanbridge/model"
import type { CreatedEstimation, Photos, UploadedPhoto } from "@scanbridge/estimation"
import type { Wire } from "@scanbridge/fhir"
import type { PurchaseItem, PurchaseOrder } from "@scanbridge/fit"
import type { Reject, Report } from "@scanbridge/migrate"
import type { AdjustParameter, CreateScanInput, ListOptions, ScanTokenOptions } from "@scanbridge/platform"
import type { CreateSessionInput, CreatedSession } from "@scanbridge/session"

export type {
  AdjustParameter,
  CreateScanInput,
  CreateSessionInput,
  CreatedEstimation,
  CreatedSession,
  DecodeOptions,
  LengthUnit,
  ListOptions,
  Path,
  Photos,
  PurchaseItem,
  PurchaseOrder,
  Reject,
  Report,
  ScanTokenOptions,
  Stats,
  UploadedPhoto
}

// --- The canonical scan -------------------------------------------------------------------

/** The catalogue's measurement names: the keys of `measurementsMm`. */
export type MeasurementName =
  | "acrossBackShoulderWidth"
  | "backNeckHeight"
  | "backNeckPointToGroundContoured"
  | "backNeckPointToWaist"
  | "backNeckPointToWristLengthR"
  | "bellyWaistDepth"
  | "bellyWaistGirth"
  | "bellyWaistHeight"
  | "bellyWaistWidth"
  | "bustGirth"
  | "bustHeight"
  | "calfGirthR"
  | "forearmGirthR"
  | "hipGirth"
  | "hipHeight"
  | "insideLegHeight"
  | "insideLegLengthR"
  | "kneeGirthR"
  | "kneeHeightR"
  | "midThighGirthR"
  | "neckBaseGirth"
  | "neckGirth"
  | "outerAnkleHeightR"
  | "outerArmLengthR"
  | "outseamR"
  | "outsideLegLengthR"
  | "shoulderToElbowR"
  | "thighGirthR"
  | "topHipGirth"
  | "topHipHeight"
  | "underBustGirth"
  | "upperArmGirthR"
  | "waistGirth"
  | "waistHeight"
  | "wristGirthR"

/** Says what was converted, assumed, renamed from an alias or dropped, where, and why. */
export interface Note {
  readonly kind: "assumed" | "converted" | "dropped" | "aliased"
  readonly path: string
  readonly detail: string
}

export interface Point {
  readonly x: number
  readonly y: number
}

/**
 * A canonical scan (`scanbridge.scan/v1`) as JSON: lengths in millimetres, masses in grams,
 * angles in degrees, timestamps as ISO 8601 UTC text. What `normalize` returns, and what the
 * clients' scans are.
 */
export interface ScanJson {
  readonly format: "scanbridge.scan/v1"
  /** The adapter that read it (`platform`, `session`, `estimation`, `fit`, or one given) and the scan's id there. */
  readonly source: { readonly api: string; readonly id: string | null }
  readonly status: "success" | "failure" | "pending"
  readonly createdAt: string | null
  readonly expiresAt: string | null
  readonly externalId: string | null
  readonly method: "stats" | "photo" | "adjusted" | "selfie" | null
  readonly subject: {
    readonly age: number | null
    readonly gender: "male" | "female" | null
    readonly heightMm: number | null
    readonly weightG: number | null
  }
  readonly measurementsMm: { readonly [K in MeasurementName]?: number }
  readonly composition: {
    readonly bodyFatPercent: number | null
    readonly bodyFatMassG: number | null
    readonly leanMassG: number | null
    readonly skeletalMuscleMassG: number | null
  } | null
  readonly posture: {
    readonly front: {
      readonly angles: { readonly [K in "ear" | "shoulder" | "topHip" | "foot"]: number | null }
      readonly lines: { readonly [K in "ear" | "shoulder" | "topHip" | "foot"]: ReadonlyArray<Point> | null }
    } | null
    readonly right: {
      readonly angles: { readonly [K in "bodyLine" | "backWaistLine"]: ReadonlyArray<number> | null }
      readonly lines: { readonly [K in "bodyLine" | "backWaistLine"]: ReadonlyArray<Point> | null }
    } | null
  } | null
  readonly avatar: {
    readonly format: "obj" | "glb" | "vertices"
    readonly type: string | null
    readonly data: string | null
    readonly vertices: ReadonlyArray<number> | null
  } | null
  readonly adjustment: {
    readonly baseScanId: string
    readonly baseScanType: string | null
    readonly parameters: ReadonlyArray<{ readonly name: "weight" | MeasurementName; readonly percentage: number }>
    readonly outputWeightG: number | null
  } | null
  readonly failure: {
    readonly code: string
    readonly category: "format" | "quality" | "face" | "person" | "posing" | "session" | "estimation" | "unknown"
    readonly message: string | null
  } | null
  readonly notes: ReadonlyArray<Note>
}

/** What an encoder wrote, with a note for everything the target format could not hold. */
export interface Encoded<A> {
  readonly value: A
  readonly notes: ReadonlyArray<Note>
}

/** What a target is told besides the scan, for a target that takes it (`encode`, `migrate`). */
export interface TargetOptions {
  /**
   * The unit of the lengths, for a target that offers a choice: `csv` and `parquet` any (default
   * `mm`), `fhir` `cm` (default) or `in` (its masses then in pounds).
   */
  readonly units?: LengthUnit
  /**
   * For `fhir`: the identifier system of your patients (an absolute URI), when each scan's
   * `externalId` is its patient's identifier there. Every Observation's subject is then that
   * Patient, by a conditional reference; without it no patient is named.
   */
  readonly patientSystem?: string
}

/** `toFhir`'s options: FHIR's lengths are in cm (and masses in kg) or in inches (and pounds). */
export interface FhirOptions extends TargetOptions {
  readonly units?: "cm" | "in"
}

/** A resource of a FHIR bundle: the Device or an Observation, as docs/fhir.md describes them. */
export type FhirResource = Wire.Observation | Wire.Device

/**
 * One scan as a FHIR R4 transaction: its Device, its panel Observation and one Observation per
 * quantity, each created once (`ifNoneExist` on its identifier), referring to each other by
 * `urn:uuid` full URLs. POSTed as it is to a FHIR server's base URL.
 */
export type FhirBundle = Wire.Bundle

// --- Adapters -----------------------------------------------------------------------------

/**
 * An outcome as an adapter returns it: Effect's `Either`, read by its tag. Adapters are written
 * with `@scanbridge/model` (docs/adapters.md), whose values this describes; the engine reads them
 * with Effect's own functions, so a hand-made object of this shape is not an `Either`.
 */
export type Outcome<A, E> = { readonly _tag: "Left"; readonly left: E } | { readonly _tag: "Right"; readonly right: A }

/** A typed failure of an adapter: its tag and message (DecodeError, EncodeError). */
export interface AdapterFailure {
  readonly _tag: string
  readonly message: string
}

/** One JSON shape of one API, as an adapter offers it. */
export interface ScanFormat {
  readonly name: string
  readonly api: string | null
  readonly shape?: string
  readonly detect: (json: unknown) => boolean
  decode(json: unknown, options?: DecodeOptions): Outcome<ReadonlyArray<ScanJson>, AdapterFailure>
}

/** Writes a canonical scan in an API's shape, with a note for what the shape cannot hold. */
export interface ScanEncoder {
  readonly target: string
  /** The length units it can write, its default first; absent for a target whose units are its own. */
  readonly units?: ReadonlyArray<LengthUnit>
  /** Whether it names a patient: only such a target takes `patientSystem`. */
  readonly namesPatient?: boolean
  encode(scan: ScanJson, options?: TargetOptions): Outcome<Encoded<unknown>, AdapterFailure>
}

/**
 * An adapter for a storage format of one's own, made with `@scanbridge/model`'s adapter kit
 * (docs/adapters.md) and given to `normalize`, `encode` or `migrate` in `adapters`.
 */
export interface Adapter {
  readonly name: string
  readonly formats: ReadonlyArray<ScanFormat>
  readonly encoder: ScanEncoder
  /** Its spellings of the catalogue's names, for an API that has its own. */
  readonly dialect?: object
}

// --- Errors -------------------------------------------------------------------------------

/**
 * The one error the plain API throws. `code` is the tag of the typed error behind it (or
 * `Defect`, `Interrupted`); `path` and `value` say where the first problem is, `issues` all of them.
 */
export interface ScanbridgeError<Code extends string = string> extends Error {
  readonly name: "ScanbridgeError"
  readonly code: Code
  /** What a status error's status or error type means (PlatformStatusError's `NotFound`, ...); undefined for other codes. */
  readonly reason: string | undefined
  readonly path: Path
  readonly value: unknown
  readonly issues: ReadonlyArray<Issue>
}

/** One problem of a record: where, the value found there, and what is wrong with it. */
export interface Issue {
  readonly path: Path
  readonly value: unknown
  readonly message: string
}

/** A typed failure a ScanbridgeError is made from: its tag (the error's `code`) and message. */
export interface Failure<Code extends string = string> {
  readonly _tag: Code
  readonly message: string
  readonly value?: unknown
  readonly reason?: string
}

/**
 * Every `code` of the plain API's ScanbridgeError: the tag of each typed error of the model, a
 * migration and the four clients, and the codes of what has no tag (a defect, an interruption, an
 * untyped failure, a read option that is none of its values).
 */
export type ScanbridgeErrorCode =
  | "DecodeError"
  | "UnknownFormatError"
  | "InvariantViolation"
  | "EncodeError"
  | "PostgresError"
  | "MigratePlanError"
  | "UnknownTargetError"
  | "MigrateInputError"
  | "MigrateOutputError"
  | "MigrateWorkerError"
  | "ResumeError"
  | "AdapterError"
  | "ApiTransportError"
  | "ApiTimeoutError"
  | "ApiRedirectError"
  | "ApiResponseTooLargeError"
  | "ApiEncodeError"
  | "ApiStatusError"
  | "PlatformStatusError"
  | "PlatformInputError"
  | "PlatformAlreadyDeletedError"
  | "SessionCreateError"
  | "SessionInputError"
  | "SessionTimeoutError"
  | "EstimationStatusError"
  | "EstimationInputError"
  | "EstimationPhotoError"
  | "EstimationTimeoutError"
  | "FitRejectionError"
  | "Defect"
  | "Interrupted"
  | "UnknownError"
  | "OptionError"
  | "GatewayOptionError"
  | "GatewayStoreError"

/** ScanbridgeError's class: `instanceof` tells the plain API's errors from others and narrows `code` to its codes. */
export interface ScanbridgeErrorClass {
  new <Code extends ScanbridgeErrorCode>(failure: Failure<Code>): ScanbridgeError<Code>
  readonly prototype: ScanbridgeError<ScanbridgeErrorCode>
}

// --- Clients ------------------------------------------------------------------------------

/**
 * A secret the client keeps out of logs and errors: it prints as `<redacted>`. Its text is read
 * with `Redacted.value` of `effect`.
 */
export interface Redacted {
  toString(): string
}

/** A wait: milliseconds, or text such as `"5 seconds"`. */
export type Duration =
  | number
  | `${number} ${"nano" | "nanos" | "micro" | "micros" | "milli" | "millis" | "second" | "seconds" | "minute" | "minutes" | "hour" | "hours" | "day" | "days" | "week" | "weeks"}`

/** How a request that may be repeated is retried (on 5xx, 429 and transport errors). */
export interface RetryOptions {
  /** Retries after the first attempt. Default 4. */
  readonly times?: number
  /** First delay, doubled per retry, with jitter. Default 200 millis. */
  readonly base?: Duration
  /** Longest backoff between two attempts. Default 5 seconds. */
  readonly cap?: Duration
  /** Longest Retry-After waited for; a 429 or 503 asking for more fails at once. Default 30 seconds. */
  readonly maxRetryAfter?: Duration
}

/** What every client takes besides its API's own options. */
export interface HttpOptions {
  readonly retry?: RetryOptions
  /** Most bytes of one response body read. Default 16 MiB. */
  readonly maxResponseBytes?: number
}

export interface PlatformClientOptions extends HttpOptions {
  readonly baseUrl: string
  readonly orgId: string
  /** The organization API key, sent as the raw `Authorization` header. Server side only. */
  readonly apiKey: string
  /** Longest wait for one response. Default 60 seconds. */
  readonly timeout?: Duration
}

export interface SessionClientOptions extends HttpOptions {
  /** `{scanner_url}`: the host of the session API, without `/scanning/v0`. */
  readonly baseUrl: string
  /** The integrator's client id: a static secret, for servers only. */
  readonly clientId: string
  /** Pause between two polls of awaitResults. Default 2 seconds. */
  readonly pollInterval?: Duration
  /** Longest awaitResults wait when the server gives no expiry. Default 15 minutes. */
  readonly maxWait?: Duration
  /** Longest wait for one response. Default 60 seconds. */
  readonly timeout?: Duration
  /** How results are read. */
  readonly decode?: DecodeOptions
}

export interface EstimationClientOptions extends HttpOptions {
  /** `{auth_url}`: the host of `tokens/anonymous`. */
  readonly authUrl: string
  /** `{estimation_url}`: the host of `estimation`. */
  readonly estimationUrl: string
  /** The integrator's client id: a static secret, for servers only. */
  readonly clientId: string
  /** The measurement id the vendor provides. */
  readonly measurementId: string
  /** ISO 639-1 language of messages. Default `en`. */
  readonly lang?: string
  /** Pause between two reads while the job runs. Default 5 seconds. */
  readonly pollInterval?: Duration
  /** Longest wait for a result. Default 2 minutes. */
  readonly timeout?: Duration
  /** Longest wait for one response. Default 60 seconds. */
  readonly requestTimeout?: Duration
  /** Units to read results in, instead of inferring them per record. */
  readonly units?: DecodeOptions
}

export interface FitClientOptions extends HttpOptions {
  /** `{fit_url}`, with its version path: `https://fit.example.com/v2`. */
  readonly baseUrl: string
  /** The client key: sent in every body, and the same one that initializes the widget. */
  readonly clientKey: string
  /** Longest wait for one response. Default 60 seconds. */
  readonly timeout?: Duration
}

/** A client's `close()`, which releases what it holds. */
export interface Closable {
  close(): Promise<void>
}

export interface ListPage {
  /** One canonical scan per summary: stats and status, no results. */
  readonly results: ReadonlyArray<ScanJson>
  /** The `after` of the next page; null on the last one. */
  readonly nextOffsetId: string | null
}

export interface ScanToken {
  /** A JWT for one scan: safe to give a device, not to log. */
  readonly token: Redacted
  readonly expiresAt: Date
}

/** The Scan Platform's client. Each method rejects with ScanbridgeError. */
export interface PlatformApi {
  /** Consumes one scan of quota. Never retried. A scan that failed is returned, not raised. */
  createScan(input: CreateScanInput): Promise<ScanJson>
  getScan(scanId: string): Promise<ScanJson>
  listScans(options?: ListOptions): Promise<ListPage>
  /** Every page, following nextOffsetId until it is missing, null or empty. */
  listAllScans(options?: Omit<ListOptions, "after">): AsyncIterable<ScanJson>
  /** A new scan from an existing one. Consumes one scan of quota. Never retried. */
  adjustScan(scanId: string, parameters: ReadonlyArray<AdjustParameter>, options?: { readonly customScanId?: string }): Promise<ScanJson>
  /** Irreversible, and not idempotent: deleting again fails with PlatformAlreadyDeletedError. */
  deleteScan(scanId: string): Promise<string>
  issueScanToken(options?: ScanTokenOptions): Promise<ScanToken>
  /** The same client presenting a scan token (as `issueScanToken` gives it, or its text) instead of the API key. */
  withToken(token: string | Redacted): PlatformApi
}
export interface PlatformClient extends PlatformApi, Closable {}

export interface AwaitOptions {
  /** Pause between two polls. Default: the client's `pollInterval`. */
  readonly interval?: Duration
  /** Longest wait when the server gives no expiry. Default: the client's `maxWait`. */
  readonly maxWait?: Duration
}

/** The deprecated session API's client. Each method rejects with ScanbridgeError. */
export interface SessionClient extends Closable {
  /** Not retried: each call creates a session. */
  createSession(input?: CreateSessionInput): Promise<CreatedSession>
  getResults(scanningSessionId: string): Promise<ScanJson>
  /** Polls until the session has results or an error. */
  awaitResults(scanningSessionId: string, options?: AwaitOptions): Promise<ScanJson>
}

export interface AccessToken {
  readonly uid: string
  readonly token: Redacted
}

export interface EstimationAwaitOptions {
  readonly interval?: Duration
  readonly timeout?: Duration
}

/** The deprecated estimation API's client. Each method rejects with ScanbridgeError. */
export interface EstimationClient extends Closable {
  authenticate(): Promise<AccessToken>
  createEstimation(token: AccessToken, stats: Stats): Promise<CreatedEstimation>
  uploadPhoto(token: AccessToken, estimationId: string, pattern: "front" | "right", jpeg: Uint8Array): Promise<UploadedPhoto>
  readEstimation(token: AccessToken, estimationId: string): Promise<ScanJson>
  awaitEstimation(token: AccessToken, estimationId: string, options?: EstimationAwaitOptions): Promise<ScanJson>
  /** The whole flow: token, create, two uploads and polling. */
  estimate(stats: Stats, photos: Photos, options?: EstimationAwaitOptions): Promise<ScanJson>
}

export interface ProductId {
  readonly brandId: string
  readonly garmentSku: string
}

export interface ProductSupport {
  /** True only when the service says SUPPORTED. */
  readonly supported: boolean
  readonly status: "SUPPORT_STATUS_UNSPECIFIED" | "UNSUPPORTED" | "SUPPORTED"
  /** The session the service created; null when it sent none. */
  readonly sessionId: string | null
  readonly product: ProductId
}

/** A size recommendation (`scanbridge.size/v1`). */
export interface SizeDocument {
  readonly format: "scanbridge.size/v1"
  readonly source: { readonly api: "fit"; readonly estimationToken: string | null }
  readonly product: ProductId | null
  readonly recommendedSize: string | null
  readonly sizes: ReadonlyArray<{
    readonly index: number | null
    readonly name: string
    readonly rank: number | null
    readonly neutralRank: number | null
    readonly tightness: number | null
    readonly fittingPoints: ReadonlyArray<{ readonly tightness: number | null; readonly point: string; readonly displayName: string | null }>
  }>
  readonly notes: ReadonlyArray<Note>
}

/** The garment-fit service's client. Each method rejects with ScanbridgeError. */
export interface FitClient extends Closable {
  isProductSupported(product: ProductId, clientSessionId: string): Promise<ProductSupport>
  recommendedSize(estimationToken: string, product: ProductId): Promise<SizeDocument>
  /** After payment. Never fails: an order the service refuses resolves false. */
  recordPurchase(order: PurchaseOrder): Promise<boolean>
}

// --- The legacy gateway -------------------------------------------------------------------

/**
 * A Node request as `node:http` hands it to a listener (`http.IncomingMessage`), or Express (whose
 * Request extends it). Only what the gateway's type needs is named, so that these declarations
 * need no `@types/node`.
 */
export interface NodeRequest {
  readonly method?: string | undefined
  readonly url?: string | undefined
}

/** A Node response (`http.ServerResponse`), as a listener is given it. */
export interface NodeResponse {
  readonly headersSent: boolean
}

/** Where the gateway keeps its state: a folder for the embedded store, or a PostgreSQL that several gateways share. */
export type GatewayStoreOptions =
  | {
      /**
       * The embedded store's folder (PGlite, PostgreSQL in WebAssembly), created when missing; one
       * gateway at a time. Needs `@electric-sql/pglite` and `pg` installed.
       */
      readonly directory: string
      readonly postgres?: undefined
    }
  | {
      /** `postgres://user:password@host:port/database`, for several gateways; never in an error. Needs `pg` installed. */
      readonly postgres: string
      readonly directory?: undefined
    }

export interface GatewayOptions {
  /** The Scan Platform of the integrator's organisation, which carries out every call. */
  readonly platform: {
    readonly url: string
    readonly orgId: string
    /** The organisation's API key: kept redacted, in no response, error or log. */
    readonly apiKey: string
    readonly retry?: RetryOptions
    /** Longest wait for one platform response. Default 60 seconds. */
    readonly timeout?: Duration
  }
  /** The legacy client ids the gateway accepts (secrets: compared by their SHA-256, never echoed). */
  readonly clientIds: ReadonlyArray<string>
  readonly store: GatewayStoreOptions
  /** The unit of the lengths in estimation answers, as the old code reads them: `mm` (default) or `cm`. */
  readonly estimationLengthUnit?: "mm" | "cm"
  /** The hosted scanner's address, with `{LOCALE}` where the locale goes. */
  readonly scannerAddress?: string
  /** How long a session (and its platform scan token) lives. Default one hour. */
  readonly sessionLifetime?: Duration
  /** How long an anonymous access token lives. Default one hour. */
  readonly tokenLifetime?: Duration
  /** How long the photos of an estimation whose scan the platform never took are kept. Default 24 hours; photos it took are deleted at once. */
  readonly photoRetention?: Duration
  /** How long an estimation can be read after its creation. Default 30 days. */
  readonly estimationRetention?: Duration
}

/** The legacy gateway, to mount in a server of one's own. */
export interface Gateway extends Closable {
  /**
   * A Node request listener: `http.createServer(gateway.handler)`, or Express's
   * `app.use(gateway.handler)`, before any body parser. Given Express's `next`, it passes on a
   * request for none of the gateway's paths; without it, such a request is answered 404.
   */
  handler(request: NodeRequest, response: NodeResponse, next?: (error?: unknown) => void): void
  /** The gateway as a web handler, for servers built on `Request` and `Response`. */
  fetch(request: Request): Promise<Response>
}
