/**
 * Photo checks for the deprecated estimation API, run before upload.
 *
 * Spec 02 ("Limits") takes a front and a right photo: JPEG, at most 3 MB, aspect ratio 9:16
 * (width x height), resolution at least 720 x 1280 (1080 x 1920 recommended). The dimensions are
 * read from the JPEG header itself (the first frame header, SOF), turned by the EXIF Orientation
 * tag into the dimensions a viewer displays; no image library is involved.
 *
 * `makeJpeg` builds small header-correct JPEGs for tests and for the simulator.
 */
import { Either } from "effect"

// --- Reading the header ------------------------------------------------------------------

/** What the header says about a photo. */
export interface JpegInfo {
  /** Displayed width in pixels: the frame width, or the frame height when the EXIF orientation turns the image a quarter. */
  readonly width: number
  /** Displayed height in pixels (see `width`). */
  readonly height: number
  /** EXIF Orientation (1..8) of IFD0; 1 when there is no EXIF, no tag, or a value outside 1..8. */
  readonly orientation: number
}

const SOI = 0xd8
const EOI = 0xd9
const SOS = 0xda
const APP1 = 0xe1
const COM = 0xfe
const TEM = 0x01

/** Start-of-frame markers: C0-CF except C4 (DHT), C8 (JPG, reserved) and CC (DAC). */
const isSof = (marker: number): boolean => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc

/** Markers without a length or payload: RSTn and TEM. */
const isStandalone = (marker: number): boolean => (marker >= 0xd0 && marker <= 0xd7) || marker === TEM

const hex = (n: number): string => n.toString(16).toUpperCase().padStart(2, "0")

/** Big-endian u16 at `i`; the caller has checked that `i + 1` is in bounds. */
const u16be = (bytes: Uint8Array, i: number): number => ((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)

/** Orientations 5..8 turn the image a quarter (transpose, rotate 90 CW, transverse, rotate 270 CW). */
const swapsAxes = (orientation: number): boolean => orientation >= 5 && orientation <= 8

const EXIF_HEADER = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00] // "Exif\0\0"
const TAG_ORIENTATION = 0x0112
const TIFF_SHORT = 3
const TIFF_LONG = 4

/**
 * The Orientation tag of IFD0 in the TIFF structure of an APP1 Exif segment, `start` to `end`
 * (exclusive, the bytes after "Exif\0\0"). Undefined when the TIFF is malformed or has no usable
 * tag: broken EXIF is ignored, as viewers do, never an error. Every read is bounds-checked.
 */
const readExifOrientation = (bytes: Uint8Array, start: number, end: number): number | undefined => {
  if (end - start < 8) return undefined
  const b0 = bytes[start]
  const b1 = bytes[start + 1]
  const little = b0 === 0x49 && b1 === 0x49 // "II"
  if (!little && !(b0 === 0x4d && b1 === 0x4d)) return undefined // neither "II" nor "MM"
  const u16 = (off: number): number | undefined => {
    const i = start + off
    if (off < 0 || i + 2 > end) return undefined
    const a = bytes[i] ?? 0
    const b = bytes[i + 1] ?? 0
    return little ? a | (b << 8) : (a << 8) | b
  }
  const u32 = (off: number): number | undefined => {
    const hi = little ? u16(off + 2) : u16(off)
    const lo = little ? u16(off) : u16(off + 2)
    return hi === undefined || lo === undefined ? undefined : hi * 0x10000 + lo
  }
  if (u16(2) !== 42) return undefined
  const ifd0 = u32(4)
  if (ifd0 === undefined || ifd0 < 8) return undefined
  const count = u16(ifd0)
  if (count === undefined) return undefined
  for (let k = 0; k < count; k++) {
    const entry = ifd0 + 2 + 12 * k
    const tag = u16(entry)
    if (tag === undefined) return undefined // the directory runs past the segment
    if (tag !== TAG_ORIENTATION) continue
    const type = u16(entry + 2)
    const n = u32(entry + 4)
    if (n !== 1) return undefined
    // A value of at most four bytes sits in the entry itself, left-justified.
    if (type === TIFF_SHORT) return u16(entry + 8)
    if (type === TIFF_LONG) return u32(entry + 8)
    return undefined
  }
  return undefined
}

