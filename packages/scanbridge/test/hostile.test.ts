/**
 * No record can stop a run: whatever a record's depth, size or keys, it ends migrated or
 * rejected with a typed error, and the plain API throws nothing but ScanbridgeError.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { DecodeError, MAX_ISSUES } from "@scanbridge/model"
import { defaultNormalizer, normalizeEither, textOf } from "@scanbridge/migrate"
import { migrateChunk } from "../../migrate/src/internal/pipeline.js"
import type { InputRecord } from "../../migrate/src/internal/read.js"
// The records of every format and their mutations, as the migration's own tests use them.
import { mutate, mutatedSampleOf, replacements, samples } from "../../migrate/test/records.js"
import { turn } from "../../migrate/test/turns.js"
import { ScanbridgeError, detectFormat, encoders, normalize } from "../src/index.js"

const DEEP = 100_000
const deepArray = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`
const HOSTILE_KEYS = ["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty"] as const
const TAGS = ["InvalidJson", "UnknownFormatError", "DecodeError", "EncodeError"]

const canonical = migrateChunk(defaultNormalizer, { to: "canonical" })
const valid = JSON.stringify(samples[0])

/** Migrates records as one chunk, checks that each is migrated or rejected with a typed tag and that the counts reconcile. */
const migrateAll = (raws: ReadonlyArray<string>, run = canonical) => {
  const records: Array<InputRecord> = raws.map((raw, i) => ({ file: "hostile.ndjson", line: i + 1, raw }))
  const migrated = run({ _tag: "Records", records, inputBytes: 0 })
  const chunk = { ...migrated, out: textOf(migrated.out), rejected: textOf(migrated.rejected) }
  const rejects =
    chunk.rejected === ""
      ? []
      : chunk.rejected
          .trimEnd()
          .split("\n")
          .map((l) => JSON.parse(l) as { line: number; error: { tag: string; message: string } })
  expect(chunk.tally.records).toBe(raws.length)
  expect(chunk.tally.migrated + rejects.length).toBe(chunk.tally.records)
  for (const r of rejects) expect(TAGS).toContain(r.error.tag)
  return { chunk, rejects }
}

/** Runs f and returns what it threw, or undefined. */
const thrown = (f: () => unknown): unknown => {
  try {
    f()
    return undefined
  } catch (e) {
    return e
  }
}

const PLAIN: ReadonlyArray<readonly [string, (json: unknown) => unknown]> = [
  ["normalize", normalize],
  ["detectFormat", detectFormat],
  ...Object.entries(encoders)
]

/** Every plain function on `json` returns or throws a ScanbridgeError, nothing else. */
const expectPlainTotal = (json: unknown) => {
  for (const [name, f] of PLAIN) {
    const e = thrown(() => f(json))
    if (e !== undefined) expect(e, `${name} threw ${String(e)}`).toBeInstanceOf(ScanbridgeError)
  }
}

// A valid record of each format with `value` put in at the first key, or under a new key.
const nestedInto = (value: string): ReadonlyArray<string> =>
  samples.flatMap((sample) => {
    const text = JSON.stringify(sample)
    const firstKey = Object.keys(sample as object)[0]!
    return [`{"zz":${value},${text.slice(1)}`, text.replace(`{${JSON.stringify(firstKey)}:`, `{${JSON.stringify(firstKey)}:${value},"was":`)]
  })

