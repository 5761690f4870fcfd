/** The fit shapes for the migration engine: the client library's estimation result. */
import { Context, Layer } from "effect"
import { type Adapter, isRecord } from "@scanbridge/model"
import { oneScan } from "@scanbridge/model/internal"
import { decodeEstimationResultEither, encodeEstimationResultEither } from "./codec.js"
import { fitDialect } from "./dialect.js"

export const fitAdapter: Adapter = {
  name: "fit",
  dialect: fitDialect,
  formats: [
    {
      name: "fit estimation result",
      api: "fit",
      shape: "`estimations` is an object",
      detect: (j) => isRecord(j) && isRecord(j["estimations"]),
      decode: (j, options) => oneScan(decodeEstimationResultEither(j, options))
    }
  ],
  encoder: { target: "fit", encode: encodeEstimationResultEither }
}

export class FitAdapter extends Context.Tag("@scanbridge/fit/FitAdapter")<FitAdapter, Adapter>() {
  static readonly layer = Layer.succeed(FitAdapter, fitAdapter)
}
