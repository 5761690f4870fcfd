/** The fit shapes for the migration engine: the client library's estimation result. */
import { type Adapter, isRecord } from "@scanbridge/model"
import { oneScan } from "@scanbridge/model/adapter"
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
