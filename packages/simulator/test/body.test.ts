import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { Catalogue, HUMAN_RANGES, type MeasurementName } from "@scanbridge/model"
import { ALL, STATS_ONLY, avatarFor, compositionFor, isBreadth, measurementsFor, postureFor } from "../src/body.js"
import { adjustMeasurements, photoFailure } from "../src/platform.js"

const stats = fc.record({
  age: fc.integer({ min: HUMAN_RANGES.age.min, max: 99 }),
  gender: fc.constantFrom("male" as const, "female" as const),
  heightMm: fc.integer({ min: 1400, max: 2100 }),
  weightG: fc.integer({ min: 40_000, max: 150_000 })
})

describe("body model", () => {
  it.prop("is deterministic and plausible: positive integers, lengths below the head, girths ordered", [stats], ([s]) => {
    const m = measurementsFor(s, ALL)
    expect(measurementsFor(s, ALL)).toEqual(m)
    for (const name of ALL) {
      expect(Number.isInteger(m[name])).toBe(true)
      expect(m[name]!).toBeGreaterThan(0)
      // A girth can pass the height (a 140 cm, 150 kg body); a length or height cannot.
      if (!isBreadth(Catalogue.entry(name))) expect(m[name]!).toBeLessThan(s.heightMm)
    }
    expect(m.neckGirth!).toBeLessThan(m.neckBaseGirth!)
    expect(m.kneeHeightR!).toBeLessThan(m.hipHeight!)
    expect(m.hipHeight!).toBeLessThan(m.waistHeight!)
    expect(m.waistHeight!).toBeLessThan(m.backNeckHeight!)
    expect(m.wristGirthR!).toBeLessThan(m.forearmGirthR!)
  })

  it("gives a 1750 mm, 70 kg man a waist near 800 mm", () => {
    const m = measurementsFor({ age: 35, gender: "male", heightMm: 1750, weightG: 70_000 }, ALL)
    expect(m.waistGirth!).toBeGreaterThan(760)
    expect(m.waistGirth!).toBeLessThan(840)
  })

  it("returns widths and depths only for photo scans", () => {
    expect(STATS_ONLY.length).toBe(32)
    const missing = ALL.filter((n) => !STATS_ONLY.includes(n))
    expect(missing.map((n) => Catalogue.entry(n).kind).sort()).toEqual(["depth", "width", "width"])
  })

  it.prop("keeps body composition consistent: fat + lean = weight, 3-60 %", [stats], ([s]) => {
    const c = compositionFor(s)
    expect(c.fatMass + c.leanMass).toBe(s.weightG)
    expect(c.percent).toBeGreaterThanOrEqual(3)
    expect(c.percent).toBeLessThanOrEqual(60)
  })

  it.prop("draws posture lines that match their angles", [stats], ([s]) => {
    const { front, right } = postureFor(s)
    for (const line of front) {
      const [a, b] = line.points
      const angle = (Math.atan2(a!.y - b!.y, b!.x - a!.x) * 180) / Math.PI
      expect(angle).toBeCloseTo(line.angle, 0)
    }
    for (const line of right) expect(line.points.length).toBe(line.angles.length + 1)
  })

  it("writes a valid OBJ avatar: vertices, then faces that index them", () => {
    const obj = Buffer.from(avatarFor({ age: 30, gender: "female", heightMm: 1650, weightG: 58_000 }), "base64").toString("utf8")
    const vertices = obj.split("\n").filter((l) => l.startsWith("v "))
    const faces = obj.split("\n").filter((l) => l.startsWith("f "))
    expect(vertices).toHaveLength(6)
    for (const f of faces) for (const i of f.slice(2).split(" ").map(Number)) expect(i).toBeGreaterThanOrEqual(1), expect(i).toBeLessThanOrEqual(6)
    expect(Math.max(...vertices.map((v) => Number(v.split(" ")[2])))).toBeCloseTo(1.65, 3)
  })
})

describe("adjust", () => {
  const base = measurementsFor({ age: 40, gender: "male", heightMm: 1800, weightG: 90_000 }, ALL) as Record<MeasurementName, number>

  it.prop("changes a named measurement by its percentage and keeps heights", [fc.integer({ min: -30, max: 30 })], ([p]) => {
    const { measurements } = adjustMeasurements(base, 90_000, [{ name: "waistGirth", percentage: p }])
    expect(measurements.waistGirth).toBe(Math.round(base.waistGirth * (1 + p / 100)))
    expect(measurements.backNeckHeight).toBe(base.backNeckHeight)
  })

  it.prop("scales girths with weight, and the output weight by the percentage", [fc.integer({ min: -30, max: 30 })], ([p]) => {
    const { measurements, outputWeight } = adjustMeasurements(base, 90_000, [{ name: "weight", percentage: p }])
    expect(outputWeight).toBe(Math.round(90_000 * (1 + p / 100)))
    expect(Math.sign(measurements.hipGirth! - base.hipGirth)).toBe(p === 0 ? 0 : Math.sign(p))
  })
})

describe("photo checks", () => {
  const jpeg = (tail = "") => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(tail, "latin1")]).toString("base64")

  it("accepts base64 JPEG and names what is wrong with anything else", () => {
    expect(photoFailure("front", jpeg())).toBeNull()
    expect(photoFailure("front", `data:image/jpeg;base64,${jpeg()}`)).toBe("frontPhotoHasDataUrlPrefix")
    expect(photoFailure("right", Buffer.from("GIF89a").toString("base64"))).toBe("rightPhotoNotJpeg")
    expect(photoFailure("right", "%%%%")).toBe("rightPhotoNotJpeg")
    expect(photoFailure("right", jpeg("..scanbridge-fail:personNotFound.."))).toBe("personNotFound")
  })
})
