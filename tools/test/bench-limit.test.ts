import { execFile } from "node:child_process"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultNormalizer } from "@scanbridge/migrate"
import { writeInput } from "../bench-inputs.js"
import { type LineWork, blocksOf, eachLine, linesIn, makeOutput, makeRecycler } from "../bench-limit.js"
import { missesSection, whatItTakes } from "../bench-misses.js"
import { bundle } from "../bundle.js"
import { repoRoot } from "../docs/generated.js"

const run = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), "scanbridge-bench-limit-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Multi-byte characters and lines longer than a read, across read boundaries; a blank line; no
// final newline.
const lines = [
  '{ "a": 1, "b": "ユーザーはまだ測定データと写真を送信していません。" }',
  "",
  '{"broken": ',
  JSON.stringify({ long: "é".repeat(300), emoji: "🙂".repeat(50) }),
  "[1, 2,   3]"
]
const text = lines.join("\n")

const collect = (): LineWork & { readonly seen: Array<readonly [string, number]> } => {
  const seen: Array<readonly [string, number]> = []
  return { seen, line: (t, n, emit) => (seen.push([t, n]), emit(t)), records: () => seen.length, rejected: () => 0 }
}

describe("the limits' loop (tools/bench-limit.ts)", () => {
  it.each([7, 64, 1 << 20])("cuts the input into blocks of whole lines and each block into its lines (reads of %i bytes)", (size) => {
    const file = join(dir, `lines-${size}.ndjson`)
    writeFileSync(file, text)
    for (const fresh of [false, true]) {
      const work = collect()
      const input = openSync(file, "r")
      let line = 1
      let counted = 0
      try {
        for (const [bytes, end] of blocksOf(input, size, fresh ? Buffer.allocUnsafeSlow : undefined)) {
          counted += linesIn(bytes, end)
          line += eachLine(bytes, end, line, work, () => {})
        }
      } finally {
        closeSync(input)
      }
      expect(work.seen).toEqual(lines.flatMap((l, i) => (l === "" ? [] : [[l, i + 1] as const])))
      expect(line - 1).toBe(lines.length)
      expect(counted).toBe(lines.length)
    }
  })

  it("writes each JSON text and a newline into buffers of the size given, a text larger than one on its own", () => {
    const written: Array<string> = []
    const out = makeOutput(64, (bytes) => written.push(bytes.toString("utf8")))
    const texts = ["é".repeat(10), "x".repeat(30), "🙂".repeat(40), "y"]
    for (const t of texts) out.emit(t)
    out.flush()
    expect(written.join("")).toBe(texts.map((t) => `${t}\n`).join(""))
    expect(written.every((w) => Buffer.byteLength(w) <= 64 || w === `${"🙂".repeat(40)}\n`)).toBe(true)
  })

  it("recycles the buffers given back, of its size only", () => {
    const recycler = makeRecycler(16)
    const a = recycler.allocate(16)
    recycler.giveBack(a.subarray(0, 3))
    recycler.giveBack(Buffer.allocUnsafeSlow(32))
    expect(recycler.allocate(16).buffer).toBe(a.buffer)
    expect(recycler.allocate(16).buffer).not.toBe(a.buffer)
    expect(recycler.allocate(32).length).toBe(32)
  })
})

