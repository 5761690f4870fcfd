/**
 * @scanbridge/simulator: a contract-faithful, stateful fake of the vendor's APIs on
 * @effect/platform HttpServer, for tests over loopback and for developing offline.
 */
export * from "./simulator.js"
export { ApiFailure, DEMO_ORG, MAX_LIST_LIMIT, type OrgOptions, type PlatformOptions, TRIAL_QUOTA, adjustMeasurements, photoFailure } from "./platform.js"
export { ALL, type BodyStats, STATS_ONLY, avatarFor, compositionFor, isBreadth, measurementsFor, postureFor } from "./body.js"
