/**
 * The platform's dialect (spec 01). Its measurement and posture names are the catalogue's
 * canonical names; its stats are the `input.*` and `bodyComposition.*` keys; its units are
 * spelled as below.
 */
import { type Dialect, type PostureSpellings, MEASUREMENTS, type MeasurementName, type Spelling, makeDialect } from "@scanbridge/model"

/** The unit strings on the wire. */
export const PLATFORM_UNITS = {
  length: "mm",
  percent: "percent",
  mass: "g",
  /** Spec 01 writes `degrees`; its endpoint conventions table writes `degree`. Both are read. */
  angle: "degrees",
  angleAliases: ["degree"]
} as const

// Spec 01's name list is the catalogue's: every measurement is spelled by its canonical name.
const canonical = Object.fromEntries(MEASUREMENTS.map(({ name }) => [name, { name }])) as Record<MeasurementName, Spelling>

/** The posture parts' names, the canonical ones. */
export const PLATFORM_POSTURE: PostureSpellings = {
  front: { ear: "ear", shoulder: "shoulder", topHip: "topHip", foot: "foot" },
  right: { bodyLine: "bodyLine", backWaistLine: "backWaistLine" }
}

export const platformDialect: Dialect<Spelling, Spelling> = makeDialect<Spelling, Spelling>({
  api: "platform",
  measurements: canonical,
  stats: {
    // The client library's entry only (spec 03): a bare number in bodyComposition.
    "composition.skeletalMuscleMassG": { name: "skeletalMuscleMass" },
    "composition.bodyFatPercent": { name: "bodyFatPercentage" },
    "subject.weightG": { name: "weight" },
    "subject.age": { name: "age" },
    "subject.gender": { name: "gender" },
    "subject.heightMm": { name: "height" }
  },
  posture: PLATFORM_POSTURE
})
