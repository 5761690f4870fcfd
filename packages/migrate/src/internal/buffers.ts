/**
 * Byte buffers a thread uses again rather than lets go. Every ArrayBuffer allocated is memory
 * outside the JS heap, and V8 answers each few dozen MiB of it with a full mark-compact: a run
 * that allocated one per read, per chunk and per chunk's output did tens of mark-compacts per
 * thread where a plain loop did one (docs/migrate.md). A buffer moved to another thread and back
 * is not a new allocation for either (it brings on no mark-compact), so buffers circulate: the
 * reading thread's chunks go to a worker, which gives them to its own free list and takes its
 * outputs from it; the outputs come back and, once written, are the reading thread's again.
 *
 * Whoever holds a buffer last gives it back, once, and never touches it again. A buffer given
 * twice, detached (moved to another thread) or of an odd size is not kept, nor any past 24 free
 * buffers or 32 MiB free.
 */

/** The smallest buffer made, and the unit of sizes: a chunk or a read fits one in the common case. */
const UNIT = 1024 * 1024
/** Larger buffers (a chunk of a few very large records) are let go. */
const LARGEST = 8 * UNIT
/**
 * The most a thread keeps free, in buffers and in bytes. What is in flight at once (reads ahead,
 * chunks at the workers, results waiting) is fewer, in the common case of 1 MiB buffers.
 */
const KEPT = 24
const KEPT_BYTES = 32 * UNIT

const free: Array<ArrayBuffer> = []
let freeBytes = 0

/**
 * `length` bytes to write into: the smallest free buffer they fit in, or a new buffer. The
 * smallest, not the first: a thread takes buffers of a few sizes (1 MiB pieces and outputs, a
 * range's 4-5 MiB), and a small output that took a range's buffer made the next range allocate
 * another: 12-13 buffers (25-29 MiB) per worker over 3M records, against 10 (16 MiB) this way.
 */
export const takeBytes = (length: number): Uint8Array => {
  let best = -1
  for (let i = 0; i < free.length; i++) {
    const size = free[i]!.byteLength
    if (size >= length && (best < 0 || size < free[best]!.byteLength)) best = i
  }
  if (best < 0) return new Uint8Array(new ArrayBuffer(Math.ceil(Math.max(length, 1) / UNIT) * UNIT), 0, length)
  const buffer = free[best]!
  free[best] = free[free.length - 1]!
  free.pop()
  freeBytes -= buffer.byteLength
  return new Uint8Array(buffer, 0, length)
}

/** Gives back the buffer under `bytes` (from `takeBytes` here or on another thread), when nothing reads it any more. */
export const giveBytes = (bytes: Uint8Array): void => {
  const buffer = bytes.buffer
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < UNIT || buffer.byteLength > LARGEST) return
  if (free.length >= KEPT || freeBytes + buffer.byteLength > KEPT_BYTES || free.includes(buffer)) return
  free.push(buffer)
  freeBytes += buffer.byteLength
}

/** A free buffer this thread can spare for another (a worker whose outputs outnumber the chunks it is sent), if it has more than a few. */
export const spareBuffer = (): ArrayBuffer | undefined => {
  if (free.length <= KEPT / 4) return undefined
  const buffer = free.pop()!
  freeBytes -= buffer.byteLength
  return buffer
}

/** Buffers free on this thread (for tests). */
export const freeBuffers = (): number => free.length
