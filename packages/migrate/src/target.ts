/**
 * The target a run writes, checked once for every caller: the engine (`migrate`) and a run's
 * plan (`Migration.run`) both ask here, before anything is opened.
 */
import { Effect, Schema } from "effect"
import { LENGTH_UNITS, type LengthUnit } from "@scanbridge/model"
import { previewKey, previewValue } from "@scanbridge/model/internal"
import { type NormalizerService, UnknownTargetError } from "./normalizer.js"
import { TABLE_TARGETS } from "./table.js"

/** The options of a plan, by the names its messages use (a command line names them by its flags). */
export type PlanOption = "inputs" | "to" | "units" | "out" | "rejects" | "report" | "resumable" | "resume" | "verify" | "workers" | "from" | "into"

/** A plan that cannot be run as it stands: an option that contradicts another, or a value out of range. Nothing was opened. */
export class MigratePlanError extends Schema.TaggedError<MigratePlanError>("@scanbridge/migrate/MigratePlanError")("MigratePlanError", {
  option: Schema.String,
  message: Schema.String
}) {}

const LENGTH_UNIT_NAMES = Object.keys(LENGTH_UNITS)
const isTable = (to: string) => (TABLE_TARGETS as ReadonlyArray<string>).includes(to)

/** What messages call a plan's options: their names, or the caller's (a command line's flags). */
export type OptionNames = Partial<Readonly<Record<PlanOption, string>>>

/**
 * An option and its value as a message says them: as a command line is typed (`--units ft`) when
 * the caller names its options, else as the option's name and the value's JSON (`units "ft"`).
 */
export const optionSaid = (names: OptionNames | undefined, option: PlanOption, value: unknown): string => {
  const name = names?.[option]
  return name === undefined ? `${option} ${previewValue(value)}` : `${name} ${previewKey(String(value))}`
}

/**
 * `to` is a target of the normalizer's adapters or a table, and `units` one of the length units,
 * other than millimetres only for a table.
 */
export const checkTarget = (
  normalizer: NormalizerService,
  to: string,
  units: LengthUnit | undefined,
  names?: OptionNames
): Effect.Effect<void, MigratePlanError | UnknownTargetError> => {
  if (!normalizer.encoders.has(to) && !isTable(to)) {
    return Effect.fail(
      new UnknownTargetError({
        target: to,
        message: `${optionSaid(names, "to", to)}: expected one of ${[...normalizer.encoders.keys(), ...TABLE_TARGETS].join(", ")}`
      })
    )
  }
  // Checked for callers without types (the plain API's) too.
  if (units !== undefined && !LENGTH_UNIT_NAMES.includes(units)) {
    return Effect.fail(
      new MigratePlanError({ option: "units", message: `${optionSaid(names, "units", units)}: expected one of ${LENGTH_UNIT_NAMES.join(", ")}` })
    )
  }
  if (units !== undefined && units !== "mm" && !isTable(to)) {
    const say = (option: PlanOption) => names?.[option] ?? option
    return Effect.fail(
      new MigratePlanError({
        option: "units",
        message: `${optionSaid(names, "units", units)}: only ${say("to")} ${TABLE_TARGETS.join(" or ")} writes lengths in a chosen unit; ${to} has its own`
      })
    )
  }
  return Effect.void
}
