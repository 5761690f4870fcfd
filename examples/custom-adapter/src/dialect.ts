/** Tapeline's names for the catalogue's measurements, keyed by canonical name. */
import type { MeasurementName } from "@scanbridge/model"

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

/** Canonical name by Tapeline's name. */
export const CANONICAL_BY_SPELLING: ReadonlyMap<string, MeasurementName> = new Map(
  Object.entries(SPELLINGS).map(([canonical, spelling]) => [spelling, canonical as MeasurementName])
)

/** Tapeline's name of a canonical one, if it has one. */
export const spellingOf = (name: string): string | undefined => (SPELLINGS as Readonly<Record<string, string>>)[name]
