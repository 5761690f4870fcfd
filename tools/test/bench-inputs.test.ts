import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { Either } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { defaultNormalizer } from "@scanbridge/migrate"
import { FORMATS, MIXED, type Template, templates, writeInput } from "../bench-inputs.js"
import { repoRoot } from "../docs/generated.js"

const run = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), "scanbridge-bench-inputs-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const all = templates(repoRoot)
const record = (t: Template, id = "0000abc") => t.pieces.join(id)

/** What a migration makes of a line: its format, or its reject reason. */
const classify = (line: string): { format: string } | { reason: string } => {
  let json: unknown
  try {
    json = JSON.parse(line)
  } catch {
    return { reason: "InvalidJson" }
  }
  const result = defaultNormalizer.normalize(json)
  if (Either.isLeft(result)) return { reason: result.left._tag }
  const detected = defaultNormalizer.detect(json)
  return { format: Either.getOrThrow(detected).format.name }
}

describe("the bench's inputs", () => {
  it("hold every format the built-in adapters and the canonical form detect", () => {
    expect(new Set(Object.values(FORMATS))).toEqual(new Set(defaultNormalizer.formats.map((f) => f.name)))
    for (const key of Object.keys(FORMATS) as Array<keyof typeof FORMATS>) expect(all[key].length).toBeGreaterThan(0)
  })

  it.each(Object.entries(all).flatMap(([kind, ts]) => ts.map((t) => ({ kind, variant: t.variant, t }))))(
    "$kind, $variant: migrates as its template says",
    ({ t }) => {
      expect(classify(record(t))).toEqual(t.format !== undefined ? { format: t.format } : { reason: t.reason })
    }
  )

  it("hold the documented variants: client-library entries, snake_case sessions, pending and failed results", () => {
    const texts = Object.values(all).flatMap((ts) => ts.map((t) => record(t)))
    expect(all.platformClientLibrary.length).toBeGreaterThan(0)
    expect(texts.some((t) => t.includes('"scanning_session_id"'))).toBe(true)
    expect(texts.some((t) => t.includes('"pending"'))).toBe(true)
    expect(texts.some((t) => t.includes('"in-progress"'))).toBe(true)
    expect(texts.some((t) => t.includes('"status":"failure"'))).toBe(true)
    expect(texts.some((t) => t.includes('"ABORTED"'))).toBe(true)
  })

  it("mixed: every format in its proportion, 10 % rejects, each record with its own id, what the writer expects", () => {
    const file = join(dir, "mixed.ndjson")
    const expected = writeInput(repoRoot, file, "mixed", 1_000)
    const text = readFileSync(file, "utf8")
    expect(Buffer.byteLength(text)).toBe(expected.bytes)
    const lines = text.trimEnd().split("\n")
    expect(lines).toHaveLength(1_000)
    const byFormat: Record<string, number> = {}
    const byRejectReason: Record<string, number> = {}
    for (const line of lines) {
      const c = classify(line)
      if ("format" in c) byFormat[c.format] = (byFormat[c.format] ?? 0) + 1
      else byRejectReason[c.reason] = (byRejectReason[c.reason] ?? 0) + 1
    }
    expect(byFormat).toEqual(expected.byFormat)
    expect(byRejectReason).toEqual(expected.byRejectReason)
    // Every format of the vendor's APIs and the canonical form; not FHIR, which no vendor archive holds.
    expect(Object.keys(byFormat).sort()).toEqual(
      Object.values(FORMATS)
        .filter((f) => f !== FORMATS.fhirBundle && f !== FORMATS.fhirPanel)
        .sort()
    )
    expect(Object.values(byRejectReason).reduce((a, b) => a + b, 0)).toBe(100)
    expect(MIXED.reduce((a, [, n]) => a + n, 0)).toBe(100)
    // Formats switch from one record to the next, as in a real export, not in blocks.
    expect(new Set(lines.slice(0, 20).map((l) => JSON.stringify(classify(l)))).size).toBeGreaterThan(4)
    const ids = lines.map((l) =>
      /"(?:scan|ss|est|et)_(\w+)"|"id":"(\w+)"/
        .exec(l)
        ?.slice(1)
        .find((x) => x !== undefined)
    )
    expect(new Set(ids).size).toBe(1_000)
    // The same file on every run.
    writeInput(repoRoot, join(dir, "again.ndjson"), "mixed", 1_000)
    expect(readFileSync(join(dir, "again.ndjson"), "utf8")).toBe(text)
  })

  it("one format's input cycles through that format's variants", () => {
    const expected = writeInput(repoRoot, join(dir, "session.ndjson"), "session", 10)
    expect(expected.byFormat).toEqual({ [FORMATS.session]: 10 })
    const lines = readFileSync(join(dir, "session.ndjson"), "utf8").trimEnd().split("\n")
    expect(lines.slice(0, all.session.length)).toEqual(all.session.map((t, i) => record(t, i.toString(36).padStart(7, "0"))))
  })
})

