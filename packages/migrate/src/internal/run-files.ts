/**
 * The files a migration worker reads and writes for a run (its input's ranges, its outputs'
 * places), opened once per run rather than once per chunk: an open and a close for each of a
 * chunk's files cost a worker a twentieth of its time on this machine (bench/results.md).
 */
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Exit, Scope } from "effect"

/**
 * A file kept open. Its position is the handle's (a seek, then a read or a write): `use` lets one
 * fiber at a time have it, so two chunks' reads or writes never move each other's position.
 */
export interface OpenFile {
  readonly use: <A, E>(f: (file: FileSystem.File) => Effect.Effect<A, E>) => Effect.Effect<A, E | PlatformError>
}

/** How a file is opened: for a range's reads, or (without O_APPEND) for writes at offsets. */
export type OpenFlag = "r" | "r+"

export type OpenFiles = (path: string, flag: OpenFlag) => Effect.Effect<OpenFile, PlatformError, FileSystem.FileSystem>

/** A file opened for one use, closed after it: what a thread that reads or writes once in a while uses. */
export const openOnce: OpenFiles = (path, flag) =>
  Effect.map(FileSystem.FileSystem, (fs) => ({
    use: (f) => Effect.scoped(Effect.flatMap(fs.open(path, { flag }), f))
  }))

/**
 * Files kept open for one run at a time (`run`, a number the run's chunks share): a chunk of
 * another run closes the last run's files first, so a file is never written through a handle
 * opened before it was replaced (a committed output's temporary name used again). `close` closes
 * what is open, when the worker stops.
 */
export const makeRunFiles = () => {
  let current: { readonly run: number; readonly scope: Scope.CloseableScope; readonly files: Map<string, Effect.Effect<OpenFile, PlatformError>> } | undefined
  const close = Effect.suspend(() => {
    const last = current
    current = undefined
    return last === undefined ? Effect.void : Scope.close(last.scope, Exit.void)
  })
  const forRun = (run: number) =>
    Effect.gen(function* () {
      if (current?.run === run) return current
      yield* close
      current = { run, scope: yield* Scope.make(), files: new Map() }
      return current
    })
  const open =
    (run: number): OpenFiles =>
    (path, flag) =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const { scope, files } = yield* forRun(run)
        const key = `${flag} ${path}`
        let opened = files.get(key)
        if (opened === undefined) {
          // Cached as an effect, so chunks that ask at once share one open (or its failure).
          opened = yield* Effect.cached(
            Effect.gen(function* () {
              const file = yield* Scope.extend(fs.open(path, { flag }), scope)
              const one = yield* Effect.makeSemaphore(1)
              return { use: (f) => one.withPermits(1)(f(file)) } satisfies OpenFile
            })
          )
          files.set(key, opened)
        }
        return yield* opened
      })
  return { open, close }
}
