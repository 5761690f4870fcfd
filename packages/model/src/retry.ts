/**
 * The retry policy every client uses for requests that are safe to repeat: exponential backoff
 * with jitter, each delay capped, a bounded number of retries.
 */
import { Duration, Schedule } from "effect"

export interface RetryOptions {
  /** Retries after the first attempt. Default 4. */
  readonly times?: number
  /** First delay, doubled per retry, with jitter. Default 200 millis. */
  readonly base?: Duration.DurationInput
  /** Longest delay between two attempts. Default 5 seconds. */
  readonly cap?: Duration.DurationInput
}

export const retrySchedule = (options: RetryOptions = {}) => {
  const cap = Duration.decode(options.cap ?? "5 seconds")
  return Schedule.exponential(options.base ?? "200 millis").pipe(
    Schedule.modifyDelay((d) => Duration.min(d, cap)),
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(options.times ?? 4))
  )
}
