import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { type JpegInfo, PHOTO_LIMITS, type PhotoProblem, checkPhoto, makeJpeg, readJpegInfo } from "../src/jpeg.js"

// --- Helpers ------------------------------------------------------------------------------

const ok = <A, E>(result: Either.Either<A, E>): A => Either.getOrThrowWith(result, (e) => new Error(`unexpected Left: ${JSON.stringify(e)}`))

const err = <A, E>(result: Either.Either<A, E>): E => Either.getOrThrowWith(Either.flip(result), (a) => new Error(`expected a Left, got ${JSON.stringify(a)}`))

const concat = (...parts: ReadonlyArray<ArrayLike<number>>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let pos = 0
  for (const p of parts) {
    out.set(Array.from(p), pos)
    pos += p.length
  }
  return out
}

const segment = (marker: number, payload: ArrayLike<number>): Uint8Array => {
  const length = payload.length + 2
  return concat([0xff, marker, length >> 8, length & 0xff], payload)
}

/** Offset of the first `FF m` with m in `markers`, scanning raw bytes (fine for makeJpeg output before its scan data). */
const indexOfMarker = (bytes: Uint8Array, markers: ReadonlyArray<number>): number => {
  for (let i = 0; i + 1 < bytes.length; i++) if (bytes[i] === 0xff && markers.includes(bytes[i + 1] ?? -1)) return i
  return -1
}

/** `bytes` with `insert` put in at `at`. */
const splice = (bytes: Uint8Array, at: number, insert: ArrayLike<number>): Uint8Array => concat(bytes.subarray(0, at), insert, bytes.subarray(at))

/** `bytes` with `insert` put in just before its frame header. */
const beforeSof = (bytes: Uint8Array, insert: ArrayLike<number>): Uint8Array => splice(bytes, indexOfMarker(bytes, [0xc0, 0xc2]), insert)

/** A frame-header payload of 3 components claiming `width` x `height`, to plant where no SOF should be read. */
const fakeSofPayload = (width: number, height: number): Array<number> => [
  0x08,
  height >> 8,
  height & 0xff,
  width >> 8,
  width & 0xff,
  0x03,
  1,
  0x22,
  0,
  2,
  0x11,
  1,
  3,
  0x11,
  1
]

/**
 * Independent structure check of a makeJpeg output: SOI, segments whose lengths stay within the
 * data and within 65535, one SOF, SOS, scan data without unstuffed markers, EOI as the last bytes.
 */
const walk = (bytes: Uint8Array): { readonly markers: Array<number>; readonly sofLength: number } => {
  expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8])
  const markers: Array<number> = []
  let sofLength = 0
  let pos = 2
  for (;;) {
    expect(bytes[pos]).toBe(0xff)
    while (bytes[pos] === 0xff) pos++
    const marker = bytes[pos++] ?? -1
    markers.push(marker)
    const length = ((bytes[pos] ?? 0) << 8) | (bytes[pos + 1] ?? 0)
    expect(length).toBeGreaterThanOrEqual(2)
    expect(length).toBeLessThanOrEqual(0xffff)
    expect(pos + length).toBeLessThanOrEqual(bytes.length)
    if (marker >= 0xc0 && marker <= 0xc2) sofLength = length
    pos += length
    if (marker === 0xda) break
  }
  const scan = bytes.subarray(pos, bytes.length - 2)
  for (let i = 0; i < scan.length; i++) if (scan[i] === 0xff) expect(scan[i + 1]).toBe(0x00)
  expect([bytes[bytes.length - 2], bytes[bytes.length - 1]]).toEqual([0xff, 0xd9])
  return { markers, sofLength }
}