describe("the limits as the bench runs them", () => {
  const script = join(dir, "bench-limit.mjs")
  beforeAll(() => bundle("tools/bench-limit.ts", script), 60_000)
  const limit = (work: string, threads: number, input: string, output: string, readBytes?: number) =>
    run(process.execPath, [script, work, String(threads), input, output, ...(readBytes === undefined ? [] : [String(readBytes)])])

  it.each([0, 2])("json on %i threads: JSON.stringify(JSON.parse(line)) of every line, in order, as the floor", async (threads) => {
    const input = join(dir, `json-in-${threads}.ndjson`)
    const output = join(dir, `json-out-${threads}.ndjson`)
    writeFileSync(input, text)
    // 7-byte reads: many blocks, most of them a single line grown past the read size.
    const { stderr } = await limit("json", threads, input, output, 7)
    expect(stderr).toBe("records 4 rejected 1\n")
    const parsed = lines.filter((l) => l !== "" && l !== '{"broken": ')
    expect(readFileSync(output, "utf8")).toBe(parsed.map((l) => `${JSON.stringify(JSON.parse(l))}\n`).join(""))
  })

  it.each([0, 2])("migrate on %i threads: every record of the mixed input migrated or rejected as a migration does, in order", async (threads) => {
    const input = join(dir, `mixed-${threads}.ndjson`)
    const output = join(dir, `mixed-out-${threads}.ndjson`)
    const expected = writeInput(repoRoot, input, "mixed", 600)
    const { stderr } = await limit("migrate", threads, input, output, 4096)
    expect(stderr).toBe(`records 600 rejected ${Object.values(expected.byRejectReason).reduce((a, b) => a + b, 0)}\n`)
    const canonical = readFileSync(input, "utf8")
      .trimEnd()
      .split("\n")
      .flatMap((line) => {
        let json: unknown
        try {
          json = JSON.parse(line)
        } catch {
          return []
        }
        const scans = defaultNormalizer.normalize(json)
        return Either.isRight(scans) ? scans.right.map((scan) => `${JSON.stringify(scan)}\n`) : []
      })
    expect(readFileSync(output, "utf8")).toBe(canonical.join(""))
  })
})

describe("what the misses would take (tools/bench-misses.ts)", () => {
  it("a target met says so", () => {
    expect(whatItTakes("default", 0.65, 0.7, 0.5, "the limit")).toBe("default: 0.65 x against ≤ 0.70 x: met.")
  })

  it("a limit within the target puts the miss on the pipeline, with how much of it fits", () => {
    const text = whatItTakes("default", 1.0, 0.7, 0.5, "the two-thread limit")
    expect(text).toContain("The two-thread limit is 0.50 x, within the target")
    expect(text).toContain("adds 2.00 x over the limit where at most 1.40 x fits the target")
  })

  it("a limit past the target says the per-record work alone misses, and by how much", () => {
    const text = whatItTakes("`--workers 0`", 2.0, 1.2, 1.5, "the one-thread limit")
    expect(text).toContain("The one-thread limit is 1.50 x: the per-record work alone misses, and the pipeline adds 1.33 x on top")
    expect(text).toContain("cut by 1.25 x (to 1.20 x) with a pipeline that costs nothing, or by 1.67 x with today's pipeline")
  })

  it("a limit not measured is named as such", () => {
    expect(whatItTakes("default", 1.0, 0.7, undefined, "the two-thread limit")).toBe(
      "default: 1.00 x against ≤ 0.70 x; the two-thread limit not measured at this size."
    )
  })

  it("one bullet per target of each input, the mixed input's `--workers 0` target too, and the limits measured", () => {
    const section = missesSection(
      [
        { input: "platform", mixed: false, default: 0.8, inThread: 1.1, limit2: 0.6, floor2: 0.55, outputBytes: 0.7 },
        { input: "mixed", mixed: true, default: 1.5, inThread: 2.0, limit: 1.4, outputBytes: 1.1, cpu: { default: 3, inThread: 2.2, limit: 1.6 } }
      ],
      { defaultVsFloor: 0.7, platformDefaultVsFloor: 0.6, inThreadMixedVsFloor: 1.2 }
    )
    expect(section).toHaveLength(6)
    expect(section.every((l) => l.startsWith("- "))).toBe(true)
    // Each input against its own target: platform entries' default is held to 0.6 x, the mixed input's to 0.7 x.
    expect(section[0]).toContain("default settings on platform: 0.80 x against ≤ 0.60 x")
    expect(section[1]).toContain("0.55 x")
    expect(section[3]).toContain("default settings on mixed: 1.50 x against ≤ 0.70 x; the two-thread limit")
    expect(section[4]).toContain("`--workers 0` on mixed: 2.00 x against ≤ 1.20 x. The one-thread limit (the floor's loop with the per-record work) is 1.40 x")
    expect(section[5]).toContain("1.10 x the bytes the floor writes")
    // CPU time beside the wall time, where both the program's and its limit's were measured.
    expect(section[3]).not.toContain("CPU")
    expect(section[4]).toContain("In CPU time, `--workers 0` takes 2.20 x the floor's and the one-thread limit 1.60 x: the pipeline adds 1.38 x.")
  })
})
