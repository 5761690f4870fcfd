/**
 * Long synchronous tests, cut into turns. A test that holds the event loop for a minute starves
 * the test runner's own messages (vitest gives up on them after 60 s), which on a loaded machine
 * two back-to-back property tests of 10-30 s each can do. Between turns the event loop goes round.
 */
import { FastCheck as fc } from "effect"

/** Lets the event loop go round once: timers, messages and I/O that were waiting run. */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

const RUNS_PER_TURN = 2_000

/** fc.assert over `numRuns` runs, RUNS_PER_TURN at a time, each turn with its own random seed (which a failure reports). */
export const assertInTurns = async <T>(property: fc.IProperty<T>, numRuns: number): Promise<void> => {
  for (let done = 0; done < numRuns; done += RUNS_PER_TURN) {
    fc.assert(property, { numRuns: Math.min(RUNS_PER_TURN, numRuns - done) })
    await turn()
  }
}
