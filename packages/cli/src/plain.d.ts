import { type Encoded, type ScanJson } from "@scanbridge/model";
import { ScanbridgeError } from "@scanbridge/model/plain";
import { type Report } from "@scanbridge/migrate";
export { ScanbridgeError };
/** Every canonical scan a stored JSON value holds (a list page holds several). */
export declare const normalizePlain: (json: unknown) => ReadonlyArray<ScanJson>;
/** Which format a JSON value is: its name and API (null for the canonical form). */
export declare const detectFormatPlain: (json: unknown) => {
    readonly format: string;
    readonly api: string | null;
};
export interface MigrateFileOptions {
    /** `canonical` (default), `platform`, `session`, `estimation` or `fit`. */
    readonly to?: string;
    /** The output file, one JSON per line. */
    readonly out: string;
    /** The rejects file; without it rejects are counted, not kept. */
    readonly rejects?: string;
}
/** Migrates files or folders to `out`; resolves with the report, rejects with ScanbridgeError (code MigrateInputError, ...). */
export declare const migrateFile: (inputs: string | ReadonlyArray<string>, options: MigrateFileOptions) => Promise<Report>;
/**
 * The compatibility encoders: a canonical scan (or any record Scanbridge reads) written in an
 * API's shape, with a note for everything that shape cannot hold.
 */
export declare const encoders: {
    readonly toPlatformEntry: (scan: unknown) => Encoded<unknown>;
    readonly toSessionResults: (scan: unknown) => Encoded<unknown>;
    readonly toEstimationResponse: (scan: unknown) => Encoded<unknown>;
    readonly toFitEstimation: (scan: unknown) => Encoded<unknown>;
};
//# sourceMappingURL=plain.d.ts.map