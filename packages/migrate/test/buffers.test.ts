/**
 * The free list behind reads, chunks and outputs (src/internal/buffers.ts): a buffer given back
 * is the next one taken, and nothing is kept that another holder could still write: a detached
 * buffer, one given twice, one too small or too large.
 */
import { describe, expect, it } from "@effect/vitest"
import { freeBuffers, giveBytes, spareBuffer, takeBytes } from "../src/internal/buffers.js"
import { type MigratedChunk, emptyTally, joinChunks } from "../src/internal/pipeline.js"

const MiB = 1024 * 1024

/** Empties this thread's free list, so each test starts from none. */
const drain = () => {
  while (freeBuffers() > 0) takeBytes(1)
}

describe("takeBytes and giveBytes", () => {
  it("takes a buffer of whole MiB at least as large as asked, and views the bytes asked for", () => {
    drain()
    const bytes = takeBytes(1.5 * MiB)
    expect(bytes.length).toBe(1.5 * MiB)
    expect(bytes.byteOffset).toBe(0)
    expect(bytes.buffer.byteLength).toBe(2 * MiB)
    expect(takeBytes(10).buffer.byteLength).toBe(MiB)
  })

  it("takes a buffer given back before making one, if it is large enough", () => {
    drain()
    const first = takeBytes(100)
    giveBytes(first.subarray(10, 20))
    expect(freeBuffers()).toBe(1)
    expect(takeBytes(2 * MiB).buffer).not.toBe(first.buffer)
    expect(takeBytes(MiB).buffer).toBe(first.buffer)
    expect(freeBuffers()).toBe(0)
  })

  it("takes the smallest free buffer the bytes fit in, so a small one never takes a large one another needs", () => {
    drain()
    const sizes = [5, 1, 3, 1, 4].map((n) => takeBytes(n * MiB))
    for (const bytes of sizes) giveBytes(bytes)
    expect(takeBytes(2 * MiB).buffer).toBe(sizes[2]!.buffer)
    expect(takeBytes(10).buffer.byteLength).toBe(MiB)
    expect(takeBytes(4 * MiB).buffer).toBe(sizes[4]!.buffer)
    expect(takeBytes(4.5 * MiB).buffer).toBe(sizes[0]!.buffer)
    expect(takeBytes(MiB).buffer.byteLength).toBe(MiB)
    expect(freeBuffers()).toBe(0)
  })

  it("keeps a buffer given twice once, so two holders never get it", () => {
    drain()
    const bytes = takeBytes(100)
    giveBytes(bytes)
    giveBytes(bytes)
    expect(freeBuffers()).toBe(1)
  })

  it("keeps no detached buffer, none smaller than a MiB or larger than 8 MiB, no more than 24 and no more than 32 MiB", () => {
    drain()
    const moved = takeBytes(100)
    const buffer = moved.buffer as ArrayBuffer
    structuredClone(buffer, { transfer: [buffer] })
    expect(moved.buffer.byteLength).toBe(0)
    giveBytes(moved)
    giveBytes(new Uint8Array(64 * 1024))
    giveBytes(takeBytes(9 * MiB))
    expect(freeBuffers()).toBe(0)
    const many = Array.from({ length: 30 }, () => takeBytes(1))
    for (const bytes of many) giveBytes(bytes)
    expect(freeBuffers()).toBe(24)
    drain()
    const large = Array.from({ length: 6 }, () => takeBytes(6 * 1024 * 1024))
    for (const bytes of large) giveBytes(bytes)
    expect(freeBuffers()).toBe(5)
    drain()
  })

  it("joins chunks' bytes into a buffer of its own and only then gives the parts back, whose bytes it no longer reads", () => {
    drain()
    const filled = (text: string) => {
      const bytes = takeBytes(text.length)
      bytes.set(new TextEncoder().encode(text))
      return bytes
    }
    const chunk = (out: string, rejected: string): MigratedChunk => ({ out: filled(out), rejected: filled(rejected), tally: emptyTally() })
    const chunks = [chunk("a1\n", "r1\n"), chunk("a2\n", ""), chunk("a3\n", "r3\n")]
    const parts = new Set(chunks.flatMap((c) => [c.out.buffer, c.rejected.buffer]))
    const joined = joinChunks(chunks)
    // Neither join took a part's buffer, though the first one's parts were free before the second.
    expect(parts.has(joined.out.buffer)).toBe(false)
    expect(parts.has(joined.rejected.buffer)).toBe(false)
    expect(new TextDecoder().decode(joined.out)).toBe("a1\na2\na3\n")
    expect(new TextDecoder().decode(joined.rejected)).toBe("r1\nr3\n")
    // The five parts with bytes are free again (the empty one is not a part: its buffer is its own).
    expect(freeBuffers()).toBe(5)
    drain()
  })

  it("spares a free buffer for another thread only when it has more than a few", () => {
    drain()
    const held = Array.from({ length: 7 }, () => takeBytes(1))
    for (const bytes of held.slice(0, 6)) giveBytes(bytes)
    expect(spareBuffer()).toBeUndefined()
    giveBytes(held[6]!)
    expect(spareBuffer()).toBe(held[6]!.buffer)
    drain()
  })
})
