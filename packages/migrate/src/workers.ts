/**
 * The migration on worker threads. The main thread reads the input in chunks (NDJSON as bytes,
 * not decoded) and writes the outputs; workers migrate whole chunks with the same `migrateChunk`
 * the main thread uses without them, and send back plain data (the chunk's output text, rejects
 * text and tally). `migrate` takes the results back in input order, so a pool changes the speed,
 * never the bytes.
 *
 * Platform-neutral: the Node side is `NodeWorker.layerPlatform` (main thread) and
 * `NodeWorkerRunner.layer` (worker) from `@effect/platform-node`, provided by whoever spawns the
 * workers. Only @effect/platform's public Worker and WorkerRunner API is used.
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Transferable from "@effect/platform/Transferable"
import * as Worker from "@effect/platform/Worker"
import { type WorkerError, isWorkerError } from "@effect/platform/WorkerError"
import * as WorkerRunner from "@effect/platform/WorkerRunner"
import { Deferred, Effect, Either, Fiber, FiberRef, LogLevel, Schema, type Scope } from "effect"
import { Codegen, type DecodeOptions } from "@scanbridge/model"
import { type AdapterError, importAdapters } from "./adapters.js"
import { giveBytes, spareBuffer } from "./internal/buffers.js"
import { type MigratedChunk, emptyTally, joinChunks, migrateChunk, renumbered } from "./internal/pipeline.js"
import type { Reject } from "./report.js"
import { type Placement, passTurns, numberLines, placeMigrated } from "./internal/placement.js"
import { type InputRange, linesChunk, piecesOf, readRange } from "./internal/ranges.js"
import { makeRunFiles } from "./internal/run-files.js"
import { CHUNK_BYTES } from "./internal/read.js"
import { MigrateInputError } from "./inputs.js"
import type { InputChunk } from "./internal/read.js"
import { scanLine } from "./internal/targets.js"
import type { OutputTarget } from "./target.js"
import { MigrateOutputError } from "./output.js"
import { Normalizer, type NormalizerService, UnknownTargetError } from "./normalizer.js"

/** A worker could not be started, or stopped while it held a chunk. */
export class MigrateWorkerError extends Schema.TaggedError<MigrateWorkerError>("@scanbridge/migrate/MigrateWorkerError")("MigrateWorkerError", {
  message: Schema.String
}) {}

// The messages are plain data (structured clone), so a class instance never crosses a thread.
// What every chunk of a pool shares is said once, in the first message each worker gets.
type PoolRequest =
  | {
      readonly _tag: "Setup"
      /** URLs of the modules whose adapters the worker adds to its own (see `adapterModules`). */
      readonly modules: ReadonlyArray<string>
      /** The main thread is jitless (`Codegen`): so is the worker, before it compiles anything. */
      readonly jitless: boolean
      /** What the main thread's normalizer tells every decode: the worker's tells the same. */
      readonly options: DecodeOptions
    }
  | {
      readonly _tag: "Chunk"
      readonly target: OutputTarget
      /** Lines or records read, or a range of a file the worker reads itself (with a placement: its lines are numbered in turn). */
      readonly chunk: InputChunk | InputRange
      /** Whether the rejects are written (else only counted). */
      readonly keepRejects: boolean
      /** A free buffer the main thread can spare (buffers.ts): a worker's outputs may outnumber the chunks it gets. */
      readonly spare: ArrayBuffer | undefined
      /** Where the worker writes the chunk's outputs itself (internal/placement.ts), if it does. */
      readonly placement: Placement | undefined
    }

type ChunkFailure =
  | { readonly _tag: "UnknownTargetError"; readonly target: string; readonly message: string }
  | { readonly _tag: "AdapterError"; readonly message: string }
  | { readonly _tag: "MigrateOutputError"; readonly file: string; readonly message: string }
  | { readonly _tag: "MigrateInputError"; readonly file: string; readonly message: string }

