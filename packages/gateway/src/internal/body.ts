/**
 * A request body read whole, up to a limit. @effect/platform's body readers hold whatever the
 * client sends, so an endpoint that takes a form or a photo reads through this instead.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Stream } from "effect"
import { type Refusal, refuse } from "./refusal.js"

/**
 * How much of a body beyond the limit is read and thrown away before the 413 is sent: a client
 * still sending then reads the answer rather than a reset connection. A body that says it is
 * longer than this is refused before any of it is read.
 */
export const DRAIN_BYTES = 16 * 1024 * 1024

/**
 * The body's bytes, or a 413 with `tooLarge(bytes seen)` when there are more than `maxBytes`,
 * and a 400 when the client stops sending it midway.
 */
export const boundedBody = (maxBytes: number, tooLarge: (bytes: number) => string): Effect.Effect<Buffer, Refusal, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const declared = Number(request.headers["content-length"])
    if (Number.isFinite(declared) && declared > DRAIN_BYTES) return yield* refuse(413, tooLarge(declared))
    const chunks: Array<Uint8Array> = []
    let size = 0
    yield* Stream.runForEachWhile(request.stream, (chunk) =>
      Effect.sync(() => {
        size += chunk.length
        if (size <= maxBytes) chunks.push(chunk)
        return size <= DRAIN_BYTES
      })
    ).pipe(Effect.catchAll(() => refuse(400, "the request body could not be read to its end")))
    if (size > maxBytes) return yield* refuse(413, tooLarge(size))
    return Buffer.concat(chunks)
  })