/** A hand-built little-endian ("II") APP1 Exif segment: IFD0 at `ifdOffset`, a Make tag first, then Orientation. */
const exifII = (orientation: number, ifdOffset = 8): Uint8Array => {
  const gap = new Array<number>(ifdOffset - 8).fill(0xaa)
  const tiff = [
    0x49,
    0x49,
    0x2a,
    0x00, // "II", 42 little-endian
    ifdOffset & 0xff,
    ifdOffset >> 8,
    0x00,
    0x00, // IFD0 offset
    ...gap,
    0x02,
    0x00, // two entries
    0x0f,
    0x01,
    0x02,
    0x00,
    0x04,
    0x00,
    0x00,
    0x00,
    0x41,
    0x43,
    0x4d,
    0x00, // Make, ASCII, 4: "ACM\0"
    0x12,
    0x01,
    0x03,
    0x00,
    0x01,
    0x00,
    0x00,
    0x00,
    orientation & 0xff,
    orientation >> 8,
    0x00,
    0x00, // Orientation, SHORT, 1
    0x00,
    0x00,
    0x00,
    0x00 // no next IFD
  ]
  return segment(0xe1, [0x45, 0x78, 0x69, 0x66, 0x00, 0x00, ...tiff])
}

/** makeJpeg output with no EXIF and `app1` put in right after SOI. */
const withApp1 = (width: number, height: number, app1: Uint8Array): Uint8Array => splice(makeJpeg(width, height), 2, app1)

// --- readJpegInfo ----------------------------------------------------------------------------

