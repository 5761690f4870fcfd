/**
 * A deterministic body model: plausible measurements, composition, posture and a small avatar
 * from a person's stats. Same stats, same body. Not anthropometry: numbers that look right to a
 * developer (a 1750 mm, 70 kg man has a waist near 800 mm) and that tests can predict.
 */
import { Catalogue, type MeasurementEntry, type MeasurementName, POSTURE_FRONT, POSTURE_RIGHT, PROPORTIONS } from "@scanbridge/model"
import { expectedBodyFatPercent } from "@scanbridge/model/internal"
import { hash, jitter } from "./internal/random.js"

/** A person's stats: every simulated body is computed from them. */
export interface BodyStats {
  readonly age: number
  readonly gender: "male" | "female"
  readonly heightMm: number
  readonly weightG: number
}

/** Female factors on the catalogue's proportions, where a female build differs. */
const FEMALE: Partial<Record<MeasurementName, number>> = {
  acrossBackShoulderWidth: 0.94,
  bellyWaistGirth: 0.97,
  bustGirth: 1.02,
  forearmGirthR: 0.92,
  hipGirth: 1.07,
  midThighGirthR: 1.04,
  neckBaseGirth: 0.9,
  neckGirth: 0.9,
  thighGirthR: 1.04,
  topHipGirth: 1.03,
  underBustGirth: 0.95,
  upperArmGirthR: 0.93,
  waistGirth: 0.92,
  wristGirthR: 0.92
}

/** Girths, widths and depths follow the build; heights and lengths follow the height. */
export const isBreadth = (entry: MeasurementEntry): boolean => entry.kind === "girth" || entry.kind === "width" || entry.kind === "depth"

/** Without photos the platform returns "a subset of the names": here, all but widths and depths. */
export const STATS_ONLY: ReadonlyArray<MeasurementName> = Catalogue.measurements.filter((e) => e.kind !== "width" && e.kind !== "depth").map((e) => e.name)

/** Every measurement of the catalogue: what a scan with photos holds. */
export const ALL: ReadonlyArray<MeasurementName> = Catalogue.measurements.map((e) => e.name)

const bmi = (s: BodyStats) => s.weightG / 1000 / (s.heightMm / 1000) ** 2
const key = (s: BodyStats) => `${s.age}|${s.gender}|${s.heightMm}|${s.weightG}`

/** Integer millimetres for the given names; within 1 % of the proportions, stable per stats. */
export const measurementsFor = (stats: BodyStats, names: ReadonlyArray<MeasurementName>): Partial<Record<MeasurementName, number>> => {
  const build = Math.sqrt(bmi(stats) / 22)
  const seed = key(stats)
  const out: Partial<Record<MeasurementName, number>> = {}
  for (const name of names) {
    const sex = stats.gender === "female" ? (FEMALE[name] ?? 1) : 1
    const scale = isBreadth(Catalogue.entry(name)) ? build : 1
    out[name] = Math.round(stats.heightMm * PROPORTIONS[name] * sex * scale * (1 + jitter(`${seed}|${name}`, 0.01)))
  }
  return out
}

/** Body fat from BMI, age and sex (Deurenberg 1991), clamped to 3-60 %. */
export const compositionFor = (stats: BodyStats) => {
  const fat = expectedBodyFatPercent(stats)
  const percent = Math.round(Math.min(60, Math.max(3, fat)) * 10) / 10
  const fatMass = Math.round((stats.weightG * percent) / 100)
  const leanMass = stats.weightG - fatMass
  // Skeletal muscle is roughly half the lean mass in adults.
  return { percent, fatMass, leanMass, skeletalMuscleMass: Math.round(leanMass * 0.5) }
}

/** A plausible adult for a seed, for flows that never state the user's stats. */
export const statsFor = (seed: string): BodyStats => {
  const unit = (part: string) => (jitter(`${seed}|${part}`, 1) + 1) / 2
  const gender = unit("gender") < 0.5 ? "female" : "male"
  const heightMm = Math.round((gender === "female" ? 1520 : 1620) + unit("height") * 300)
  const bmi = 19 + unit("bmi") * 10
  return { age: 20 + Math.round(unit("age") * 45), gender, heightMm, weightG: Math.round(bmi * (heightMm / 1000) ** 2 * 1000) }
}

const small = (seed: string) => Math.round(jitter(seed, 3) * 10) / 10

/** Posture in pixels of a 1080 x 1920 photo, angles of a few degrees, consistent with the lines. */
export const postureFor = (stats: BodyStats) => {
  const seed = key(stats)
  const rad = (deg: number) => (deg * Math.PI) / 180
  const px = (v: number) => Math.round(v * 10) / 10
  const frontY: Record<string, number> = { ear: 260, shoulder: 420, topHip: 900, foot: 1820 }
  const frontHalf: Record<string, number> = { ear: 70, shoulder: 200, topHip: 150, foot: 160 }
  const front = POSTURE_FRONT.map(({ name }) => {
    const angle = name === "foot" ? 0 : small(`${seed}|front|${name}`)
    const dx = frontHalf[name]!
    // Counterclockwise from horizontal with +y down: the right-hand point is higher.
    const dy = Math.tan(rad(angle)) * dx
    const y = frontY[name]!
    return {
      name,
      angle,
      points: [
        { x: px(540 - dx), y: px(y + dy) },
        { x: px(540 + dx), y: px(y - dy) }
      ]
    }
  })
  const right = POSTURE_RIGHT.map(({ name, points }) => {
    const angles = Array.from({ length: points - 1 }, (_, i) => small(`${seed}|right|${name}|${i}`))
    const start = name === "bodyLine" ? { x: 540, y: 1800 } : { x: 600, y: 980 }
    const segment = name === "bodyLine" ? 380 : 90
    const line = [start]
    for (const a of angles) {
      const last = line[line.length - 1]!
      // Clockwise from vertical, from the lower point to the higher one.
      line.push({ x: px(last.x + Math.sin(rad(a)) * segment), y: px(last.y - Math.cos(rad(a)) * segment) })
    }
    return { name, angles, points: line }
  })
  return { front, right }
}

const OCTAHEDRON_FACES = [
  [1, 2, 3],
  [1, 3, 4],
  [1, 4, 5],
  [1, 5, 2],
  [6, 3, 2],
  [6, 4, 3],
  [6, 5, 4],
  [6, 2, 5]
]

/** The avatar's mesh: an octahedron the subject's height and hip width, x, y, z in metres. */
export const avatarVertices = (stats: BodyStats): Array<[number, number, number]> => {
  const h = stats.heightMm / 1000
  const w = (measurementsFor(stats, ["hipGirth"]).hipGirth ?? 900) / 1000 / Math.PI / 2
  return [
    [0, h, 0],
    [w, h / 2, 0],
    [0, h / 2, w / 2],
    [-w, h / 2, 0],
    [0, h / 2, -w / 2],
    [0, 0, 0]
  ]
}

/** The avatar as a small valid Wavefront OBJ, in base64. */
export const avatarFor = (stats: BodyStats): string => {
  const obj = [
    `# scanbridge simulator avatar ${hash(key(stats)).toString(16)}`,
    "o body",
    ...avatarVertices(stats).map((p) => `v ${p.map((c) => c.toFixed(4)).join(" ")}`),
    ...OCTAHEDRON_FACES.map((t) => `f ${t.join(" ")}`),
    ""
  ].join("\n")
  return Buffer.from(obj, "utf8").toString("base64")
}
