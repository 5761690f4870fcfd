/**
 * When a request that is safe to repeat is repeated: exponential backoff with jitter, each delay
 * capped, a bounded number of retries; a 429's or 503's Retry-After instead, when it asks for no
 * more than `maxRetryAfter`.
 */
import { Duration, Option, Schedule } from "effect"

export interface RetryOptions {
  /** Retries after the first attempt. Default 4. */
  readonly times?: number
  /** First delay, doubled per retry, with jitter. Default 200 millis. */
  readonly base?: Duration.DurationInput
  /** Longest backoff between two attempts. Default 5 seconds. */
  readonly cap?: Duration.DurationInput
  /**
   * Longest Retry-After waited for. A 429 or 503 asking for more is returned at once (with its
   * `retryAfterMs`) rather than held for a wait the caller did not plan. Default 30 seconds.
   */
  readonly maxRetryAfter?: Duration.DurationInput
}

export const DEFAULT_MAX_RETRY_AFTER: Duration.DurationInput = "30 seconds"

/** The backoff alone, for callers that repeat something other than a request. */
export const retrySchedule = (options: RetryOptions = {}) => {
  const cap = Duration.decode(options.cap ?? "5 seconds")
  return Schedule.exponential(options.base ?? "200 millis").pipe(
    Schedule.modifyDelay((d) => Duration.min(d, cap)),
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(options.times ?? 4))
  )
}

/**
 * A Retry-After header as milliseconds from `nowMs`: delta-seconds or an HTTP-date (RFC 9110
 * 10.2.3). A date in the past is no wait; anything else is none.
 */
export const parseRetryAfter = (header: string | undefined, nowMs: number): Option.Option<number> => {
  if (header === undefined) return Option.none()
  const value = header.trim()
  if (/^\d+$/.test(value)) return Option.some(Number(value) * 1000)
  // An HTTP-date always names its weekday and GMT; Date.parse alone accepts far looser text.
  if (!/^[A-Za-z]{3},? .*GMT$/.test(value)) return Option.none()
  const at = Date.parse(value)
  return Number.isNaN(at) ? Option.none() : Option.some(Math.max(0, at - nowMs))
}
