import { describe, expect, it } from "@effect/vitest"
import { DecodeError, UnknownFormatError } from "../src/index.js"

describe("errors of the input", () => {
  it("capture no stack frames, and leave the stack limit as it was", () => {
    const limit = Error.stackTraceLimit
    const errors = [
      DecodeError.at("platform entry", ["input", "height"], "tall", "a number"),
      UnknownFormatError.unknown(["a", "b"], { x: 1 }),
      UnknownFormatError.ambiguous(["a", "b"], ["a", "b"], { x: 1 }),
      UnknownFormatError.unreadable(["a"], { x: 1 }, new RangeError("Maximum call stack size exceeded"))
    ]
    for (const e of errors) expect(e.stack ?? "").not.toMatch(/\n\s+at /)
    expect(Error.stackTraceLimit).toBe(limit)
    expect(new Error("still has frames").stack).toMatch(/\n\s+at /)
  })

  it("keep their fields as given, with omitted defaulting to 0", () => {
    const e = DecodeError.at("platform entry", ["input", "height"], "tall", "a number")
    expect({ format: e.format, path: e.path, value: e.value, issues: e.issues, omitted: e.omitted, message: e.message }).toEqual({
      format: "platform entry",
      path: ["input", "height"],
      value: "tall",
      issues: [{ path: ["input", "height"], value: "tall", message: "a number" }],
      omitted: 0,
      message: e.message
    })
    expect(e.message).toContain("platform entry")
  })
})
