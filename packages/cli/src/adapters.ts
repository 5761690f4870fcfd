/**
 * The adapters a command reads and writes with: the built-in ones, those `runCli` was given as
 * values, and those of the modules `--adapter` names. So an integrator's storage format works
 * with every command without an edit to Scanbridge.
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { isAbsolute, join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import type { DecodeOptions } from "@scanbridge/model"
import { type AdapterError, Normalizer, type NormalizerService, defaultNormalizer, importAdapters } from "@scanbridge/migrate"
import { GivenAdapters } from "./given-adapters.js"

// A URL (file:, data:, ...) but not a Windows drive letter.
const URL_SCHEME = /^[a-z][a-z0-9+.-]+:/i

/**
 * A module as a URL any thread can import: a path from the current folder (one that starts with
 * `.` or `/`, or names a file there), or else a package name as Node resolves it there. A package that can only be imported (no `require` condition) is left to
 * `import()` by name.
 */
export const adapterModuleUrl = (specifier: string, cwd: string = process.cwd()): string => {
  if (URL_SCHEME.test(specifier)) return specifier
  // A path as a shell user types it (`my-adapter/index.js`), when there is such a file.
  if (specifier.startsWith(".") || isAbsolute(specifier) || existsSync(resolve(cwd, specifier))) return pathToFileURL(resolve(cwd, specifier)).href
  try {
    return pathToFileURL(createRequire(join(cwd, "package.json")).resolve(specifier)).href
  } catch {
    return specifier
  }
}

/** What a command migrates with. */
export interface CommandAdapters {
  readonly normalizer: NormalizerService
  /** The `--adapter` modules, as URLs: migration workers import them too. */
  readonly modules: ReadonlyArray<string>
  /**
   * Whether worker threads can hold the same adapters: not when `runCli` was given adapters as
   * values, which no worker could import.
   */
  readonly onWorkers: boolean
}

/** The normalizer over the built-in adapters, the given ones and those of `specifiers`' modules, telling every decode `options` (the decode flags). */
export const commandAdapters = (specifiers: ReadonlyArray<string>, options: DecodeOptions = {}): Effect.Effect<CommandAdapters, AdapterError> =>
  Effect.gen(function* () {
    const given = yield* GivenAdapters
    const modules = specifiers.map((s) => adapterModuleUrl(s))
    const imported = yield* importAdapters(modules)
    const normalizer = yield* Normalizer.extend(Normalizer.withOptions(defaultNormalizer, options), [...given, ...imported])
    return { normalizer, modules, onWorkers: given.length === 0 }
  })

/** Runs `f` with the command's adapters, the Normalizer in its context. */
export const withAdapters = <A, E, R>(
  specifiers: ReadonlyArray<string>,
  f: (adapters: CommandAdapters) => Effect.Effect<A, E, R>,
  options: DecodeOptions = {}
): Effect.Effect<A, E | AdapterError, Exclude<R, Normalizer>> =>
  Effect.flatMap(commandAdapters(specifiers, options), (adapters) => Effect.provideService(f(adapters), Normalizer, adapters.normalizer))
