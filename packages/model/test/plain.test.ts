import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Catalogue, ScanbridgeError, convertLength, e4ToPercent, isScan, makeScan, orThrow, parseScan, percentToE4, validateScan } from "../src/plain.js"

const thrown = (f: () => unknown): ScanbridgeError => {
  try {
    f()
  } catch (e) {
    if (e instanceof ScanbridgeError) return e
    throw new Error(`expected a ScanbridgeError, got ${String(e)}`)
  }
  throw new Error("expected a throw")
}

describe("the plain entry", () => {
  const valid = makeScan({ source: { api: "fit", id: "token" }, status: "success", measurementsMm: { hipGirth: 950 } })

  it("builds, validates and parses canonical JSON as plain objects", () => {
    expect(valid.measurementsMm).toEqual({ hipGirth: 950 })
    expect(validateScan(JSON.parse(JSON.stringify(valid)))).toEqual(valid)
    expect(parseScan(JSON.stringify(valid))).toEqual(valid)
    expect(isScan(valid)).toBe(true)
    expect(isScan({ ...valid, status: "done" })).toBe(false)
  })

  it("throws one error class that names the code, path and value", () => {
    const error = thrown(() => validateScan({ ...valid, subject: { ...valid.subject, heightMm: -1640 } }))
    expect(error.name).toBe("ScanbridgeError")
    expect(error.code).toBe("DecodeError")
    expect(error.path).toEqual(["subject", "heightMm"])
    expect(error.value).toBe(-1640)
    expect(error.message).toContain("at subject.heightMm")
    expect(error.cause).toMatchObject({ _tag: "DecodeError" })
  })

  it("throws InvariantViolation from makeScan and DecodeError for bad text", () => {
    expect(thrown(() => makeScan({ source: { api: "platform", id: null }, status: "failure" })).code).toBe("InvariantViolation")
    expect(thrown(() => parseScan("not json")).code).toBe("DecodeError")
  })

  it.prop("validateScan throws only ScanbridgeError on arbitrary JSON", [fc.jsonValue()], ([json]) => {
    expect(thrown(() => validateScan(json)).code).toBe("DecodeError")
  })

  it.prop("orThrow gives a Right's value and throws a Left as the ScanbridgeError of its tag", [fc.jsonValue(), fc.string()], ([value, message]) => {
    expect(orThrow(Either.right(value))).toBe(value)
    const error = thrown(() => orThrow(Either.left({ _tag: "OptionError", value, message })))
    expect(error).toMatchObject({ code: "OptionError", value, message, path: [], issues: [] })
  })

  it("converts units on plain numbers", () => {
    expect(convertLength(175, "cm", "mm")).toBe(1750)
    expect(e4ToPercent(123456)).toBe(12.3456)
    expect(percentToE4(12.3456)).toBe(123456)
    expect(thrown(() => e4ToPercent(1.5)).value).toBe(1.5)
  })

  it("exposes the catalogue", () => {
    expect(Catalogue.byName("hipGirth")?.kind).toBe("girth")
  })
})
