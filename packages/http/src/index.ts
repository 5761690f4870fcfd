/**
 * @scanbridge/http: the one request layer of Scanbridge's API clients. `ApiClient.make` builds a
 * client of one API; the errors, retry options and redaction helpers are shared by all of them.
 */
export * as ApiClient from "./client.js"
export { ApiEncodeError, type ApiError, ApiStatusError, ApiTimeoutError, ApiTransportError, requestFields, statusFields } from "./errors.js"
export { DEFAULT_MAX_RETRY_AFTER, type RetryOptions, parseRetryAfter, retrySchedule } from "./retry.js"
export { REDACTED, redactUrl } from "./redact.js"
export { VERSION, userAgent } from "./version.js"
