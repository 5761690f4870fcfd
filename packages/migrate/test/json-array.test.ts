/**
 * JSON arrays read as a stream (src/internal/json-array.ts and documentChunks in read.ts): each
 * element is a record as it arrives, whatever the layout, the compression or where the reads cut
 * the bytes (inside a string, an escape, a UTF-8 character); a broken array is refused once,
 * saying where; a resumable run's digests stop where its chunks do; and a large array is migrated
 * at flat memory.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, FastCheck as fc, Layer, Stream } from "effect"
import { createHash } from "node:crypto"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { MigrateInputError, Normalizer, listInputs, migrate } from "../src/index.js"
import { STDIN } from "../src/inputs.js"
import { CHUNK_BYTES, CHUNK_LINES, type InputChunk, type InputRecord, inputChunks, readRecords, recordsOf } from "../src/internal/read.js"
import { expectAllMigrated, generatedArray, migrateFromStdin } from "./generated-array.js"
import { samples } from "./records.js"

const utf8 = (text: string) => new TextEncoder().encode(text)

const collected = <A>(stream: Stream.Stream<A, MigrateInputError, NodeContext.NodeContext>) =>
  Stream.runCollect(stream).pipe(Effect.map(Chunk.toReadonlyArray), Effect.provide(NodeContext.layer))

const collect = <A>(stream: Stream.Stream<A, MigrateInputError, NodeContext.NodeContext>) => Effect.runPromise(collected(stream))

/** The records of standard input that brings `pieces`. */
const stdinRecords = (pieces: ReadonlyArray<Uint8Array>) =>
  Stream.mapConcat(inputChunks({ file: STDIN, kind: "stdin", size: null }, Stream.fromIterable(pieces)), recordsOf)

const fromStdin = (pieces: ReadonlyArray<Uint8Array>) => collect(stdinRecords(pieces))

/** A fresh temp folder for the test's files, removed afterwards. */
const inTemp = async <A>(f: (dir: string) => Promise<A>): Promise<A> => {
  const dir = await mkdtemp(join(tmpdir(), "scanbridge-array-"))
  try {
    return await f(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const withoutFile = ({ file: _, ...record }: InputRecord) => record

// Text that tests a tokenizer: quotes, backslashes and escapes, the array's own punctuation,
// multi-byte characters (a surrogate pair among them), control characters JSON escapes.
const text = fc
  .array(
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 8 }),
      fc.constantFrom('"', "\\", '\\"', "]", "[", ",", "{", "}", "é", "€", "𝄞", "\u2028", "\u0000", "\n", "/")
    ),
    {
      maxLength: 6
    }
  )
  .map((parts) => parts.join(""))

const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(text, tie("value"), { maxKeys: 4 })
  )
}))

/** Records as stored: real ones of every format, and objects of anything. */
const record = fc.oneof(fc.constantFrom(...samples), fc.dictionary(text, value, { maxKeys: 6 }))

/** Any indentation JSON.stringify takes: a number of spaces, or any white space. */
const indent = fc.oneof(
  fc.integer({ min: 0, max: 10 }),
  fc.array(fc.constantFrom(" ", "\t", "\n", "\r"), { maxLength: 10 }).map((s) => s.join(""))
)

/**
 * An array pretty-printed with `space`; with `escaped`, every character beyond ASCII written as
 * \u escapes and every / as \/ (valid: both occur only inside strings).
 */
const arrayText = (records: ReadonlyArray<unknown>, space: string | number, escaped: boolean) => {
  const json = JSON.stringify(records, null, space)
  if (!escaped) return json
  return json.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).replace(/\//g, "\\/")
}

