/** Tapeline for the migration engine: its name, its one format, and its encoder. */
import { type Adapter, isRecord } from "@scanbridge/model"
import { oneScan } from "@scanbridge/model/adapter"
import { FITTING_FORMAT, decodeFittingEither, encodeFittingEither } from "./codec.js"
import { TAPELINE, tapelineDialect } from "./dialect.js"
import { FITTING_VERSION } from "./wire.js"

export const tapelineAdapter: Adapter = {
  name: TAPELINE,
  dialect: tapelineDialect,
  formats: [
    {
      name: FITTING_FORMAT,
      api: TAPELINE,
      shape: `\`tapeline\` is \`${FITTING_VERSION}\``,
      // The version tag alone: cheap, and no other format has the key.
      detect: (json) => isRecord(json) && json["tapeline"] === FITTING_VERSION,
      decode: (json, options) => oneScan(decodeFittingEither(json, options))
    }
  ],
  encoder: { target: TAPELINE, encode: encodeFittingEither }
}
