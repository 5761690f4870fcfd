import { FastCheck as fc } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { HUMAN_RANGES, MEASUREMENT_NAMES, type MeasurementName, PROPORTIONS } from "@scanbridge/model"
import { emptyMeasurementValues, measurementBit } from "@scanbridge/model/adapter"
import {
  BODY_FAT_CANDIDATES,
  BODY_FAT_RANGE,
  type Candidate,
  type Clue,
  LENGTH_CANDIDATES,
  MUSCLE_CANDIDATES,
  bodyFatClue,
  compileLengthSurvey,
  infer,
  inferBodyFat,
  inferMuscleMass,
  lengthClue,
  lengthTarget,
  muscleClue,
  where
} from "../src/internal/inference.js"
import { Wire } from "../src/index.js"

// --- Helpers ------------------------------------------------------------------------------

const RUNS = { fastCheck: { numRuns: 300 } }

const PATH = ["estimation", "result", "measurement"] as const

/** A clue with a hand-made range, for `infer` on its own (other fields as lengthClue makes them). */
const clue = (label: string, raw: number, min: number, max: number): Clue => ({
  ...lengthClue([...PATH, label], label, "waistGirth", raw, 1700),
  range: { min, max }
})

/** Whether `c` reads `k.raw` inside its range: the rule infer applies, written out again. */
const fitsIn = (k: Clue, factor: number): boolean => k.raw * factor >= k.range.min && k.raw * factor <= k.range.max

// Only mm fits: 700 mm, while 7000 is past the range.
const MM_ONLY = clue("waist_girth", 700, 300, 1800)
// Only cm fits: 70 as mm is under the range, 700 mm inside it.
const CM_ONLY = clue("hip_girth", 70, 300, 1800)
// Both fit: 500 mm and 5000 mm.
const BOTH = clue("bust_girth", 500, 100, 10_000)
// Neither fits: 20 mm and 200 mm are under the range.
const NEITHER = clue("neck_girth", 20, 300, 1800)

// --- infer ----------------------------------------------------------------------------------

