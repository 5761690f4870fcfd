/**
 * @scanbridge/http: the one request layer of Scanbridge's API clients. `ApiClient.make` builds a
 * client of one API; the errors and retry options are shared by all of them.
 */
export * as ApiClient from "./client.js"
export {
  ApiEncodeError,
  type ApiError,
  ApiRedirectError,
  ApiResponseTooLargeError,
  ApiStatusError,
  ApiTimeoutError,
  ApiTransportError,
  requestFields,
  statusFields
} from "./errors.js"
export { DEFAULT_MAX_RETRY_AFTER, type RetryOptions, retrySchedule } from "./retry.js"
export { VERSION } from "./version.js"
