import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { MAX_NOTES, type Path, type Scan } from "@scanbridge/model"
import { OMITTED_PATH } from "@scanbridge/model/internal"
import { normalizeEither } from "../src/index.js"
import { objectPaths, samples } from "./records.js"

const scansOf = (record: unknown): ReadonlyArray<Scan> => Either.getOrThrowWith(normalizeEither(record), (e) => new Error(e.message))

/** How many notes a scan says it holds: those it kept, and those its last note counts as left out. */
const total = (scan: Scan): number => {
  const last = scan.notes[scan.notes.length - 1]
  const omitted = last?.path === OMITTED_PATH ? /^(\d+) more note/.exec(last.detail) : null
  return omitted === null ? scan.notes.length : scan.notes.length - 1 + Number(omitted[1])
}

const withUnknownKeys = (record: unknown, at: Path, count: number): unknown => {
  if (at.length > 0) {
    const [head, ...rest] = at
    const copy = (Array.isArray(record) ? [...record] : { ...(record as object) }) as Record<PropertyKey, unknown>
    copy[head!] = withUnknownKeys(copy[head!], rest, count)
    return copy
  }
  const copy: Record<string, unknown> = { ...(record as object) }
  for (let i = 0; i < count; i++) copy[`x-unknown-${i}`] = i
  return copy
}

/**
 * Every adapter's sample records, each with the shallowest object where an unknown key is noted
 * on each of its scans (a key beside an envelope's one key would make it another shape). The
 * canonical form refuses unknown keys rather than noting them.
 */
const targets = samples.flatMap((sample) => {
  const base = scansOf(sample)
  const at = objectPaths(sample).find((path) => {
    const probed = normalizeEither(withUnknownKeys(sample, path, 1))
    return Either.isRight(probed) && probed.right.length === base.length && probed.right.every((s, i) => s.notes.length === base[i]!.notes.length + 1)
  })
  return at === undefined ? [] : [{ sample, at, base }]
})

describe("a record's notes", () => {
  it("can be probed in a sample of every adapter", () => {
    expect(new Set(targets.map((t) => scansOf(t.sample)[0]!.source.api))).toEqual(new Set(["platform", "session", "estimation", "fit"]))
  })

  it.prop(
    "are bounded, whatever the record's unknown keys, by every adapter: kept plus counted is what the record has to say",
    [fc.constantFrom(...targets), fc.nat({ max: 3 * MAX_NOTES })],
    ([{ at, base, sample }, count]) => {
      const scans = scansOf(withUnknownKeys(sample, at, count))
      expect(scans).toHaveLength(base.length)
      scans.forEach((scan, i) => {
        expect(scan.notes.length).toBeLessThanOrEqual(MAX_NOTES + 1)
        // Each scan of a record notes the record's own unknown keys.
        expect(total(scan)).toBe(base[i]!.notes.length + count)
      })
    },
    { fastCheck: { numRuns: 60 } }
  )
})
