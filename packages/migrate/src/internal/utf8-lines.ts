/**
 * Lines of text gathered as their UTF-8 bytes. A migrated chunk's output is written (or sent back
 * from a worker) as bytes: encoding each line into one buffer as it is made costs a fifth of
 * joining the lines into one string and encoding that (the joined string is a rope V8 must
 * flatten first), and no chunk-sized string is ever made.
 */
import { giveBytes, takeBytes } from "./buffers.js"

const utf8 = new TextEncoder()

/** The gathering buffer's size to begin with. */
const START_BYTES = 1024 * 1024

/** A whole free buffer of at least `length` bytes. */
const whole = (length: number) => {
  const bytes = takeBytes(length)
  return new Uint8Array(bytes.buffer, 0, bytes.buffer.byteLength)
}

export interface Utf8Lines {
  /** Adds `text` and a newline. */
  readonly add: (text: string) => void
  /**
   * The bytes added since the last `take`. They are handed over, not copied: the lines gather in
   * a buffer from `takeBytes`, and the next ones in another, so whoever writes these last gives
   * their buffer back (`giveBytes`).
   */
  readonly take: () => Uint8Array
  /** Drops what was added since the last `take`. */
  readonly clear: () => void
}

export const utf8Lines = (): Utf8Lines => {
  let buffer: Uint8Array | undefined
  let at = 0
  /** The gathering buffer, made larger: the bytes so far copied over, the old one given back. */
  const grow = (from: Uint8Array, needed: number): Uint8Array => {
    const larger = whole(Math.max(from.length * 2, needed))
    larger.set(from.subarray(0, at))
    giveBytes(from)
    return (buffer = larger)
  }
  return {
    add(text) {
      let into = (buffer ??= whole(START_BYTES))
      // At least one byte per UTF-16 unit, and the newline; more if a character takes more.
      if (at + text.length + 1 > into.length) into = grow(into, at + text.length + 1)
      let done = utf8.encodeInto(text, into.subarray(at))
      at += done.written
      // encodeInto stops before a character that does not fit (never inside a surrogate pair).
      for (let read = done.read; read < text.length; read += done.read) {
        into = grow(into, at + (text.length - read) * 3 + 1)
        done = utf8.encodeInto(text.slice(read), into.subarray(at))
        at += done.written
      }
      if (at === into.length) into = grow(into, at + 1)
      into[at++] = 10
    },
    take() {
      if (at === 0 || buffer === undefined) return new Uint8Array(0)
      const bytes = buffer.subarray(0, at)
      buffer = undefined
      at = 0
      return bytes
    },
    clear() {
      at = 0
    }
  }
}