/**
 * Reads the displayed dimensions and EXIF orientation from a JPEG's header.
 *
 * Walks the marker segments from SOI: skips fill bytes (FF FF ...) and standalone markers
 * (RSTn, TEM), reads each segment's length, takes the orientation from the first APP1 Exif
 * segment, and stops at the first frame header (SOF0-3, 5-7, 9-11, 13-15, so baseline,
 * progressive, lossless and arithmetic frames alike). The frame header must be complete.
 *
 * Strict about structure: anything but a marker where a marker belongs is a Left (decoders such as
 * libjpeg skip such garbage with a warning). Lenient about EXIF: a malformed EXIF block reads as
 * orientation 1.
 *
 * Never throws and never reads out of bounds: truncated or garbage input gives a Left with a
 * short reason.
 */
export const readJpegInfo = (bytes: Uint8Array): Either.Either<JpegInfo, string> => {
  const len = bytes.length
  if (len < 2 || bytes[0] !== 0xff || bytes[1] !== SOI) return Either.left("not a JPEG: it does not start with FF D8")
  let orientation: number | undefined
  let pos = 2
  for (;;) {
    if (pos >= len) return Either.left(`truncated at byte ${pos}: the data ends before a frame header (SOF)`)
    if (bytes[pos] !== 0xff) return Either.left(`expected a marker at byte ${pos}, found ${hex(bytes[pos] ?? 0)}`)
    const at = pos // the segment's offset, for messages
    while (pos < len && bytes[pos] === 0xff) pos++ // the marker's FF and any fill bytes before it
    if (pos >= len) return Either.left(`truncated marker at byte ${at}`)
    const marker = bytes[pos] ?? 0
    pos++
    if (isStandalone(marker)) continue
    if (marker === 0x00) return Either.left(`invalid marker FF 00 at byte ${at}`)
    if (marker === SOI) return Either.left(`a second start of image (FF D8) at byte ${at}`)
    if (marker === EOI) return Either.left("no frame header (SOF) before the end of the image (EOI)")
    if (marker === SOS) return Either.left("no frame header (SOF) before the image data")
    if (pos + 2 > len) return Either.left(`truncated segment at byte ${at}`)
    const length = u16be(bytes, pos) // counts its own two bytes
    if (length < 2) return Either.left(`invalid segment length ${length} at byte ${at}`)
    const body = pos + 2
    const end = pos + length
    if (end > len) return Either.left(`truncated segment at byte ${at}`)
    if (isSof(marker)) {
      // P (1), Y (2), X (2), Nf (1), then Nf component specs of 3 bytes each.
      const components = length >= 8 ? (bytes[body + 5] ?? 0) : 0
      if (length < 8 || components === 0 || length !== 8 + 3 * components) {
        return Either.left(`malformed frame header (SOF) at byte ${at}`)
      }
      const frameHeight = u16be(bytes, body + 1)
      const frameWidth = u16be(bytes, body + 3)
      if (frameWidth === 0 || frameHeight === 0) return Either.left("zero width or height")
      const o = orientation !== undefined && orientation >= 1 && orientation <= 8 ? orientation : 1
      return Either.right(
        swapsAxes(o) ? { width: frameHeight, height: frameWidth, orientation: o } : { width: frameWidth, height: frameHeight, orientation: o }
      )
    }
    if (marker === APP1 && orientation === undefined && end - body >= EXIF_HEADER.length && EXIF_HEADER.every((b, i) => bytes[body + i] === b)) {
      orientation = readExifOrientation(bytes, body + EXIF_HEADER.length, end) ?? 1
    }
    pos = end
  }
}

// --- Checking a photo against the limits ----------------------------------------------------

/**
 * The photo limits of spec 02, section "Limits".
 *
 * The spec writes "at most 3 MB". We read MB as MiB, as most servers do when they configure an
 * upload limit: `maxBytes` is 3 * 1024 * 1024 = 3,145,728 bytes. This is a documented choice;
 * a photo between 3,000,000 and 3,145,728 bytes passes here and would be refused by a server that
 * means decimal megabytes.
 *
 * The aspect ratio is width x height, portrait: 9 wide by 16 high. 1080 x 1920 is recommended;
 * 720 x 1280 is the minimum.
 */
export const PHOTO_LIMITS = {
  maxBytes: 3 * 1024 * 1024,
  minWidth: 720,
  minHeight: 1280,
  aspect: { width: 9, height: 16 }
} as const

