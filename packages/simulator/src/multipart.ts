/**
 * multipart/form-data bodies, read whole (under the body limit) and then parsed.
 *
 * @effect/platform's parser never finishes when its input ends inside a part: its stream of
 * parts, or of a file's bytes, waits for input that will not come, spinning. So the parser is
 * given the body only up to its closing boundary, and a body without one is refused first;
 * every part then ends at a boundary within what the parser is given.
 */
import * as Multipart from "@effect/platform/Multipart"
import { Cause, Chunk, Effect, Either, Option, Schema, Stream } from "effect"
import { collectBytes } from "./internal/bytes.js"

/** Most parts of a multipart body: the estimation API's upload has three. */
export const MAX_MULTIPART_PARTS = 100

// Slices of the body the parser takes at a time: it holds every part of what it takes before
// anyone reads them, so a body of many tiny parts stops at the part limit within a slice or so.
const SLICE_BYTES = 64 * 1024

/** Why a body was not read as multipart/form-data: the API answers 400 with the message. */
export class MultipartRefused extends Schema.TaggedError<MultipartRefused>("@scanbridge/simulator/MultipartRefused")("MultipartRefused", {
  message: Schema.String
}) {}

// RFC 2046's bchars: 1 to 70 of them, not ending in a space.
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/
const PARAMETER = /;\s*([!#$%&'*+.^\w`|~-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)/g

/** The boundary of a multipart/form-data Content-Type. */
export const boundaryOf = (contentType: string): Either.Either<string, MultipartRefused> => {
  const semicolon = contentType.indexOf(";")
  const type = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase()
  if (type !== "multipart/form-data") return Either.left(new MultipartRefused({ message: "the body is not multipart/form-data" }))
  const parameters = semicolon === -1 ? [] : [...contentType.slice(semicolon).matchAll(PARAMETER)]
  const given = parameters.find((m) => m[1]!.toLowerCase() === "boundary")?.[2]
  if (given === undefined) return Either.left(new MultipartRefused({ message: "Content-Type multipart/form-data needs a boundary parameter" }))
  const boundary = given.startsWith('"') ? given.slice(1, -1).replace(/\\(.)/g, "$1") : given
  return BOUNDARY.test(boundary)
    ? Either.right(boundary)
    : Either.left(
        new MultipartRefused({ message: "the boundary parameter of Content-Type is not a multipart boundary (1 to 70 letters, digits or '()+_,-./:=? )" })
      )
}

/** Where the body's first close delimiter ends, or -1 if it has none. */
const closeEnd = (body: Buffer, boundary: string): number => {
  const close = Buffer.from(`--${boundary}--`)
  // The parser starts as if after a line break, so the body may open with the close itself.
  if (body.subarray(0, close.length).equals(close)) return close.length
  const at = body.indexOf(Buffer.concat([Buffer.from("\r\n"), close]))
  return at === -1 ? -1 : at + 2 + close.length
}

/**
 * How many parts a body up to its close delimiter has, counted up to one past the limit. Counted
 * before parsing because the parser, past its own part limit, goes on to the end of the body and
 * builds an error for every further part: seconds of work for a body of tiny parts.
 */
const partCount = (whole: Buffer, boundary: string): number => {
  const delimiter = Buffer.from(`\r\n--${boundary}`)
  let delimiters = whole.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2)) ? 1 : 0
  for (let at = whole.indexOf(delimiter); at !== -1 && delimiters <= MAX_MULTIPART_PARTS + 1; at = whole.indexOf(delimiter, at + delimiter.length)) delimiters++
  // The last delimiter is the close.
  return delimiters - 1
}

const TOO_MANY_PARTS = `the multipart body has more than ${MAX_MULTIPART_PARTS} parts`

const MALFORMED = "the multipart/form-data body is malformed"

const messageOf = (error: Multipart.MultipartError): string =>
  error.reason === "TooManyParts"
    ? TOO_MANY_PARTS
    : error.reason === "FieldTooLarge"
      ? "a field of the multipart body is too large; send large values as file parts"
      : MALFORMED

/**
 * The refusal a parse ended with. The parser throws on some malformed bodies (a part whose
 * headers never end, say), which would otherwise be an empty 500: a malformed body too.
 */
const refusalOf = (cause: Cause.Cause<MultipartRefused>): Cause.Cause<MultipartRefused> =>
  Cause.isInterruptedOnly(cause) ? cause : Cause.fail(Option.getOrElse(Cause.failureOption(cause), () => new MultipartRefused({ message: MALFORMED })))

/** The parts of a whole multipart/form-data body whose Content-Type is `contentType`. */
export const partsOf = (body: Uint8Array, contentType: string): Stream.Stream<Multipart.Part, MultipartRefused> =>
  Either.match(boundaryOf(contentType), {
    onLeft: Stream.fail,
    onRight: (boundary) => {
      const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
      const end = closeEnd(bytes, boundary)
      if (end === -1) return Stream.fail(new MultipartRefused({ message: "the multipart body ends before its closing boundary" }))
      const whole = bytes.subarray(0, end)
      if (partCount(whole, boundary) > MAX_MULTIPART_PARTS) return Stream.fail(new MultipartRefused({ message: TOO_MANY_PARTS }))
      const slices = Array.from({ length: Math.ceil(whole.length / SLICE_BYTES) }, (_, i) => whole.subarray(i * SLICE_BYTES, (i + 1) * SLICE_BYTES))
      // The Content-Type the parser reads is ours, so that it splits at the boundary found here.
      const headers = { "content-type": `multipart/form-data; boundary="${boundary}"` }
      return Stream.fromIterable(slices).pipe(
        Stream.rechunk(1),
        Stream.pipeThroughChannel(Multipart.makeChannel(headers)),
        Multipart.withLimitsStream({ maxParts: Option.some(MAX_MULTIPART_PARTS) }),
        Stream.mapError((e) => new MultipartRefused({ message: messageOf(e) })),
        Stream.catchAllCause((cause) => Stream.failCause(refusalOf(cause)))
      )
    }
  })

/** A whole multipart/form-data body's fields as text and files as bytes, by name (the last of a name). */
export const formOf = (body: Uint8Array, contentType: string): Effect.Effect<ReadonlyMap<string, string | Uint8Array>, MultipartRefused> =>
  partsOf(body, contentType).pipe(
    Stream.mapEffect(
      (part): Effect.Effect<readonly [string, string | Uint8Array], MultipartRefused> =>
        part._tag === "Field"
          ? Effect.succeed([part.key, part.value])
          : Effect.map(
              Effect.mapError(collectBytes(part.content), (e) => new MultipartRefused({ message: messageOf(e) })),
              (bytes) => [part.key, bytes]
            )
    ),
    Stream.runCollect,
    Effect.map((entries) => new Map<string, string | Uint8Array>(Chunk.toReadonlyArray(entries))),
    Effect.catchAllCause((cause) => Effect.failCause(refusalOf(cause)))
  )
