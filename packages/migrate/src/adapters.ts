/**
 * Collections of adapters: the five built-in ones, and the checks that let a collection hold an
 * integrator's own. Everything that lists the adapters (the normalizer's formats and detection
 * order, its encoders, the CLI's targets, the plain encoders, the docs' tables) reads a
 * collection, never a list of its own.
 */
import { Effect, Either, Schema } from "effect"
import { type Adapter, LENGTH_UNITS, SCAN_FORMAT, isRecord } from "@scanbridge/model"
import { estimationAdapter } from "@scanbridge/estimation/adapter"
import { fhirAdapter } from "@scanbridge/fhir/adapter"
import { fitAdapter } from "@scanbridge/fit/adapter"
import { platformAdapter } from "@scanbridge/platform/adapter"
import { sessionAdapter } from "@scanbridge/session/adapter"
import { POSTGRES_ROWS } from "./postgres/rows.js"
import { TABLE_TARGETS } from "./table.js"

/** The adapters Scanbridge ships, in detection order. */
export const builtInAdapters: ReadonlyArray<Adapter> = [platformAdapter, sessionAdapter, estimationAdapter, fitAdapter, fhirAdapter]

/** The name the canonical form answers to, as a target and in envelopes: no adapter may take it. */
export const CANONICAL_TARGET = "canonical"

/** A collection that cannot be used: a value that is not an adapter, or two that claim one name. */
export class AdapterError extends Schema.TaggedError<AdapterError>("@scanbridge/migrate/AdapterError")("AdapterError", {
  /** The adapter's name, or the module it was to come from. */
  adapter: Schema.String,
  message: Schema.String
}) {}

const isFunction = (u: unknown): u is (...args: ReadonlyArray<never>) => unknown => typeof u === "function"

/** What is wrong with a value meant to be an adapter, or undefined when it is one. */
const whyNotAnAdapter = (u: unknown): string | undefined => {
  if (!isRecord(u)) return "is not an object"
  const { name, formats, encoder } = u
  if (typeof name !== "string" || name === "") return "has no name (a non-empty string)"
  if (!Array.isArray(formats) || formats.length === 0) return "has no formats (a non-empty array)"
  for (const [i, f] of formats.entries()) {
    if (!isRecord(f) || typeof f["name"] !== "string" || f["name"] === "" || !isFunction(f["detect"]) || !isFunction(f["decode"])) {
      return `formats[${i}] is not a format ({name, api, detect, decode})`
    }
    if (f["api"] !== name)
      return `formats[${i}] (${JSON.stringify(f["name"])}) names the API ${JSON.stringify(f["api"])}, not its adapter's ${JSON.stringify(name)}`
  }
  if (!isRecord(encoder) || typeof encoder["target"] !== "string" || encoder["target"] === "" || !isFunction(encoder["encode"])) {
    return "has no encoder ({target, encode})"
  }
  // A run reads them before it encodes anything (target.ts): a wrong one would fail there, not here.
  const units = encoder["units"]
  if (
    units !== undefined &&
    (!Array.isArray(units) || units.length === 0 || !units.every((unit) => typeof unit === "string" && Object.hasOwn(LENGTH_UNITS, unit)))
  ) {
    return `has an encoder whose units are not a list of length units (${Object.keys(LENGTH_UNITS).join(", ")}), its default first`
  }
  if (encoder["namesPatient"] !== undefined && typeof encoder["namesPatient"] !== "boolean") return "has an encoder whose namesPatient is not true or false"
  const dialect = u["dialect"]
  if (dialect !== undefined && (!isRecord(dialect) || dialect["api"] !== name))
    return `has a dialect that is not its own (its api is not ${JSON.stringify(name)})`
  return undefined
}

/** Whether a value (a module's export, say) has an adapter's shape. */
export const isAdapter = (u: unknown): u is Adapter => whyNotAnAdapter(u) === undefined