describe("infer", () => {
  it("decides the one candidate every clue allows, and names a decisive clue as evidence", () => {
    const result = infer(LENGTH_CANDIDATES, [BOTH, MM_ONLY])
    expect(result._tag).toBe("Decided")
    if (result._tag !== "Decided") return
    expect(result.unit).toBe("mm")
    // BOTH comes first but decides nothing; the example is the clue that ruled cm out.
    expect(result.evidence).toContain("1 of 2")
    expect(result.evidence).toContain("waist_girth 700")
    expect(result.evidence).toContain("millimetres")
    expect(result.evidence).not.toContain("bust_girth")
  })

  it("decides centimetres when the evidence rules millimetres out", () => {
    const result = infer(LENGTH_CANDIDATES, [CM_ONLY, BOTH])
    expect(result).toMatchObject({ _tag: "Decided", unit: "cm" })
    if (result._tag === "Decided") {
      expect(result.evidence).toContain("hip_girth 70")
      expect(result.evidence).toContain("centimetres")
      expect(result.evidence).not.toContain("bust_girth")
    }
  })

  it("counts every decisive clue in the evidence", () => {
    const second = clue("neck_girth", 380, 150, 900)
    const result = infer(LENGTH_CANDIDATES, [MM_ONLY, BOTH, second])
    expect(result._tag).toBe("Decided")
    if (result._tag === "Decided") {
      expect(result.evidence).toContain("2 of 3")
      expect(result.evidence).toContain("waist_girth 700")
    }
  })

  it("reports two clues that allow different candidates as a contradiction naming both", () => {
    const result = infer(LENGTH_CANDIDATES, [MM_ONLY, CM_ONLY])
    expect(result._tag).toBe("Contradiction")
    if (result._tag !== "Contradiction") return
    // The clue that emptied the field is the one reported; the explanation names the other.
    expect(result.clue).toBe(CM_ONLY)
    expect(result.explanation).toContain("contradicts itself")
    expect(result.explanation).toContain("hip_girth 70")
    expect(result.explanation).toContain("waist_girth 700")
    expect(result.explanation).toContain("fits only centimetres")
  })

  it("names, in a contradiction, the first clue that ruled the surviving candidate out", () => {
    const another = clue("thigh_girth_r", 60, 200, 1200)
    const result = infer(LENGTH_CANDIDATES, [CM_ONLY, another, MM_ONLY])
    expect(result._tag).toBe("Contradiction")
    if (result._tag !== "Contradiction") return
    expect(result.clue).toBe(MM_ONLY)
    expect(result.explanation).toContain("waist_girth 700")
    expect(result.explanation).toContain("but hip_girth 70")
    expect(result.explanation).not.toContain("thigh_girth_r")
  })

  it("reports a clue that fits no candidate, even after others decided", () => {
    const alone = infer(LENGTH_CANDIDATES, [NEITHER])
    expect(alone).toMatchObject({ _tag: "Contradiction", clue: NEITHER })
    if (alone._tag === "Contradiction") {
      expect(alone.explanation).toContain("neck_girth 20")
      expect(alone.explanation).toContain("none of millimetres, centimetres")
    }
    const after = infer(LENGTH_CANDIDATES, [MM_ONLY, NEITHER])
    expect(after._tag).toBe("Contradiction")
    if (after._tag === "Contradiction") expect(after.clue).toBe(NEITHER)
  })

  it("is undecided when every value fits every candidate", () => {
    const result = infer(LENGTH_CANDIDATES, [BOTH, clue("hip_girth", 300, 100, 10_000)])
    expect(result).toMatchObject({ _tag: "Undecided", explanation: "every value fits millimetres and centimetres alike" })
  })

  it("narrows three candidates clue by clue", () => {
    const three: ReadonlyArray<Candidate<"a" | "b" | "c">> = [
      { unit: "a", factor: 1, label: "A" },
      { unit: "b", factor: 10, label: "B" },
      { unit: "c", factor: 100, label: "C" }
    ]
    // 5: a=5, b=50, c=500 in 40..600 -> b, c; then 8: a=8, b=80, c=800 in 40..600 -> b.
    const result = infer(three, [clue("x", 5, 40, 600), clue("y", 8, 40, 600)])
    expect(result._tag).toBe("Decided")
    if (result._tag === "Decided") expect(result.unit).toBe("b")
    expect(infer(three, [clue("x", 5, 40, 600)])).toEqual({ _tag: "Undecided", explanation: "every value fits B and C alike", values: [5] })
  })

  it.prop(
    "agrees with brute force: Decided iff exactly one candidate fits all clues, Undecided iff more, Contradiction iff none",
    [
      fc.array(
        fc.record({
          raw: fc.double({ min: 0, max: 1e5, noNaN: true }),
          min: fc.double({ min: 0, max: 1e5, noNaN: true }),
          span: fc.double({ min: 0, max: 1e5, noNaN: true })
        }),
        { minLength: 1, maxLength: 6 }
      )
    ],
    ([raw]) => {
      const clues = raw.map((r, i) => clue(`k${i}`, r.raw, r.min, r.min + r.span))
      const survivors = LENGTH_CANDIDATES.filter((c) => clues.every((k) => fitsIn(k, c.factor)))
      const result = infer(LENGTH_CANDIDATES, clues)
      if (survivors.length === 0) expect(result._tag).toBe("Contradiction")
      else if (survivors.length > 1) expect(result._tag).toBe("Undecided")
      else expect(result).toMatchObject({ _tag: "Decided", unit: survivors[0]!.unit })
      if (result._tag === "Contradiction") expect(clues).toContain(result.clue)
    },
    RUNS
  )
})

// --- Clues ----------------------------------------------------------------------------------