// Buffers move between the threads rather than being copied, and circulate (buffers.ts): a chunk's
// bytes (and a spare buffer) go to the worker, whose free list they join once it has migrated
// them; its outputs come back, and the main thread reuses them once written.
const buffersOf = (...bytes: ReadonlyArray<Uint8Array | ArrayBuffer | undefined>) =>
  Transferable.addAll(
    bytes.flatMap((b) => {
      const buffer = b instanceof Uint8Array ? b.buffer : b
      return buffer instanceof ArrayBuffer && buffer.byteLength > 0 ? [buffer] : []
    })
  )

const transferBytes = (request: PoolRequest) =>
  Effect.as(request._tag === "Chunk" ? buffersOf(request.chunk._tag === "Lines" ? request.chunk.bytes : undefined, request.spare) : Effect.void, request)

// A chunk's output goes back as its UTF-8 bytes: the main thread, which reads and writes for every
// worker, only writes it. Bytes the worker wrote itself go back as their empty buffer, for the
// main thread to read into.
const transferOutput = (_request: PoolRequest, migrated: MigratedChunk) => Effect.as(buffersOf(migrated.out, migrated.rejected), migrated)

/** The most output a worker holds for a range before it waits to write it (a FHIR output is some 15 times its input). */
const HELD_BYTES = 16 * 1024 * 1024

// Chunks handed to each worker at once: one it migrates and one waiting in its queue, so it never
// idles while the main thread reads the next chunk and takes the last one's result.
const CHUNKS_PER_WORKER = 2

/** Worker threads that migrate chunks; made by `makeMigratePool`, passed to `migrate` as `pool`. */
export interface MigratePool {
  readonly size: number
  /** Chunks in flight at once: `migrate` holds no more than this many (plus as many results waiting). */
  readonly concurrency: number
  /**
   * Completes once every worker has started, or fails with the first that cannot. `migrate` reads
   * meanwhile (its chunks wait for the workers), and waits for it to end: a pool that cannot start
   * fails the run whatever the input's size.
   */
  readonly started: Effect.Effect<void, MigrateWorkerError>
  /** Whether every worker has started. */
  readonly isStarted: Effect.Effect<boolean>
  /**
   * Whether its workers read ranges of a file and write into output files themselves
   * (`makeMigratePool`'s do): `migrate` then sends them ranges and placements. A pool without it
   * gets chunks read, and gives their bytes back to be written.
   */
  readonly readsAndWrites?: boolean
  /**
   * A chunk migrated on a worker: its output comes back as UTF-8 bytes, ready to be written.
   * Without `keepRejects` (default true), its rejects are counted, not formatted. With a
   * `placement` (`migrate`'s), the worker writes the placed outputs itself, in their turn, and
   * says how many bytes (`MigratedChunk.placed`); a range of a file (which needs one) it reads
   * itself, its lines numbered in turn.
   */
  readonly migrateChunk: (
    target: OutputTarget,
    chunk: InputChunk | InputRange,
    keepRejects?: boolean,
    placement?: Placement
  ) => Effect.Effect<MigratedChunk, MigrateWorkerError | UnknownTargetError | MigrateOutputError | MigrateInputError>
}

export interface MigratePoolOptions {
  /** Worker threads: one per core the migration may use. */
  readonly size: number
  /**
   * URLs (or package names) of modules that export adapters (adapters.ts `adaptersOfModule`):
   * each worker imports them and adds their adapters to its own Normalizer's, so that an
   * integrator's adapter migrates on the workers too. An adapter known only as a value has no
   * module a worker could import: migrate such a collection without a pool.
   */
  readonly adapterModules?: ReadonlyArray<string>
  /** What every decode on the workers is told (`NormalizerService.options`): the main thread's normalizer's. */
  readonly decodeOptions?: DecodeOptions
}

const describe = (error: WorkerError): string => {
  const cause = error.cause
  const detail = cause instanceof Error ? cause.message : typeof cause === "string" ? cause : undefined
  return `migration worker: ${error.message}${detail === undefined ? "" : ` (${detail})`}`
}

/**
 * A platform whose workers report a failure to `failed` while `starting()` (a missing or broken
 * worker entry): the manager alone would respawn them every second for ever, and the pool would
 * wait for ever. Its own warnings are silenced, since the pool reports every failure as a
 * `MigrateWorkerError` (and a logger may well write to stdout, where the records go).
 */
