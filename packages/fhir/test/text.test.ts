/**
 * Text FHIR cannot hold: a lone UTF-16 surrogate (no UTF-8 form; it would also throw inside
 * encodeURIComponent and the UUIDs) and whitespace other than space, tab, CR and LF. A value of the
 * scan that holds one is refused with the path and the value; Scanbridge's own notes are mended.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc } from "effect"
import { Scan } from "@scanbridge/model"
import { type FhirOptions, encodeBundleEither } from "../src/index.js"
import { PATIENT_SYSTEM, everyQuantityScans, failedAndPendingScans } from "./support/codings.js"
import { validateBundle } from "./support/validate.js"

const base = everyQuantityScans()[0]!
const failed = failedAndPendingScans().find((s) => s.status === "failure")!

const refusal = (scan: Scan, options: FhirOptions = {}) => {
  const encoded = encodeBundleEither(scan, options)
  if (Either.isRight(encoded)) throw new Error("expected a refusal")
  return encoded.left
}

describe("text FHIR cannot hold", () => {
  it.each([
    ["source.id", { ...base, source: { api: "platform", id: "scan_\uD800" } }],
    ["source.api", { ...base, source: { api: "plat\uDC00form", id: "scan_1" } }],
    ["externalId", { ...base, externalId: "user\u00A07" }],
    ["source.id", { ...base, source: { api: "platform", id: "scan\u0001" } }],
    ["failure.code", { ...failed, failure: { ...failed.failure!, code: "bad\u2028code" } }],
    ["failure.message", { ...failed, failure: { ...failed.failure!, message: "lost \uDBFF" } }]
  ] as const)("%s is refused with its path and value", (path, scan) => {
    const error = refusal(scan as Scan)
    expect(error._tag).toBe("EncodeError")
    expect(error.path.join(".")).toBe(path)
    expect(error.message).toContain("lone UTF-16 surrogate")
  })

  it.each(["https://example.org/\uD800", "patients", "https://example.org/my patients", ""])(
    "the patient system %j, no absolute URI, is refused",
    (patientSystem) => {
      const error = refusal({ ...base, externalId: "user-7" }, { patientSystem })
      expect(error.message).toContain("absolute URI")
      expect(error.value).toBe(patientSystem)
    }
  )

  it("Scanbridge's own notes are mended, and the bundle validates", () => {
    const scan: Scan = { ...base, notes: [{ kind: "dropped", path: "x\uD800", detail: "key \u00A0 \u2028 \uDC00 = 1" }] }
    const bundle = Either.getOrThrow(encodeBundleEither(scan)).value
    const panel = bundle.entry[1]!.resource
    expect(panel.resourceType === "Observation" && panel.note?.[0]?.text).toBe('dropped "x\\ud800": key     \uFFFD = 1')
    expect(validateBundle(JSON.parse(JSON.stringify(bundle)))).toEqual([])
  })

  it("any text gives a bundle that validates or a refusal, never a throw", () => {
    const text = fc.oneof(fc.string({ unit: "binary", maxLength: 6 }), fc.constantFrom("\uD800", "a\u00A0b", "x\u2029", "\u0000", "a\u001Fb", " ", ""))
    fc.assert(
      fc.property(Arbitrary.make(Scan), text, text, text, (scan, id, externalId, detail) => {
        const s: Scan = { ...scan, source: { ...scan.source, id }, externalId, notes: [{ kind: "assumed", path: "x", detail }] }
        const encoded = encodeBundleEither(s, { patientSystem: PATIENT_SYSTEM })
        if (Either.isLeft(encoded)) expect(encoded.left._tag).toBe("EncodeError")
        else expect(validateBundle(JSON.parse(JSON.stringify(encoded.right.value)))).toEqual([])
      }),
      { numRuns: 60 }
    )
  })
})
