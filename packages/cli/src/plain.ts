/**
 * The plain API: Scanbridge's capabilities as ordinary functions. They return plain JSON
 * objects and throw one error class, `ScanbridgeError` (from `@scanbridge/model/plain`).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Either, Layer } from "effect"
import { DecodeError, type Encoded, type Scan, type ScanJson } from "@scanbridge/model"
import { ScanbridgeError, throwsOnlyScanbridgeError } from "@scanbridge/model/plain"
import { type Report, Normalizer, defaultNormalizer, migrate, outputFile, refuseOverlaps } from "@scanbridge/migrate"

export { ScanbridgeError }

const orThrow = <A>(result: Either.Either<A, ConstructorParameters<typeof ScanbridgeError>[0]>): A => {
  if (Either.isLeft(result)) throw new ScanbridgeError(result.left)
  return result.right
}

const scansOf = (json: unknown): ReadonlyArray<Scan> => orThrow(defaultNormalizer.normalize(json))

/** Every canonical scan a stored JSON value holds (a list page holds several). */
export const normalizePlain = (json: unknown): ReadonlyArray<ScanJson> => throwsOnlyScanbridgeError(json, () => scansOf(json))

/** Which format a JSON value is: its name and API (null for the canonical form). */
export const detectFormatPlain = (json: unknown): { readonly format: string; readonly api: string | null } =>
  throwsOnlyScanbridgeError(json, () => {
    const d = orThrow(defaultNormalizer.detect(json))
    return { format: d.format.name, api: d.format.api }
  })

export interface MigrateFileOptions {
  /** `canonical` (default), `platform`, `session`, `estimation` or `fit`. */
  readonly to?: string
  /** The output file, one JSON per line. */
  readonly out: string
  /** The rejects file; without it rejects are counted, not kept. */
  readonly rejects?: string
}

/**
 * Migrates files or folders to `out`; resolves with the report, rejects with ScanbridgeError (code
 * MigrateInputError, MigrateOutputError, ...). `out` and `rejects` appear whole when the run
 * succeeds and are left as they were when it fails; an output that is an input, or lies in an
 * input folder, is refused before anything is opened.
 */
export const migrateFile = async (inputs: string | ReadonlyArray<string>, options: MigrateFileOptions): Promise<Report> => {
  const files = typeof inputs === "string" ? [inputs] : inputs
  const result = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        yield* refuseOverlaps(files, [
          { name: "out", file: options.out },
          ...(options.rejects === undefined ? [] : [{ name: "rejects", file: options.rejects }])
        ])
        const output = yield* outputFile(options.out)
        const rejects = options.rejects === undefined ? undefined : yield* outputFile(options.rejects)
        const report = yield* migrate({
          inputs: files,
          output: output.write,
          rejects: rejects === undefined ? () => Effect.void : rejects.write,
          ...(options.to === undefined ? {} : { to: options.to })
        })
        yield* output.commit
        if (rejects !== undefined) yield* rejects.commit
        return report
      })
    ).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, Normalizer.default)), Effect.either)
  )
  // Thrown here, not by runPromise, so the caller gets the ScanbridgeError itself.
  if (Either.isLeft(result)) throw new ScanbridgeError(result.left)
  return result.right
}

const encoderOf = (target: string) => (scan: unknown): Encoded<unknown> =>
  throwsOnlyScanbridgeError(scan, () => {
    const [canonical] = scansOf(scan)
    // A record that holds no scan (an empty list page) has nothing to encode.
    if (canonical === undefined) throw new ScanbridgeError(DecodeError.at("record", [], scan, "holds no scan to encode"))
    return orThrow(defaultNormalizer.encoders.get(target)!.encode(canonical))
  })

/**
 * The compatibility encoders: a canonical scan (or any record Scanbridge reads) written in an
 * API's shape, with a note for everything that shape cannot hold.
 */
export const encoders = {
  toPlatformEntry: encoderOf("platform"),
  toSessionResults: encoderOf("session"),
  toEstimationResponse: encoderOf("estimation"),
  toFitEstimation: encoderOf("fit")
} as const