const watched = (platform: Worker.PlatformWorker, starting: () => boolean, failed: Deferred.Deferred<void, MigrateWorkerError>): Worker.PlatformWorker => ({
  ...platform,
  spawn: <I, O>(id: number) =>
    Effect.map(
      platform.spawn<I, O>(id),
      (backing): Worker.BackingWorker<I, O> => ({
        send: backing.send,
        run: (handler) =>
          FiberRef.set(FiberRef.currentMinimumLogLevel, LogLevel.None).pipe(
            Effect.zipRight(backing.run(handler)),
            Effect.tapError((e) => (starting() && isWorkerError(e) ? Deferred.fail(failed, new MigrateWorkerError({ message: describe(e) })) : Effect.void))
          )
      })
    )
})

/**
 * Starts `size` worker threads, stopped when the scope closes. Each worker must run
 * `runMigrateWorker`, whose adapters plus those of `adapterModules` must be the main thread's
 * `Normalizer`'s. On Node the
 * platform is `NodeWorker.layerPlatform((id) => new Worker(entry))` from `@effect/platform-node`.
 * Returns at once, while the workers start: `started` says when they have (or that one cannot),
 * and a chunk sent before then waits for them.
 */
export const makeMigratePool = (
  options: MigratePoolOptions
): Effect.Effect<MigratePool, MigrateWorkerError, Worker.PlatformWorker | Worker.Spawner | Scope.Scope> =>
  Effect.gen(function* () {
    if (!Number.isInteger(options.size) || options.size < 1) {
      return yield* new MigrateWorkerError({ message: `a migration pool needs at least one worker, not ${options.size}` })
    }
    // The pool is up once every worker has been created (the pool's `onCreate`, after the
    // worker said it was ready); a failure before that is a worker that cannot start. `created`
    // completes either way: with the pool, or with the first such failure.
    const created = yield* Deferred.make<void, MigrateWorkerError>()
    let count = 0
    const onCreate = () => Effect.suspend(() => (++count === options.size ? Deferred.succeed(created, undefined) : Effect.void))
    const modules = options.adapterModules ?? []
    const decodeOptions = options.decodeOptions ?? {}
    const jitless = Codegen.options().jitless
    const platform = watched(yield* Worker.PlatformWorker, () => count < options.size, created)
    const manager = yield* Effect.provideService(Worker.makeManager, Worker.PlatformWorker, platform)
    // The pool, once every worker is up.
    let ready: Worker.WorkerPool<PoolRequest, MigratedChunk, ChunkFailure> | undefined
    // Started in the background (a worker takes a fifth of a second to load), within the scope,
    // whose close stops it and the workers. Disconnected: interrupting a pool that still waits for
    // its workers would wait as long as they do.
    const starting = yield* Effect.forkScoped(
      Effect.raceFirst(
        Effect.disconnect(
          Effect.mapError(
            Worker.makePool<PoolRequest, MigratedChunk, ChunkFailure>({
              size: options.size,
              concurrency: CHUNKS_PER_WORKER,
              encode: transferBytes,
              initialMessage: () => ({ _tag: "Setup", modules, jitless, options: decodeOptions }),
              onCreate
            }),
            (e) => new MigrateWorkerError({ message: describe(e) })
          )
        ).pipe(Effect.zipLeft(Deferred.await(created))),
        Effect.zipRight(Deferred.await(created), Effect.never)
      ).pipe(
        Effect.tap((pool) => Effect.sync(() => void (ready = pool))),
        Effect.provideService(Worker.WorkerManager, manager)
      )
    )
    const started = Fiber.join(starting)
    // Once the pool is up, a chunk goes straight to it, without joining the fiber that started it.
    const whenUp = Effect.suspend(() => (ready === undefined ? started : Effect.succeed(ready)))
    return {
      size: options.size,
      concurrency: options.size * CHUNKS_PER_WORKER,
      started: Effect.asVoid(started),
      isStarted: Effect.sync(() => ready !== undefined),
      readsAndWrites: true,
      migrateChunk: (target, chunk, keepRejects = true, placement) =>
        Effect.flatMap(whenUp, (pool) =>
          Effect.mapError(
            pool.executeEffect({ _tag: "Chunk", target, chunk, keepRejects, spare: spareBuffer(), placement }),
            (e): MigrateWorkerError | UnknownTargetError | MigrateOutputError | MigrateInputError => {
              switch (e._tag) {
                case "WorkerError":
                  return new MigrateWorkerError({ message: describe(e) })
                case "AdapterError":
                  return new MigrateWorkerError({ message: `migration worker: ${e.message}` })
                case "MigrateOutputError":
                  return new MigrateOutputError({ file: e.file, message: e.message })
                case "MigrateInputError":
                  return new MigrateInputError({ file: e.file, message: e.message })
                case "UnknownTargetError":
                  return new UnknownTargetError({ target: e.target, message: e.message })
              }
            }
          )
        )
    }
  })

