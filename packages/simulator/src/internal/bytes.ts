import { Chunk, Effect, Stream } from "effect"

/**
 * A stream's bytes in one buffer, copied once. Multipart's own `contentEffect` (and Node's
 * reader under it) copy everything so far at each chunk, quadratic in the chunks of a body.
 */
export const collectBytes = <E, R>(stream: Stream.Stream<Uint8Array, E, R>): Effect.Effect<Buffer, E, R> =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    const keep = (chunk: Chunk.Chunk<Uint8Array>) => Effect.sync(() => Chunk.forEach(chunk, (bytes) => void chunks.push(bytes)))
    return Effect.map(Stream.runForEachChunk(stream, keep), () => Buffer.concat(chunks))
  })
