/**
 * Chunks that write their own outputs, in input order, into files other threads write too. A
 * migration on worker threads whose outputs are files (an `outputFile`'s temporary file) has
 * each chunk's thread write the chunk's bytes where they belong, so the thread that reads and
 * orders the chunks never touches the bytes they make: its share of the run's CPU is what no
 * number of workers shares (issue 34, bench/results.md).
 *
 * Where a chunk's bytes go depends on the lengths of all the chunks before it, which other
 * threads make. The chunks take turns: a shared buffer holds the number of the last chunk placed
 * and where its outputs ended, and each chunk waits (without blocking its thread) for the one
 * before it, takes its place, passes its ends on, then writes. The writes themselves overlap;
 * only taking a place is in order. Line numbers are taken the same way, in a turn of their own,
 * by the ranges of a file the workers read themselves (ranges.ts): each counts its lines for the
 * ones after it. A chunk that fails never passes its turns on, so every later chunk waits until
 * `stopTurns` (the run's end, whatever it is) releases them.
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import { Effect } from "effect"
import { MigrateOutputError } from "../output.js"
import { giveBytes } from "./buffers.js"
import { type OpenFiles, openOnce } from "./run-files.js"
import type { MigratedChunk } from "./pipeline.js"

/** An output a chunk's thread writes into itself: the temporary file, and the name the user knows. */
export interface PlacedOutput {
  readonly path: string
  readonly file: string
}

/** Where a chunk's outputs go: plain data, so it crosses threads (a SharedArrayBuffer is shared, not copied). */
export interface Placement {
  /** The run's number (random): a worker keeps its files open for one run at a time (run-files.ts). */
  readonly run: number
  /** The chunk's place in the run, from 0. */
  readonly seq: number
  readonly turns: SharedArrayBuffer
  /** The output a chunk writes itself; without it, its lines go back to the reading thread. */
  readonly out: PlacedOutput | undefined
  readonly rejected: PlacedOutput | undefined
}

/** The bytes a chunk wrote itself, per output. */
export type Placed = NonNullable<MigratedChunk["placed"]>

// The shared buffer: Int32 [LAST] the last chunk placed, [STOPPED] 1 once the run has ended,
// [CHANGES] bumped on each change (what waiters wait on, so no change slips between a look and a
// wait), [LINES_LAST] the last range numbered; then, from byte 16, Float64 [OUT_END,
// REJECTED_END]: where the last chunk placed ends, and [LINES_END]: the lines of its file so far.
const LAST = 0
const STOPPED = 1
const CHANGES = 2
const LINES_LAST = 3
const FLAGS = 4
const ENDS_AT = 16
const OUT_END = 0
const REJECTED_END = 1
const LINES_END = 2

type WaitAsync = (typed: Int32Array, index: number, value: number) => { readonly async: false } | { readonly async: true; readonly value: Promise<unknown> }
const waitAsync = (Atomics as unknown as { readonly waitAsync?: WaitAsync }).waitAsync

/** Whether this runtime lets a thread wait for a shared value without blocking (Node has since 16). */
export const canPlace = typeof waitAsync === "function" && typeof SharedArrayBuffer === "function"

/** The turns of a run whose first chunk's outputs start at these offsets (after a header, or what a resumed run kept). */
export const makeTurns = (outStart: number, rejectedStart: number): SharedArrayBuffer => {
  const turns = new SharedArrayBuffer(ENDS_AT + 3 * Float64Array.BYTES_PER_ELEMENT)
  const flags = new Int32Array(turns, 0, FLAGS)
  flags[LAST] = -1
  flags[LINES_LAST] = -1
  const ends = new Float64Array(turns, ENDS_AT, 3)
  ends[OUT_END] = outStart
  ends[REJECTED_END] = rejectedStart
  return turns
}

const notify = (flags: Int32Array) => {
  Atomics.add(flags, CHANGES, 1)
  Atomics.notify(flags, CHANGES)
}

/** Releases every chunk still waiting for its turn: they fail. Called once the run has ended, whatever way. */
export const stopTurns = (turns: SharedArrayBuffer): void => {
  const flags = new Int32Array(turns, 0, FLAGS)
  Atomics.store(flags, STOPPED, 1)
  notify(flags)
}

/** Waits until chunk `seq - 1` has passed the turn kept at `index` on; false if the run ends first. */
const myTurn = async (flags: Int32Array, index: number, seq: number): Promise<boolean> => {
  for (;;) {
    const changes = Atomics.load(flags, CHANGES)
    const last = Atomics.load(flags, index)
    // A turn already past this chunk's would never come: two chunks of the same number.
    if (Atomics.load(flags, STOPPED) === 1 || last >= seq) return false
    if (last === seq - 1) return true
    const waited = waitAsync!(flags, CHANGES, changes)
    if (waited.async) await waited.value
  }
}

/**
 * Lets this thread's waiting chunks take the turns that came to them: a turn comes as a task of
 * the event loop (Atomics.waitAsync), which runs only when the thread is not migrating. A worker
 * holds two chunks; one that migrates a whole range without a pause kept the other one, whose turn
 * had come, and so every chunk after it on both threads, waiting for as long. With a pause after
 * each piece, the time 200k platform entries kept both workers' chunks all waiting fell by a fifth
 * (2026-11-28, eight runs each: medians 0.93 and 0.72 s, the two workers together), though the
 * run's wall time did not change measurably (bench/results.md).
 * Not Effect.yieldNow, which goes on in a microtask, before any task of the loop.
 */
