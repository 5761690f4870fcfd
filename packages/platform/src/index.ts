/**
 * @scanbridge/platform: the Scan Platform REST API. Wire schemas (`Wire`), its dialect, the
 * codec between its JSON and the canonical scan, the adapter the migration engine reads it
 * with, and `PlatformClient`, an Effect service over HttpClient. The client's pre-request
 * checks live in `internal/` and are not part of the API.
 */
// The adapter, codec, dialect and Wire, also exported alone by @scanbridge/platform/adapter (no client).
export * from "./adapter-entry.js"
export {
  PlatformAlreadyDeletedError,
  type PlatformHttpError,
  PlatformInputError,
  PlatformStatusError,
  PlatformStatusReason
} from "./errors.js"
export {
  type AdjustParameter,
  type CreateScanInput,
  type ListOptions,
  type ListPage,
  PlatformClient,
  type PlatformClientOptions,
  type PlatformClientService,
  type ScanToken,
  type ScanTokenOptions,
  type Scope
} from "./client.js"
export { photosOfScan } from "./client-library.js"
export { HOSTED_SCANNER_SCREENS, type HostedScannerOptions, type HostedScannerScreen, hostedScannerUrl } from "./hosted-scanner.js"
