/** The session API's shape for the migration engine: ScanningResults, in any proto3 spelling. */
import { type Adapter, isRecord } from "@scanbridge/model"
import { hasOnlyKeysIn, oneScan } from "@scanbridge/model/adapter"
import { decodeResultsEither, encodeResultsEither } from "./codec.js"
import { sessionDialect } from "./dialect.js"

// The message's fields in both spellings; results, pending and error are its three forms.
const FIELDS = new Set(["scanningSessionId", "scanning_session_id", "clientScanningId", "client_scanning_id", "results", "pending", "error"])

// The one-key tests first: on mixed input most records are another format's, refused at once.
const isScanningResults = (json: unknown): boolean =>
  isRecord(json) &&
  (isRecord(json["results"]) || isRecord(json["pending"]) || isRecord(json["error"])) &&
  !Array.isArray(json["results"]) &&
  hasOnlyKeysIn(json, FIELDS)

export const sessionAdapter: Adapter = {
  name: "session",
  dialect: sessionDialect,
  formats: [
    {
      name: "session ScanningResults",
      api: "session",
      shape: "only its own fields (camel or snake case), with `results`, `pending` or `error`",
      detect: isScanningResults,
      decode: (j, options) => oneScan(decodeResultsEither(j, options))
    }
  ],
  encoder: { target: "session", encode: encodeResultsEither }
}
