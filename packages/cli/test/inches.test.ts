/**
 * The example export rewritten in inches, as an integrator's store might hold it, migrates to the
 * same millimetres as the original: with the unit stated where the format states one (platform
 * items, session and fit units), and with --length-unit in for the estimation API, which states none.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Either } from "effect"
import { normalizeEither } from "@scanbridge/migrate"
import { repoRoot, run } from "./harness.js"

const EXPORT = join(repoRoot, "examples", "export")
const MM_PER_INCH = 25.4
type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }

// Inches to 4 decimals where the format holds fractions (0.0013 mm at most); whole inches where it
// holds int64 strings (the session API), 12.7 mm at most.
const inches = (mm: number, whole: boolean) => (whole ? Math.round(mm / MM_PER_INCH) : Math.round((mm / MM_PER_INCH) * 1e4) / 1e4)

/** Every `{unit: mm|MILLIMETERS, value}` restated in inches, with the unit spelt as the format would. */
const statedInInches = (json: Json): Json => {
  if (Array.isArray(json)) return json.map(statedInInches)
  if (json === null || typeof json !== "object") return json
  const o = json as { readonly [k: string]: Json }
  const out: Record<string, Json> = {}
  for (const [k, v] of Object.entries(o)) out[k] = statedInInches(v)
  if (o["unit"] === "mm" && typeof o["value"] === "number") return { ...out, unit: "in", value: inches(o["value"], false) }
  if (o["unit"] === "MILLIMETERS" && typeof o["value"] === "string") {
    // The session API's values are int64 strings; the fit API's take a fraction.
    const whole = "measurementType" in o || "measurement_type" in o
    return { ...out, unit: "INCHES", value: String(inches(Number(o["value"]), whole)) }
  }
  return out
}

/**
 * An estimation record's `result.measurement` in inches: the API states no unit. Each item's
 * values are in the unit its evidence shows (some of the examples are centimetres), read first.
 */
const estimationInInches = (json: Json, mmPerRaw = 1): Json => {
  if (Array.isArray(json)) return json.map((j) => estimationInInches(j, mmPerRaw))
  if (json === null || typeof json !== "object") return json
  const o = json as { readonly [k: string]: Json }
  if ("estimation_id" in o) {
    const scans = normalizeEither(o)
    if (Either.isLeft(scans)) throw new Error(scans.left.message)
    mmPerRaw = scans.right[0]!.notes.some((n) => n.detail.startsWith("result.measurement read as centimetres")) ? 10 : 1
  }
  const out: Record<string, Json> = {}
  for (const [k, v] of Object.entries(o)) {
    out[k] =
      k === "measurement" && v !== null && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).map(([name, raw]) => [name, typeof raw === "number" ? inches(raw * mmPerRaw, false) : raw]))
        : estimationInInches(v, mmPerRaw)
  }
  return out
}

const rewrite = async (from: string, to: string, f: (json: Json) => Json) => {
  const text = await readFile(from, "utf8")
  const next = from.endsWith(".json")
    ? `${JSON.stringify(f(JSON.parse(text) as Json), null, 2)}\n`
    : text
        .split("\n")
        .map((line) => (line.trim() === "" ? line : JSON.stringify(f(JSON.parse(line) as Json))))
        .join("\n")
  await writeFile(to, next)
}

interface Scan {
  readonly source: { readonly api: string; readonly id: string }
  readonly subject: { readonly heightMm: number | null }
  readonly measurementsMm: Readonly<Record<string, number>>
}
const scansOf = async (file: string): Promise<ReadonlyArray<Scan>> =>
  (await readFile(file, "utf8"))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Scan)

let tmp: string
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "scanbridge-inches-"))
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe("the example export in inches", () => {
  it("migrates to the same millimetres as the original, the unit stated or given", { timeout: 120_000 }, async () => {
    const stated = join(tmp, "stated")
    const given = join(tmp, "given")
    await cp(EXPORT, stated, { recursive: true })
    await rm(join(stated, "estimation"), { recursive: true })
    for (const dir of ["platform", "session", "fit"]) {
      for (const file of await readdir(join(stated, dir))) await rewrite(join(EXPORT, dir, file), join(stated, dir, file), statedInInches)
    }
    await cp(join(EXPORT, "estimation"), given, { recursive: true })
    for (const file of await readdir(given)) await rewrite(join(EXPORT, "estimation", file), join(given, file), estimationInInches)

    const original = await run("migrate", EXPORT, "--out", join(tmp, "original.ndjson"), "--report", join(tmp, "original.json"), "--quiet")
    const fromStated = await run("migrate", stated, "--out", join(tmp, "stated.ndjson"), "--report", join(tmp, "stated.json"), "--quiet")
    const fromGiven = await run("migrate", given, "--length-unit", "in", "--out", join(tmp, "given.ndjson"), "--quiet")
    expect([original.code, fromStated.code, fromGiven.code]).toEqual([0, 0, 0])

    const before = await scansOf(join(tmp, "original.ndjson"))
    const after = [...(await scansOf(join(tmp, "stated.ndjson"))), ...(await scansOf(join(tmp, "given.ndjson")))]
    // A scan's source and its place among the scans of that source (a read response may hold several of one id).
    const keyed = (scans: ReadonlyArray<Scan>) => {
      const seen = new Map<string, number>()
      return scans.map((s) => {
        const id = `${s.source.api}/${s.source.id}`
        const n = seen.get(id) ?? 0
        seen.set(id, n + 1)
        return [`${id}#${n}`, s] as const
      })
    }
    const byKey = new Map(keyed(after))
    expect(after.length).toBe(before.length)
    let lengths = 0
    for (const [key, scan] of keyed(before)) {
      const read = byKey.get(key)
      expect(read, key).toBeDefined()
      // Whole inches (the session API's int64) are within half an inch; the rest within 0.01 mm.
      const within = scan.source.api === "session" ? MM_PER_INCH / 2 : 0.01
      expect(Object.keys(read!.measurementsMm)).toEqual(Object.keys(scan.measurementsMm))
      for (const [name, mm] of Object.entries(scan.measurementsMm)) {
        expect(Math.abs(read!.measurementsMm[name]! - mm), `${key} ${name}`).toBeLessThanOrEqual(within)
        lengths++
      }
      if (scan.subject.heightMm !== null) expect(Math.abs(read!.subject.heightMm! - scan.subject.heightMm)).toBeLessThanOrEqual(within)
    }
    expect(lengths).toBeGreaterThan(300)
    // The same records rejected, for the same reasons: only the broken ones.
    const reports = [JSON.parse(await readFile(join(tmp, "original.json"), "utf8")), JSON.parse(await readFile(join(tmp, "stated.json"), "utf8"))] as const
    expect(reports[1].rejected).toBe(reports[0].rejected)
  })
})