describe("a JSON array", () => {
  it(
    "pretty-printed with any indentation, in any file name or compression, reads as the same records as its NDJSON form",
    () =>
      inTemp((dir) =>
        fc.assert(
          fc.asyncProperty(
            fc.array(record, { maxLength: 30 }),
            indent,
            fc.boolean(),
            fc.constantFrom("a.json", "a.ndjson", "a.json.gz", "a.jsonl.gz"),
            fc.constantFrom("", "\n", " \r\n\t"),
            async (records, space, escaped, name, around) => {
              const array = `${around}${arrayText(records, space, escaped)}${around}`
              await writeFile(join(dir, name), name.endsWith(".gz") ? gzipSync(array) : array)
              await writeFile(join(dir, "b.ndjson"), records.map((r) => JSON.stringify(r)).join("\n"))
              const read = await collect(readRecords(join(dir, name)))
              const lines = await collect(readRecords(join(dir, "b.ndjson")))
              expect(read).toHaveLength(records.length)
              expect(read.map(withoutFile)).toEqual(lines.map(withoutFile))
            }
          ),
          { numRuns: 60 }
        )
      ),
    120_000
  )

  it(
    "reads the same records wherever the reads cut it: inside strings, escapes and UTF-8 characters, a byte at a time",
    () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(record, { minLength: 1, maxLength: 12 }),
          indent,
          fc.boolean(),
          fc.option(fc.tuple(fc.nat(), fc.constantFrom([0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80]))),
          fc.oneof(fc.array(fc.nat(), { maxLength: 40 }), fc.constant("each byte" as const)),
          async (records, space, escaped, bad, cuts) => {
            // A record whose string holds bytes that are not UTF-8, somewhere among the others.
            const MARK = "<not UTF-8 here>"
            const at = bad === null ? 0 : bad[0] % (records.length + 1)
            const all = bad === null ? records : [...records.slice(0, at), { note: MARK }, ...records.slice(at)]
            const json = utf8(arrayText(all, space, escaped))
            const mark = Buffer.from(json).indexOf(MARK)
            const bytes =
              mark < 0 || bad === null
                ? json
                : new Uint8Array(Buffer.concat([json.subarray(0, mark), new Uint8Array(bad[1]), json.subarray(mark + MARK.length)]))
            const ends =
              cuts === "each byte"
                ? Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)
                : [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
            const bounds = [0, ...ends, bytes.length]
            const pieces = ends.concat(bytes.length).map((to, i) => bytes.subarray(bounds[i], to))
            const whole = await fromStdin([bytes])
            expect(await fromStdin(pieces)).toEqual(whole)
            expect(whole).toHaveLength(all.length)
            for (const [i, r] of whole.entries()) {
              expect(r.line).toBe(i + 1)
              if (r.unreadable === undefined) expect(r.raw).toBe(JSON.stringify(all[i]))
              else expect([r.unreadable.tag, r.unreadable.offset, bad !== null && all[i]]).toEqual(["InvalidUtf8", mark, { note: MARK }])
            }
          }
        ),
        { numRuns: 100 }
      ),
    120_000
  )

  const broken: ReadonlyArray<readonly [string, string]> = [
    ["[", "it ends at byte 1, before its first element, without the closing ]"],
    ['[{"a":1}', "it ends at byte 8, after element 1, without the closing ]"],
    ['[{"a":1},', "it ends at byte 9, after element 1, without the closing ]"],
    ['[{"a":1},\n {"b": "]', "it ends at byte 19, inside element 2, which began at byte 11, without the closing ]"],
    ["[1] x", 'byte 4: "x" after the array\'s closing ]'],
    ["[1,2]\n[3]", 'byte 6: "[" after the array\'s closing ]'],
    ["[1,]", 'byte 3: "]" where element 2 should begin'],
    ["[,1]", 'byte 1: "," where element 1 should begin'],
    ["[1 2]", 'byte 3: "2" after element 1, where a , or the closing ] should be'],
    ['[{"a":1}\u00a0]', "byte 8: byte 0xc2 after element 1, where a , or the closing ] should be"],
    ['[{"a":1},{"a":}]', "element 2, at byte 9: "],
    ["[1,tru]", "element 2, at byte 3: "]
  ]

  it.each(broken)("that does not parse (%j) is refused once, saying where", (array, why) =>
    inTemp(async (dir) => {
      const path = join(dir, "broken.json")
      await writeFile(path, array)
      for (const [file, records] of [
        [path, readRecords(path)],
        [STDIN, stdinRecords([utf8(array)])]
      ] as const) {
        const error = await Effect.runPromise(Effect.flip(collected(records)))
        expect(error).toBeInstanceOf(MigrateInputError)
        const message = error.message
        const head = `${file}: this file is a JSON array, and it does not parse as one (${why}`
        expect(message.slice(0, head.length)).toBe(head)
        expect(message.endsWith("); fix it, or write one record per line (NDJSON)")).toBe(true)
      }
    })
  )

  it("that breaks after chunks have been read fails the run, naming the byte", () =>
    inTemp(async (dir) => {
      const elements = Array.from({ length: 3 * CHUNK_LINES }, (_, i) => JSON.stringify(samples[i % samples.length]))
      const text = `[\n${elements.join(",\n")}\n}`
      for (const name of ["late.json", "late.ndjson.gz"]) {
        const path = join(dir, name)
        await writeFile(path, name.endsWith(".gz") ? gzipSync(text) : text)
        const error = await Effect.runPromise(
          Effect.flip(migrate({ inputs: [path], output: () => Effect.void })).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, Normalizer.default)))
        )
        expect(error).toBeInstanceOf(MigrateInputError)
        expect(error.message).toContain(`(byte ${utf8(text).length - 1}: "}" after element ${elements.length}, where a , or the closing ] should be)`)
      }
    }))

  it("that is not an array is read as before: a lone value one record, NDJSON in a .json file by lines, white space none", () =>
    inTemp(async (dir) => {
      const lone = JSON.stringify(samples[0], null, 3)
      await writeFile(join(dir, "lone.json"), `\ufeff\n${lone}\n`)
      await writeFile(join(dir, "lines.json"), `${JSON.stringify(samples[0])}\n\n${JSON.stringify(samples[1])}\n`)
      await writeFile(join(dir, "blank.json"), " \n\t\n")
      expect(await collect(readRecords(join(dir, "lone.json")))).toEqual([{ file: join(dir, "lone.json"), line: 1, raw: JSON.stringify(samples[0]) }])
      expect((await collect(readRecords(join(dir, "lines.json")))).map((r) => [r.line, r.raw])).toEqual([
        [1, JSON.stringify(samples[0])],
        [3, JSON.stringify(samples[1])]
      ])
      expect(await collect(readRecords(join(dir, "blank.json")))).toEqual([])
    }))
})

