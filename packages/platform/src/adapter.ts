/**
 * The platform's shapes for the migration engine: an entry (bare, or in its `{entry}`
 * envelope; the REST or the client library's variant) and a list page.
 */
import { type Adapter, isRecord } from "@scanbridge/model"
import { hasOnlyKey, oneScan } from "@scanbridge/model/adapter"
import { decodeEntryEither, decodeListPageEither, encodeEntryEither, looksClientLibrary as isClientLibrary } from "./codec.js"
import { platformDialect } from "./dialect.js"

const isEntry = (json: unknown): json is Record<string, unknown> =>
  isRecord(json) && typeof json["id"] === "string" && (json["status"] === "success" || json["status"] === "failure") && isRecord(json["input"])

const isEnvelope = (json: unknown): boolean => isRecord(json) && hasOnlyKey(json, "entry") && isEntry(json["entry"])

export const platformAdapter: Adapter = {
  name: "platform",
  dialect: platformDialect,
  formats: [
    {
      name: "platform entry",
      api: "platform",
      shape: "`id`, `status` (success or failure) and `input`",
      detect: (j) => isEntry(j) && !isClientLibrary(j),
      decode: (j, options) => oneScan(decodeEntryEither(j, options))
    },
    {
      name: "platform entry envelope",
      api: "platform",
      shape: '`{ "entry": <platform entry> }`',
      detect: isEnvelope,
      decode: (j, options) => oneScan(decodeEntryEither(j, options))
    },
    {
      name: "platform client-library entry",
      api: "platform",
      shape: "a platform entry whose `bodyComposition` holds bare numbers or whose avatar is glb",
      detect: (j) => isEntry(j) && isClientLibrary(j),
      decode: (j, options) => oneScan(decodeEntryEither(j, options))
    },
    {
      name: "platform list page",
      api: "platform",
      shape: "`results` is an array",
      detect: (j) => isRecord(j) && Array.isArray(j["results"]) && !("id" in j),
      decode: (j, options) => decodeListPageEither(j, options)
    }
  ],
  encoder: { target: "platform", encode: encodeEntryEither }
}