export const passTurns: Effect.Effect<void> = Effect.async<void>((resume) => {
  const pause = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(pause))
})

const writeAt = (open: OpenFiles, output: PlacedOutput, at: number, bytes: Uint8Array) =>
  bytes.length === 0
    ? Effect.void
    : // Its own handle, without O_APPEND (under which Linux writes at the end whatever the offset):
      // the reading thread's may be opened to append, for a resumed run.
      Effect.flatMap(open(output.path, "r+"), (file) => file.use((handle) => Effect.zipRight(handle.seek(at, "start"), handle.writeAll(bytes)))).pipe(
        Effect.mapError((e) => new MigrateOutputError({ file: output.file, message: `${output.file}: ${e.message}` }))
      )

/**
 * How a chunk takes a turn: after the chunk before it has passed it on, or `held` by this
 * chunk's caller, who took it and did not pass it on. With `hold`, the turn is taken but not
 * passed on: the rest of the chunk (a line too large for a worker) is taken by whoever goes on
 * with it, `held`.
 */
export interface TurnTaking {
  readonly held: boolean
  readonly hold: boolean
}

const NEXT: TurnTaking = { held: false, hold: false }

const waitFor = (flags: Int32Array, index: number, seq: number, taking: TurnTaking) =>
  taking.held ? Effect.succeed(true) : Effect.promise(() => myTurn(flags, index, seq))

/**
 * A range's first line number, once the ranges of its file before it have counted theirs (the
 * first of a file is numbered from 1): its `lines` are then counted for the ones after it. Every
 * chunk of a run that has ranges takes this turn, the others with no lines, so that the turn
 * passes in order. Undefined if the run ends first.
 */
export const numberLines = (
  turns: SharedArrayBuffer,
  seq: number,
  lines: number,
  firstOfFile: boolean,
  taking: TurnTaking = NEXT
): Effect.Effect<number | undefined> => {
  const flags = new Int32Array(turns, 0, FLAGS)
  const ends = new Float64Array(turns, ENDS_AT, 3)
  return Effect.map(waitFor(flags, LINES_LAST, seq, taking), (mine) => {
    if (!mine) return undefined
    const before = firstOfFile ? 0 : ends[LINES_END]!
    ends[LINES_END] = before + lines
    if (!taking.hold) {
      Atomics.store(flags, LINES_LAST, seq)
      notify(flags)
    }
    return before + 1
  })
}

/**
 * Writes a chunk's outputs in their place: once the chunk before it has taken its own, this one
 * takes the bytes after it and passes its ends on, then writes. Only the placed outputs are
 * written; the bytes of the others stay with the caller.
 */
const placeChunk = (
  placement: Placement,
  out: Uint8Array,
  rejected: Uint8Array,
  taking: TurnTaking,
  open: OpenFiles
): Effect.Effect<Placed, MigrateOutputError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const flags = new Int32Array(placement.turns, 0, FLAGS)
    const ends = new Float64Array(placement.turns, ENDS_AT, 3)
    const named = placement.out ?? placement.rejected
    if (!(yield* waitFor(flags, LAST, placement.seq, taking))) {
      return yield* new MigrateOutputError({ file: named?.file ?? "", message: `${named?.file ?? "output"}: the run stopped before this chunk was written` })
    }
    const outAt = ends[OUT_END]!
    const rejectedAt = ends[REJECTED_END]!
    const placed: Placed = { out: placement.out === undefined ? 0 : out.length, rejected: placement.rejected === undefined ? 0 : rejected.length }
    ends[OUT_END] = outAt + placed.out
    ends[REJECTED_END] = rejectedAt + placed.rejected
    // The ends before the chunk's number: whoever sees the number sees them.
    if (!taking.hold) {
      Atomics.store(flags, LAST, placement.seq)
      notify(flags)
    }
    if (placement.out !== undefined) yield* writeAt(open, placement.out, outAt, out)
    if (placement.rejected !== undefined) yield* writeAt(open, placement.rejected, rejectedAt, rejected)
    return placed
  })

/**
 * A migrated chunk with its placed outputs written (placeChunk): those come back empty, the others
 * as they were. Their buffers are given back here (`keep`: the thread that made them reads into
 * them next) or go back with them (a worker sent the bytes of a chunk read elsewhere gives that
 * thread as many buffers as it took, so neither makes new ones; buffers.ts).
 */
export const placeMigrated = (
  placement: Placement,
  done: MigratedChunk,
  how: { readonly keep: boolean; readonly taking?: TurnTaking; readonly open?: OpenFiles }
): Effect.Effect<MigratedChunk, MigrateOutputError, FileSystem.FileSystem> =>
  Effect.map(placeChunk(placement, done.out, done.rejected, how.taking ?? NEXT, how.open ?? openOnce), (placed) => {
    const keep = how.keep
    const emptied = (bytes: Uint8Array) => {
      if (!keep) return bytes.subarray(0, 0)
      giveBytes(bytes)
      return new Uint8Array(0)
    }
    return {
      ...done,
      out: placement.out === undefined ? done.out : emptied(done.out),
      rejected: placement.rejected === undefined ? done.rejected : emptied(done.rejected),
      placed
    }
  })