describe("a JSON array's chunks", () => {
  /** `[` and elements one to a line, each indented by two; where each element ends. */
  const layout = (elements: ReadonlyArray<string>) => {
    const ends: Array<number> = []
    let at = 2
    for (const e of elements) {
      at += 2 + utf8(e).length
      ends.push(at)
      at += 2
    }
    return { text: `[\n${elements.map((e) => `  ${e}`).join(",\n")}\n]\n`, ends }
  }

  it("hold CHUNK_LINES elements (fewer once they reach CHUNK_BYTES); hashed, each up to its last element and the last one all of it", () =>
    inTemp(async (dir) => {
      const small = Array.from({ length: 2 * CHUNK_LINES + 5 }, (_, i) => JSON.stringify({ n: i, é: "𝄞" }))
      const large = Array.from({ length: 10 }, (_, i) => JSON.stringify({ n: i, avatar: "A".repeat(Math.floor(0.3 * CHUNK_BYTES)) }))
      for (const [name, elements, sizes] of [
        ["small.json", small, [CHUNK_LINES, CHUNK_LINES, 5]],
        ["large.ndjson", large, [4, 4, 2]]
      ] as const) {
        const path = join(dir, name)
        const { text, ends } = layout(elements)
        await writeFile(path, text)
        const bytes = await readFile(path)
        const [input] = (await Effect.runPromise(Effect.provide(listInputs([path]), NodeContext.layer))).files
        const chunks = (await collect(inputChunks(input!, undefined, true))) as ReadonlyArray<Extract<InputChunk, { _tag: "Records" }>>
        expect(chunks.map((c) => c.records.length)).toEqual(sizes)
        expect(chunks.flatMap((c) => c.records.map((r) => r.raw))).toEqual(elements)
        expect(chunks.reduce((n, c) => n + c.inputBytes, 0)).toBe(bytes.length)
        for (const [i, chunk] of chunks.entries()) {
          const last = chunk.records.at(-1)!.line
          const upTo = i === chunks.length - 1 ? bytes.length : ends[last - 1]!
          expect(chunk.digest).toEqual({ file: path, bytes: upTo, sha256: createHash("sha256").update(bytes.subarray(0, upTo)).digest("hex") })
        }
      }
    }))
})

describe("a large JSON array", () => {
  it("of 50 MB, from standard input, migrates every element with the heap flat", async () => {
    const array = generatedArray(50 * 1024 ** 2)
    const run = await migrateFromStdin(array)
    expectAllMigrated(array, run)
    // Read whole, as arrays were, the heap grew by 138 MB for this array; streamed, by some 35 (what
    // a few chunks in flight and the garbage between two collections hold). huge-array.sweep.ts
    // holds 2 GB under 256 MB.
    expect(run.peakHeap - run.heapBefore).toBeLessThan(80 * 1024 ** 2)
  }, 120_000)
})