/** The rule a photo breaks, in the order `checkPhoto` applies them. */
export type PhotoRule = "jpeg" | "size" | "aspect" | "resolution"

/** Why a photo cannot be uploaded: the rule it breaks, a one-line message, and the offending measure. */
export interface PhotoProblem {
  readonly rule: PhotoRule
  /** What was found and what is required, on one line. */
  readonly message: string
  /** The offending measure: the header reason (jpeg), the size in bytes (size), or "WxH" displayed (resolution, aspect). */
  readonly value: unknown
}

const gcd = (a: number, b: number): number => {
  let x = Math.abs(a)
  let y = Math.abs(b)
  while (y !== 0) [x, y] = [y, x % y]
  return x
}

/** "3:4" for 1080 x 1440. */
const ratio = (width: number, height: number): string => {
  const d = gcd(width, height) || 1
  return `${width / d}:${height / d}`
}

/** 3145728 -> "3,145,728", independent of the locale. */
const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

/**
 * Whether width x height is portrait 9:16 up to rounding: |16 w - 9 h| <= 16, that is the width
 * within one pixel of 9h/16 (the height within 16/9 pixel of 16w/9). round(16w/9) always passes.
 */
const isNineBySixteen = (width: number, height: number): boolean =>
  Math.abs(width * PHOTO_LIMITS.aspect.height - height * PHOTO_LIMITS.aspect.width) <= PHOTO_LIMITS.aspect.height

/**
 * Checks a photo against spec 02's limits, in this order: it is a JPEG whose header gives its
 * dimensions, its size, its resolution (displayed, after EXIF orientation), its aspect ratio.
 * The first rule broken is the problem; a photo that passes gives its `JpegInfo`.
 */
export const checkPhoto = (bytes: Uint8Array): Either.Either<JpegInfo, PhotoProblem> => {
  const read = readJpegInfo(bytes)
  if (Either.isLeft(read)) {
    return Either.left({ rule: "jpeg", message: `not a readable JPEG (${read.left}); the photo must be a JPEG`, value: read.left })
  }
  const info = read.right
  const { maxBytes, minHeight, minWidth } = PHOTO_LIMITS
  if (bytes.length > maxBytes) {
    return Either.left({
      rule: "size",
      message: `photo is ${grouped(bytes.length)} bytes; the limit is 3 MB, read as ${grouped(maxBytes)} bytes`,
      value: bytes.length
    })
  }
  const { height, width } = info
  const dims = `${width} x ${height}`
  const turned = swapsAxes(info.orientation) ? ` (displayed, after EXIF orientation ${info.orientation})` : ""
  if (width < minWidth || height < minHeight) {
    return Either.left({
      rule: "resolution",
      message: `photo is ${dims}${turned}; the minimum is ${minWidth} x ${minHeight} (width x height, 1080 x 1920 recommended)`,
      value: `${width}x${height}`
    })
  }
  if (!isNineBySixteen(width, height)) {
    const required = `${PHOTO_LIMITS.aspect.width}:${PHOTO_LIMITS.aspect.height}`
    const shape = width > height ? "landscape " : ""
    return Either.left({
      rule: "aspect",
      message: `${dims}${turned} is ${shape}${ratio(width, height)}, not ${required} (width x height, portrait)`,
      value: `${width}x${height}`
    })
  }
  return Either.right(info)
}

// --- Fixtures --------------------------------------------------------------------------------

const MAX_SEGMENT_LENGTH = 0xffff // the length field counts itself, so 65533 payload bytes
const MAX_SEGMENT_BYTES = 2 + MAX_SEGMENT_LENGTH // marker + length + payload

const u16Bytes = (n: number): Array<number> => [(n >> 8) & 0xff, n & 0xff]

const segment = (marker: number, payload: ReadonlyArray<number>): Array<number> => [0xff, marker, ...u16Bytes(payload.length + 2)].concat(payload)

const checkU16 = (name: string, n: number): void => {
  if (!Number.isInteger(n) || n < 0 || n > 0xffff) throw new RangeError(`makeJpeg: ${name} must be an integer in 0..65535, got ${n}`)
}

