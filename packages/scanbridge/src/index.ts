/**
 * `scanbridge`: Scanbridge for code that does not use Effect. Plain functions over plain JSON
 * and Promise clients of the four APIs; each throws (or rejects with) `ScanbridgeError`, whose
 * `code` is the tag of the typed error behind it, or `Defect` / `Interrupted` (errors.ts).
 *
 * Light to import: normalizing loads no command line, simulator, HTTP client, database driver,
 * Parquet writer or worker code. The package is one bundle split where these sources import
 * lazily (tsup.config.ts): a migration loads Node's file system when it starts, each client its
 * package when it is made.
 */
import * as clients from "./clients.js"
import { ScanbridgeError as ScanbridgeErrorOfPlain } from "./errors.js"
import * as gateway from "./gateway.js"
import type {
  EstimationClient,
  EstimationClientOptions,
  FitClient,
  FitClientOptions,
  Gateway,
  GatewayOptions,
  PlatformClient,
  PlatformClientOptions,
  ScanbridgeErrorClass,
  ScanbridgeError as ScanbridgeErrorOf,
  ScanbridgeErrorCode,
  SessionClient,
  SessionClientOptions
} from "./types.js"

// The types named here are the package's own (types.ts): the published declarations resolve
// without effect or the Scanbridge packages, which the bundle holds and its users do not install.
// Each value below is assigned to its plain type, so the compiler holds the implementation to it.
export { normalizePlain as normalize, detectFormatPlain as detectFormat, migrate, migrateFile, migratePostgres, encode, encoders, toFhir } from "./plain.js"
export type {
  AdapterOptions,
  EncodeOptions,
  MigrateFileOptions,
  MigrateOptions,
  MigratePostgresOptions,
  MigrateProgress,
  NormalizeOptions,
  ReadOptions
} from "./plain.js"
export type {
  AccessToken,
  Adapter,
  AdapterFailure,
  AdjustParameter,
  AwaitOptions,
  Closable,
  CreateScanInput,
  CreateSessionInput,
  CreatedEstimation,
  CreatedSession,
  DecodeOptions,
  Duration,
  Encoded,
  EstimationAwaitOptions,
  EstimationClient,
  EstimationClientOptions,
  Failure,
  FhirBundle,
  FhirOptions,
  FhirResource,
  FitClient,
  FitClientOptions,
  Gateway,
  GatewayOptions,
  GatewayStoreOptions,
  HttpOptions,
  Issue,
  LengthUnit,
  ListOptions,
  ListPage,
  MeasurementName,
  NodeRequest,
  NodeResponse,
  Note,
  Outcome,
  Path,
  Photos,
  PlatformApi,
  PlatformClient,
  PlatformClientOptions,
  Point,
  ProductId,
  ProductSupport,
  PurchaseItem,
  PurchaseOrder,
  Redacted,
  Reject,
  Report,
  RetryOptions,
  ScanEncoder,
  ScanFormat,
  ScanJson,
  ScanToken,
  ScanTokenOptions,
  ScanbridgeErrorClass,
  ScanbridgeErrorCode,
  SessionClient,
  SessionClientOptions,
  SizeDocument,
  Stats,
  TargetOptions,
  UploadedPhoto
} from "./types.js"

export type ScanbridgeError = ScanbridgeErrorOf<ScanbridgeErrorCode>
export const ScanbridgeError: ScanbridgeErrorClass = ScanbridgeErrorOfPlain

export const platformClient: (options: PlatformClientOptions) => Promise<PlatformClient> = clients.platformClient
export const sessionClient: (options: SessionClientOptions) => Promise<SessionClient> = clients.sessionClient
export const estimationClient: (options: EstimationClientOptions) => Promise<EstimationClient> = clients.estimationClient
export const fitClient: (options: FitClientOptions) => Promise<FitClient> = clients.fitClient

export const createGateway: (options: GatewayOptions) => Promise<Gateway> = gateway.createGateway