/**
 * The worker side: serves chunks until the pool closes, with the `Normalizer` in context, to
 * which it adds the adapters of the pool's `adapterModules`, and a `FileSystem`, with which it
 * writes the chunks' outputs into a run's output files itself. A worker entry on Node provides
 * `NodeWorkerRunner.layer`, `NodeFileSystem.layer` and a normalizer layer (`Normalizer.default`
 * for the built-in adapters), for example:
 *
 * ```ts
 * runMigrateWorker.pipe(Effect.provide([Normalizer.default, NodeFileSystem.layer, NodeWorkerRunner.layer]), NodeRuntime.runMain)
 * ```
 */
export const runMigrateWorker: Effect.Effect<void, MigrateWorkerError, Normalizer | FileSystem.FileSystem | WorkerRunner.PlatformRunner> = Effect.gen(
  function* () {
    const base = yield* Normalizer
    const context = yield* Effect.context<FileSystem.FileSystem>()
    // The files of the run whose chunks come: its input's and outputs', open until the next run's come.
    const files = makeRunFiles()
    // The pool's adapter modules, imported once, when the pool's first message names them (the
    // first chunks wait for the same import; a module that fails fails each chunk).
    let normalizer: Promise<Either.Either<NormalizerService, AdapterError>> | undefined
    const setup = (modules: ReadonlyArray<string>, jitless: boolean, options: DecodeOptions) => {
      // Before the first chunk's guards are compiled: a pool never mixes jitless and not.
      if (jitless && !Codegen.options().jitless) Codegen.configure({ jitless: true })
      const told = Normalizer.withOptions(base, options)
      if (modules.length > 0) normalizer = Effect.runPromise(Effect.either(Effect.flatMap(importAdapters(modules), (extra) => Normalizer.extend(told, extra))))
      else if (told !== base) normalizer = Promise.resolve(Either.right(told))
    }
    const normalizerNow: Effect.Effect<NormalizerService, ChunkFailure> = Effect.suspend(() =>
      normalizer === undefined
        ? Effect.succeed(base)
        : Effect.flatMap(
            Effect.promise(() => normalizer!),
            Either.match({ onLeft: (e) => Effect.fail({ _tag: "AdapterError", message: e.message } as const), onRight: Effect.succeed })
          )
    )
    // The answer to the Setup message: no output.
    const nothing = (): MigratedChunk => ({ out: new Uint8Array(0), rejected: new Uint8Array(0), tally: emptyTally() })
    const byTarget = new Map<string, ReturnType<typeof migrateChunk>>()
    // The spare joins this thread's free buffers (as the chunk's bytes do, once migrated): its
    // outputs are made in them.
    const migrated = (run: ReturnType<typeof migrateChunk>, request: Extract<PoolRequest, { _tag: "Chunk" }>): Effect.Effect<MigratedChunk, ChunkFailure> =>
      Effect.suspend(() => {
        if (request.spare !== undefined) giveBytes(new Uint8Array(request.spare))
        const { chunk, placement } = request
        if (chunk._tag === "Range") return placement === undefined ? Effect.die("a range without a placement") : migratedRange(run, chunk, placement)
        const done = run(chunk)
        // What was written goes back empty: its buffer is the main thread's to read into.
        return placement === undefined
          ? Effect.succeed(done)
          : Effect.provide(Effect.mapError(placeMigrated(placement, done, { keep: false, open: files.open(placement.run) }), failed), context)
      })
    const failed = (e: MigrateOutputError | MigrateInputError): ChunkFailure => ({ _tag: e._tag, file: e.file, message: e.message })
    // A range's lines, read here and migrated in pieces of a chunk's size, numbered once the ranges
    // before have counted their lines (so no worker waits for another before it migrates), and
    // written in their place once the range before is: all at once, unless their outputs grow past
    // HELD_BYTES first. A range that waited for the one before after each piece kept both workers
    // waiting on each other (wall time 15 % longer). A line too large for this heap is left, with
    // the turns, to the calling thread (`rest`).
    const migratedRange = (run: ReturnType<typeof migrateChunk>, range: InputRange, placement: Placement): Effect.Effect<MigratedChunk, ChunkFailure> =>
      Effect.gen(function* () {
        const open = files.open(placement.run)
        const read = yield* readRange(range, CHUNK_BYTES, open)
        const goesOn = read.rest !== undefined
        const pieces = piecesOf(read)
        let firstLine: number | undefined
        const written: Array<MigratedChunk> = []
        let held: Array<MigratedChunk> = []
        let heldBytes = 0
        for (const [i, piece] of pieces.entries()) {
          const rejects: Array<Reject> = []
          if (i > 0) yield* passTurns
          const migrated = run(linesChunk(range, piece, piece.line, 0), rejects, true)
          // The lines' turn is passed on once the range's lines are counted (by the calling thread,
          // when it goes on with the range).
          firstLine ??= yield* numberLines(placement.turns, placement.seq, read.lines, range.first, { held: false, hold: goesOn })
          if (firstLine === undefined) {
            return yield* new MigrateInputError({ file: range.file, message: `${range.file}: the run stopped before this part of it was read` })
          }
          held.push(renumbered(migrated, rejects, firstLine - 1))
          heldBytes += migrated.out.length
          const last = i === pieces.length - 1
          if (!last && heldBytes < HELD_BYTES) continue
          // The outputs' turn: taken by the range's first piece written, passed on by its last.
          for (const [j, chunk] of held.entries()) {
            const taking = { held: written.length > 0, hold: !(last && j === held.length - 1) || goesOn }
            written.push(yield* placeMigrated(placement, chunk, { keep: true, taking, open }))
          }
          held = []
          heldBytes = 0
        }
        giveBytes(read.bytes)
        const done = joinChunks(written)
        return read.rest === undefined ? done : { ...done, rest: read.rest }
      }).pipe(Effect.mapError(failed), Effect.provide(context))
    const handle = (request: PoolRequest): Effect.Effect<MigratedChunk, ChunkFailure> =>
      Effect.suspend(() => {
        if (request._tag === "Setup") return Effect.sync(() => (setup(request.modules, request.jitless, request.options), nothing()))
        const { to, units, patientSystem } = request.target
        const key = JSON.stringify([request.keepRejects, to, units ?? null, patientSystem ?? null])
        const run = byTarget.get(key)
        if (run !== undefined) return migrated(run, request)
        return Effect.flatMap(normalizerNow, (normalizer): Effect.Effect<MigratedChunk, ChunkFailure> => {
          if (scanLine(normalizer, request.target) === undefined) {
            const { target, message } = UnknownTargetError.of(request.target.to, normalizer, " in the migration worker")
            return Effect.fail({ _tag: "UnknownTargetError", target, message })
          }
          const made = migrateChunk(normalizer, request.target, request.keepRejects)
          byTarget.set(key, made)
          return migrated(made, request)
        })
      })
    yield* Effect.mapError(
      WorkerRunner.launch(WorkerRunner.layer(handle, { encodeOutput: transferOutput })),
      (e) => new MigrateWorkerError({ message: describe(e) })
    ).pipe(Effect.ensuring(files.close))
  }
)
