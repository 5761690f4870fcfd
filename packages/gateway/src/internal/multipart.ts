/**
 * multipart/form-data (RFC 7578 over RFC 2046) read from a whole body in memory.
 *
 * Not @effect/platform's Multipart: its parser (multipasta) reports nothing when a body stops
 * inside a part's headers, and its channel then polls an ended input forever, so a truncated
 * upload spins a core. The estimation upload is three parts under a few megabytes, read whole
 * under a limit first (body.ts); over bytes in memory the format is a few index searches, and
 * every way a body can be malformed ends in a message.
 */
import { Either } from "effect"

export interface FormPart {
  readonly name: string
  /** The file name the client gave, when it sent the part as a file. */
  readonly filename: string | undefined
  /** The part's media type, lower-case, without parameters ("text/plain" when it has none). */
  readonly contentType: string
  readonly bytes: Uint8Array
}

/** Most parts a body may have: the upload has three. */
export const MAX_PARTS = 16

/** Most bytes of one part's header block. */
const MAX_HEADER_BYTES = 8 * 1024

// RFC 2046 bchars: 1 to 70, not ending in a space.
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/
// `; name=value` and `; name="quoted \" value"` parameters of a header.
const PARAMETER = /;\s*([!#$%&'*+.^\w`|~-]+)\s*=\s*("(?:[^"\\\r\n]|\\.)*"|[^;\s"]*)/g

interface Header {
  readonly value: string
  readonly parameters: ReadonlyMap<string, string>
}

const parseHeaderValue = (text: string): Header => {
  const semicolon = text.indexOf(";")
  const value = (semicolon === -1 ? text : text.slice(0, semicolon)).trim().toLowerCase()
  const parameters = new Map<string, string>()
  if (semicolon !== -1) {
    for (const m of text.slice(semicolon).matchAll(PARAMETER)) {
      const raw = m[2]!
      parameters.set(m[1]!.toLowerCase(), raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw)
    }
  }
  return { value, parameters }
}

/** The boundary of a multipart/form-data Content-Type, or why there is none. */
export const boundaryOf = (contentType: string): Either.Either<string, string> => {
  const header = parseHeaderValue(contentType)
  if (header.value !== "multipart/form-data") return Either.left("the body is not multipart/form-data")
  const boundary = header.parameters.get("boundary")
  if (boundary === undefined) return Either.left("Content-Type multipart/form-data needs a boundary parameter")
  return BOUNDARY.test(boundary)
    ? Either.right(boundary)
    : Either.left("the boundary of Content-Type is not a multipart boundary (1 to 70 letters, digits or '()+_,-./:=? )")
}

const CRLF = Buffer.from("\r\n")
const HEADERS_END = Buffer.from("\r\n\r\n")
const DASH = 0x2d

const MALFORMED = "the multipart/form-data body is malformed"

/** One part's header block (the bytes between the delimiter's line break and the blank line). */
const readHeaders = (block: string): Either.Either<{ readonly disposition: Header; readonly contentType: string }, string> => {
  let disposition: Header | undefined
  let contentType = "text/plain"
  for (const line of block === "" ? [] : block.split("\r\n")) {
    const colon = line.indexOf(":")
    // No folded lines (RFC 7578 4.8 forbids them) and no line without a name.
    if (colon <= 0 || /^\s/.test(line)) return Either.left(`${MALFORMED}: a part has a header line that is not name: value`)
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = parseHeaderValue(line.slice(colon + 1))
    if (name === "content-disposition") disposition = value
    else if (name === "content-type" && value.value !== "") contentType = value.value
  }
  if (disposition === undefined || disposition.value !== "form-data" || !disposition.parameters.has("name"))
    return Either.left(`${MALFORMED}: every part needs Content-Disposition: form-data with a name`)
  return Either.right({ disposition, contentType })
}

// Header values are read as latin1, one character a byte; names and file names are UTF-8.
const utf8 = (latin1: string | undefined) => (latin1 === undefined ? undefined : Buffer.from(latin1, "latin1").toString("utf8"))

/**
 * The parts of a whole multipart/form-data body whose Content-Type is `contentType`, in order,
 * or a message saying why it is not one: no boundary, no closing delimiter, a part without a
 * name, more than MAX_PARTS parts.
 */
export const readMultipart = (body: Uint8Array, contentType: string): Either.Either<ReadonlyArray<FormPart>, string> =>
  Either.flatMap(boundaryOf(contentType), (boundary): Either.Either<ReadonlyArray<FormPart>, string> => {
    const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    const delimiter = Buffer.from(`\r\n--${boundary}`)
    // The first delimiter may open the body, without the line break before it; a preamble
    // before it is ignored (RFC 2046 5.1.1).
    const first = bytes.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2)) ? 0 : bytes.indexOf(delimiter)
    if (first === -1) return Either.left(`${MALFORMED}: it has no delimiter of its boundary`)
    let at = first === 0 ? delimiter.length - 2 : first + delimiter.length
    const parts: Array<FormPart> = []
    for (;;) {
      // "--" after a delimiter closes the body; what follows (the epilogue) is ignored.
      if (bytes[at] === DASH && bytes[at + 1] === DASH) return Either.right(parts)
      if (parts.length === MAX_PARTS) return Either.left(`the multipart body has more than ${MAX_PARTS} parts`)
      // Transport padding, then the line break that ends the delimiter's line.
      while (bytes[at] === 0x20 || bytes[at] === 0x09) at++
      if (!bytes.subarray(at, at + 2).equals(CRLF)) return Either.left(`${MALFORMED}: a delimiter line does not end in CRLF`)
      const headersEnd = bytes.indexOf(HEADERS_END, at)
      if (headersEnd === -1 || headersEnd - at > MAX_HEADER_BYTES) return Either.left(`${MALFORMED}: a part's headers do not end`)
      // `at` is on the CRLF that ends the delimiter's line, so a part without headers has its
      // blank line right there.
      const headers = readHeaders(bytes.subarray(at + 2, Math.max(at + 2, headersEnd)).toString("latin1"))
      if (Either.isLeft(headers)) return Either.left(headers.left)
      const start = headersEnd + 4
      const end = bytes.indexOf(delimiter, start)
      if (end === -1) return Either.left("the multipart body ends before its closing boundary")
      const { contentType: type, disposition } = headers.right
      parts.push({
        name: utf8(disposition.parameters.get("name"))!,
        filename: utf8(disposition.parameters.get("filename") ?? disposition.parameters.get("filename*")),
        contentType: type,
        // A copy: the part outlives the request's buffer in the store.
        bytes: new Uint8Array(bytes.subarray(start, end))
      })
      at = end + delimiter.length
    }
  })

/** Whether a part was sent as a file, as multipart parsers decide: a file name, or an octet stream. */
export const isFile = (part: FormPart): boolean => part.filename !== undefined || part.contentType === "application/octet-stream"
