/**
 * The platform failing, as a legacy estimation endpoint answers it, and whether a create that
 * failed may have created its scan all the same.
 *
 * - The platform unavailable (a 5xx, a 429, a timeout, no connection): 503 `{message}`, with
 *   the platform's Retry-After (rounded up to whole seconds) when it gave one. The client
 *   tries again later and nothing is lost: the estimation, its photos and any scan created stay
 *   as they were.
 * - Any other answer the gateway cannot use (the platform refusing the gateway's own request:
 *   400, 401, 403, 404; a response it cannot read): 502 `{message}`. That is the gateway's
 *   configuration or the platform's contract gone wrong, not the client's request.
 *
 * The message names the kind of failure and the status only: the platform's own message and
 * the request's URL stay in the gateway, and no error carries the API key, which the platform
 * client holds redacted.
 */
import type { DecodeError } from "@scanbridge/model"
import type { PlatformHttpError, PlatformInputError } from "@scanbridge/platform"
import { Refusal } from "./refusal.js"

export type PlatformFailure = PlatformHttpError | PlatformInputError | DecodeError

const retryAfter = (ms: number | undefined): { readonly retryAfter?: number } => (ms === undefined ? {} : { retryAfter: Math.max(1, Math.ceil(ms / 1000)) })

/** The refusal a legacy endpoint answers with when the platform failed it. */
export const platformRefusal = (error: PlatformFailure): Refusal => {
  switch (error._tag) {
    case "PlatformStatusError":
      return error.reason === "Server" || error.reason === "RateLimited"
        ? new Refusal({ status: 503, message: `the platform is unavailable (HTTP ${error.status}); try again later`, ...retryAfter(error.retryAfterMs) })
        : new Refusal({ status: 502, message: `the platform refused the gateway's request (HTTP ${error.status})` })
    case "ApiTimeoutError":
      return new Refusal({ status: 503, message: "the platform did not answer in time; try again later" })
    case "ApiTransportError":
      return new Refusal({ status: 503, message: "the platform could not be reached; try again later" })
    default:
      return new Refusal({ status: 502, message: "the platform's answer could not be used by the gateway" })
  }
}

/**
 * Whether a create that failed so may still have created its scan. A 4xx says it did not; a
 * 5xx may come from a proxy that gave up while the platform went on, and a timeout, a lost
 * connection or an answer too large or unreadable say nothing.
 */
export const mayHaveCreated = (error: PlatformFailure): boolean =>
  error._tag === "PlatformStatusError"
    ? error.status >= 500
    : error._tag === "ApiTimeoutError" || error._tag === "ApiTransportError" || error._tag === "ApiResponseTooLargeError" || error._tag === "DecodeError"

/** The failure for a log line: its kind and status, never its message or URL. */
export const failureKind = (error: PlatformFailure): string => ("status" in error ? `${error._tag} ${error.status}` : error._tag)
