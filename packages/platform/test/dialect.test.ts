import { existsSync, readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { MEASUREMENT_NAMES } from "@scanbridge/model"
import { PLATFORM_POSTURE, PLATFORM_UNITS, platformDialect } from "../src/index.js"

// Spec 01's lines (and spec 03's for the client library's composition), quoted as they are,
// and parsed below: a spelling that drifts from them fails. Where the documents themselves are at
// hand (beside the repository), the quotes are checked against them.
const SPEC_01 = {
  names:
    "Measurement names (names ending in `R` are right-side measurements): acrossBackShoulderWidth, backNeckHeight, backNeckPointToGroundContoured, backNeckPointToWaist, backNeckPointToWristLengthR, bellyWaistDepth, bellyWaistGirth, bellyWaistHeight, bellyWaistWidth, bustGirth, bustHeight, calfGirthR, forearmGirthR, hipGirth, hipHeight, insideLegHeight, insideLegLengthR, kneeGirthR, kneeHeightR, midThighGirthR, neckBaseGirth, neckGirth, outerAnkleHeightR, outerArmLengthR, outseamR, outsideLegLengthR, shoulderToElbowR, thighGirthR, topHipGirth, topHipHeight, underBustGirth, upperArmGirthR, waistGirth, waistHeight, wristGirthR. All are lengths or girths in mm, following ISO 8559-1 definitions. Conversion to centimetres: divide by 10.",
  unit: "| unit | string | `mm`. |",
  fat: "| bodyFatPercentage | `{unit: percent, value: number}` |",
  fatMass: "| bodyFatMass | `{unit: g, value: number}` |",
  angleUnit:
    "Object `{front, right}`. Each view has an `angles` array and a `lines` array. Coordinates are pixels of the submitted photo: origin top-left, +x right, +y down. Look entries up by `name`, not by array position. A perfectly upright pose gives angles near 0; the sign gives the direction of tilt. The unit string of posture angles is `degrees` (the conventions table of the endpoint reference writes the singular `degree`).",
  front:
    "| angles[] | `{name, unit, value}`; name in `ear`, `shoulder`, `topHip`, `foot`; value = counterclockwise angle from horizontal, in degrees, of the matching line (left-to-right in the image, i.e. right-to-left on the body). |",
  right:
    "| angles[] | `{name, unit, angles}`; name in `bodyLine`, `backWaistLine`; angles = array of numbers, clockwise angle from vertical in degrees per segment, measured from the lower point to the higher point. |",
  stats: ["| statsEstimations.age | integer | yes | years |", "| statsEstimations.gender | string | yes | `male` or `female` |", "| statsEstimations.height | integer | yes | mm |", "| statsEstimations.weight | integer | yes | g |"]
}
const SPEC_03 = {
  composition:
    "The `entry` returned by the platform client operations has id, status (`success`/`failure`), input, measurements (`{name, unit, value}` items), bodyComposition, avatar, posture. In this library response, bodyComposition for photo scans is `{bodyFatPercentage: number, skeletalMuscleMass: number}` and the photo example shows avatar format `glb` with type `UPPER_BODY`, whereas the stats example shows format `obj`, type `highResolution`, and bodyComposition and posture null. On failure measurements, bodyComposition, avatar and posture are null, and the error object shape is not guaranteed, so clients handle it defensively. Always check `status` first."
}

const read = (file: string) => {
  const url = new URL(`../../../../shared/spec/${file}`, import.meta.url)
  return existsSync(url) ? readFileSync(url, "utf8").split("\n") : null
}
const documents = { "01": read("01-platform-rest-api.md"), "03": read("03-fit-service-and-client-library.md") }

const NAMES = /: ([A-Za-z, ]+)\./.exec(SPEC_01.names)![1]!.split(", ")
const quoted = (line: string) => [...line.matchAll(/`(\w+)`/g)].map(([, name]) => name)
const unitIn = (line: string) => /unit: (\w+)/.exec(line)![1]

describe("the platform dialect, pinned to spec 01 and 03", () => {
  it.skipIf(documents["01"] === null || documents["03"] === null)("quotes the documents as they are", () => {
    for (const line of Object.values(SPEC_01).flat()) expect(documents["01"]).toContain(line)
    expect(documents["03"]).toContain(SPEC_03.composition)
  })

  it("spells the measurements by the catalogue's names, which are the name list's", () => {
    expect(NAMES).toHaveLength(35)
    expect(MEASUREMENT_NAMES).toEqual(NAMES)
    expect(platformDialect.measurementList.map((m) => m.spelling.name)).toEqual(NAMES)
  })

  it("spells the stats as the input fields and the composition as the entry's keys", () => {
    const inputs = SPEC_01.stats.map((row) => /statsEstimations\.(\w+)/.exec(row)![1])
    const stats = Object.fromEntries(platformDialect.statList.map((s) => [s.target, s.spelling.name]))
    expect(["subject.age", "subject.gender", "subject.heightMm", "subject.weightG"].map((t) => stats[t])).toEqual(inputs)
    const [fat, muscle] = /\{(\w+): number, (\w+): number\}/.exec(SPEC_03.composition)!.slice(1)
    expect([stats["composition.bodyFatPercent"], stats["composition.skeletalMuscleMassG"]]).toEqual([fat, muscle])
  })

  it("spells the units as the documents do", () => {
    expect(PLATFORM_UNITS.length).toBe(quoted(SPEC_01.unit)[0])
    expect(PLATFORM_UNITS.percent).toBe(unitIn(SPEC_01.fat))
    expect(PLATFORM_UNITS.mass).toBe(unitIn(SPEC_01.fatMass))
    const [angle, singular] = quoted(SPEC_01.angleUnit).slice(-2)
    expect([PLATFORM_UNITS.angle, ...PLATFORM_UNITS.angleAliases]).toEqual([angle, singular])
    expect(["years", "mm", "g"].map((u) => SPEC_01.stats.some((row) => row.endsWith(`| ${u} |`)))).toEqual([true, true, true])
  })

  it("names the posture parts as the posture tables do", () => {
    expect(Object.values(PLATFORM_POSTURE.front)).toEqual(quoted(SPEC_01.front))
    expect(Object.values(PLATFORM_POSTURE.right)).toEqual(quoted(SPEC_01.right))
  })
})
