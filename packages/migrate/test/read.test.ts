/**
 * Reading the inputs. NDJSON read as byte chunks (the unit a worker thread takes) gives the
 * records a text stream gives (Effect's splitLines over the decoded text is the reference),
 * with the lines that are not UTF-8 marked; and every input is read once and as it is: links,
 * `.gz`, pipes, stdin, files that change while they are read.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Encoding, FastCheck as fc, Layer, Stream } from "effect"
import { execFileSync, spawn } from "node:child_process"
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { appendFile, mkdir, mkdtemp, rm, symlink, truncate, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import {
  MigrateInputError,
  type MigrateOptions,
  type MigrateProgress,
  Normalizer,
  type Reject,
  type TextOutputs,
  listInputs,
  migrate,
  textOf
} from "../src/index.js"
import { CHUNK_BYTES, CHUNK_LINES, type InputRecord, afterLine, lastRecordEnd, readChunks, readRecords, recordsOf } from "../src/internal/read.js"

const reference = (file: string, bytes: Uint8Array): ReadonlyArray<InputRecord> =>
  Effect.runSync(
    Stream.make(new TextDecoder().decode(bytes)).pipe(
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

const utf8 = (text: string) => new TextEncoder().encode(text)
const concat = (parts: ReadonlyArray<Uint8Array>) => new Uint8Array(Buffer.concat(parts))
const isUtf8 = (bytes: Uint8Array) => {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

// Lines of every kind: JSON, blank, whitespace, CR in odd places, multi-byte characters, a byte
// order mark, bytes that are not UTF-8; long enough that a file spans several 64 KiB reads.
const piece = fc.oneof(
  fc.constantFrom('{"a":1}', "", "  ", "\t", "\r", "\r\r", "é", "€𝄞", "\uFEFF", "x".repeat(70_000), '{"id":"scan_1","status":"success"}').map(utf8),
  fc.string({ maxLength: 20 }).map(utf8),
  fc.jsonValue().map((j) => utf8(JSON.stringify(j) ?? "null")),
  fc.uint8Array({ minLength: 1, maxLength: 4 }).filter((b) => !b.includes(10))
)
const ending = fc.constantFrom("\n", "\r\n", "\n\n", "").map(utf8)
const file = fc.tuple(fc.boolean(), fc.array(fc.tuple(piece, ending), { maxLength: 1500 }), fc.uint8Array({ maxLength: 3 })).map(([bom, lines, tail]) =>
  // Sometimes a stray or truncated byte sequence at the end.
  concat([utf8(bom ? "\uFEFF" : ""), ...lines.flat(), tail])
)

/**
 * A file as above, NDJSON whatever its lines: one whose first non-blank line opens a JSON array
 * is read as a JSON array (see "a JSON array under another name than .json"), so such a file gets
 * a record before it.
 */
const ndjsonFile = file.map((bytes) => {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  const first = new TextDecoder()
    .decode(bytes.subarray(bom))
    .split("\n")
    .find((line) => line.trim() !== "")
  return first?.trim().startsWith("[") ? concat([bytes.subarray(0, bom), utf8('{"first":1}\n'), bytes.subarray(bom)]) : bytes
})

/** Where each line of some bytes begins. */
const lineStarts = (bytes: Uint8Array) => [0, ...[...bytes.keys()].filter((i) => bytes[i] === 10).map((i) => i + 1)]

