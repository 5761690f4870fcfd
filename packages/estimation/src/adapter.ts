/** The estimation API's shapes for the migration engine: a read response and a read item. */
import { type Adapter, isRecord } from "@scanbridge/model"
import { oneScan } from "@scanbridge/model/adapter"
import { type UnitOptions, decodeReadItemEither, decodeReadResponseEither, encodeReadResponseEither, unitsWith } from "./codec.js"
import { estimationDialect } from "./dialect.js"

const isItem = (json: unknown): boolean =>
  isRecord(json) && typeof json["estimation_id"] === "string" && (json["status"] === "in-progress" || json["status"] === "completed")

const isResponse = (json: unknown): boolean => isRecord(json) && Array.isArray(json["measurements"]) && json["measurements"].every(isItem) && !("id" in json)

/**
 * The adapter, reading units as `units` states them (inferred per record by default). The
 * options of a decode (the CLI's --length-unit, --body-fat-scale, --muscle-mass-unit) win over
 * `units`; one they leave out or give as `auto` is `units`' (inferred where `units` has none).
 */
export const estimationAdapterWith = (units: UnitOptions = {}): Adapter => {
  // The normalizer passes the same options to every decode: merged once for them.
  let last: { readonly given: UnitOptions | undefined; readonly merged: UnitOptions } = { given: undefined, merged: unitsWith(units) }
  const optionsOf = (given: UnitOptions | undefined): UnitOptions => {
    if (given !== last.given) last = { given, merged: unitsWith(units, given) }
    return last.merged
  }
  return {
    name: "estimation",
    dialect: estimationDialect,
    formats: [
      {
        name: "estimation read response",
        api: "estimation",
        shape: "`measurements` is an array of items with `estimation_id` and `status`",
        detect: isResponse,
        decode: (j, options) => decodeReadResponseEither(j, optionsOf(options))
      },
      {
        name: "estimation read item",
        api: "estimation",
        shape: "one such item",
        detect: isItem,
        decode: (j, options) => oneScan(decodeReadItemEither(j, optionsOf(options)))
      }
    ],
    encoder: { target: "estimation", encode: (scan) => encodeReadResponseEither(scan) }
  }
}

export const estimationAdapter: Adapter = estimationAdapterWith()
