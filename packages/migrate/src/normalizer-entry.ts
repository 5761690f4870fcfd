/**
 * `@scanbridge/migrate/normalizer`: format detection and `normalize` over the built-in adapters or
 * a collection that adds an integrator's own, and nothing of the migration. The package's main
 * entry also exports the file, database, Parquet and worker code, which Node loads with it (an
 * import loads every module it re-exports); code that only normalizes imports this one and loads
 * no HTTP client, database driver, Parquet writer, worker machinery or @effect/platform.
 */
export { AdapterError, adaptersOfModule, builtInAdapters, checkAdapters, importAdapters } from "./adapters.js"
export {
  type Detected,
  type NormalizeError,
  Normalizer,
  type NormalizerService,
  UnknownTargetError,
  defaultNormalizer,
  detectFormat,
  normalize,
  normalizeEither
} from "./normalizer.js"
// The rule on targets and their options, which the plain API's encode applies as a run does.
export { MigratePlanError, type OptionNames, type OutputTarget, type PlanOption, checkTarget } from "./target.js"