describe("readJpegInfo", () => {
  it("reads a baseline makeJpeg's dimensions, orientation 1 without EXIF", () => {
    expect(ok(readJpegInfo(makeJpeg(1080, 1920)))).toEqual({ width: 1080, height: 1920, orientation: 1 })
    expect(ok(readJpegInfo(makeJpeg(1, 65535)))).toEqual({ width: 1, height: 65535, orientation: 1 })
    expect(ok(readJpegInfo(makeJpeg(4032, 3024)))).toEqual({ width: 4032, height: 3024, orientation: 1 })
  })

  it("reads a progressive (SOF2) makeJpeg's dimensions", () => {
    const bytes = makeJpeg(720, 1280, { progressive: true })
    expect(indexOfMarker(bytes, [0xc2])).toBeGreaterThan(0)
    expect(indexOfMarker(bytes, [0xc0])).toBe(-1)
    expect(ok(readJpegInfo(bytes))).toEqual({ width: 720, height: 1280, orientation: 1 })
  })

  it.each([0xc1, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf])("accepts SOF marker %s", (marker) => {
    const bytes = makeJpeg(800, 1422)
    bytes[indexOfMarker(bytes, [0xc0]) + 1] = marker
    expect(ok(readJpegInfo(bytes))).toMatchObject({ width: 800, height: 1422 })
  })

  it.each([
    [1, 1080, 1920],
    [2, 1080, 1920],
    [3, 1080, 1920],
    [4, 1080, 1920],
    [5, 1920, 1080],
    [6, 1920, 1080],
    [7, 1920, 1080],
    [8, 1920, 1080]
  ])("EXIF orientation %i (big-endian MM) displays 1080 x 1920 stored as %i x %i", (orientation, width, height) => {
    expect(ok(readJpegInfo(makeJpeg(1080, 1920, { orientation })))).toEqual({ width, height, orientation })
  })

  it("orientations 6 and 8 swap, 1 and 3 do not", () => {
    expect(ok(readJpegInfo(makeJpeg(1920, 1080, { orientation: 6 })))).toEqual({ width: 1080, height: 1920, orientation: 6 })
    expect(ok(readJpegInfo(makeJpeg(1920, 1080, { orientation: 8 })))).toEqual({ width: 1080, height: 1920, orientation: 8 })
    expect(ok(readJpegInfo(makeJpeg(1920, 1080, { orientation: 1 })))).toEqual({ width: 1920, height: 1080, orientation: 1 })
    expect(ok(readJpegInfo(makeJpeg(1920, 1080, { orientation: 3 })))).toEqual({ width: 1920, height: 1080, orientation: 3 })
  })

  it("reads a little-endian (II) EXIF orientation, after another tag and at any IFD0 offset", () => {
    expect(ok(readJpegInfo(withApp1(4000, 2250, exifII(6))))).toEqual({ width: 2250, height: 4000, orientation: 6 })
    expect(ok(readJpegInfo(withApp1(4000, 2250, exifII(8, 26))))).toEqual({ width: 2250, height: 4000, orientation: 8 })
    expect(ok(readJpegInfo(withApp1(4000, 2250, exifII(3))))).toEqual({ width: 4000, height: 2250, orientation: 3 })
  })

  it("reads orientation 1 from out-of-range values and from malformed EXIF", () => {
    expect(ok(readJpegInfo(makeJpeg(1920, 1080, { orientation: 0 })))).toEqual({ width: 1920, height: 1080, orientation: 1 })
    expect(ok(readJpegInfo(makeJpeg(1920, 1080, { orientation: 9 })))).toEqual({ width: 1920, height: 1080, orientation: 1 })
    expect(ok(readJpegInfo(makeJpeg(1920, 1080, { orientation: 0x0600 })))).toEqual({ width: 1920, height: 1080, orientation: 1 })
    // IFD0 offset far past the segment; a directory that claims 500 entries and has no Orientation;
    // an Orientation of type UNDEFINED; an unknown byte order; not 42.
    const exif = exifII(6)
    const tiff = 4 + 6 // FF E1, length, "Exif\0\0"
    const farIfd = exif.slice()
    farIfd.set([0xff, 0xff, 0x00, 0x00], tiff + 4)
    const manyEntries = exif.slice()
    manyEntries.set([0xf4, 0x01], tiff + 8)
    manyEntries.set([0x13, 0x01], tiff + 22)
    const undefinedType = exif.slice()
    undefinedType.set([0x07, 0x00], tiff + 24)
    const badOrder = exif.slice()
    badOrder.set([0x49, 0x4d], tiff)
    const not42 = exif.slice()
    not42.set([0x2b, 0x00], tiff + 2)
    for (const app1 of [farIfd, manyEntries, undefinedType, badOrder, not42]) {
      expect(ok(readJpegInfo(withApp1(1920, 1080, app1)))).toEqual({ width: 1920, height: 1080, orientation: 1 })
    }
    // ... while the untouched segment still reads 6 (so the corruptions above are what made it 1).
    expect(ok(readJpegInfo(withApp1(1920, 1080, exif))).orientation).toBe(6)
  })

  it("takes the first Exif APP1 and ignores an APP1 that is not Exif", () => {
    const xmp = segment(
      0xe1,
      Array.from("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>", (c) => c.charCodeAt(0))
    )
    expect(ok(readJpegInfo(withApp1(1920, 1080, concat(xmp, exifII(6), exifII(8)))))).toEqual({ width: 1080, height: 1920, orientation: 6 })
  })

  it("skips fill bytes before a marker", () => {
    const filled = beforeSof(makeJpeg(1080, 1920), [0xff, 0xff, 0xff, 0xff])
    expect(ok(readJpegInfo(filled))).toEqual({ width: 1080, height: 1920, orientation: 1 })
    const filledFirst = splice(makeJpeg(1080, 1920, { orientation: 6 }), 2, [0xff, 0xff])
    expect(ok(readJpegInfo(filledFirst))).toEqual({ width: 1920, height: 1080, orientation: 6 })
  })

  it("skips standalone markers (RSTn, TEM) before the frame header", () => {
    const bytes = beforeSof(makeJpeg(1080, 1920), [0xff, 0xd0, 0xff, 0xd7, 0xff, 0x01])
    expect(ok(readJpegInfo(bytes))).toEqual({ width: 1080, height: 1920, orientation: 1 })
  })

  it("skips a big APP2 segment by its length, even when its payload looks like a frame header", () => {
    const payload = new Array<number>(65533).fill(0)
    const fake = [0xff, 0xc0, 0x00, 0x11, ...fakeSofPayload(64, 64)]
    for (let i = 0; i + fake.length < payload.length; i += 1000) fake.forEach((b, k) => (payload[i + k] = b))
    const bytes = beforeSof(makeJpeg(1080, 1920, { orientation: 6 }), concat(segment(0xe2, payload), segment(0xe2, payload)))
    expect(bytes.length).toBeGreaterThan(2 * 65535)
    expect(ok(readJpegInfo(bytes))).toEqual({ width: 1920, height: 1080, orientation: 6 })
  })

  it("does not take DHT (C4), JPG (C8) or DAC (CC) for a frame header", () => {
    const tables = concat(segment(0xc4, fakeSofPayload(64, 64)), segment(0xc8, fakeSofPayload(64, 64)), segment(0xcc, fakeSofPayload(64, 64)))
    expect(ok(readJpegInfo(beforeSof(makeJpeg(1080, 1920), tables)))).toEqual({ width: 1080, height: 1920, orientation: 1 })
  })

  it("gives a Left for a file that is not a JPEG", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])
    expect(err(readJpegInfo(png))).toBe("not a JPEG: it does not start with FF D8")
    expect(err(readJpegInfo(new Uint8Array()))).toBe("not a JPEG: it does not start with FF D8")
    expect(err(readJpegInfo(new Uint8Array([0xff])))).toBe("not a JPEG: it does not start with FF D8")
  })

  it("gives a Left when the image data starts before any frame header", () => {
    const bytes = makeJpeg(1080, 1920)
    const sof = indexOfMarker(bytes, [0xc0])
    const noSof = concat(bytes.subarray(0, sof), bytes.subarray(sof + 19))
    expect(err(readJpegInfo(noSof))).toBe("no frame header (SOF) before the image data")
    expect(err(readJpegInfo(new Uint8Array([0xff, 0xd8, 0xff, 0xd9])))).toBe("no frame header (SOF) before the end of the image (EOI)")
  })

  it("gives a Left for zero width or height and for a malformed frame header", () => {
    expect(err(readJpegInfo(makeJpeg(0, 1920)))).toBe("zero width or height")
    expect(err(readJpegInfo(makeJpeg(1080, 0)))).toBe("zero width or height")
    const bytes = makeJpeg(1080, 1920)
    bytes[indexOfMarker(bytes, [0xc0]) + 9] = 4 // four components in a segment sized for three
    expect(err(readJpegInfo(bytes))).toMatch(/^malformed frame header \(SOF\) at byte \d+$/)
  })

  it("gives a Left for garbage where a marker belongs and for a bad segment length", () => {
    const bytes = makeJpeg(1080, 1920)
    expect(err(readJpegInfo(splice(bytes, 2, [0x00])))).toBe("expected a marker at byte 2, found 00")
    expect(err(readJpegInfo(splice(bytes, 2, [0xff, 0xe3, 0x00, 0x01])))).toBe("invalid segment length 1 at byte 2")
    expect(err(readJpegInfo(splice(bytes, 2, [0xff, 0x00])))).toBe("invalid marker FF 00 at byte 2")
    expect(err(readJpegInfo(splice(bytes, 2, [0xff, 0xd8])))).toBe("a second start of image (FF D8) at byte 2")
  })

  it("never throws on a valid file cut at any byte: Left before the frame header is complete, Right after", () => {
    const bytes = makeJpeg(1080, 1920, { orientation: 6, comment: "front photo" })
    const sofEnd = indexOfMarker(bytes, [0xc0]) + 2 + 17
    for (let cut = 0; cut <= bytes.length; cut++) {
      const result = readJpegInfo(bytes.slice(0, cut))
      if (cut < sofEnd) {
        expect(Either.isLeft(result), `cut at ${cut}`).toBe(true)
      } else {
        expect(ok(result)).toEqual({ width: 1920, height: 1080, orientation: 6 })
      }
    }
    expect(err(readJpegInfo(bytes.slice(0, 30)))).toMatch(/^truncated segment at byte \d+$/)
  })

  it.prop("never throws on random bytes", [fc.uint8Array({ maxLength: 512 })], ([bytes]) => {
    const result = readJpegInfo(bytes)
    expect(Either.isEither(result)).toBe(true)
  })

  it.prop("never throws on random bytes after SOI, and any Right has positive dimensions", [fc.uint8Array({ maxLength: 512 })], ([tail]) => {
    const result = readJpegInfo(concat([0xff, 0xd8], tail))
    if (Either.isRight(result)) {
      expect(result.right.width).toBeGreaterThan(0)
      expect(result.right.height).toBeGreaterThan(0)
      expect(result.right.orientation).toBeGreaterThanOrEqual(1)
      expect(result.right.orientation).toBeLessThanOrEqual(8)
    }
  })

  it.prop(
    "never throws on a valid file with random bytes overwritten (EXIF included)",
    [fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 })],
    ([edits]) => {
      const bytes = withApp1(1080, 1920, exifII(6, 12))
      const limit = indexOfMarker(bytes, [0xc0]) + 19
      for (const [at, value] of edits) bytes[at % limit] = value
      expect(Either.isEither(readJpegInfo(bytes))).toBe(true)
    }
  )
})