/**
 * Fixture builder: a SMALL JPEG whose header is correct, for tests and for the simulator.
 *
 * Layout: SOI; APP0 JFIF 1.01; APP1 Exif with IFD0 holding only the Orientation tag (big-endian
 * "MM" TIFF), when `orientation` is given; COM with `comment` (latin1), when given; COM padding,
 * when `padTo` asks for it; SOF0 (SOF2 when `progressive`) of 8-bit precision and 3 components
 * (Y 2x2, Cb and Cr 1x1); SOS of the 3 components; four bytes of scan data (up to seven with
 * `padTo`); EOI.
 *
 * There are no quantization or Huffman tables, so it does not decode to pixels; marker structure,
 * segment lengths and frame header are what real header tools expect. `width` and `height` are
 * the stored (SOF) dimensions; an orientation of 5..8 displays them swapped.
 *
 * `padTo` makes the file exactly that many bytes with COM segments of at most 65535 length each
 * placed before the frame header; a shortfall of 1 to 3 bytes, too small for a segment, lengthens
 * the scan data instead. Throws a RangeError when `padTo` is below the
 * natural size, when a dimension or the orientation is not a u16, or when the comment is not
 * latin1 or longer than one segment holds.
 */
export const makeJpeg = (
  width: number,
  height: number,
  options?: { orientation?: number; padTo?: number; progressive?: boolean; comment?: string }
): Uint8Array => {
  checkU16("width", width)
  checkU16("height", height)
  // APP0 JFIF 1.01, no density units, 1:1 aspect, no thumbnail.
  let head = [0xff, SOI].concat(segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]))
  if (options?.orientation !== undefined) {
    checkU16("orientation", options.orientation)
    const tiff = [
      0x4d,
      0x4d,
      0x00,
      0x2a, // "MM", 42
      0x00,
      0x00,
      0x00,
      0x08, // IFD0 at offset 8
      0x00,
      0x01, // one entry
      0x01,
      0x12,
      0x00,
      0x03,
      0x00,
      0x00,
      0x00,
      0x01, // Orientation, SHORT, count 1
      ...u16Bytes(options.orientation),
      0x00,
      0x00, // value, left-justified
      0x00,
      0x00,
      0x00,
      0x00 // no next IFD
    ]
    head = head.concat(segment(APP1, [...EXIF_HEADER, ...tiff]))
  }
  if (options?.comment !== undefined) {
    const text = options.comment
    const latin1 = Array.from(text, (c) => c.codePointAt(0) ?? 0)
    if (latin1.some((c) => c > 0xff)) throw new RangeError("makeJpeg: the comment must be latin1")
    if (latin1.length > MAX_SEGMENT_LENGTH - 2) throw new RangeError(`makeJpeg: the comment must be at most ${MAX_SEGMENT_LENGTH - 2} characters`)
    head = head.concat(segment(COM, latin1))
  }
  const components = [0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01] // id, sampling HxV, quantization table
  const sof = segment(options?.progressive ? 0xc2 : 0xc0, [0x08, ...u16Bytes(height), ...u16Bytes(width), 0x03, ...components])
  // Ns 3, each with DC/AC table selectors; spectral selection 0..63 (0..0 for a progressive DC first scan), Ah/Al 0.
  const sos = segment(SOS, [0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, options?.progressive ? 0x00 : 0x3f, 0x00])
  const scanData = [0x12, 0x34, 0x56, 0x78] // no FF, so no stuffing

  const natural = head.length + sof.length + sos.length + scanData.length + 2
  const padTo = options?.padTo ?? natural
  if (!Number.isInteger(padTo) || padTo < natural) throw new RangeError(`makeJpeg: padTo must be an integer of at least ${natural} bytes, got ${padTo}`)

  let missing = padTo - natural
  if (missing < 4) {
    // Too few for a segment: longer scan data instead.
    for (; missing > 0; missing--) scanData.push(0x00)
  }
  const tail = [...sof, ...sos, ...scanData, 0xff, EOI]
  const out = new Uint8Array(padTo)
  out.set(head, 0)
  let pos = head.length
  while (missing > 0) {
    // Never leave 1..3 bytes, which no segment can take.
    const take = missing <= MAX_SEGMENT_BYTES ? missing : missing - MAX_SEGMENT_BYTES < 4 ? missing - 4 : MAX_SEGMENT_BYTES
    out.set([0xff, COM, ...u16Bytes(take - 2)], pos) // the payload stays zero
    pos += take
    missing -= take
  }
  out.set(tail, pos)
  return out
}
