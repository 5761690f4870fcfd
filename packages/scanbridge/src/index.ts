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
export { normalizePlain as normalize, detectFormatPlain as detectFormat, migrateFile, migratePostgres, encode, encoders } from "./plain.js"
export { ScanbridgeError, type ScanbridgeErrorCode } from "./errors.js"
export type { AdapterOptions, EncodeOptions, MigrateFileOptions, MigratePostgresOptions, NormalizeOptions, ReadOptions } from "./plain.js"
export type { Adapter, Encoded, ScanEncoder, ScanFormat, ScanJson } from "@scanbridge/model"
export { estimationClient, fitClient, platformClient, sessionClient } from "./clients.js"
export type { EstimationClient, FitClient, Plain, PlainClient, PlatformClient, SessionClient } from "./clients.js"
export type { EstimationClientOptions } from "@scanbridge/estimation"
export type { FitClientOptions } from "@scanbridge/fit"
export type { PlatformClientOptions } from "@scanbridge/platform"
export type { SessionClientOptions } from "@scanbridge/session"
export type { Report, Reject } from "@scanbridge/migrate"