describe("a hostile record is rejected, and the rest of its chunk migrates", () => {
  it("a record nested 100,000 deep, as arrays or as objects, alone or inside a valid record of any format", async () => {
    for (const deep of [deepArray(DEEP), deepObject(DEEP)]) {
      const raws = [deep, `{"results":${deep}}`, `{"source":"platform","payload":${deep}}`, ...nestedInto(deep)]
      for (const raw of raws) {
        await turn()
        const { chunk, rejects } = migrateAll([raw, valid])
        expect(rejects.map((r) => r.line)).not.toContain(2)
        // Migrated only where the deep value was under a key the format has no place for:
        // dropped with a note, never copied into the output.
        for (const line of chunk.out.split("\n")) expect(line.length).toBeLessThan(DEEP)
        expectPlainTotal(JSON.parse(raw))
      }
    }
  }, 60_000)

  it("a 2 MB list page of wrong items: a DecodeError that lists at most 20 issues and counts the others", () => {
    const items = 1_000_000
    const page = `{"results":[${"1,".repeat(items - 1)}1]}`
    const { rejects } = migrateAll([page, valid])
    expect(rejects).toHaveLength(1)
    expect(rejects[0]!.error.tag).toBe("DecodeError")
    expect(rejects[0]!.error.message).toContain(`(and ${items - 1} more`)
    const error = Either.getLeft(normalizeEither(JSON.parse(page))).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
    expect(error).toBeInstanceOf(DecodeError)
    const { issues, omitted } = error as DecodeError
    expect(issues.length).toBeLessThanOrEqual(MAX_ISSUES)
    expect(issues.length + omitted).toBe(items)
    expect(error.message.length).toBeLessThan(1_000)
  }, 60_000)

  it("keys named __proto__, constructor, toString, valueOf or hasOwnProperty, at any level of a record of any format", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...samples),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.constantFrom(...HOSTILE_KEYS),
        replacements,
        (sample, path, key, value) => {
          const json = mutate(sample, path, value, key)
          const raw = JSON.stringify(json)
          migrateAll([raw, valid])
          expectPlainTotal(JSON.parse(raw))
        }
      ),
      { numRuns: 1_000 }
    )
    // A key whose value is no function, where a preview would call it (String(value), `${value}`).
    for (const key of HOSTILE_KEYS) {
      const raw = `{${JSON.stringify(key)}:1,"a":${deepArray(DEEP)}}`
      expect(migrateAll([raw]).rejects).toHaveLength(1)
      expectPlainTotal(JSON.parse(raw))
    }
  }, 60_000)

  it("mutated valid records of every format, migrated to each target: every one migrated or rejected with a typed tag, and the counts reconcile", () => {
    const targets = [...defaultNormalizer.encoders.keys()].map((to) => migrateChunk(defaultNormalizer, { to }))
    // Values a record can hold: any JSON, and the hostile ones. A deep value goes into the
    // record's text in place of a marker, so fast-check never holds it (it prints and compares
    // values recursively).
    const DEEP_MARKER = "\u0000deep"
    const values = fc.oneof(replacements, fc.constantFrom<unknown>(DEEP_MARKER, { toString: 1 }, { valueOf: {} }, { results: [] }))
    // 10,000 deep: past what recursion survives, and cheap enough to parse a few hundred times.
    const deepText = `[${deepObject(10_000)},${deepArray(10_000)}]`
    fc.assert(
      fc.property(fc.array(mutatedSampleOf(values), { minLength: 1, maxLength: 8 }), fc.constantFrom(...targets), (records, run) => {
        const raws = records.map((r) => (JSON.stringify(r) ?? "null").replaceAll(JSON.stringify(DEEP_MARKER), deepText))
        migrateAll(raws, run)
        for (const raw of raws) expectPlainTotal(JSON.parse(raw))
      }),
      { numRuns: 300 }
    )
  }, 60_000)
})

describe("the plain API throws only ScanbridgeError", () => {
  it("on records that hold no scan, or are not JSON objects at all", () => {
    for (const json of [{ results: [] }, undefined, null, 1, "x", [], {}, { toString: 1 }, { valueOf: {} }]) expectPlainTotal(json)
  })

  it("called with little stack left, at many depths of a deep recursion", () => {
    // How deep this function can recurse here; then call the plain API with some of that stack
    // left, so that it runs out at every point of its work on a 3,000-deep record.
    let depth = 0
    const down = (target: number, f: () => void): void => {
      depth++
      if (depth >= target) return f()
      down(target, f)
    }
    let deepest = 0
    try {
      down(Number.POSITIVE_INFINITY, () => undefined)
    } catch {
      deepest = depth
    }
    expect(deepest).toBeGreaterThan(1_000)
    const records = [JSON.parse(`{"results":${deepArray(3_000)}}`), JSON.parse(`{"zz":${deepArray(3_000)},${JSON.stringify(samples[0]).slice(1)}`)]
    const errors: Array<unknown> = []
    let plain: (json: unknown) => unknown = () => undefined
    let input: unknown
    // One function for every depth, called once here first: V8 compiles a function on its first
    // call, and compiling one near the stack's end fails in the caller, not in the plain API.
    const callPlainApi = () => {
      try {
        plain(input)
      } catch (e) {
        errors.push(e)
      }
    }
    for (const json of records) for (const [, f] of PLAIN) (plain = f), (input = json), callPlainApi()
    errors.length = 0
    for (let margin = 40; margin < Math.min(deepest, 4_000); margin += 13) {
      for (const json of records) {
        for (const [, f] of PLAIN) {
          depth = 0
          plain = f
          input = json
          down(deepest - margin, callPlainApi)
        }
      }
    }
    // The one overflow no callee can catch is in the call itself (its first frame, or V8 tiering
    // it up there): the error's top frame is then this test's own.
    const inTheCall = (e: unknown) => e instanceof RangeError && (e.stack ?? "").split("\n")[1]?.includes("callPlainApi") === true
    const escaped = errors.filter((e) => !(e instanceof ScanbridgeError) && !inTheCall(e))
    expect(escaped.map(String).slice(0, 3)).toEqual([])
    expect(errors.filter((e) => e instanceof ScanbridgeError).length).toBeGreaterThan(errors.length / 2)
  }, 60_000)
})
