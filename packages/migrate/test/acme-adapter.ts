import { Either } from "effect"
import { type Adapter, DecodeError, makeScan } from "@scanbridge/model"

/** An integrator's own storage format: `acme,<scan id>,<waist mm>`. */
export const ACME: Adapter = {
  name: "acme",
  formats: [
    {
      name: "acme csv row",
      api: "acme",
      detect: (j) => typeof j === "string" && j.startsWith("acme,"),
      decode: (j) => {
        const [, id, waist] = String(j).split(",")
        const scan = makeScan({ source: { api: "acme", id: id! }, status: "success", measurementsMm: { waistGirth: Number(waist) } })
        return Either.map(
          Either.mapLeft(scan, (v) => DecodeError.fromIssues("acme csv row", v.issues)),
          (s) => [s]
        )
      }
    }
  ],
  encoder: { target: "acme", encode: (scan) => Either.right({ value: `acme,${scan.source.id}`, notes: [] }) }
}
