/**
 * The plain API: Scanbridge's capabilities as ordinary functions. They return plain JSON
 * objects and throw one error class, `ScanbridgeError` (from `@scanbridge/model/plain`): an
 * Effect runs through runPlain, which makes every way it can stop one (errors.ts).
 */
import { Effect, Either, Layer, Redacted } from "effect"
import { DecodeError, type DecodeOptions, type LengthUnit, type Scan } from "@scanbridge/model"
import { previewValue } from "@scanbridge/model/internal"
import { ScanbridgeError, orThrow, throwsOnlyScanbridgeError } from "@scanbridge/model/plain"
import type { MigrateProgress as RunProgress, MigrationPlan, Report } from "@scanbridge/migrate"
import { type NormalizerService, Normalizer, UnknownTargetError, checkTarget, defaultNormalizer } from "@scanbridge/migrate/normalizer"
import { defectsAsErrors, hidingUrls, runPlain } from "./errors.js"
import { engineAdapters } from "./adapters.js"
import type { Adapter, Encoded, FhirBundle, FhirOptions, ScanJson, TargetOptions } from "./types.js"

export { ScanbridgeError }

export interface AdapterOptions {
  /**
   * Adapters for other storage formats (docs/adapters.md), added to the built-in ones: their
   * formats are read, and their targets written, like the built-in ones'.
   */
  readonly adapters?: ReadonlyArray<Adapter>
}

/**
 * What records may leave unstated, told to every decode (the command line's --length-unit,
 * --body-fat-scale and --muscle-mass-unit). Each is `auto` by default: read from the record's
 * evidence, or the record rejected with that evidence and the option that would read it.
 */
export interface ReadOptions {
  /**
   * The unit of the body lengths (the measurements) of inputs that do not state it, or state it
   * wrongly: `mm`, `cm` or `in`; a record whose lengths are plausible only in another unit is
   * still rejected. `auto`: each record's stated unit, or the one its lengths show.
   */
  readonly lengthUnit?: DecodeOptions["lengthUnit"]
  /** The scale of body-fat values that do not state it: `percent` (12.5) or `e4` (percent x 10^4: 125000), or `auto`. */
  readonly bodyFatScale?: DecodeOptions["bodyFatScale"]
  /** The unit of skeletal-muscle masses that do not state it: `g` or `kg`, or `auto`. */
  readonly muscleMassUnit?: DecodeOptions["muscleMassUnit"]
}

export interface NormalizeOptions extends AdapterOptions, ReadOptions {}

/** Each read option's values, for the check of a call's (options from plain JavaScript may be anything). */
const READ_OPTIONS: { readonly [K in keyof Required<ReadOptions>]: ReadonlyArray<string> } = {
  lengthUnit: ["auto", "mm", "cm", "in"],
  bodyFatScale: ["auto", "percent", "e4"],
  muscleMassUnit: ["auto", "g", "kg"]
}

/** The read options of a call as DecodeOptions; ScanbridgeError OptionError naming the option and its value for one that is none of its values. */
const decodeOptionsOf = (options: ReadOptions | undefined): DecodeOptions => {
  const read: Record<string, string> = {}
  for (const [name, values] of Object.entries(READ_OPTIONS)) {
    const value: unknown = options?.[name as keyof ReadOptions]
    if (value === undefined) continue
    if (typeof value !== "string" || !values.includes(value)) {
      throw new ScanbridgeError({
        _tag: "OptionError",
        value,
        message: `${name} ${previewValue(value)}: expected one of ${values.map((v) => `"${v}"`).join(", ")}`
      })
    }
    read[name] = value
  }
  return read as DecodeOptions
}

// One normalizer per collection given and read options, built (and checked) once however often it is used.
const normalizers = new WeakMap<ReadonlyArray<Adapter>, Map<string, NormalizerService>>()
const builtIn = new Map<string, NormalizerService>()

/**
 * The normalizer over the built-in adapters and the given ones, telling every decode the read
 * options; ScanbridgeError AdapterError for a collection it cannot use, OptionError for a read
 * option it does not know, Defect for options that throw when they are read (a getter, a Proxy).
 */
