/** A scan as one resource (`toContainedPanel`): valid FHIR, detected as the bare panel, read back as its bundle is. */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc } from "effect"
import { Scan } from "@scanbridge/model"
import { decodeBundleEither, decodePanelEither, encodeBundleEither, isScanBundle, isScanPanel, toContainedPanel } from "../src/index.js"
import { ENCODE_OPTIONS, everyQuantityScans } from "./support/codings.js"
import { validateBundle } from "./support/validate.js"

const json = (u: unknown): unknown => JSON.parse(JSON.stringify(u))
/** The scans read, their notes without paths: a member is `contained[i]` in one, `entry[i].resource` in the other. */
const read = (scans: Either.Either<ReadonlyArray<Scan>, unknown>) =>
  Either.map(scans, (list) => list.map((s) => ({ ...s, notes: s.notes.map(({ kind, detail }) => ({ kind, detail })) })))

describe("toContainedPanel", () => {
  it("reads back as the bundle it came from, for any scan and options", () => {
    fc.assert(
      fc.property(Arbitrary.make(Scan), fc.constantFrom(...ENCODE_OPTIONS), (scan, options) => {
        const encoded = encodeBundleEither(scan, options)
        if (Either.isLeft(encoded)) return
        const panel = json(toContainedPanel(encoded.right.value))
        expect(isScanPanel(panel)).toBe(true)
        expect(isScanBundle(panel)).toBe(false)
        expect(read(decodePanelEither(panel))).toEqual(read(decodeBundleEither(json(encoded.right.value))))
      }),
      { numRuns: 200 }
    )
  })

  it("is valid FHIR R4: the same checks as a bundle's, on a collection that holds it", () => {
    for (const scan of everyQuantityScans()) {
      for (const options of ENCODE_OPTIONS) {
        const panel = toContainedPanel(Either.getOrThrow(encodeBundleEither(scan, options)).value)
        expect(panel.contained.map((r) => r.id)).toEqual(["device", ...panel.contained.slice(1).map((_, i) => `m${i}`)])
        const collection = {
          resourceType: "Bundle",
          type: "collection",
          entry: [{ fullUrl: "urn:uuid:7d2c64f7-1b8e-4f5e-9a51-3f4f4a2f9d10", resource: panel }]
        }
        expect(validateBundle(json(collection))).toEqual([])
      }
    }
  })
})