describe("lengthClue", () => {
  it("spans PROPORTIONS / 2.5 to PROPORTIONS x 2.5 of the stature", () => {
    const k = lengthClue([...PATH, "waist_girth"], "waist_girth", "waistGirth", 701, 1640)
    expect(k.path).toEqual([...PATH, "waist_girth"])
    expect(k.label).toBe("waist_girth")
    expect(k.raw).toBe(701)
    expect(k.range.min).toBeCloseTo((0.45 / 2.5) * 1640, 9)
    expect(k.range.max).toBeCloseTo(0.45 * 2.5 * 1640, 9)
    expect(k.plausible).toBe("295-1845 mm: 0.18-1.125 x stature 1640 mm")
    expect(where(k)).toBe("estimation.result.measurement.waist_girth")
  })

  it("without a stature, spans every human stature (500-2500 mm)", () => {
    const k = lengthClue([...PATH, "waist_girth"], "waist_girth", "waistGirth", 701, null)
    expect(k.range.min).toBeCloseTo((0.45 / 2.5) * HUMAN_RANGES.heightMm.min, 9)
    expect(k.range.max).toBeCloseTo(0.45 * 2.5 * HUMAN_RANGES.heightMm.max, 9)
    expect(k.plausible).toBe("90-2813 mm: any stature 500-2500 mm")
  })

  it("without a stature a value can fit both units (hence Undecided exists)", () => {
    // A small child's waist of 225 mm: as mm and as 2250 mm, both within 90-2813 mm.
    const k = lengthClue([...PATH, "waist_girth"], "waist_girth", "waistGirth", 225, null)
    expect(fitsIn(k, 1) && fitsIn(k, 10)).toBe(true)
    expect(infer(LENGTH_CANDIDATES, [k])._tag).toBe("Undecided")
  })

  it.prop(
    "with any stature 500-2500 mm, no single length clue fits both millimetres and centimetres",
    [
      fc.constantFrom(...MEASUREMENT_NAMES),
      fc.double({ min: HUMAN_RANGES.heightMm.min, max: HUMAN_RANGES.heightMm.max, noNaN: true }),
      fc.oneof(
        fc.double({ min: Number.MIN_VALUE, max: 1e7, noNaN: true }),
        // Concentrate near the band of a measurement as well.
        fc.double({ min: 1, max: 6000, noNaN: true })
      )
    ],
    ([name, stature, raw]) => {
      const k = lengthClue([...PATH, name], name, name, raw, stature)
      expect(fitsIn(k, 1) && fitsIn(k, 10)).toBe(false)
      expect(infer(LENGTH_CANDIDATES, [k])._tag).not.toBe("Undecided")
    },
    RUNS
  )

  it.prop(
    "the band holds PROPORTIONS x stature and is exactly a factor 6.25 wide",
    [fc.constantFrom(...MEASUREMENT_NAMES), fc.integer({ min: HUMAN_RANGES.heightMm.min, max: HUMAN_RANGES.heightMm.max })],
    ([name, stature]: [MeasurementName, number]) => {
      const k = lengthClue([], name, name, 1, stature)
      const typical = PROPORTIONS[name] * stature
      expect(k.range.min).toBeLessThan(typical)
      expect(k.range.max).toBeGreaterThan(typical)
      expect(k.range.max / k.range.min).toBeCloseTo(6.25, 9)
    },
    RUNS
  )
})

