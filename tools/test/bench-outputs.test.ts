import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FastCheck as fc } from "effect"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { canonicalScans, csvRecords, fhirBundles } from "../bench-outputs.js"
import { withSection } from "../bench-results.js"

const dir = mkdtempSync(join(tmpdir(), "scanbridge-bench-outputs-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let files = 0
const file = (text: string) => {
  const path = join(dir, `output-${files++}`)
  writeFileSync(path, text)
  return path
}

/** Block sizes that cut lines, fields and multi-byte characters, and one that holds the whole file. */
const BLOCKS = [1, 2, 3, 7, 64, 8 << 20]

const scan = (id: string) => JSON.stringify({ format: "scanbridge.scan/v1", source: { api: "platform", id }, note: "é ✓ 𝄞" })
const entry = (n: number) => ({
  fullUrl: `urn:uuid:00000000-0000-5000-8000-00000000000${n}`,
  resource: { resourceType: "Observation" },
  request: { method: "POST" }
})
const bundle = (over: Record<string, unknown> = {}) => JSON.stringify({ resourceType: "Bundle", type: "transaction", entry: [entry(1), entry(2)], ...over })

/** A CSV field as RFC 4180 writes it: quoted where it holds a quote, a comma or a line break. */
const csvField = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s)
const csv = (rows: ReadonlyArray<ReadonlyArray<string>>) => rows.map((row) => `${row.map(csvField).join(",")}\r\n`).join("")

describe("canonical NDJSON read back", () => {
  it.each(BLOCKS)("counts one scan a line, in blocks of %i bytes", (blockBytes) => {
    expect(canonicalScans(file(`${scan("a")}\n${scan("b")}\n${scan("c")}\n`), "out", blockBytes)).toBe(3)
    // A last line without its newline is a line still.
    expect(canonicalScans(file(`${scan("a")}\n${scan("b")}`), "out", blockBytes)).toBe(2)
  })

  it("refuses a line that is not a canonical scan, naming the line", () => {
    expect(() => canonicalScans(file(`${scan("a")}\n{"format":"platform entry"}\n`), "out")).toThrow(
      'out, line 2: format "platform entry", not scanbridge.scan/v1'
    )
    expect(() => canonicalScans(file(`${scan("a")}\n${scan("b").slice(0, -1)}\n`), "out")).toThrow("out, line 2: not JSON")
    expect(() => canonicalScans(file(`[${scan("a")}]\n`), "out")).toThrow("out, line 1: not a JSON object")
    expect(() => canonicalScans(file(`${scan("a")}\n\n`), "out")).toThrow("out, line 2: not JSON")
  })
})

describe("FHIR NDJSON read back", () => {
  it.each(BLOCKS)("counts one transaction Bundle a line, in blocks of %i bytes", (blockBytes) => {
    expect(fhirBundles(file(`${bundle()}\n${bundle()}\n`), "out", blockBytes)).toBe(2)
  })

  it.each([
    ["an Observation", bundle({ resourceType: "Observation" }), 'resourceType "Observation", type "transaction", not a transaction Bundle'],
    ["a batch", bundle({ type: "batch" }), 'resourceType "Bundle", type "batch", not a transaction Bundle'],
    ["no entries", bundle({ entry: [] }), "a Bundle without entries"],
    ["entries not a list", bundle({ entry: entry(1) }), "a Bundle without entries"],
    ["an entry without a resource", bundle({ entry: [entry(1), { fullUrl: entry(2).fullUrl, request: { method: "POST" } }] }), "entry[1] is not"],
    ["a full URL not urn:uuid", bundle({ entry: [{ ...entry(1), fullUrl: "Observation/1" }] }), "entry[0] is not"],
    ["an entry without a request", bundle({ entry: [{ ...entry(1), request: undefined }] }), "entry[0] is not"],
    ["an entry that is not an object", bundle({ entry: [null] }), "entry[0] is not"]
  ])("refuses %s on a line, naming the line", (_, line, message) => {
    expect(() => fhirBundles(file(`${bundle()}\n${line}\n`), "fhir out")).toThrow(`fhir out, line 2: ${message}`)
  })
})

describe("CSV read back", () => {
  it.each(BLOCKS)("counts the records after the header, a line break inside quotes not ending one, in blocks of %i bytes", (blockBytes) => {
    const text = csv([
      ["source_id", "notes"],
      ["a", 'two\nlines, "quoted"'],
      ["b", ""],
      ["c", '"\r\n"']
    ])
    expect(csvRecords(file(text), "out", blockBytes)).toBe(3)
  })

  it.prop(
    "counts the rows written, whatever the fields hold and wherever the blocks cut them",
    [
      fc.array(fc.array(fc.string({ unit: fc.constantFrom("a", ",", '"', "\n", "\r", "é") }), { minLength: 1, maxLength: 4 }), { maxLength: 8 }),
      fc.constantFrom(...BLOCKS)
    ],
    ([rows, blockBytes]) => {
      expect(csvRecords(file(csv([["header"], ...rows])), "out", blockBytes)).toBe(rows.length)
    }
  )

  it("refuses a quoted field never closed, and a file without even a header", () => {
    expect(() => csvRecords(file('id,notes\r\na,"open\r\nb,c\r\n'), "out")).toThrow("out: a quoted field is never closed")
    expect(() => csvRecords(file(""), "out")).toThrow("out: no header")
  })
})

describe("a section of bench/results.md written alone", () => {
  const results = [
    "# Benchmark results",
    "",
    "Written ...",
    "",
    "## Cold start (median of 7 runs)",
    "",
    "cold",
    "",
    "## Tables (3 rounds)",
    "",
    "old tables",
    "",
    "## Gateway (issue 32)",
    "",
    "gateway",
    ""
  ].join("\n")

  it("takes the place of the section under the same heading, whatever its parenthesis says, and leaves the others", () => {
    expect(withSection(results, ["## Tables (1 round)", "", "new tables", ""])).toBe(
      results.replace("## Tables (3 rounds)\n\nold tables", "## Tables (1 round)\n\nnew tables")
    )
  })

  it("takes the place of the last section, to the end", () => {
    expect(withSection(results, ["## Gateway (issue 32)", "", "new gateway"])).toBe(
      `${results.slice(0, results.indexOf("## Gateway"))}## Gateway (issue 32)\n\nnew gateway\n`
    )
  })

  it("comes after the last section where there is none of its heading, another's heading that begins the same left alone", () => {
    expect(withSection(results, ["## Tab (1 round)", "", "tab"])).toBe(`${results.trimEnd()}\n\n## Tab (1 round)\n\ntab\n`)
    expect(withSection(results, ["## Cold", "", "x"])).toBe(`${results.trimEnd()}\n\n## Cold\n\nx\n`)
  })
})
