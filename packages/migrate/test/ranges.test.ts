/**
 * A file read in byte ranges (internal/ranges.ts), each by another thread: every line is read
 * once, by the range it begins in, whatever the ranges' size and wherever a line ends (at a
 * range's last byte, its first, past the next one); the lines' count numbers the next range's;
 * a line past the limit is left, whole, to the range's rest; a file that changes size fails.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, FastCheck as fc, Stream } from "effect"
import { mkdtemp, rm, truncate, writeFile, appendFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type InputRange, type RangeLines, linesChunk, piecesOf, rangesOf, readRange, surelyLines } from "../src/internal/ranges.js"
import { CHUNK_BYTES, CHUNK_LINES, recordsOf } from "../src/internal/read.js"

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scanbridge-ranges-"))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const run = <A, E>(effect: Effect.Effect<A, E, NodeContext.NodeContext>) => Effect.runPromise(Effect.provide(effect, NodeContext.layer))

/** Lines as eachRecordOfLines counts them: one per \n, and a last one not ended by one. */
const linesIn = (bytes: Uint8Array) => bytes.reduce((n, b) => n + (b === 10 ? 1 : 0), 0) + (bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0)

const rangesOfFile = (file: string, size: number, bytes: number) => run(Effect.map(Stream.runCollect(rangesOf(file, size, bytes)), Chunk.toReadonlyArray))

// Lines of every kind a file holds: empty, blank, CRLF-ended, of one byte, long, not UTF-8.
const line = fc.oneof(
  fc.constant(""),
  fc.constant("  "),
  fc.constant('{"a":1}\r'),
  fc.string({ maxLength: 3 }),
  fc.string({ minLength: 20, maxLength: 200 }),
  fc.constant("\u00e9\u4e2d\ud83d\ude00")
)
const content = fc
  .tuple(fc.array(line, { maxLength: 40 }), fc.boolean(), fc.boolean())
  .map(([lines, bom, lastEnded]) => {
    const text = lines.join("\n") + (lastEnded && lines.length > 0 ? "\n" : "")
    const bytes = new TextEncoder().encode(text)
    return bom ? new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]) : bytes
  })
  .filter((bytes) => bytes.length > 0)

