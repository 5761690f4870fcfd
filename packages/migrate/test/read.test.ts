/**
 * Reading NDJSON as byte chunks (the unit a worker thread takes) gives the same records as
 * reading it as a stream of text: Effect's decodeText and splitLines, which the migration read
 * its input with before, are the reference.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, FastCheck as fc, Stream } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type InputRecord, readChunks, readRecords } from "../src/index.js"

const reference = (file: string, bytes: Uint8Array): ReadonlyArray<InputRecord> =>
  Effect.runSync(
    Stream.make(bytes).pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.zipWithIndex,
      Stream.filter(([line]) => line.trim() !== ""),
      Stream.map(([raw, i]): InputRecord => ({ file, line: i + 1, raw })),
      Stream.runCollect,
      Effect.map(Chunk.toReadonlyArray)
    )
  )

const read = <A>(stream: Stream.Stream<A, unknown, NodeContext.NodeContext>) =>
  Effect.runPromise(Stream.runCollect(stream).pipe(Effect.map(Chunk.toReadonlyArray), Effect.provide(NodeContext.layer)))

// Lines of every kind: JSON, blank, whitespace, CR in odd places, multi-byte characters, a byte
// order mark, bytes that are not UTF-8; long enough that a file spans several 64 KiB reads.
const piece = fc.oneof(
  fc.constantFrom('{"a":1}', "", "  ", "\t", "\r", "\r\r", "é", "€𝄞", "\uFEFF", "x".repeat(70_000), '{"id":"scan_1","status":"success"}'),
  fc.string({ maxLength: 20 }),
  fc.jsonValue().map((j) => JSON.stringify(j) ?? "null")
)
const ending = fc.constantFrom("\n", "\r\n", "\n\n", "")
const file = fc.tuple(fc.boolean(), fc.array(fc.tuple(piece, ending), { maxLength: 1500 }), fc.uint8Array({ maxLength: 3 })).map(([bom, lines, tail]) => {
  const text = `${bom ? "\uFEFF" : ""}${lines.map(([l, e]) => l + e).join("")}`
  const bytes = new TextEncoder().encode(text)
  // Sometimes a stray or truncated byte sequence at the end.
  const out = new Uint8Array(bytes.length + tail.length)
  out.set(bytes)
  out.set(tail, bytes.length)
  return out
})

describe("reading NDJSON in chunks of bytes", () => {
  it("gives the records a text stream gives, with the same line numbers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scanbridge-read-"))
    try {
      let n = 0
      await fc.assert(
        fc.asyncProperty(file, async (bytes) => {
          const path = join(dir, `f${n++}.ndjson`)
          writeFileSync(path, bytes)
          expect(await read(readRecords(path))).toEqual(reference(path, bytes))
        }),
        { numRuns: 150 }
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it("cuts chunks of 256 lines, blank ones included, each owning its bytes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scanbridge-read-"))
    try {
      const path = join(dir, "lines.ndjson")
      writeFileSync(path, Array.from({ length: 700 }, (_, i) => (i % 3 === 0 ? "" : `{"n":${i}}`)).join("\n"))
      const chunks = await read(readChunks(path))
      expect(chunks.map((c) => c._tag === "Lines" && [c.firstLine, c.first, c.bytes.byteOffset, c.bytes.byteLength === c.bytes.buffer.byteLength])).toEqual([
        [1, true, 0, true],
        [257, false, 0, true],
        [513, false, 0, true]
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("ends a chunk early once it holds 2 MiB, the line that crosses included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scanbridge-read-"))
    try {
      const path = join(dir, "large.ndjson")
      const line = JSON.stringify({ avatar: "A".repeat(600 * 1024) })
      writeFileSync(path, Array.from({ length: 10 }, () => line).join("\n"))
      const chunks = await read(readChunks(path))
      expect(chunks.map((c) => c._tag === "Lines" && c.firstLine)).toEqual([1, 5, 9])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("reads a JSON array's elements in chunks of 256 records, and an empty array as none", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scanbridge-read-"))
    try {
      writeFileSync(join(dir, "many.json"), JSON.stringify(Array.from({ length: 600 }, (_, i) => ({ n: i }))))
      writeFileSync(join(dir, "none.json"), "[]")
      const chunks = await read(readChunks(join(dir, "many.json")))
      expect(chunks.map((c) => (c._tag === "Records" ? c.records.length : -1))).toEqual([256, 256, 88])
      expect(chunks[2]!._tag === "Records" && chunks[2]!.records[87]).toEqual({ file: join(dir, "many.json"), line: 600, raw: '{"n":599}' })
      expect(await read(readChunks(join(dir, "none.json")))).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
