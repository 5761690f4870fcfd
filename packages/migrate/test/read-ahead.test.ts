/**
 * The input read on a fiber of its own (internal/read-ahead.ts): the same elements and failure
 * as the stream it reads, never more than a few elements ahead, and a reader that stops when the
 * migration does.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, FastCheck as fc, Stream } from "effect"
import { readAhead } from "../src/internal/read-ahead.js"

describe("readAhead", () => {
  it.effect("gives the stream's elements in order, then its end or its failure", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.array(fc.integer()), fc.option(fc.string()), fc.integer({ min: 1, max: 4 }), (xs, failure, capacity) => {
          const source = Stream.concat(Stream.fromIterable(xs).pipe(Stream.rechunk(1)), failure === null ? Stream.empty : Stream.fail(failure))
          return Effect.runPromise(
            Effect.gen(function* () {
              const read: Array<number> = []
              const exit = yield* Effect.exit(Stream.runForEach(readAhead(source, capacity), (x) => Effect.sync(() => void read.push(x))))
              expect(read).toEqual(xs)
              expect(exit).toEqual(failure === null ? Exit.void : Exit.fail(failure))
            })
          )
        })
      )
    )
  )

  it.scoped("reads ahead of what has been taken, but never more than twice its capacity", () =>
    Effect.gen(function* () {
      let pulled = 0
      const source = Stream.iterate(0, (n) => n + 1).pipe(
        Stream.rechunk(1),
        Stream.tap(() => Effect.sync(() => void pulled++))
      )
      const capacity = 3
      const pull = yield* Stream.toPull(readAhead(source, capacity))
      let taken = 0
      for (let round = 0; round < 10; round++) {
        const got = Chunk.toReadonlyArray(yield* pull)
        expect(got).toEqual(Array.from({ length: got.length }, (_, i) => taken + i))
        taken += got.length
        for (let i = 0; i < 50; i++) yield* Effect.yieldNow()
        // The queue's elements, as many again taken from it together and not yet handed out,
        // and one waiting for room.
        expect(pulled - taken).toBeGreaterThan(0)
        expect(pulled - taken).toBeLessThanOrEqual(2 * capacity + 1)
      }
    })
  )

  it.effect("stops its reader, whose finalizers run, when the stream's consumer fails", () =>
    Effect.gen(function* () {
      let closed = false
      const endless = Stream.repeatValue(1).pipe(Stream.rechunk(1), Stream.ensuring(Effect.sync(() => void (closed = true))))
      // As in `migrate`: an ordered concurrent mapEffect whose third element fails.
      let n = 0
      const error = yield* Effect.flip(
        readAhead(endless, 2).pipe(
          Stream.mapEffect(() => (++n === 3 ? Effect.fail("stopped" as const) : Effect.succeed(n)), { concurrency: 3 }),
          Stream.runDrain
        )
      )
      expect(error).toBe("stopped")
      expect(closed).toBe(true)
    })
  )
})
