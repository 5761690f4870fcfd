/**
 * An input's bytes hashed as a run reads them, so that a resumed run can make sure (`--verify`)
 * that the bytes its checkpoint stands on are still those: a file edited to the same size and
 * modification time is otherwise taken for the same file. SHA-256 (node:crypto), updated as the
 * chunks are cut, one digest per chunk taken at the end of the chunk's last record: the bytes a
 * run that stops after that chunk has read, no more (blank lines after it are read again by the
 * resumed run, so an edit there is the resumed run's to read, not a difference).
 */
import { createHash } from "node:crypto"
import { Effect, Stream } from "effect"

/** The first `bytes` bytes of `file`'s content (decompressed, for a `.gz`), hashed. */
export interface InputDigest {
  readonly file: string
  readonly bytes: number
  /** SHA-256, in lower-case hex. */
  readonly sha256: string
}

/** A chunk that may carry the digest of its input up to its last record. */
interface Digestible {
  readonly digest?: InputDigest
}

/** The SHA-256 of some bytes. */
export const sha256Of = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

/**
 * `chunks` of one input, each given its digest as `hashed` says (the bytes to hash of the chunk,
 * and how many of them precede its last record, or -1 for a chunk without one). When the last
 * digest given does not cover the whole content (blank lines after the last record, or no record
 * at all), a chunk `whole` makes carries the digest of all of it: a resumed run that went past
 * this input never reads it again, so all of it must be checked.
 */
export const withDigests = <C extends Digestible, E, R>(
  file: string,
  chunks: Stream.Stream<C, E, R>,
  hashed: (chunk: C) => { readonly bytes: Uint8Array; readonly upTo: number } | undefined,
  whole: (digest: InputDigest) => C
): Stream.Stream<C, E, R> =>
  Stream.suspend(() => {
    const hash = createHash("sha256")
    let length = 0
    let last: InputDigest | undefined
    const add = (bytes: Uint8Array) => {
      hash.update(bytes)
      length += bytes.length
    }
    const take = (chunk: C): C => {
      const span = hashed(chunk)
      if (span === undefined) return chunk
      if (span.upTo < 0) {
        add(span.bytes)
        return chunk
      }
      add(span.bytes.subarray(0, span.upTo))
      // A copy: the hash goes on with the chunk's other bytes and the next chunks'.
      last = { file, bytes: length, sha256: hash.copy().digest("hex") }
      add(span.bytes.subarray(span.upTo))
      return { ...chunk, digest: last }
    }
    const end = Stream.suspend(() =>
      last !== undefined && last.bytes === length ? Stream.empty : Stream.make(whole({ file, bytes: length, sha256: hash.digest("hex") }))
    )
    return Stream.concat(Stream.map(chunks, take), end)
  })

/**
 * The digest of the first `bytes` bytes of `content` (of all of it, if it holds fewer), read no
 * further than that; `done` is given each part once hashed.
 */
export const digestOf = <E, R>(
  file: string,
  content: Stream.Stream<Uint8Array, E, R>,
  bytes: number,
  done: (part: Uint8Array) => void
): Effect.Effect<InputDigest, E, R> =>
  Effect.suspend(() => {
    const hash = createHash("sha256")
    const add = (n: number, part: Uint8Array) => {
      const kept = part.subarray(0, Math.min(part.length, bytes - n))
      hash.update(kept)
      done(part)
      return n + kept.length
    }
    return Effect.map(
      Stream.runFoldWhile(content, 0, (n) => n < bytes, add),
      (n): InputDigest => ({ file, bytes: n, sha256: hash.digest("hex") })
    )
  })
