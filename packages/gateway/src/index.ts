/**
 * @scanbridge/gateway: the legacy gateway. Code written for the deprecated session and
 * estimation APIs (and pages that load the old widget) keeps running, unchanged but for its
 * base URL, while every call is carried out on the current Scan Platform.
 */
export * as Gateway from "./gateway.js"
export { GatewayConfig, type GatewayOptions, type GatewaySettings } from "./options.js"
export {
  type EstimationRecord,
  GatewayStore,
  GatewayStoreError,
  type GatewayStoreService,
  type Pattern,
  type SessionRecord,
  type Sweep,
  type TokenRecord
} from "./store.js"
export { memoryStoreLayer } from "./store/memory.js"
export { embeddedStoreLayer } from "./store/embedded.js"
export { DEFAULT_POSTGRES_TIMEOUT, type PostgresStoreOptions, postgresStoreLayer } from "./store/postgres.js"
