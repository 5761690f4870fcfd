/**
 * @scanbridge/simulator: a contract-faithful, stateful fake of the vendor's APIs on
 * @effect/platform HttpServer, for tests over loopback and for developing offline.
 */
export {
  type Fault,
  type FaultOptions,
  REQUEST_LOG_LIMIT,
  type RequestRecord,
  Simulator,
  type SimulatorOptions,
  type SimulatorService
} from "./simulator.js"
export { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "./limits.js"
export { type OnTestClockOptions, TEST_EPOCH_MS, onTestClock } from "./test-clock.js"
export { DEMO_ORG, MAX_LIST_LIMIT, type OrgOptions, type PlatformOptions, SIMULATED_FAILURE_CODES, TRIAL_QUOTA } from "./platform.js"
export { DEMO_SESSION_CLIENT_ID, SESSION_LIFETIME_MS, type SessionOptions, type SubmitInput } from "./session.js"
export { DEMO_ESTIMATION_CLIENT_ID, type EstimationOptions, PHOTO_FAILURE_CODES, PROCESSING_MS, TOKEN_LIFETIME_MS } from "./estimation.js"
export { FAIL_MARKER } from "./marker.js"
export { type ChartSize, DEMO_FIT_CLIENT_KEY, DEMO_PRODUCTS, type FitOptions, type FittedSize, type Product, fitSizes } from "./fit.js"
export { ALL, type BodyStats, measurementsFor } from "./body.js"
export { type Json, OPENAPI_APIS, type OpenApiName, documentedRoutes, openApiDocument, openApiPath } from "./openapi.js"
