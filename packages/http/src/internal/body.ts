/** A response body read as text, no further than a limit. */
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Effect, Option, Stream } from "effect"

/**
 * The body as UTF-8 text (a BOM dropped, as `Response.text` does), or `tooLarge()` as soon as
 * the bytes received pass `maxBytes`. Bytes are counted as they arrive rather than trusted to
 * Content-Length, which may be absent or wrong; stopping the stream stops the read (the
 * platform's client aborts the request when its stream ends). A declared length beyond the
 * limit is refused at the first chunk, unless the body is compressed: its declared length is
 * then not what it decodes to.
 */
export const readLimited = <E>(
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number,
  tooLarge: () => E
): Effect.Effect<string, E | HttpClientError.ResponseError> =>
  Effect.suspend(() => {
    const encoding = response.headers["content-encoding"]
    const declared = encoding === undefined || encoding === "identity" ? Number(response.headers["content-length"]) : Number.NaN
    // Decoded chunk by chunk: the bytes are never held whole beside their text.
    const decoder = new TextDecoder()
    let received = 0
    let text = ""
    return response.stream.pipe(
      // A response without a body (a 204) has no stream at all: its text is empty.
      Stream.catchSome((e) => (e.reason === "EmptyBody" ? Option.some(Stream.empty) : Option.none())),
      Stream.runForEach((chunk) => {
        received += chunk.length
        if (received > maxBytes || declared > maxBytes) return Effect.fail(tooLarge())
        text += decoder.decode(chunk, { stream: true })
        return Effect.void
      }),
      Effect.map(() => text + decoder.decode())
    )
  })
