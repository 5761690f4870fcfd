import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { SessionCreateError, SessionCreateReason } from "../src/index.js"
import { createError } from "../src/errors.js"
import type * as Wire from "../src/wire.js"

// Each create-session error type and the reason it means, written out here, not read from the source.
const REASONS: ReadonlyArray<readonly [Wire.CreateErrorType, string]> = [
  ["ERROR_TYPE_UNSPECIFIED", "Unspecified"],
  ["INVALID_CLIENT_ID", "InvalidClientId"],
  ["INVALID_REDIRECT_URL", "InvalidRedirectUrl"],
  ["MALFORMED_REQUEST_BODY", "MalformedRequest"],
  ["INTERNAL_ERROR", "Internal"]
]

describe("SessionCreateError", () => {
  it.prop(
    "is the one error of every create-session error type, its reason the type's and its fields as given (property)",
    [fc.constantFrom(...REASONS), fc.oneof(fc.string(), fc.integer()), fc.integer({ min: 100, max: 599 }), fc.string()],
    ([[errorType, reason], wireValue, status, message]) => {
      const error = createError(errorType, { wireValue, status, message })
      expect(error).toBeInstanceOf(SessionCreateError)
      expect(error).toMatchObject({ _tag: "SessionCreateError", reason, wireValue, status, message })
    }
  )

  it("lists exactly the five reasons", () => {
    expect(SessionCreateReason.literals).toEqual(["InvalidClientId", "InvalidRedirectUrl", "MalformedRequest", "Internal", "Unspecified"])
    expect(new Set(REASONS.map(([, reason]) => reason))).toEqual(new Set(SessionCreateReason.literals))
  })
})
