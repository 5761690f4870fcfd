/**
 * Flags whose bad values name the flag: `--to xml: expected one of canonical, platform, ...`
 * rather than @effect/cli's bare "Expected one of the following cases". Each description ends
 * with the flag's default, so `--help` shows it.
 */
import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Option } from "effect"

/** A bad value, said as every other error of the command is: `scanbridge: --to xml: ...`. */
export const invalid = (message: string) => ValidationError.invalidValue(HelpDoc.p(`scanbridge: ${message}`))

const described = <A>(options: Options.Options<A>, description: string, shownDefault: string | undefined) =>
  Options.withDescription(options, shownDefault === undefined ? description : `${description} (default: ${shownDefault})`)

const oneOf = <const C extends ReadonlyArray<string>>(name: string, values: C): Options.Options<C[number]> =>
  Options.text(name).pipe(
    Options.withPseudoName(values.join("|")),
    Options.mapEffect((value) => {
      const found = values.find((v) => v === value)
      return found === undefined ? Effect.fail(invalid(`--${name} ${value}: expected one of ${values.join(", ")}`)) : Effect.succeed(found as C[number])
    })
  )

/** One of `values`, defaulting to `defaultValue`. */
export const choice = <const C extends ReadonlyArray<string>>(
  name: string,
  values: C,
  defaultValue: C[number],
  description: string
): Options.Options<C[number]> => oneOf(name, values).pipe(Options.withDefault(defaultValue), (o) => described(o, description, defaultValue))

/** One of `values`; absent when not given, with what that means as `shownDefault`. */
export const optionalChoice = <const C extends ReadonlyArray<string>>(
  name: string,
  values: C,
  description: string,
  shownDefault: string
): Options.Options<Option.Option<C[number]>> => oneOf(name, values).pipe(Options.optional, (o) => described(o, description, shownDefault))

const WHOLE = /^\s*-?\d+\s*$/

/** A number from `min` to `max` (a whole one if `whole`), with a message naming the flag otherwise. */
const bounded = (name: string, min: number, max: number, whole: boolean) =>
  Options.text(name).pipe(
    Options.withPseudoName("N"),
    Options.mapEffect((value) => {
      const n = Number(value)
      const range = max === Number.POSITIVE_INFINITY ? `, ${min} or more` : ` from ${min} to ${max}`
      return (whole ? WHOLE.test(value) : value.trim() !== "" && Number.isFinite(n)) && n >= min && n <= max
        ? Effect.succeed(n)
        : Effect.fail(invalid(`--${name} ${value}: expected ${whole ? "a whole number" : "a number"}${range}`))
    })
  )

/** A whole number from `min` up; absent when not given, with what that means as `shownDefault`. */
export const count = (name: string, min: number, description: string, shownDefault: string): Options.Options<Option.Option<number>> =>
  bounded(name, min, Number.POSITIVE_INFINITY, true).pipe(Options.optional, (o) => described(o, description, shownDefault))

/** A number from `min` to `max` (a fraction allowed). */
export const number = (name: string, min: number, max: number, defaultValue: number, description: string): Options.Options<number> =>
  bounded(name, min, max, false).pipe(Options.withDefault(defaultValue), (o) => described(o, description, String(defaultValue)))

/** A whole number from `min` to `max`. */
export const integer = (name: string, min: number, max: number, defaultValue: number, description: string): Options.Options<number> =>
  bounded(name, min, max, true).pipe(Options.withDefault(defaultValue), (o) => described(o, description, String(defaultValue)))

/** Any text, defaulting to `defaultValue`. */
export const text = (name: string, pseudoName: string, defaultValue: string, description: string): Options.Options<string> =>
  Options.text(name).pipe(Options.withPseudoName(pseudoName), Options.withDefault(defaultValue), (o) => described(o, description, defaultValue))

