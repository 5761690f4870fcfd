import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "@effect/vitest"
import {
  type CanonicalTarget,
  GENDER_CODES,
  MEASUREMENTS,
  type MeasurementName,
  Proto3,
  STATS,
  type Spelling,
  makeDialect,
  makeScan,
  snakeCase
} from "../src/index.js"
import { EncodeWalk, emptyFrontView, emptyRightView, genderOfCode, postureNames, sourceIdFor, writePosture } from "../src/adapter-kit.js"

// An integrator's made-up dialect: SCREAMING_SNAKE names numbered from 100, no body fat.
const screaming = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()
const measurements = Object.fromEntries(
  MEASUREMENTS.map((e, i) => [e.name, e.kind === "depth" ? null : { name: screaming(e.name), number: 100 + i }])
) as Record<MeasurementName, Spelling | null>
const stats = Object.fromEntries(
  STATS.map((s, i) => [s.target, s.target === "composition.bodyFatPercent" ? null : { name: `STAT_${i}`, number: 200 + i }])
) as Record<CanonicalTarget, Spelling | null>
const dialect = makeDialect({ api: "custom", measurements, stats })

describe("makeDialect", () => {
  it("lists what the dialect has, in catalogue order", () => {
    expect(dialect.measurementList.map((m) => m.name)).toEqual(MEASUREMENTS.filter((e) => e.kind !== "depth").map((e) => e.name))
    expect(dialect.statList.map((s) => s.target)).toEqual(STATS.map((s) => s.target).filter((t) => t !== "composition.bodyFatPercent"))
  })

  it.prop("looks every spelling up by name and number, both ways", [fc.constantFrom(...MEASUREMENTS.filter((e) => e.kind !== "depth"))], ([e]) => {
    const spelling = dialect.measurements[e.name]!
    expect(dialect.measurementBySpelling(spelling.name)).toEqual({ name: e.name, spelling })
    expect(dialect.measurementByNumber(spelling.number!)).toEqual({ name: e.name, spelling })
    expect(dialect.suggest(e.name)).toBe(spelling)
    expect(dialect.suggest(spelling.name.toLowerCase())).toBe(spelling)
  })

  it("finds no measurement the dialect lacks, and no stat by a measurement's name", () => {
    expect(dialect.measurementBySpelling("BELLY_WAIST_DEPTH")).toBeUndefined()
    expect(dialect.suggest("bellyWaistDepth")).toBeUndefined()
    expect(dialect.statBySpelling("WAIST_GIRTH")).toBeUndefined()
    expect(dialect.statBySpelling("STAT_3")?.target).toBe("subject.age")
    expect(dialect.statByNumber(204)?.target).toBe("subject.gender")
    expect(dialect.measurementBySpelling("__proto__")).toBeUndefined()
  })

  it("refuses a spelling given to two names", () => {
    const twice = { ...measurements, neckGirth: { name: "WAIST_GIRTH" } }
    expect(() => makeDialect({ api: "custom", measurements: twice, stats })).toThrow("dialect custom: duplicate spelling WAIST_GIRTH")
    const clash = { ...stats, "subject.age": { name: "WAIST_GIRTH" } }
    expect(() => makeDialect({ api: "custom", measurements, stats: clash })).toThrow("dialect custom: WAIST_GIRTH spells a measurement and a stat")
  })
})

describe("codec helpers", () => {
  it("reads the gender codes back", () => {
    for (const [gender, code] of Object.entries(GENDER_CODES)) expect(genderOfCode(code)).toBe(gender)
    for (const n of [0, 3, -1, 1.5]) expect(genderOfCode(n)).toBeUndefined()
  })

  const scan = (api: string, id: string | null) => Either.getOrThrow(makeScan({ source: { api: api as "platform", id }, status: "success" }))
  const target = { api: "platform", field: "id", notA: "a platform scan id" } as const

  it("keeps a scan's own id and derives one, noted, from another API's", () => {
    const own = new EncodeWalk("f")
    expect(sourceIdFor(own, scan("platform", "scan_1"), target)).toBe("scan_1")
    expect(own.notes).toEqual([])
    const other = new EncodeWalk("f")
    expect(sourceIdFor(other, scan("session", null), target)).toBe("session:unknown")
    expect(other.notes.map((n) => [n.kind, n.path, n.detail])).toEqual([
      ["converted", "source.id", "id session:unknown derived from the session source: not a platform scan id"]
    ])
  })

  it("fails, or gives null, for a scan of its own without an id", () => {
    const w = new EncodeWalk("f")
    expect(sourceIdFor(w, scan("platform", null), target)).toBeNull()
    expect(sourceIdFor(w, scan("platform", ""), target)).toBe("")
    expect(() => sourceIdFor(w, scan("platform", ""), { ...target, required: "needs its id", emptyIsNone: true })).toThrow()
    expect(() => sourceIdFor(w, scan("platform", null), { ...target, required: "needs its id" })).toThrow()
  })

  it("drops with a note only what is present", () => {
    const w = new EncodeWalk("f")
    w.dropIf(false, ["a"], "not there")
    w.dropIf(true, ["b"], "there")
    expect(w.notes.map((n) => [n.kind, n.path, n.detail])).toEqual([["dropped", "b", "there"]])
  })

  it("writes posture in a dialect's names, what is known only, and reads the names back", () => {
    const names = postureNames({ front: { ear: "E", shoulder: "S", topHip: "T", foot: "F" }, right: { bodyLine: "B", backWaistLine: "W" } })
    const line = (n: number) => Array.from({ length: n }, (_, i) => ({ x: i, y: i }))
    const written = writePosture(names, "deg", {
      front: { angles: { ear: 1, shoulder: null, topHip: 2, foot: null }, lines: { ear: line(2), shoulder: null, topHip: null, foot: null } },
      right: null
    })
    expect(written).toEqual({
      front: {
        angles: [
          { name: "E", unit: "deg", value: 1 },
          { name: "T", unit: "deg", value: 2 }
        ],
        lines: [{ name: "E", points: line(2) }]
      },
      right: null
    })
    expect([names.front("T"), names.right("W"), names.front("W"), names.right("topHip")]).toEqual(["topHip", "backWaistLine", undefined, undefined])
  })

  it("starts each posture view with every part null, a fresh object each time", () => {
    const front = emptyFrontView()
    expect(front).toEqual({ angles: { ear: null, shoulder: null, topHip: null, foot: null }, lines: { ear: null, shoulder: null, topHip: null, foot: null } })
    front.angles.ear = 1
    expect(emptyFrontView().angles.ear).toBeNull()
    expect(emptyRightView()).toEqual({ angles: { bodyLine: null, backWaistLine: null }, lines: { bodyLine: null, backWaistLine: null } })
  })
})

describe("snakeCase", () => {
  it("spells a camelCase name as protobuf's ToJsonName reads it back, as the proto3 reader's snake_case keys rely on", () => {
    expect(snakeCase("backNeckPointToWristR")).toBe("back_neck_point_to_wrist_r")
    expect(snakeCase("include3dAvatarInResults")).toBe("include3d_avatar_in_results")
    for (const { name } of MEASUREMENTS) {
      expect(snakeCase(name)).toMatch(/^[a-z][a-z0-9_]*$/)
      expect(Proto3.toJsonName(snakeCase(name))).toBe(name)
    }
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,24}$/), (name) => {
        expect(snakeCase(name)).not.toMatch(/[A-Z]/)
        expect(Proto3.toJsonName(snakeCase(name))).toBe(name)
      }),
      { seed: 346, numRuns: 500 }
    )
  })
})