describe("reading NDJSON in chunks of bytes", () => {
  it("gives the records a text stream gives, with the same line numbers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scanbridge-read-"))
    try {
      let n = 0
      await fc.assert(
        fc.asyncProperty(ndjsonFile, async (bytes) => {
          const path = join(dir, `f${n++}.ndjson`)
          writeFileSync(path, bytes)
          const records = await read(readRecords(path))
          expect(records.map(({ unreadable: _, ...record }) => record)).toEqual(reference(path, bytes))
          const starts = lineStarts(bytes)
          for (const record of records) {
            const start = record.line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : starts[record.line - 1]!
            const next = starts[record.line] ?? bytes.length + 1
            const own = bytes.subarray(start, next - 1 - (bytes[next - 2] === 13 ? 1 : 0))
            // A record is marked exactly when its bytes are not UTF-8, with those exact bytes
            // and the offset of the first one no decoder accepts.
            expect(record.unreadable === undefined).toBe(isUtf8(own))
            if (record.unreadable === undefined) continue
            expect(record.unreadable.tag).toBe("InvalidUtf8")
            expect(Either.getOrThrow(Encoding.decodeBase64(record.unreadable.rawBase64!))).toEqual(own)
            const at = record.unreadable.offset! - start
            expect(at).toBeGreaterThanOrEqual(0)
            expect(isUtf8(own.subarray(0, at))).toBe(true)
            expect([1, 2, 3, 4].some((n) => isUtf8(own.subarray(at, at + n)))).toBe(false)
          }
        }),
        { numRuns: 150 }
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it("reads a chunk whose bytes are a view into a larger buffer by the view's bytes alone (lines, last record, resume cut)", () => {
    // Line ends are found through a Buffer over the same memory: one made from the whole
    // ArrayBuffer would find the newlines around the view, at offsets off by the view's.
    const before = '{"outside":1}\n{"outside":2}\n'
    const own = '{"a":1}\r\n\n{"b":2}\n{"c":3}\n  \n'
    const after = '\n{"outside":3}\n'
    const all = new TextEncoder().encode(before + own + after)
    const start = before.length
    const chunk = () => ({
      _tag: "Lines" as const,
      file: "f",
      firstLine: 10,
      first: false,
      offset: 100,
      bytes: all.subarray(start, start + own.length),
      inputBytes: own.length
    })
    expect(recordsOf(chunk()).map((r) => [r.line, r.raw])).toEqual([
      [10, '{"a":1}'],
      [12, '{"b":2}'],
      [13, '{"c":3}']
    ])
    // After the last record's \n: the blank line after it is not read.
    expect(lastRecordEnd(chunk())).toBe(own.indexOf('{"c":3}') + '{"c":3}\n'.length)
    const rest = afterLine(chunk(), 11)
    expect(rest?._tag === "Lines" && [rest.firstLine, rest.offset, new TextDecoder().decode(rest.bytes)]).toEqual([
      12,
      100 + own.indexOf('{"b":2}'),
      '{"b":2}\n{"c":3}\n  \n'
    ])
  })

  it("cuts chunks of CHUNK_LINES lines, blank ones included, each in a buffer of its own", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scanbridge-read-"))
    try {
      const path = join(dir, "lines.ndjson")
      writeFileSync(path, Array.from({ length: 2.7 * CHUNK_LINES }, (_, i) => (i % 3 === 0 ? "" : `{"n":${i}}`)).join("\n"))
      const chunks = await read(readChunks(path))
      expect(chunks.map((c) => c._tag === "Lines" && [c.firstLine, c.first, c.bytes.byteOffset])).toEqual([
        [1, true, 0],
        [CHUNK_LINES + 1, false, 0],
        [2 * CHUNK_LINES + 1, false, 0]
      ])
      // Each can be moved to a worker without taking another's bytes with it.
      expect(new Set(chunks.map((c) => c._tag === "Lines" && c.bytes.buffer)).size).toBe(3)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("ends a chunk before a line would take it past CHUNK_BYTES, and makes a larger line a chunk of its own", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scanbridge-read-"))
    try {
      const line = JSON.stringify({ avatar: "A".repeat(Math.floor(0.29 * CHUNK_BYTES)) })
      const larger = JSON.stringify({ avatar: "B".repeat(CHUNK_BYTES) })
      // Three such lines fit in a chunk, four do not.
      const text = [...Array.from({ length: 7 }, () => line), larger, line, line].join("\n")
      writeFileSync(join(dir, "large.ndjson"), text)
      // Decompressed, the same bytes come in reads of some 16 KiB: lines span many of them.
      writeFileSync(join(dir, "large.ndjson.gz"), gzipSync(text))
      for (const file of ["large.ndjson", "large.ndjson.gz"]) {
        const chunks = await read(readChunks(join(dir, file)))
        const bytes = chunks.map((c) => (c._tag === "Lines" ? c.bytes : new Uint8Array(0)))
        expect(chunks.map((c) => c._tag === "Lines" && c.firstLine)).toEqual([1, 4, 7, 8, 9])
        expect(bytes.map((b) => b.length <= CHUNK_BYTES)).toEqual([true, true, true, false, true])
        expect(new TextDecoder().decode(concat(bytes))).toBe(text)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("reads a JSON array's elements in chunks of CHUNK_LINES records, and an empty array as none", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scanbridge-read-"))
    try {
      const n = 2 * CHUNK_LINES + 88
      writeFileSync(join(dir, "many.json"), JSON.stringify(Array.from({ length: n }, (_, i) => ({ n: i }))))
      writeFileSync(join(dir, "none.json"), "[]")
      const chunks = await read(readChunks(join(dir, "many.json")))
      expect(chunks.map((c) => (c._tag === "Records" ? c.records.length : -1))).toEqual([CHUNK_LINES, CHUNK_LINES, 88])
      expect(chunks[2]!._tag === "Records" && chunks[2]!.records[87]).toEqual({ file: join(dir, "many.json"), line: n, raw: `{"n":${n - 1}}` })
      expect(await read(readRecords(join(dir, "none.json")))).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

// --- Inputs read once and as they are ----------------------------------------------------

const repo = fileURLToPath(new URL("../../..", import.meta.url))
/** Platform entries, each of which migrates. */
const ENTRIES = readFileSync(join(repo, "examples/export/platform/entries.ndjson"), "utf8").trim().split("\n")
const entries = (n: number) => Array.from({ length: n }, (_, i) => ENTRIES[i % ENTRIES.length]!)

const layer = Layer.mergeAll(NodeContext.layer, Normalizer.default)

/** A migration into memory: output text, rejects (parsed), the report, and every progress. */
const run = (options: Omit<MigrateOptions & TextOutputs, "output" | "rejects">) =>
  Effect.runPromise(
    Effect.gen(function* () {
      let out = ""
      let rejected = ""
      const progress: Array<MigrateProgress> = []
      const report = yield* migrate({
        ...options,
        output: (t) => Effect.sync(() => void (out += textOf(t))),
        rejects: (t) => Effect.sync(() => void (rejected += textOf(t))),
        onProgress: (p) =>
          Effect.zipRight(
            Effect.sync(() => void progress.push(p)),
            options.onProgress?.(p) ?? Effect.void
          )
      })
      const rejects = rejected
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Reject)
      return { out, rejects, report, progress }
    }).pipe(Effect.provide(layer))
  )

/** The same migration's failure. */
const failure = (options: Omit<MigrateOptions & TextOutputs, "output" | "rejects">) =>
  Effect.runPromise(Effect.flip(migrate({ ...options, output: () => Effect.void, rejects: () => Effect.void })).pipe(Effect.provide(layer)))

/** A fresh temp folder for the test's files, removed afterwards. */
const inTemp = async <A>(f: (dir: string) => Promise<A>): Promise<A> => {
  const dir = await mkdtemp(join(tmpdir(), "scanbridge-read-"))
  try {
    return await f(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

describe("inputs read once", () => {
  it("follows a link back into its own folder at most once, with one loop or two", () =>
    inTemp(async (dir) => {
      await mkdir(join(dir, "sub"))
      await writeFile(join(dir, "a.ndjson"), '{"a":1}\n{"a":2}\n')
      await writeFile(join(dir, "sub", "b.ndjson"), '{"b":1}\n')
      await symlink(".", join(dir, "self"))
      expect((await run({ inputs: [dir] })).report.records).toBe(3)
      expect((await read(readRecords(dir))).map((r) => r.raw)).toEqual(['{"a":1}', '{"a":2}', '{"b":1}'])
      await symlink("..", join(dir, "sub", "up"))
      await symlink(join(dir, "sub"), join(dir, "again"))
      const twice = await read(readRecords(dir))
      expect(twice.map((r) => r.raw)).toEqual(['{"a":1}', '{"a":2}', '{"b":1}'])
    }))

  it("reads a file given twice, or through a link and directly, once", () =>
    inTemp(async (dir) => {
      const a = join(dir, "a.ndjson")
      await writeFile(a, '{"a":1}\n')
      await symlink(a, join(dir, "link.ndjson"))
      expect((await read(readRecords(a, a, join(dir, "link.ndjson"), dir))).map((r) => r.file)).toEqual([a])
      const listed = await Effect.runPromise(Effect.provide(listInputs([dir, a]), NodeContext.layer))
      expect(listed).toEqual({ files: [{ file: a, kind: "file", size: 8 }], bytesTotal: 8 })
    }))
})

describe("bytes that are not UTF-8", () => {
  // Past the first chunk's lines, so the bad line may be a chunk's first, last or any.
  const lines = entries(CHUNK_LINES + 44)
  const good = inTemp(async (dir) => {
    await writeFile(join(dir, "good.ndjson"), lines.join("\n"))
    return run({ inputs: [join(dir, "good.ndjson")] })
  })

  it("reject their record alone, with its offset in the file and its exact bytes", async () => {
    const { out } = await good
    await inTemp(async (dir) => {
      const path = join(dir, "bad.ndjson")
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: lines.length - 1 }),
          fc.nat(),
          fc.constantFrom([0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80]),
          async (line, at, bad) => {
            // A bad byte inside the record's id string, so the record is otherwise the same.
            const bytes = lines.map(utf8)
            const from = lines[line]!.indexOf('"id":"') + 6
            const where = from + (at % 6)
            bytes[line] = concat([bytes[line]!.subarray(0, where), new Uint8Array(bad), bytes[line]!.subarray(where)])
            const file = concat(bytes.flatMap((b, i) => (i === 0 ? [b] : [utf8("\n"), b])))
            writeFileSync(path, file)
            const result = await run({ inputs: [path] })
            expect(result.report.records).toBe(lines.length)
            expect(result.report.rejected).toBe(1)
            expect(result.report.migrated + result.report.rejected).toBe(result.report.records)
            expect(result.out.split("\n").filter((l) => l !== "")).toEqual(out.split("\n").filter((l, i) => l !== "" && i !== line))
            const [reject] = result.rejects
            const offset = lines.slice(0, line).reduce((n, l) => n + utf8(l).length + 1, 0) + where
            expect(reject).toMatchObject({ file: path, line: line + 1, error: { tag: "InvalidUtf8", path: null, offset } })
            expect(reject!.error.message).toContain(`byte ${offset} `)
            expect(Either.getOrThrow(Encoding.decodeBase64(reject!.rawBase64!))).toEqual(bytes[line])
            expect(reject!.raw).toBe(new TextDecoder().decode(bytes[line]))
            expect(reject!.raw).toContain("\uFFFD")
          }
        ),
        { numRuns: 25 }
      )
    })
  }, 60_000)

  it("in a JSON document reject the element that holds them alone", () =>
    inTemp(async (dir) => {
      const path = join(dir, "doc.json")
      const bad = concat([utf8(`[\n  ${ENTRIES[0]},\n  {"note": "caf`), new Uint8Array([0xe9]), utf8(`", "x": [1, "]"]},\n  ${ENTRIES[1]}\n]\n`)])
      writeFileSync(path, bad)
      const { report, rejects } = await run({ inputs: [path] })
      expect(report).toMatchObject({ records: 3, migrated: 2, rejected: 1 })
      const offset = bad.indexOf(0xe9)
      expect(rejects).toEqual([
        {
          file: path,
          line: 2,
          error: { tag: "InvalidUtf8", message: expect.stringContaining(`byte ${offset} `), path: null, offset },
          raw: '{"note": "caf\uFFFD", "x": [1, "]"]}',
          rawBase64: Encoding.encodeBase64(concat([utf8('{"note": "caf'), new Uint8Array([0xe9]), utf8('", "x": [1, "]"]}')]))
        }
      ])
    }))
})

describe("a file that changes while it is read", () => {
  // Some 30 MB, 12 chunks and more: far more than the reader holds ahead of the first chunk's results.
  const big = entries(12 * CHUNK_LINES).join("\n") + "\n"

  it.each([
    ["shrinks", (path: string) => truncate(path, 1000), / 1000 bytes now/],
    ["grows", (path: string) => appendFile(path, big), new RegExp(`${2 * utf8(big).length} bytes now`)]
  ] as const)(
    "fails the run when it %s, naming it and both sizes",
    (_, change, now) =>
      inTemp(async (dir) => {
        const path = join(dir, "changing.ndjson")
        await writeFile(path, big)
        let changed = false
        const error = await failure({
          inputs: [path],
          onProgress: () => Effect.promise(async () => void (changed || (await change(path), (changed = true))))
        })
        expect(changed).toBe(true)
        expect(error).toBeInstanceOf(MigrateInputError)
        expect(error.message).toContain(path)
        expect(error.message).toContain(`${utf8(big).length} bytes when the migration began`)
        expect(error.message).toMatch(now)
      }),
    60_000
  )
})

describe(".gz inputs", () => {
  it("read like the plain files, in folders too: the same output and report", () =>
    inTemp(async (dir) => {
      const ndjson = entries(600).join("\n")
      const json = `[${entries(300).join(",")}]`
      await mkdir(join(dir, "plain"))
      await mkdir(join(dir, "gz"))
      await writeFile(join(dir, "plain", "a.ndjson"), ndjson)
      await writeFile(join(dir, "plain", "b.json"), json)
      await writeFile(join(dir, "gz", "a.jsonl.gz"), gzipSync(ndjson))
      await writeFile(join(dir, "gz", "b.json.gz"), gzipSync(json))
      const plain = await run({ inputs: [join(dir, "plain")] })
      const gz = await run({ inputs: [join(dir, "gz")] })
      expect(plain.report.records).toBe(900)
      expect(gz.out).toBe(plain.out)
      expect(gz.report).toEqual(plain.report)
    }))

  it.each([
    ["truncated", (bytes: Uint8Array) => bytes.subarray(0, bytes.length - 20)],
    ["not gzip at all", () => utf8(ENTRIES[0]!)]
  ] as const)("fails the run with MigrateInputError when %s", (_, spoil) =>
    inTemp(async (dir) => {
      const path = join(dir, "spoilt.ndjson.gz")
      await writeFile(path, spoil(gzipSync(entries(50).join("\n"))))
      const error = await failure({ inputs: [path] })
      expect(error).toBeInstanceOf(MigrateInputError)
      expect(error.message).toContain(`${path}: not readable as gzip`)
    })
  )
})

describe("standard input", () => {
  /** Bytes as a pipe brings them: in small pieces, cut anywhere. */
  const piped = (text: string) => {
    const bytes = utf8(text)
    return Stream.fromIterable(Array.from({ length: Math.ceil(bytes.length / 1000) }, (_, i) => bytes.subarray(i * 1000, (i + 1) * 1000)))
  }

  it.each([
    ["NDJSON, blank lines first", `\n  \n${entries(400).join("\n")}\n`, 400],
    ["a JSON array", JSON.stringify(JSON.parse(`[${entries(300).join(",")}]`), null, 2), 300],
    ["a JSON array on one line", `[${entries(300).join(",")}]`, 300],
    ["a pretty-printed object", JSON.stringify(JSON.parse(ENTRIES[2]!), null, 2), 1]
  ])("reads %s given as -", async (_, text, records) => {
    const { report, out, progress } = await run({ inputs: ["-"], stdin: piped(text) })
    expect(report).toMatchObject({ records, migrated: records })
    expect(out.trim().split("\n")).toHaveLength(records)
    expect(progress.at(-1)).toMatchObject({ bytesRead: utf8(text).length, bytesTotal: null })
  })

  it("names it <stdin> in rejects, and fails with MigrateInputError when none is given", async () => {
    const { rejects } = await run({ inputs: ["-", "-"], stdin: piped(`${ENTRIES[0]}\n{"kind":"not a scan"}\n`) })
    expect(rejects.map((r) => [r.file, r.line, r.error.tag])).toEqual([["<stdin>", 2, "UnknownFormatError"]])
    const error = await failure({ inputs: ["-"] })
    expect(error).toBeInstanceOf(MigrateInputError)
    expect(error.message).toContain("standard input")
  })
})

describe("a JSON array under another name than .json", () => {
  const array = (n: number, pretty: boolean) => {
    const values = entries(n).map((e) => JSON.parse(e) as unknown)
    return pretty ? JSON.stringify(values, null, 2) : JSON.stringify(values)
  }

  it("is read as its elements, as the same array in a .json file is, whatever its name, layout or compression", () =>
    inTemp(async (dir) =>
      fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 40 }),
          fc.boolean(),
          fc.constantFrom("a.ndjson", "a.jsonl", "a.ndjson.gz", "a.txt"),
          fc.constantFrom("", "\n", "\n\n  \n"),
          async (n, pretty, name, around) => {
            const text = `${around}${array(n, pretty)}${around}`
            const path = join(dir, name)
            await writeFile(path, name.endsWith(".gz") ? gzipSync(text) : text)
            await writeFile(join(dir, "a.json"), text)
            const read = await run({ inputs: [path] })
            const reference = await run({ inputs: [join(dir, "a.json")] })
            expect(read.report).toMatchObject({ records: n, migrated: n, rejected: 0 })
            expect(read.out).toBe(reference.out)
            expect(read.rejects).toEqual([])
          }
        ),
        { numRuns: 30 }
      )
    ))

  it("numbers its records by element, so that a reject names the element", () =>
    inTemp(async (dir) => {
      const path = join(dir, "scans.ndjson")
      await writeFile(path, JSON.stringify([JSON.parse(ENTRIES[0]!), { kind: "not a scan" }, JSON.parse(ENTRIES[1]!)], null, 2))
      const { report, rejects } = await run({ inputs: [path] })
      expect(report).toMatchObject({ records: 3, migrated: 2, rejected: 1 })
      expect(rejects.map((r) => [r.file, r.line, r.error.tag])).toEqual([[path, 2, "UnknownFormatError"]])
    }))

  // The choice documented at fileChooser: an array on the first line and records after it is NDJSON.
  it("is NDJSON when its first line is a whole array and other records follow: that line is one reject, the others migrate", () =>
    inTemp(async (dir) => {
      const path = join(dir, "mixed.ndjson")
      await writeFile(path, `[${ENTRIES[0]}]\n${entries(5).join("\n")}\n`)
      const { report, rejects } = await run({ inputs: [path] })
      expect(report).toMatchObject({ records: 6, migrated: 5, rejected: 1 })
      expect(rejects.map((r) => [r.line, r.raw])).toEqual([[1, `[${ENTRIES[0]}]`]])
    }))

  it("that does not parse is refused once, saying it is a JSON array, not read as a reject per line", () =>
    inTemp(async (dir) => {
      for (const name of ["broken.ndjson", "broken.json"]) {
        const path = join(dir, name)
        await writeFile(path, array(20, true).replace(/\}\s*,\s*\{/, "} {"))
        const error = await failure({ inputs: [path] })
        expect(error).toBeInstanceOf(MigrateInputError)
        expect(error.message).toMatch(
          new RegExp(
            `^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: this file is a JSON array, and it does not parse as one \\(.+\\); fix it, or write one record per line \\(NDJSON\\)$`
          )
        )
      }
    }))
})

describe("inputs that hold no records", () => {
  it("end in a report that says so (warnings), and a run that read records has none", () =>
    inTemp(async (dir) => {
      const files = ["a.ndjson", "b.json", "c.ndjson.gz", "d.jsonl", "e.ndjson"].map((f) => join(dir, f))
      await writeFile(files[0]!, "")
      await writeFile(files[1]!, "[]")
      await writeFile(files[2]!, gzipSync("\n\n"))
      await writeFile(files[3]!, " \r\n")
      await writeFile(files[4]!, "")
      const one = await run({ inputs: [files[0]!] })
      expect(one.report).toMatchObject({ records: 0, warnings: [`no records read: ${files[0]} is empty or only blank lines (or an empty JSON array)`] })
      const all = await run({ inputs: files })
      expect(all.report.warnings).toEqual([
        `no records read: ${files.slice(0, 3).join(", ")} and 2 more are empty or only blank lines (or an empty JSON array)`
      ])
      const folder = await run({ inputs: [dir] })
      expect(folder.report.warnings).toHaveLength(1)
      await mkdir(join(dir, "nothing"))
      expect((await run({ inputs: [join(dir, "nothing")] })).report.warnings).toEqual(["no records read: the inputs hold no .ndjson, .jsonl or .json file"])
      const some = await run({ inputs: [...files, join(repo, "examples/export/platform/entries.ndjson")] })
      expect(some.report.records).toBeGreaterThan(0)
      expect(some.report).not.toHaveProperty("warnings")
    }))
})

describe("named pipes", () => {
  it(
    "are read in order, as a stream, when given as files",
    () =>
      inTemp(async (dir) => {
        const text = entries(700).join("\n")
        await writeFile(join(dir, "plain.ndjson"), text)
        const fifo = join(dir, "pipe.ndjson")
        execFileSync("mkfifo", [fifo])
        const writer = spawn("sh", ["-c", 'cat "$0" > "$1"', join(dir, "plain.ndjson"), fifo], { stdio: "ignore" })
        try {
          const listed = await Effect.runPromise(Effect.provide(listInputs([fifo]), NodeContext.layer))
          expect(listed).toEqual({ files: [{ file: fifo, kind: "stream", size: null }], bytesTotal: null })
          const { out, report } = await run({ inputs: listed })
          expect(report.records).toBe(700)
          expect(out).toBe((await run({ inputs: [join(dir, "plain.ndjson")] })).out)
        } finally {
          writer.kill()
          // A reader still waiting for a writer (had the test failed before reading) is let go.
          try {
            closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
          } catch {
            // no reader waits
          }
        }
      }),
    30_000
  )
})

describe("JSON documents", () => {
  it("reject an element too deep to write back as text, and migrate the others", () =>
    inTemp(async (dir) => {
      const deep = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`
      const path = join(dir, "deep.json")
      await writeFile(path, `[${ENTRIES[0]},\n${deep},\n${ENTRIES[1]}]`)
      const { report, rejects } = await run({ inputs: [path] })
      expect(report).toMatchObject({ records: 3, migrated: 2, rejected: 1 })
      expect(rejects).toEqual([{ file: path, line: 2, error: { tag: "TooDeep", message: expect.stringContaining("too deeply"), path: null }, raw: deep }])
    }))
})

describe("progress", () => {
  it("counts input bytes, compressed ones for a .gz, up to the inputs' total", () =>
    inTemp(async (dir) => {
      // Several chunks in each of the first three.
      const chunks = (n: number) => entries(Math.round(n * CHUNK_LINES))
      await writeFile(join(dir, "a.ndjson"), chunks(2.7).join("\n"))
      await writeFile(join(dir, "b.json"), `[${chunks(2.3).join(",")}]`)
      await writeFile(join(dir, "c.ndjson.gz"), gzipSync(chunks(3.5).join("\n")))
      await writeFile(join(dir, "d.json.gz"), gzipSync(`[${entries(10).join(",")}]`))
      await writeFile(join(dir, "e.ndjson"), "")
      await writeFile(join(dir, "f.json"), "[]")
      const listed = await Effect.runPromise(Effect.provide(listInputs([dir]), NodeContext.layer))
      const total = listed.files.reduce((n, f) => n + readFileSync(f.file).length, 0)
      expect(listed.bytesTotal).toBe(total)
      const { progress, report } = await run({ inputs: listed })
      expect(report.records).toBe(Math.round(2.7 * CHUNK_LINES) + Math.round(2.3 * CHUNK_LINES) + Math.round(3.5 * CHUNK_LINES) + 10)
      expect(progress.length).toBeGreaterThan(8)
      expect(progress.every((p, i) => p.bytesTotal === total && p.bytesRead >= (progress[i - 1]?.bytesRead ?? 0))).toBe(true)
      expect(progress.at(-1)!.bytesRead).toBe(total)
    }))
})