describe("three plain pipelines of the main thread's share (tools/bench-pipelines.mjs)", () => {
  // Lines empty, short, multi-byte, as long as several ranges, some ending exactly at a range's
  // end (so that the next range begins with a line), and no final newline.
  const lines = [
    '{"a":1}',
    "",
    JSON.stringify({ b: "ユーザー".repeat(20) }),
    JSON.stringify({ c: "x".repeat(500) }),
    ...Array.from({ length: 40 }, (_, i) => JSON.stringify({ i, s: "é".repeat(i % 13) })),
    JSON.stringify({ d: "y".repeat(57) }),
    "[1,2,3]"
  ]
  const expected = lines
    .filter((l) => l !== "")
    .map((l) => `${JSON.stringify(JSON.parse(l))}\n`)
    .join("")

  it.each(["main-reads", "workers-read", "workers-write"])("%s writes every line in order, whatever the ranges' size", async (design) => {
    const input = join(dir, "pipelines-in.ndjson")
    writeFileSync(input, lines.join("\n"))
    // Ranges whose first end is a line's first byte, besides sizes that fall anywhere.
    const text = Buffer.from(lines.join("\n"))
    const lineStarts = [...text.keys()].filter((i) => i > 0 && text[i - 1] === 0x0a)
    for (const range of [16, 64, 101, 4096, lineStarts[2]!, lineStarts[5]!]) {
      const output = join(dir, `pipelines-${design}-${range}.ndjson`)
      const { stdout } = await run(process.execPath, [join(repoRoot, "tools", "bench-pipelines.mjs"), design, input, output, "2", String(range)])
      expect(readFileSync(output, "utf8")).toBe(expected)
      const figures = JSON.parse(stdout) as { readonly lines: number; readonly main: { readonly user: number; readonly system: number } }
      expect(figures.lines).toBe(lines.length - 1)
      expect(figures.main.user).toBeGreaterThanOrEqual(0)
    }
  })
})

describe("the bench's floor (tools/bench-floor.mjs)", () => {
  const floor = (input: string, output: string, readBytes?: number) =>
    run(process.execPath, [join(repoRoot, "tools", "bench-floor.mjs"), input, output, ...(readBytes === undefined ? [] : [String(readBytes)])])

  it.each([
    { read: "8 MiB", readBytes: undefined },
    { read: "7 bytes", readBytes: 7 },
    { read: "64 bytes", readBytes: 64 }
  ])("writes JSON.stringify(JSON.parse(line)) of every line and counts what does not parse (reads of $read)", async ({ readBytes }) => {
    // Multi-byte characters and lines longer than a read, across read boundaries; a record that
    // may not fit the 8 MiB output buffer; no final newline.
    const lines = [
      '{ "a": 1, "b": "ユーザーはまだ測定データと写真を送信していません。" }',
      "",
      '{"broken": ',
      JSON.stringify({ long: "é".repeat(300), emoji: "🙂".repeat(50) }),
      JSON.stringify({ huge: "x".repeat(3_000_000) }),
      "[1, 2,   3]"
    ]
    const input = join(dir, `floor-in-${readBytes}.ndjson`)
    const output = join(dir, `floor-out-${readBytes}.ndjson`)
    writeFileSync(input, lines.join("\n"))
    const { stderr } = await floor(input, output, readBytes)
    expect(stderr).toBe("records 5 rejected 1\n")
    const parsed = lines.filter((l) => l !== "" && l !== '{"broken": ')
    expect(readFileSync(output, "utf8")).toBe(parsed.map((l) => `${JSON.stringify(JSON.parse(l))}\n`).join(""))
  })

  it("agrees with the generator on the mixed input's broken JSON", async () => {
    const input = join(dir, "floor-mixed.ndjson")
    const expected = writeInput(repoRoot, input, "mixed", 500)
    const { stderr } = await floor(input, join(dir, "floor-mixed-out.ndjson"))
    expect(stderr).toBe(`records 500 rejected ${expected.byRejectReason["InvalidJson"]}\n`)
  })
})
