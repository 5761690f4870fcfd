/**
 * The client library's scan result as the platform's photos: prefix stripped, `side` as `right`,
 * each photo checked by the client's own rule.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { photosOfScan } from "../src/index.js"

// Base64 of bytes that start as a JPEG's (FF D8 FF), padded.
const jpegBase64 = fc.uint8Array({ maxLength: 64 }).map((rest) => Buffer.from([0xff, 0xd8, 0xff, ...rest]).toString("base64"))

describe("photosOfScan", () => {
  it("strips the data-URL prefix of both photos and sends side as the platform's right", () => {
    fc.assert(
      fc.property(jpegBase64, jpegBase64, (front, side) => {
        const photos = photosOfScan({ front: `data:image/jpeg;base64,${front}`, side: `data:image/jpeg;base64,${side}` })
        expect(photos).toEqual(Either.right({ front, right: side }))
      })
    )
  })

  it("refuses what the platform would fail on, naming the scan's photo", () => {
    const png = photosOfScan({ front: "data:image/png;base64,iVBORw0KGgo=", side: "data:image/jpeg;base64,/9j/4AAQ" })
    expect(Either.isLeft(png) && png.left.path).toEqual(["scan", "front"])
    const notJpeg = photosOfScan({ front: "data:image/jpeg;base64,/9j/4AAQ", side: "data:image/jpeg;base64,aGVsbG8=" })
    expect(Either.isLeft(notJpeg) && notJpeg.left.message).toBe("scan.side: not a JPEG: its bytes do not start with FF D8 FF")
    const missing = photosOfScan({ front: "data:image/jpeg;base64,/9j/4AAQ" })
    expect(Either.isLeft(missing) && missing.left.path).toEqual(["scan", "side"])
    expect(Either.isLeft(photosOfScan("front.jpg"))).toBe(true)
  })
})
