/**
 * The target a run writes, checked once for every caller: the engine (`migrate`), a run's plan
 * (`Migration.run`) and the plain API's `encode` all ask here, before anything is opened or encoded.
 */
import { Either, Schema } from "effect"
import { type EncodeOptions, LENGTH_UNITS, type LengthUnit } from "@scanbridge/model"
import { isAbsoluteUri } from "@scanbridge/model/adapter"
import { previewKey, previewValue } from "@scanbridge/model/internal"
import { type NormalizerService, UnknownTargetError } from "./normalizer.js"
import { TABLE_TARGETS, isTableTarget } from "./table.js"

/** The options of a plan, by the names its messages use (a command line names them by its flags). */
export type PlanOption =
  | "inputs"
  | "to"
  | "units"
  | "patientSystem"
  | "out"
  | "rejects"
  | "report"
  | "resumable"
  | "resume"
  | "verify"
  | "workers"
  | "from"
  | "into"

/** A plan that cannot be run as it stands: an option that contradicts another, or a value out of range. Nothing was opened. */
export class MigratePlanError extends Schema.TaggedError<MigratePlanError>("@scanbridge/migrate/MigratePlanError")("MigratePlanError", {
  option: Schema.String,
  message: Schema.String
}) {}

/**
 * Where a migration's scans go: `to`, a target's name, and what its encoder is told: for a table
 * (csv, parquet) or an encoder that offers a choice (`ScanEncoder.units`: fhir), the unit of its
 * lengths; for a target that names a patient (fhir), the patients' identifier system. Plain data:
 * the calling thread hands it to the worker threads, so that both write the same bytes.
 */
export interface OutputTarget extends EncodeOptions {
  readonly to: string
}

/** What messages call a plan's options: their names, or the caller's (a command line's flags). */
export type OptionNames = Partial<Readonly<Record<PlanOption, string>>>

const LENGTH_UNIT_NAMES = Object.keys(LENGTH_UNITS) as ReadonlyArray<LengthUnit>

/**
 * An option and its value as a message says them: as a command line is typed (`--units ft`) when
 * the caller names its options, else as the option's name and the value's JSON (`units "ft"`).
 */
export const optionSaid = (names: OptionNames | undefined, option: PlanOption, value: unknown): string => {
  const name = names?.[option]
  return name === undefined ? `${option} ${previewValue(value)}` : `${name} ${previewKey(String(value))}`
}

/** The length units `to` can write, its default first (a table's: any, mm first); undefined for a target whose units are its own. */
const unitsOffered = (normalizer: NormalizerService, to: string): ReadonlyArray<LengthUnit> | undefined =>
  isTableTarget(to) ? LENGTH_UNIT_NAMES : normalizer.encoders.get(to)?.units

/** `a, b or c`. */
const oneOf = (names: ReadonlyArray<string>): string => (names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`)

/**
 * `to` is a target of the normalizer's adapters or a table; `units`, if given, one it offers (or
 * `mm` for a target whose units are its own: millimetres are what the canonical form holds); and
 * `patientSystem`, if given, an absolute URI for a target that names a patient (fhir). Returns
 * the target with its units said (its default when none was given), as every thread writes it and
 * a checkpoint names it. An Either, so that an Effect yields it and the plain API's `encode` reads it.
 */
export const checkTarget = (
  normalizer: NormalizerService,
  target: OutputTarget,
  names?: OptionNames
): Either.Either<OutputTarget, MigratePlanError | UnknownTargetError> => {
  const { to, units, patientSystem } = target
  const say = (option: PlanOption) => names?.[option] ?? option
  const refuse = (option: PlanOption, why: string) =>
    Either.left(new MigratePlanError({ option, message: `${optionSaid(names, option, target[option as keyof OutputTarget])}: ${why}` }))
  const encoder = normalizer.encoders.get(to)
  if (encoder === undefined && !isTableTarget(to)) {
    return Either.left(
      new UnknownTargetError({
        target: to,
        message: `${optionSaid(names, "to", to)}: expected one of ${[...normalizer.encoders.keys(), ...TABLE_TARGETS].join(", ")}`
      })
    )
  }
  // Checked for callers without types (the plain API's) too.
  if (units !== undefined && !LENGTH_UNIT_NAMES.includes(units)) return refuse("units", `expected one of ${LENGTH_UNIT_NAMES.join(", ")}`)
  const offered = unitsOffered(normalizer, to)
  if (units !== undefined && offered !== undefined && !offered.includes(units))
    return refuse("units", `${say("to")} ${to} writes its lengths in ${oneOf(offered)}`)
  if (units !== undefined && units !== "mm" && offered === undefined) {
    const choosing = [...TABLE_TARGETS, ...[...normalizer.encoders.values()].flatMap((e) => (e.units === undefined ? [] : [e.target]))]
    return refuse("units", `only ${say("to")} ${oneOf(choosing)} writes lengths in a chosen unit; ${to} has its own`)
  }
  if (patientSystem !== undefined) {
    if (encoder?.namesPatient !== true) {
      const naming = [...normalizer.encoders.values()].flatMap((e) => (e.namesPatient === true ? [e.target] : []))
      return refuse("patientSystem", naming.length === 0 ? "no target names a patient" : `only ${say("to")} ${oneOf(naming)} names a patient; ${to} names none`)
    }
    if (typeof patientSystem !== "string" || !isAbsoluteUri(patientSystem))
      return refuse(
        "patientSystem",
        "expected an absolute URI without spaces, the identifier system of your patients (https://hospital.example/patients, urn:oid:1.2.3)"
      )
  }
  const said = offered === undefined ? undefined : (units ?? offered[0])
  return Either.right({ to, ...(said === undefined ? {} : { units: said }), ...(patientSystem === undefined ? {} : { patientSystem }) })
}

/**
 * What a checkpoint names a target by: `csv`, `csv in cm`, `fhir in in with patient system
 * https://...`. Millimetres go unsaid, as before targets had other units, so that a checkpoint
 * of an earlier run in millimetres still resumes.
 */
export const targetName = (target: OutputTarget): string =>
  [
    target.to,
    ...(target.units === undefined || target.units === "mm" ? [] : [`in ${target.units}`]),
    ...(target.patientSystem === undefined ? [] : [`with patient system ${target.patientSystem}`])
  ].join(" ")