describe("bodyFatClue and muscleClue", () => {
  it("body fat is plausible from 2 to 70 percent", () => {
    const path = ["estimation", "result", "body_composition", "body_fat_percentage"]
    const k = bodyFatClue(path, 24)
    expect(k).toMatchObject({ path, label: "body_fat_percentage", raw: 24, range: BODY_FAT_RANGE })
    expect(BODY_FAT_RANGE).toEqual({ min: 2, max: 70 })
    expect(infer(BODY_FAT_CANDIDATES, [k])).toMatchObject({ _tag: "Decided", unit: "percent" })
    expect(infer(BODY_FAT_CANDIDATES, [bodyFatClue(path, 241_000)])).toMatchObject({ _tag: "Decided", unit: "e4" })
    expect(infer(BODY_FAT_CANDIDATES, [bodyFatClue(path, 1)])._tag).toBe("Contradiction")
    expect(infer(BODY_FAT_CANDIDATES, [bodyFatClue(path, 71)])._tag).toBe("Contradiction")
    expect(infer(BODY_FAT_CANDIDATES, [bodyFatClue(path, 2)])).toMatchObject({ _tag: "Decided", unit: "percent" })
    expect(infer(BODY_FAT_CANDIDATES, [bodyFatClue(path, 700_000)])).toMatchObject({ _tag: "Decided", unit: "e4" })
  })

  it("muscle mass is 10-65 % of the weight, or 2-100 kg without one", () => {
    const path = ["m"]
    expect(muscleClue(path, 25_000, 54_000)).toMatchObject({ path, label: "skeletal_muscle_mass", raw: 25_000, range: { min: 5_400, max: 35_100 } })
    expect(muscleClue(path, 25_000, 54_000).plausible).toBe("5400-35100 g: 10-65 % of weight 54000 g")
    expect(muscleClue(path, 25, null).range).toEqual({ min: 2_000, max: 100_000 })
    expect(infer(MUSCLE_CANDIDATES, [muscleClue(path, 25_000, 54_000)])).toMatchObject({ _tag: "Decided", unit: "g" })
    expect(infer(MUSCLE_CANDIDATES, [muscleClue(path, 25, 54_000)])).toMatchObject({ _tag: "Decided", unit: "kg" })
    expect(infer(MUSCLE_CANDIDATES, [muscleClue(path, 40, 54_000)])._tag).toBe("Contradiction")
    expect(infer(MUSCLE_CANDIDATES, [muscleClue(path, 30, null)])).toMatchObject({ _tag: "Decided", unit: "kg" })
    expect(infer(MUSCLE_CANDIDATES, [muscleClue(path, 30_000, null)])).toMatchObject({ _tag: "Decided", unit: "g" })
  })

  it.prop(
    "no body fat or muscle value fits both scales",
    [fc.double({ min: 0, max: 1e7, noNaN: true }), fc.option(fc.integer({ min: HUMAN_RANGES.weightG.min, max: HUMAN_RANGES.weightG.max }), { nil: null })],
    ([raw, weight]) => {
      const fat = bodyFatClue([], raw)
      expect(BODY_FAT_CANDIDATES.filter((c) => fitsIn(fat, c.factor)).length).toBeLessThanOrEqual(1)
      const muscle = muscleClue([], raw, weight)
      expect(MUSCLE_CANDIDATES.filter((c) => fitsIn(muscle, c.factor)).length).toBeLessThanOrEqual(1)
    },
    RUNS
  )
})

describe("inferBodyFat and inferMuscleMass", () => {
  it.prop(
    "decide as infer does on the one clue, with the same texts",
    [fc.double({ min: 0, max: 1e7, noNaN: true }), fc.option(fc.integer({ min: HUMAN_RANGES.weightG.min, max: HUMAN_RANGES.weightG.max }), { nil: null })],
    ([raw, weight]) => {
      const path = ["estimation", "result", "body_composition"]
      expect(inferBodyFat(path, raw)).toEqual(infer(BODY_FAT_CANDIDATES, [bodyFatClue(path, raw)]))
      expect(inferMuscleMass(path, raw, weight)).toEqual(infer(MUSCLE_CANDIDATES, [muscleClue(path, raw, weight)]))
    },
    { fastCheck: { numRuns: 3_000 } }
  )
})

describe("compileLengthSurvey", () => {
  const targets = [...Wire.MEASUREMENT_KEYS].map(([key, name]) => lengthTarget(key, name))
  const generated = compileLengthSurvey(targets)
  const loop = compileLengthSurvey(targets, { generate: false })
  const record = fc.dictionary(
    fc.constantFrom(...targets.map((t) => t.key)),
    fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.double({ min: 0, max: 1e5, noNaN: true }))
  )

  it("is generated where the runtime allows it", () => {
    expect(generated).not.toBe(loop)
  })

  it.prop(
    "the generated survey reads and weighs as the loop does",
    [record, fc.option(fc.integer({ min: HUMAN_RANGES.heightMm.min, max: HUMAN_RANGES.heightMm.max }), { nil: null })],
    ([m, stature]) => {
      const run = (survey: typeof loop) => {
        const values = emptyMeasurementValues()
        const result = survey(m, stature ?? HUMAN_RANGES.heightMm.min, stature ?? HUMAN_RANGES.heightMm.max, values)
        return { result, values: [...values] }
      }
      const expected = run(loop)
      expect(run(generated)).toEqual(expected)
      expect(expected.result.count).toBe(Object.keys(m).length)
      const present = targets.filter((t) => m[t.key] !== undefined)
      expect(expected.result.set).toBe(present.reduce((sum, t) => sum + measurementBit(t.index), 0))
    },
    { fastCheck: { numRuns: 2_000 } }
  )
})