const normalizerOf = (options: NormalizeOptions | undefined): NormalizerService =>
  defectsAsErrors(() => {
    const read = decodeOptionsOf(options)
    const key = JSON.stringify(read)
    const extra = options?.adapters
    const cache = extra === undefined || extra.length === 0 ? builtIn : (normalizers.get(extra) ?? new Map<string, NormalizerService>())
    if (extra !== undefined && extra.length > 0) normalizers.set(extra, cache)
    let normalizer = cache.get(key)
    if (normalizer === undefined) {
      const base = Normalizer.withOptions(defaultNormalizer, read)
      normalizer = extra === undefined || extra.length === 0 ? base : orThrow(Normalizer.extend(base, engineAdapters(extra)))
      cache.set(key, normalizer)
    }
    return normalizer
  })

const scansOf = (json: unknown, normalizer: NormalizerService): ReadonlyArray<Scan> => orThrow(normalizer.normalize(json))

/** Every canonical scan a stored JSON value holds (a list page holds several). */
export const normalizePlain = (json: unknown, options?: NormalizeOptions): ReadonlyArray<ScanJson> =>
  throwsOnlyScanbridgeError(json, () => scansOf(json, normalizerOf(options)))

/** Which format a JSON value is: its name and API (null for the canonical form). */
export const detectFormatPlain = (json: unknown, options?: AdapterOptions): { readonly format: string; readonly api: string | null } =>
  throwsOnlyScanbridgeError(json, () => {
    const d = orThrow(normalizerOf(options).detect(json))
    return { format: d.format.name, api: d.format.api }
  })

/** How far a run has got: the figures the command line's progress line shows. */
export interface MigrateProgress {
  /** The report so far: records read, migrated, rejected, and their counts by format and reason. */
  readonly report: Report
  /** Input bytes done (compressed, for a `.gz`). */
  readonly bytesRead: number
  /** The inputs' size, or null when it is not known (a database's rows). */
  readonly bytesTotal: number | null
}

export interface MigrateOptions extends NormalizeOptions {
  /**
   * The records: files and folders (NDJSON, JSON objects or arrays, .gz of either), or a PostgreSQL
   * database and a query of two columns, a key that orders and names the rows, then the record
   * (JSON, JSONB or text).
   */
  readonly from: string | ReadonlyArray<string> | { readonly url: string; readonly query: string }
  /**
   * Where the records go: a file (`out`, with `to` and `units`), or a PostgreSQL table (`into`:
   * created when missing, rejects in `<table>_rejects`, upserted a chunk at a time so that a rerun
   * leaves the same rows). A URL's password is never in an error.
   */
  readonly out?: string
  readonly into?: { readonly url: string; readonly table: string }
  /**
   * With `out`: `canonical` (default), `platform`, `session`, `estimation`, `fit`, `fhir` (a FHIR
   * R4 transaction Bundle per scan, docs/fhir.md), or a given adapter's target: one JSON per line;
   * or `csv`, one row per scan under a header, or `parquet`, the same rows typed (docs/databases.md).
   */
  readonly to?: string
  /**
   * The unit of the lengths: with `to: "csv"` or `"parquet"`, of the length columns, `mm`
   * (default), `cm` or `in`; with `to: "fhir"`, `cm` (default) or `in` (masses then in pounds).
   */
  readonly units?: LengthUnit
  /** With `to: "fhir"`: the identifier system of your patients (an absolute URI), when each scan's `externalId` is its patient's identifier there. */
  readonly patientSystem?: string
  /** The rejects file; without it rejects are counted, not kept (a database keeps them in `<table>_rejects`). */
  readonly rejects?: string
  /** The report as JSON, written whole when the run succeeds (it is also what the Promise resolves with). */
  readonly report?: string
  /**
   * Keep a checkpoint (beside `out`, or in the database) and keep what was written when the run
   * stops (aborted, failed, killed), so that a run with `resume` goes on from there.
   */
  readonly resumable?: boolean
  /**
   * Go on from where the last resumable run of the same inputs, target and outputs stopped (or from
   * the first record when none did), writing what a run that never stopped writes. A run into a
   * database always keeps its checkpoint.
   */
  readonly resume?: boolean
  /** With `resume`, read again the input bytes the checkpoint hashed and refuse to resume if they changed. */
  readonly verify?: boolean
  /**
   * Worker threads besides the calling one; the output is the same bytes either way. `auto`
   * (default): one per core from 64 MiB of input or from a database, else none. Adapters
   * given as values (not modules) migrate on the calling thread only.
   */
  readonly workers?: number | "auto"
  /** Called after every chunk written. What it throws fails the run (code Defect). */
  readonly onProgress?: (progress: MigrateProgress) => void
  /** Aborting stops the run (code Interrupted): every destination as it was, or, with `resumable`, what was written kept for `resume`. */
  readonly signal?: AbortSignal
}