/** A file name, or `-` for a standard stream; absent when not given. */
export const file = (name: string, description: string, shownDefault: string) =>
  Options.text(name).pipe(Options.withPseudoName("FILE"), Options.optional, (o) => described(o, description, shownDefault))

/** A switch, off unless given. */
export const flag = (name: string, description: string) => Options.withDescription(Options.boolean(name), description)

/** `-` as an argument, as runCli hands it on (see readCommandLine): no argument can hold a NUL. */
export const STDIN_ARGUMENT = "\u0000-"

/** The flag that picks one record of a multi-record file (inspect, diff). */
export const recordOption = (name: string, of: string, shownDefault: string) =>
  count(name, 1, `the record of ${of} to read, 1-based: the NDJSON record (blank lines are not records) or the JSON array's element`, shownDefault)

/** The repeatable `--adapter MODULE` flag: modules whose adapters a command adds to the built-in ones. */
export const adapterOption = Options.text("adapter").pipe(
  Options.withPseudoName("MODULE"),
  Options.repeated,
  // Optional as well, so that the usage shows it in brackets: repeated alone allows none already.
  Options.optional,
  Options.map(Option.getOrElse((): ReadonlyArray<string> => [])),
  Options.withDescription(
    "a module that exports an adapter for another storage format (a path, or a package name as the current folder resolves it); repeatable (default: the built-in adapters only)"
  )
)

/**
 * `--to`'s choices in the help: `canonical` and the built-in adapters' targets. Written out rather
 * than read from the adapters, so that `--help` does not load the migration engine; a test pins it
 * to the default normalizer's targets. `--to` itself is checked against the run's adapters.
 */
export const BUILT_IN_TARGETS: ReadonlyArray<string> = ["canonical", "platform", "session", "estimation", "fit", "fhir", "csv", "parquet"]

/** A database URL, held redacted from the moment it is parsed; absent when not given. */
export const databaseUrl = (name: string, description: string) =>
  Options.redacted(name).pipe(Options.withPseudoName("URL"), Options.optional, (o) => described(o, description, "none"))

/** Any text; absent when not given. */
export const optionalText = (name: string, pseudoName: string, description: string, shownDefault: string) =>
  Options.text(name).pipe(Options.withPseudoName(pseudoName), Options.optional, (o) => described(o, description, shownDefault))

/**
 * The units records may leave unstated, each `auto` by default: read from the evidence of the
 * record, or the record rejected with that evidence and the flag to give (DecodeOptions).
 */
export const decodeFlags = {
  lengthUnit: choice(
    "length-unit",
    ["auto", "mm", "cm", "in"] as const,
    "auto",
    "the unit of the body lengths of inputs that do not state it, or state it wrongly; auto reads each record's stated unit, or infers it from how the lengths fit a body, and rejects a record whose lengths are plausible only in another unit"
  ),
  bodyFatScale: choice(
    "body-fat-scale",
    ["auto", "percent", "e4"] as const,
    "auto",
    "the scale of body-fat values that do not state it: percent (12.5), or e4 (percent x 10^4: 125000); auto infers it from the value, or rejects the record saying why it cannot"
  ),
  muscleMassUnit: choice(
    "muscle-mass-unit",
    ["auto", "g", "kg"] as const,
    "auto",
    "the unit of skeletal-muscle masses that do not state it; auto infers it from the value, or rejects the record saying why it cannot"
  )
}

/** What the decode flags read: each of them, `auto` unless given. */
export interface DecodeFlags {
  readonly lengthUnit: "auto" | "mm" | "cm" | "in"
  readonly bodyFatScale: "auto" | "percent" | "e4"
  readonly muscleMassUnit: "auto" | "g" | "kg"
}

/** The decode flags as every decode is told them (DecodeOptions of @scanbridge/model). */
export const decodeOptionsOf = (args: DecodeFlags): DecodeFlags => ({
  lengthUnit: args.lengthUnit,
  bodyFatScale: args.bodyFatScale,
  muscleMassUnit: args.muscleMassUnit
})
