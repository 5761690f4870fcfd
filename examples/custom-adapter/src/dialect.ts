/** Tapeline's names for the catalogue's measurements, keyed by canonical name. */
import { type DialectSpellings, MEASUREMENT_NAMES, type MeasurementName, STATS, type Spelling, makeDialect } from "@scanbridge/model"

/** The API's name: what its scans hold in `source.api`, and what `--to` picks it by. */
export const TAPELINE = "tapeline"

/** The tape's names, checked against the catalogue by the compiler. */
export const SPELLINGS = {
  neckGirth: "neck",
  bustGirth: "chest",
  underBustGirth: "underbust",
  waistGirth: "waist",
  hipGirth: "hips",
  thighGirthR: "thigh",
  insideLegHeight: "inseam",
  outerArmLengthR: "sleeve"
} as const satisfies Partial<Record<MeasurementName, string>>

const spelled: Readonly<Partial<Record<MeasurementName, string>>> = SPELLINGS

/**
 * The dialect, with the lookups `makeDialect` builds once. A dialect lists every canonical name
 * (null for those the API has not); Tapeline has a few measurements and no stats (its customer's
 * height is a field of its own).
 */
export const tapelineDialect = makeDialect<Spelling, Spelling>({
  api: TAPELINE,
  measurements: Object.fromEntries(
    MEASUREMENT_NAMES.map((name) => [name, spelled[name] === undefined ? null : { name: spelled[name] }])
  ) as DialectSpellings["measurements"],
  stats: Object.fromEntries(STATS.map((s) => [s.target, null])) as DialectSpellings["stats"]
})
