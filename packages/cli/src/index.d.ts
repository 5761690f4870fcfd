/**
 * `scanbridge`: the umbrella entry point for code that does not use Effect. Plain functions
 * over plain JSON; each throws (or rejects with) `ScanbridgeError`, whose `code` is the tag of
 * the typed error behind it.
 */
export { normalizePlain as normalize, detectFormatPlain as detectFormat, migrateFile, encoders, ScanbridgeError } from "./plain.js";
export type { MigrateFileOptions } from "./plain.js";
export type { Report, Reject } from "@scanbridge/migrate";
//# sourceMappingURL=index.d.ts.map