/** Two of these claim one name, or one claims a name Scanbridge keeps (`reserved`: the name and whose it is). */
const duplicateOrReservedName = (
  kind: string,
  names: ReadonlyArray<readonly [owner: string, name: string]>,
  reserved: Readonly<Record<string, string>>
): AdapterError | undefined => {
  const seen = new Map<string, string>()
  for (const [owner, name] of names) {
    if (Object.hasOwn(reserved, name))
      return new AdapterError({ adapter: owner, message: `adapter ${owner}: the ${kind} ${JSON.stringify(name)} is ${reserved[name]}` })
    const first = seen.get(name)
    if (first !== undefined)
      return new AdapterError({ adapter: owner, message: `adapters ${first} and ${owner} both claim the ${kind} ${JSON.stringify(name)}` })
    seen.set(name, owner)
  }
  return undefined
}

const CANONICAL = { [CANONICAL_TARGET]: "the canonical form's" }

/**
 * The collection, if every member is an adapter and no two claim one API name, format name or
 * target (a `{source, payload}` envelope or `--to` would not know which to pick).
 */
export const checkAdapters = (adapters: ReadonlyArray<unknown>): Either.Either<ReadonlyArray<Adapter>, AdapterError> => {
  for (const [i, a] of adapters.entries()) {
    const wrong = whyNotAnAdapter(a)
    if (wrong !== undefined) {
      const name = isRecord(a) && typeof a["name"] === "string" && a["name"] !== "" ? a["name"] : `#${i + 1}`
      return Either.left(new AdapterError({ adapter: name, message: `adapter ${name} ${wrong}` }))
    }
  }
  const valid = adapters as ReadonlyArray<Adapter>
  const error =
    duplicateOrReservedName(
      "API name",
      valid.map((a) => [a.name, a.name] as const),
      CANONICAL
    ) ??
    duplicateOrReservedName(
      "format name",
      valid.flatMap((a) => a.formats.map((f) => [a.name, f.name] as const)),
      { [SCAN_FORMAT]: "the canonical form's" }
    ) ??
    duplicateOrReservedName(
      "target",
      valid.map((a) => [a.name, a.encoder.target] as const),
      { ...CANONICAL, ...Object.fromEntries(TABLE_TARGETS.map((t) => [t, "a table output's"])), [POSTGRES_ROWS]: "the PostgreSQL sink's" }
    )
  return error === undefined ? Either.right(valid) : Either.left(error)
}

/**
 * The adapters a module exports: its default export (an adapter or an array of them), or else
 * every named export that is an adapter. `specifier` names the module in the error.
 */
export const adaptersOfModule = (module: Readonly<Record<string, unknown>>, specifier: string): Either.Either<ReadonlyArray<Adapter>, AdapterError> => {
  const defaultExport = module["default"]
  const candidates = defaultExport !== undefined ? (Array.isArray(defaultExport) ? defaultExport : [defaultExport]) : Object.values(module).filter(isAdapter)
  if (candidates.length === 0) {
    return Either.left(
      new AdapterError({ adapter: specifier, message: `${specifier} exports no adapter (a default export, or a named export with name, formats and encoder)` })
    )
  }
  return Either.mapLeft(checkAdapters(candidates), (e) => new AdapterError({ adapter: specifier, message: `${specifier}: ${e.message}` }))
}

/**
 * The adapters of modules, imported by URL or package name as `import()` resolves it from this
 * package (the CLI resolves a user's paths and package names to URLs first). Worker threads
 * import the same URLs, so an integrator's adapter migrates on them too.
 */
export const importAdapters = (specifiers: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Adapter>, AdapterError> =>
  Effect.map(
    Effect.forEach(specifiers, (specifier) =>
      Effect.tryPromise({
        try: () => import(specifier) as Promise<Readonly<Record<string, unknown>>>,
        catch: (e) =>
          new AdapterError({ adapter: specifier, message: `cannot import the adapter module ${specifier}: ${e instanceof Error ? e.message : String(e)}` })
      }).pipe(Effect.flatMap((module) => adaptersOfModule(module, specifier)))
    ),
    (lists) => lists.flat()
  )
