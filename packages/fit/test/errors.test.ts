import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { FitRejectionError, FitRejectionReason } from "../src/index.js"
import { rejection } from "../src/errors.js"

// Each documented errorType name and the reason it means, written out here, not read from the source.
const REASONS: ReadonlyArray<readonly [string, string]> = [
  ["INTERNAL_ERROR", "Internal"],
  ["INVALID_CLIENT_KEY", "InvalidClientKey"],
  ["INVALID_PRODUCT_ID", "InvalidProductId"],
  ["INVALID_ESTIMATION_TOKEN", "InvalidEstimationToken"],
  ["PRODUCT_NOT_FOUND", "ProductNotFound"],
  ["MALFORMED_REQUEST", "MalformedRequest"],
  ["ERROR_TYPE_UNSPECIFIED", "Unspecified"]
]
const NAMED = new Set(REASONS.map(([name]) => name))

const fields = fc.record({
  endpoint: fc.constantFrom("CreateSession", "GetRecommendedSize"),
  wireValue: fc.oneof(fc.string(), fc.integer()),
  status: fc.integer({ min: 100, max: 599 }),
  message: fc.string()
})

describe("FitRejectionError", () => {
  it.prop(
    "is the one error of every documented errorType, its reason the type's and its fields as given (property)",
    [fc.constantFrom(...REASONS), fields],
    ([[errorType, reason], given]) => {
      const error = rejection(errorType, given)
      expect(error).toBeInstanceOf(FitRejectionError)
      expect(error).toMatchObject({ _tag: "FitRejectionError", reason, ...given })
    }
  )

  it.prop(
    "gives any other errorType, a number or an inherited name, the reason Unspecified (property)",
    [
      fc.oneof(
        fc.string().filter((s) => !NAMED.has(s)),
        fc.integer(),
        fc.constantFrom("toString", "__proto__", "constructor")
      ),
      fields
    ],
    ([errorType, given]) => {
      expect(rejection(errorType, given)).toMatchObject({ _tag: "FitRejectionError", reason: "Unspecified", ...given })
    }
  )

  it("lists exactly the seven reasons", () => {
    expect(new Set(FitRejectionReason.literals)).toEqual(new Set(REASONS.map(([, reason]) => reason)))
  })
})