describe("a file read in ranges", () => {
  it("reads every line once, in the range it begins in, whatever the ranges' size, and numbers them in order", async () => {
    let n = 0
    await fc.assert(
      fc.asyncProperty(content, fc.integer({ min: 1, max: 64 }), async (bytes, size) => {
        const file = join(dir, `lines-${n++}.ndjson`)
        await writeFile(file, bytes)
        const ranges = await rangesOfFile(file, bytes.length, size)
        const reads = await run(Effect.forEach(ranges, (range) => readRange(range)))
        const all = new Uint8Array(reads.reduce((k, r) => k + r.bytes.length, 0))
        let at = 0
        for (const read of reads) {
          if (read.bytes.length > 0) expect(read.offset).toBe(at)
          all.set(read.bytes, at)
          at += read.bytes.length
          expect(read.rest).toBeUndefined()
        }
        expect(Buffer.from(all).equals(Buffer.from(bytes))).toBe(true)
        expect(reads.reduce((k, r) => k + r.lines, 0)).toBe(linesIn(bytes))
        // Numbered from the counts of the ranges before, the records are the file's, line for line.
        let first = 1
        const records = reads.flatMap((read, i) => {
          const got = recordsOf(linesChunk(ranges[i]!, read, first, 0))
          first += read.lines
          return got
        })
        const whole = recordsOf({ _tag: "Lines", file, firstLine: 1, first: true, offset: 0, bytes, inputBytes: bytes.length })
        expect(records).toEqual(whole)
      }),
      { numRuns: 300 }
    )
  })

  it("stops before a line longer than its limit, and its rest read on reads that line and the range's others", async () => {
    const long = "L".repeat(50)
    const text = ["a", "bb", long, "c", long, long, "d"].join("\n")
    const file = join(dir, "long.ndjson")
    await writeFile(file, text)
    const bytes = new TextEncoder().encode(text)
    for (const size of [1, 7, 16, 60, 200]) {
      const ranges = await rangesOfFile(file, bytes.length, size)
      const pieces: Array<RangeLines> = []
      for (const range of ranges) {
        const read = await run(readRange(range, 40))
        pieces.push(read)
        if (read.rest !== undefined) {
          // The rest begins a line longer than the limit.
          expect(text.slice(read.rest, read.rest + 50)).toBe(long)
          expect(read.offset + read.bytes.length === read.rest || read.bytes.length === 0).toBe(true)
          pieces.push(await run(readRange({ ...range, start: read.rest })))
        }
      }
      const all = Buffer.concat(pieces.map((p) => p.bytes))
      expect(all.toString()).toBe(text)
      expect(pieces.reduce((k, p) => k + p.lines, 0)).toBe(7)
    }
  })

  it("cuts a range's lines into pieces of a chunk at most, every line in one, numbered from the range's first", () => {
    const text = Array.from({ length: CHUNK_LINES * 2 + 7 }, (_, i) => (i % 5 === 0 ? "" : `{"i":${i}}`)).join("\n")
    const bytes = new TextEncoder().encode(text)
    const pieces = piecesOf({ bytes, offset: 100, lines: linesIn(bytes), rest: undefined })
    expect(pieces.map((p) => p.line)).toEqual([1, CHUNK_LINES + 1, 2 * CHUNK_LINES + 1])
    expect(pieces.map((p) => p.offset - 100)).toEqual(pieces.map((p) => p.bytes.byteOffset))
    expect(Buffer.concat(pieces.map((p) => p.bytes)).equals(Buffer.from(bytes))).toBe(true)
    // Bytes cut them too: lines of a fifth of CHUNK_BYTES, four to a piece.
    const wide = new TextEncoder().encode(Array.from({ length: 10 }, () => "w".repeat(CHUNK_BYTES / 5)).join("\n"))
    const cut = piecesOf({ bytes: wide, offset: 0, lines: 10, rest: undefined })
    expect(cut.map((p) => p.line)).toEqual([1, 5, 9])
    expect(cut.every((p) => p.bytes.length <= CHUNK_BYTES)).toBe(true)
    expect(piecesOf({ bytes: new Uint8Array(0), offset: 0, lines: 0, rest: undefined })).toHaveLength(1)
  })

  it("fails when the file has changed size since the run began, naming it", async () => {
    const file = join(dir, "changing.ndjson")
    await writeFile(file, "one\ntwo\nthree\n")
    const range = (start: number, end: number): InputRange => ({ _tag: "Range", file, size: 14, start, end, first: start === 0, inputBytes: end - start })
    await appendFile(file, "four\n")
    const grew = await run(Effect.flip(readRange(range(8, 14))))
    expect(grew._tag).toBe("MigrateInputError")
    expect(grew.message).toBe(`${file}: changed size while it was read: 14 bytes when the migration began, more now`)
    await truncate(file, 6)
    const shrank = await run(Effect.flip(readRange(range(0, 8))))
    expect(shrank.message).toBe(`${file}: changed size while it was read: 14 bytes when the migration began, 6 bytes read`)
    const gone = await run(Effect.flip(readRange({ ...range(0, 8), file: join(dir, "missing.ndjson") })))
    expect(gone.message).toContain("missing.ndjson")
  })

  it("takes a file for NDJSON lines only when its first character is surely no array's", async () => {
    const cases: ReadonlyArray<readonly [string, string | Uint8Array, boolean]> = [
      ["a.ndjson", '{"a":1}\n', true],
      ["b.ndjson", ' \n\t {"a":1}\n', true],
      ["c.ndjson", "\ufeff{}\n", true],
      ["d.ndjson", "[1,2]\n", false],
      ["e.ndjson", "  \n [\n1]", false],
      ["f.ndjson", "\u00a0{}\n", false],
      ["g.ndjson", "   \n", false],
      ["h.json", "{}\n", false],
      ["i.ndjson.gz", "{}\n", false],
      ["j.jsonl", "x\n", true]
    ]
    for (const [name, text, lines] of cases) {
      const file = join(dir, name)
      await writeFile(file, text)
      const size = typeof text === "string" ? Buffer.byteLength(text) : text.length
      expect(await run(surelyLines({ file, kind: "file", size })), name).toBe(lines)
    }
    expect(await run(surelyLines({ file: join(dir, "a.ndjson"), kind: "stream", size: null }))).toBe(false)
  })
})
