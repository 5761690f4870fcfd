/**
 * ScanbridgeError's `code` is a union of the real codes, read from the error classes' tags: the
 * list below must name each of them once (a code added to a client, a migration or the model
 * without it fails to compile here), and a made-up code is no code.
 */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Cause, FiberId } from "effect"
import { MigrateInputError } from "@scanbridge/migrate"
import { PlatformStatusError } from "@scanbridge/platform"
import { errorOfCause } from "../src/errors.js"
import { ScanbridgeError, type ScanbridgeErrorCode } from "../src/index.js"

// Every code, by where it comes from. A Record of the union: a missing or an unknown key does not compile.
const CODES: { readonly [K in ScanbridgeErrorCode]: string } = {
  DecodeError: "model",
  UnknownFormatError: "model",
  InvariantViolation: "model",
  EncodeError: "model",
  AdapterError: "migrate",
  UnknownTargetError: "migrate",
  MigratePlanError: "migrate",
  MigrateInputError: "migrate",
  MigrateOutputError: "migrate",
  MigrateWorkerError: "migrate",
  ResumeError: "migrate",
  PostgresError: "migrate",
  ApiTransportError: "http",
  ApiTimeoutError: "http",
  ApiStatusError: "http",
  ApiRedirectError: "http",
  ApiResponseTooLargeError: "http",
  ApiEncodeError: "http",
  PlatformStatusError: "platform",
  PlatformAlreadyDeletedError: "platform",
  PlatformInputError: "platform",
  SessionCreateError: "session",
  SessionInputError: "session",
  SessionTimeoutError: "session",
  EstimationStatusError: "estimation",
  EstimationInputError: "estimation",
  EstimationPhotoError: "estimation",
  EstimationTimeoutError: "estimation",
  FitRejectionError: "fit",
  GatewayStoreError: "gateway",
  GatewayOptionError: "plain",
  Defect: "plain",
  Interrupted: "plain",
  UnknownError: "plain",
  OptionError: "plain"
}

describe("ScanbridgeError's code", () => {
  it("is a union of the codes: a made-up code does not type-check", () => {
    expectTypeOf<"PlatformStatusError">().toExtend<ScanbridgeErrorCode>()
    expectTypeOf<"MadeUpError">().not.toExtend<ScanbridgeErrorCode>()
    expectTypeOf<string>().not.toExtend<ScanbridgeErrorCode>()
    expectTypeOf<ScanbridgeError["code"]>().toEqualTypeOf<ScanbridgeErrorCode>()
    // @ts-expect-error: no error has this tag
    const madeUp: ScanbridgeError["code"] = "PlatformNotFoundError"
    // @ts-expect-error: the class exported by the plain API makes only errors of its codes
    const made = new ScanbridgeError({ _tag: "MadeUpError", message: "no such code" })
    expect([madeUp, made.code]).toEqual(["PlatformNotFoundError", "MadeUpError"])
  })

  it("narrows by instanceof to the codes, and each code a failure becomes is one of them", () => {
    const caught: unknown = errorOfCause(
      Cause.fail(
        new PlatformStatusError({ api: "platform", method: "GET", url: "https://api.example/scans", status: 404, reason: "NotFound", message: "not found" })
      )
    )
    expect(caught).toBeInstanceOf(ScanbridgeError)
    if (!(caught instanceof ScanbridgeError)) return
    expectTypeOf(caught.code).toEqualTypeOf<ScanbridgeErrorCode>()
    const made = [
      caught,
      errorOfCause(Cause.die(new Error("boom"))),
      errorOfCause(Cause.interrupt(FiberId.none)),
      errorOfCause(Cause.fail("no tag")),
      errorOfCause(Cause.fail(new MigrateInputError({ file: "in.ndjson", message: "cannot read" })))
    ]
    expect(made.map((e) => e.code)).toEqual(["PlatformStatusError", "Defect", "Interrupted", "UnknownError", "MigrateInputError"])
    for (const error of made) expect(Object.hasOwn(CODES, error.code)).toBe(true)
  })

  it("lists the tag of every typed failure a plain function meets, once", () => {
    expect(Object.keys(CODES)).toHaveLength(new Set(Object.keys(CODES)).size)
    // The model's codes are the plain API's too: the model's entry narrows to a part of this union.
    expectTypeOf<"DecodeError" | "UnknownFormatError" | "InvariantViolation" | "EncodeError">().toExtend<ScanbridgeErrorCode>()
  })
})