// --- makeJpeg ---------------------------------------------------------------------------------

describe("makeJpeg", () => {
  it("builds SOI, APP0 JFIF, APP1 Exif, COM, SOF, SOS, scan data, EOI", () => {
    const bytes = makeJpeg(1080, 1920, { orientation: 6, comment: "café" })
    expect(walk(bytes)).toEqual({ markers: [0xe0, 0xe1, 0xfe, 0xc0, 0xda], sofLength: 17 })
    expect(walk(makeJpeg(720, 1280, { progressive: true }))).toEqual({ markers: [0xe0, 0xc2, 0xda], sofLength: 17 })
    expect(Buffer.from(bytes).includes(Buffer.from("JFIF\0", "latin1"))).toBe(true)
    expect(Buffer.from(bytes).includes(Buffer.from("Exif\0\0MM\0\x2a", "latin1"))).toBe(true)
    expect(Buffer.from(bytes).includes(Buffer.from([0xff, 0xfe, 0x00, 0x06, 0x63, 0x61, 0x66, 0xe9]))).toBe(true) // "café" in latin1
    expect(bytes.length).toBeLessThan(200)
  })

  it("pads to exactly padTo bytes with COM segments (longer scan data for a shortfall under 4) and still parses", () => {
    const natural = makeJpeg(1080, 1920).length
    const sizes = [0, 1, 2, 3, 4, 5, 100, 65533, 65536, 65537, 65538, 65539, 65540, 65541, 65542, 131074, 131075, 131078, 200_000].map((n) => natural + n)
    for (const padTo of [...sizes, PHOTO_LIMITS.maxBytes, PHOTO_LIMITS.maxBytes + 1]) {
      const bytes = makeJpeg(1080, 1920, { padTo })
      expect(bytes.length).toBe(padTo)
      expect(walk(bytes).markers.includes(0xfe)).toBe(padTo - natural >= 4)
      expect(ok(readJpegInfo(bytes))).toEqual({ width: 1080, height: 1920, orientation: 1 })
    }
  })

  it.prop(
    "pads to any size at or above the natural one",
    [fc.integer({ min: 0, max: 300_000 }), fc.boolean(), fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined })],
    ([extra, progressive, orientation]) => {
      const options = orientation === undefined ? { progressive } : { progressive, orientation }
      const padTo = makeJpeg(1000, 1778, options).length + extra
      const bytes = makeJpeg(1000, 1778, { ...options, padTo })
      expect(bytes.length).toBe(padTo)
      walk(bytes)
      expect(ok(readJpegInfo(bytes))).toMatchObject({ orientation: orientation ?? 1 })
    },
    { fastCheck: { numRuns: 60 } }
  )

  it("refuses what it cannot build", () => {
    const natural = makeJpeg(1080, 1920).length
    expect(() => makeJpeg(1080, 1920, { padTo: natural - 1 })).toThrow(RangeError)
    expect(() => makeJpeg(65536, 1920)).toThrow(RangeError)
    expect(() => makeJpeg(1080.5, 1920)).toThrow(RangeError)
    expect(() => makeJpeg(1080, 1920, { comment: "€" })).toThrow(RangeError)
    expect(() => makeJpeg(1080, 1920, { comment: "x".repeat(65534) })).toThrow(RangeError)
    expect(makeJpeg(1080, 1920, { comment: "x".repeat(65533) }).length).toBe(natural + 65537)
  })
})

