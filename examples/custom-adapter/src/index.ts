/**
 * @scanbridge-example/tapeline: an integrator's own storage format as a Scanbridge adapter. The
 * default export is what `scanbridge migrate --adapter <this module>` loads.
 */
import { tapelineAdapter } from "./adapter.js"

export { tapelineAdapter } from "./adapter.js"
export { FITTING_FORMAT, decodeFittingEither, encodeFittingEither } from "./codec.js"
export { SPELLINGS, TAPELINE, tapelineDialect } from "./dialect.js"
export { FITTING_VERSION, Fitting } from "./wire.js"

export default tapelineAdapter
