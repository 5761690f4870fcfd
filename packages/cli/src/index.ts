/**
 * `scanbridge`: the umbrella entry point for code that does not use Effect. Plain functions
 * over plain JSON; each throws (or rejects with) `ScanbridgeError`, whose `code` is the tag of
 * the typed error behind it.
 */
export { normalizePlain as normalize, detectFormatPlain as detectFormat, migrateFile, encode, encoders, ScanbridgeError } from "./plain.js"
export type { AdapterOptions, EncodeOptions, MigrateFileOptions } from "./plain.js"
export type { Adapter, ScanEncoder, ScanFormat } from "@scanbridge/model"
export type { Report, Reject } from "@scanbridge/migrate"
