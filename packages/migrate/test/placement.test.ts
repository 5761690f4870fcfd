/**
 * The turns chunks take for their lines' numbers and their outputs' places (internal/placement.ts),
 * as one thread sees them: a chunk that waits for its turn gets it while the thread is between
 * pieces of another chunk's migration, not only once that whole chunk is done.
 */
import { Effect, Fiber } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { makeTurns, numberLines, passTurns } from "../src/internal/placement.js"

/** A chunk's migration on this thread in `pieces` pieces, each synchronous, with `pause` between them. */
const migrateInPieces = (pieces: number, pause: Effect.Effect<void>, order: Array<string>) =>
  Effect.gen(function* () {
    for (let i = 0; i < pieces; i++) {
      if (i > 0) yield* pause
      order.push(`piece ${i}`)
    }
  })

/** Chunk 1 waits for the lines' turn; chunk 0 takes and passes it; then another chunk migrates in three pieces. */
const turnTakenAmongPieces = (pause: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const turns = makeTurns(0, 0)
    const order: Array<string> = []
    const waiting = yield* Effect.fork(Effect.tap(numberLines(turns, 1, 10, false), (line) => Effect.sync(() => order.push(`turn taken at line ${line}`))))
    // Chunk 1 is waiting before chunk 0 passes the turn on.
    yield* passTurns
    expect(yield* numberLines(turns, 0, 5, true)).toBe(1)
    yield* migrateInPieces(3, pause, order)
    yield* Fiber.join(waiting)
    return order
  })

describe("a chunk waiting for its turn, on a thread that migrates another", () => {
  it.effect("takes the turn at the first pause between pieces (passTurns)", () =>
    Effect.gen(function* () {
      expect(yield* turnTakenAmongPieces(passTurns)).toEqual(["piece 0", "turn taken at line 6", "piece 1", "piece 2"])
    })
  )

  it.effect("and without the pauses, only once the whole migration is done", () =>
    Effect.gen(function* () {
      expect(yield* turnTakenAmongPieces(Effect.void)).toEqual(["piece 0", "piece 1", "piece 2", "turn taken at line 6"])
    })
  )
})