const isFiles = (from: MigrateOptions["from"]): from is string | ReadonlyArray<string> => typeof from === "string" || Array.isArray(from)

/**
 * Runs a migration (docs/migrate.md): every record to `out` or `into`, or to the rejects with its
 * reason. Resolves with the report; rejects with ScanbridgeError (code MigratePlanError for options
 * that cannot go together, MigrateInputError, MigrateOutputError, ResumeError, PostgresError, ...,
 * Interrupted when `signal` aborts it). Outputs appear whole when the run succeeds and are left as
 * they were when it fails; an output that is an input, or lies in an input folder, is refused
 * before anything is opened. Databases need `pg` installed.
 */
export const migrate = (options: MigrateOptions): Promise<Report> =>
  runPlain(
    Effect.gen(function* () {
      const read = decodeOptionsOf(options)
      // Redacted from here on: no error, log or span below holds the URLs.
      const from = options.from
      const into = options.into
      const plan: MigrationPlan = {
        source: isFiles(from)
          ? { _tag: "Files", inputs: typeof from === "string" ? [from] : from }
          : { _tag: "Postgres", url: Redacted.make(String(from.url)), query: String(from.query) },
        sink:
          into !== undefined
            ? { _tag: "Postgres", url: Redacted.make(String(into.url)), table: String(into.table) }
            : {
                _tag: "Text",
                ...(options.to === undefined ? {} : { to: options.to }),
                ...(options.units === undefined ? {} : { units: options.units }),
                ...(options.patientSystem === undefined ? {} : { patientSystem: options.patientSystem }),
                out: options.out as string,
                ...(options.rejects === undefined ? {} : { rejects: options.rejects })
              },
        ...(options.report === undefined ? {} : { report: options.report }),
        resume: options.resume === true ? "resume" : options.resumable === true || into !== undefined ? "resumable" : "off",
        verify: options.verify === true,
        ...(options.workers === undefined ? {} : { workers: options.workers }),
        adapters: { values: engineAdapters(options.adapters ?? []) },
        decode: read,
        ...(options.onProgress === undefined ? {} : { onProgress: progressTo(options.onProgress) })
      }
      // The engine, loaded on a migration's first call: normalize alone never loads it.
      const [fileSystem, { Migration, MigratePlanError }] = yield* Effect.all([nodeFiles, Effect.promise(() => import("@scanbridge/migrate"))], {
        concurrency: 2
      })
      if (into === undefined && typeof options.out !== "string") {
        return yield* new MigratePlanError({ option: "out", message: "out: give the file the records go to, or into: a database table" })
      }
      if (into !== undefined && options.out !== undefined)
        return yield* new MigratePlanError({ option: "into", message: "out and into: give one destination, not both" })
      if (into !== undefined && options.patientSystem !== undefined)
        return yield* new MigratePlanError({ option: "patientSystem", message: "patientSystem: into writes canonical scans, which name no patient" })
      return yield* Migration.run(plan).pipe(Effect.provide(fileSystem))
    }),
    hidingUrls(urlsOf(options)),
    options.signal
  )

/** The plain callback as a plan's: told the figures of the progress line, not the run's internals. */
const progressTo =
  (onProgress: (progress: MigrateProgress) => void) =>
  ({ report, bytesRead, bytesTotal }: RunProgress) =>
    Effect.sync(() => onProgress({ report, bytesRead, bytesTotal }))

export interface MigrateFileOptions extends Omit<MigrateOptions, "from" | "into" | "out"> {
  /** The output file. */
  readonly out: string
}

/** `migrate` from files into a file: `migrate({ from: inputs, ...options })`. */
export const migrateFile = (inputs: string | ReadonlyArray<string>, options: MigrateFileOptions): Promise<Report> => migrate({ ...options, from: inputs })

export interface MigratePostgresOptions extends Omit<MigrateOptions, "into" | "out" | "to" | "units" | "patientSystem" | "rejects"> {
  readonly into: { readonly url: string; readonly table: string }
}