// --- checkPhoto ---------------------------------------------------------------------------------

const problem = (bytes: Uint8Array): PhotoProblem => err(checkPhoto(bytes))

describe("checkPhoto", () => {
  it("reads 3 MB as 3 MiB", () => {
    expect(PHOTO_LIMITS.maxBytes).toBe(3_145_728)
  })

  it.each([
    [1080, 1920],
    [720, 1280],
    [1081, 1922],
    [1440, 2560],
    [2160, 3840]
  ])("passes %i x %i", (width, height) => {
    expect(ok(checkPhoto(makeJpeg(width, height)))).toEqual({ width, height, orientation: 1 })
  })

  it("refuses a file that is not a JPEG, with the reason", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
    const p = problem(png)
    expect(p.rule).toBe("jpeg")
    expect(p.message).toContain("does not start with FF D8")
    expect(p.value).toBe("not a JPEG: it does not start with FF D8")
    expect(problem(makeJpeg(1080, 1920).slice(0, 30))).toMatchObject({ rule: "jpeg", value: "truncated segment at byte 20" })
  })

  it("refuses 3 MiB + 1 bytes and passes exactly 3 MiB", () => {
    expect(ok(checkPhoto(makeJpeg(1080, 1920, { padTo: PHOTO_LIMITS.maxBytes })))).toEqual({ width: 1080, height: 1920, orientation: 1 })
    const p = problem(makeJpeg(1080, 1920, { padTo: PHOTO_LIMITS.maxBytes + 1 }))
    expect(p).toMatchObject({ rule: "size", value: 3_145_729 })
    expect(p.message).toContain("3,145,729 bytes")
    expect(p.message).toContain("3,145,728 bytes")
  })

  it("checks size before resolution and aspect", () => {
    expect(problem(makeJpeg(100, 100, { padTo: PHOTO_LIMITS.maxBytes + 1 })).rule).toBe("size")
  })

  it("refuses 719 x 1278 for resolution, naming both", () => {
    const p = problem(makeJpeg(719, 1278))
    expect(p).toMatchObject({ rule: "resolution", value: "719x1278" })
    expect(p.message).toContain("719 x 1278")
    expect(p.message).toContain("720 x 1280")
  })

  it.each([
    [719, 1280],
    [720, 1279]
  ])("refuses %i x %i for resolution (one dimension short)", (width, height) => {
    expect(problem(makeJpeg(width, height)).rule).toBe("resolution")
  })

  it("refuses 1080 x 1440 for aspect, giving the ratio 3:4", () => {
    const p = problem(makeJpeg(1080, 1440))
    expect(p).toMatchObject({ rule: "aspect", value: "1080x1440" })
    expect(p.message).toContain("3:4")
    expect(p.message).toContain("9:16")
    expect(p.message).not.toContain("\n")
  })

  it("allows about a pixel of rounding in the aspect, not more", () => {
    expect(Either.isRight(checkPhoto(makeJpeg(1080, 1921)))).toBe(true) // |17280 - 17289| = 9
    expect(Either.isRight(checkPhoto(makeJpeg(1081, 1920)))).toBe(true) // |17296 - 17280| = 16
    expect(problem(makeJpeg(1080, 1922)).rule).toBe("aspect") // |17280 - 17298| = 18
    expect(problem(makeJpeg(1082, 1920)).rule).toBe("aspect") // |17312 - 17280| = 32
  })

  it("refuses a landscape 1920 x 1080 for resolution (it fails the height minimum first)", () => {
    const p = problem(makeJpeg(1920, 1080))
    expect(p).toMatchObject({ rule: "resolution", value: "1920x1080" })
  })

  it("refuses a landscape 2560 x 1440 for aspect, saying it is landscape 16:9", () => {
    const p = problem(makeJpeg(2560, 1440))
    expect(p.rule).toBe("aspect")
    expect(p.message).toContain("landscape 16:9")
  })

  it("passes 1920 x 1080 stored with EXIF orientation 6 (displayed 1080 x 1920)", () => {
    expect(ok(checkPhoto(makeJpeg(1920, 1080, { orientation: 6 })))).toEqual({ width: 1080, height: 1920, orientation: 6 })
    expect(ok(checkPhoto(withApp1(1920, 1080, exifII(8))))).toEqual({ width: 1080, height: 1920, orientation: 8 })
  })

  it("refuses 1080 x 1920 stored with EXIF orientation 6 (displayed 1920 x 1080), saying it is turned", () => {
    const p = problem(makeJpeg(1080, 1920, { orientation: 6 }))
    expect(p).toMatchObject({ rule: "resolution", value: "1920x1080" })
    expect(p.message).toContain("EXIF orientation 6")
  })

  it.prop("passes any width in 720..4000 with height round(width * 16 / 9)", [fc.integer({ min: 720, max: 4000 }), fc.boolean()], ([width, progressive]) => {
    const height = Math.round((width * 16) / 9)
    const expected: JpegInfo = { width, height, orientation: 1 }
    expect(ok(checkPhoto(makeJpeg(width, height, { progressive })))).toEqual(expected)
  })
})
