/**
 * Tests over loopback on Effect's TestClock: a client polling, backing off or waiting for a token
 * to expire against the simulator runs in no time and the same way on any machine, since the
 * simulator and the clients take time from Effect's Clock.
 */
import { Chunk, Clock, Duration, Effect, Fiber, Option, TestClock } from "effect"

/** Where `onTestClock` starts the clock, so timestamps look like today's rather than 1970's. */
export const TEST_EPOCH_MS = Date.UTC(2026, 0, 1)

// One turn of the event loop, for a request in flight over loopback: not a wait on the wall clock.
const nextTurn = Effect.async<void>((resume) => {
  const id = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(id))
})

export interface OnTestClockOptions {
  /**
   * Sleeps further ahead than this are not waited for while a request is in flight: they are
   * timeouts, which would otherwise cut the request short. Default 10 seconds.
   */
  readonly horizon?: Duration.DurationInput
}

/**
 * Runs `effect` under the TestClock, moving the clock on to the next sleep (a poll, a backoff,
 * `Effect.sleep` in the test) whenever one is due within the horizon, and meanwhile letting
 * requests over loopback complete. Time stands still while a request is in flight, so what a
 * test sees depends only on the order of events, never on the machine's speed. The clock starts
 * at TEST_EPOCH_MS unless it is past it already.
 */
export const onTestClock =
  (options: OnTestClockOptions = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.gen(function* () {
      if ((yield* Clock.currentTimeMillis) < TEST_EPOCH_MS) yield* TestClock.setTime(TEST_EPOCH_MS)
      const horizon = Duration.toMillis(options.horizon ?? "10 seconds")
      const fiber = yield* Effect.fork(effect)
      for (;;) {
        const exit = yield* Fiber.poll(fiber)
        if (Option.isSome(exit)) return yield* exit.value
        const now = yield* Clock.currentTimeMillis
        const next = Chunk.reduce(yield* TestClock.sleeps(), Number.POSITIVE_INFINITY, (earliest, at) => Math.min(earliest, at))
        if (next <= now + horizon) yield* TestClock.adjust(Math.max(0, next - now))
        else yield* nextTurn
      }
    })
