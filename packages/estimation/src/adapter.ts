/** The estimation API's shapes for the migration engine: a read response and a read item. */
import { Context, Layer } from "effect"
import { type Adapter, isRecord } from "@scanbridge/model"
import { oneScan } from "@scanbridge/model/internal"
import { type UnitOptions, decodeReadItemEither, decodeReadResponseEither, encodeReadResponseEither } from "./codec.js"
import { estimationDialect } from "./dialect.js"

const isItem = (json: unknown): boolean =>
  isRecord(json) && typeof json["estimation_id"] === "string" && (json["status"] === "in-progress" || json["status"] === "completed")

const isResponse = (json: unknown): boolean => isRecord(json) && Array.isArray(json["measurements"]) && json["measurements"].every(isItem) && !("id" in json)

/** The adapter, reading units as `units` states them (inferred per record by default). */
export const estimationAdapterWith = (units: UnitOptions = {}): Adapter => ({
  name: "estimation",
  dialect: estimationDialect,
  formats: [
    {
      name: "estimation read response",
      api: "estimation",
      shape: "`measurements` is an array of items with `estimation_id` and `status`",
      detect: isResponse,
      decode: (j) => decodeReadResponseEither(j, units)
    },
    { name: "estimation read item", api: "estimation", shape: "one such item", detect: isItem, decode: (j) => oneScan(decodeReadItemEither(j, units)) }
  ],
  encoder: { target: "estimation", encode: (scan) => encodeReadResponseEither(scan) }
})

export const estimationAdapter: Adapter = estimationAdapterWith()

export class EstimationAdapter extends Context.Tag("@scanbridge/estimation/EstimationAdapter")<EstimationAdapter, Adapter>() {
  static readonly layer = Layer.succeed(EstimationAdapter, estimationAdapter)
  static readonly layerWith = (units: UnitOptions) => Layer.succeed(EstimationAdapter, estimationAdapterWith(units))
}