/** `migrate` into a PostgreSQL table: the same as `migrate(options)`. */
export const migratePostgres = (options: MigratePostgresOptions): Promise<Report> => migrate(options)

/**
 * The call's database URLs as text, each read apart and before anything runs, so that whatever
 * fails (a defect too) is said without them. Options that are not what their type says (no
 * `into`, a URL object) are read as far as they can be: their failure comes from the run.
 */
const urlsOf = (options: MigrateOptions): ReadonlyArray<string> =>
  [() => options.into?.url, () => (isFiles(options.from) ? undefined : options.from.url)].flatMap((read) => {
    try {
      const url: unknown = read()
      return url === undefined || url === null ? [] : [String(url)]
    } catch {
      return []
    }
  })

/**
 * Node's file system, loaded on a migration's first call rather than with the plain API:
 * normalize, detectFormat and the encoders touch no file, and an import stays light.
 */
const nodeFiles = Effect.promise(() =>
  Promise.all([import("@effect/platform-node/NodeFileSystem"), import("@effect/platform-node/NodePath")]).then(([fs, path]) =>
    Layer.merge(fs.layer, path.layer)
  )
)

export interface EncodeOptions extends AdapterOptions, TargetOptions {
  /** The target: `canonical`, `platform`, `session`, `estimation`, `fit`, `fhir`, or a given adapter's. */
  readonly to: string
}

/**
 * A canonical scan (or the first scan of any record Scanbridge reads) written in a target's
 * shape, with a note for everything that shape cannot hold. ScanbridgeError UnknownTargetError
 * for a target no adapter offers, OptionError for `units` or a `patientSystem` the target does
 * not take (as a migration refuses them), EncodeError for a scan the target cannot hold.
 */
export const encode = (scan: unknown, options: EncodeOptions): Encoded<unknown> =>
  throwsOnlyScanbridgeError(scan, () => {
    const normalizer = normalizerOf(options)
    const encoder = normalizer.encoders.get(options.to)
    if (encoder === undefined) throw new ScanbridgeError(UnknownTargetError.of(options.to, normalizer))
    const target = targetOf(normalizer, options)
    const [canonical] = scansOf(scan, normalizer)
    // A record that holds no scan (an empty list page) has nothing to encode.
    if (canonical === undefined) throw new ScanbridgeError(DecodeError.at("record", [], scan, "holds no scan to encode"))
    return orThrow(encoder.encode(canonical, target))
  })

/** The call's target options as a run checks them (checkTarget); a ScanbridgeError OptionError naming the option and its value for one the target does not take. */
const targetOf = (normalizer: NormalizerService, options: EncodeOptions): TargetOptions => {
  const { to, units, patientSystem } = options
  const checked = checkTarget(normalizer, { to, ...(units === undefined ? {} : { units }), ...(patientSystem === undefined ? {} : { patientSystem }) })
  if (Either.isRight(checked)) return checked.right
  const error = checked.left
  if (error._tag === "UnknownTargetError") throw new ScanbridgeError(error)
  throw new ScanbridgeError({ _tag: "OptionError", value: error.option === "units" ? units : patientSystem, message: error.message })
}

/**
 * A canonical scan (or the first scan of any record Scanbridge reads) as one FHIR R4 transaction
 * Bundle (docs/fhir.md): `encode(scan, { to: "fhir", units, patientSystem })`.
 */
export const toFhir = (scan: unknown, options?: FhirOptions): Encoded<FhirBundle> =>
  throwsOnlyScanbridgeError(scan, () => {
    const units = options?.units
    const patientSystem = options?.patientSystem
    // The fhir encoder writes a Bundle, whose JSON FhirBundle describes.
    return encode(scan, {
      to: "fhir",
      ...(units === undefined ? {} : { units }),
      ...(patientSystem === undefined ? {} : { patientSystem })
    }) as Encoded<FhirBundle>
  })

/** The compatibility encoders of the built-in APIs by the names the README promises: `encode` with their target. */
export const encoders = {
  toPlatformEntry: (scan: unknown) => encode(scan, { to: "platform" }),
  toSessionResults: (scan: unknown) => encode(scan, { to: "session" }),
  toEstimationResponse: (scan: unknown) => encode(scan, { to: "estimation" }),
  toFitEstimation: (scan: unknown) => encode(scan, { to: "fit" }),
  toFhir
} as const
