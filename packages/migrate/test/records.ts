/**
 * Real records of every format (from examples/) and ways to spoil them, for the property and
 * fuzz tests that feed the decoders what a stored export might hold.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { FastCheck as fc } from "effect"
import type { Path } from "@scanbridge/model"

export const repo = fileURLToPath(new URL("../../..", import.meta.url))
export const EXPORT = join(repo, "examples", "export")
export const lines = (file: string) =>
  readFileSync(join(EXPORT, file), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as unknown)
const json = (file: string) => JSON.parse(readFileSync(join(repo, file), "utf8")) as unknown

/** One or more valid records of every format the built-in adapters read, and the canonical form. */
export const samples: ReadonlyArray<unknown> = [
  ...lines("platform/entries.ndjson"),
  json("examples/export/platform/list-page.json"),
  ...lines("estimation/read-responses.ndjson"),
  ...lines("fit/estimations.ndjson"),
  ...(json("examples/export/session/results.json") as Array<unknown>),
  json("examples/canonical/photo-scan.json")
]

/** Values to put where a record's values were. */
export const replacements = fc.oneof(fc.jsonValue(), fc.constantFrom(-1, -0.5, 0, 1e308, 2 ** 53, 1.5, "", "NaN", null, [], {}))

/**
 * Walks `path` into a copy of `value` (each step picks a key by index, modulo the keys there)
 * and replaces what it reaches with `replacement`, or, with `addKey`, gives the object it
 * reaches one more key. The original is left as it was.
 */
export const mutate = (value: unknown, path: ReadonlyArray<number>, replacement: unknown, addKey?: string): unknown =>
  mutateAt(value, path, replacement, addKey).value

/**
 * `mutate`, and where it went: `at` is the path of the keys it took, ending, where it added a
 * key the object did not have, with that key (`added`).
 */
export const mutateAt = (
  value: unknown,
  path: ReadonlyArray<number>,
  replacement: unknown,
  addKey?: string
): { readonly value: unknown; readonly at: Path; readonly added: boolean } => {
  const isObject = typeof value === "object" && value !== null
  const keys = isObject ? Object.keys(value) : []
  if (path.length === 0 || keys.length === 0) {
    if (addKey === undefined) return { value: replacement, at: [], added: false }
    if (!isObject || Array.isArray(value)) return { value, at: [], added: false }
    const added = !Object.hasOwn(value, addKey)
    // defineProperty, so that even `__proto__` becomes an own key, as JSON.parse makes it.
    const copy = Object.defineProperty({ ...(value as Record<string, unknown>) }, addKey, {
      value: replacement,
      enumerable: true,
      writable: true,
      configurable: true
    })
    return { value: copy, at: [addKey], added }
  }
  const key = keys[path[0]! % keys.length]!
  const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as unknown as Record<string, unknown>) : { ...(value as Record<string, unknown>) }
  const inner = mutateAt((value as Record<string, unknown>)[key], path.slice(1), replacement, addKey)
  copy[key] = inner.value
  return { value: copy, at: [Array.isArray(value) ? Number(key) : key, ...inner.at], added: inner.added }
}

/**
 * Every path to an object (not an array) inside `value`, `value` itself included: where a key
 * can be added.
 */
export const objectPaths = (value: unknown, at: Path = []): ReadonlyArray<Path> => {
  if (typeof value !== "object" || value === null) return []
  const inner = Object.entries(value).flatMap(([k, v]) => objectPaths(v, [...at, Array.isArray(value) ? Number(k) : k]))
  return Array.isArray(value) ? inner : [at, ...inner]
}

/** Keys no wire schema names: spellings no field has, and the ones plain objects inherit. */
export const unknownKey = fc.oneof(
  fc.string({ maxLength: 8 }).map((s) => `x-${s}`),
  fc.constantFrom("__proto__", "constructor", "toString", "valueOf", "hasOwnProperty")
)

/** A sample with a key no wire schema names added to one of its objects, and the path of that key. */
export const sampleWithUnknownKey = fc
  .tuple(fc.constantFrom(...samples), fc.array(fc.nat(), { maxLength: 8 }), replacements, unknownKey)
  .map(([sample, path, value, key]) => mutateAt(sample, path, value, key))
  .filter((m) => m.added)

/** A sample with one value (one of `values`) put in place of another, or under one key more, somewhere along a random path. */
export const mutatedSampleOf = (values: fc.Arbitrary<unknown> = replacements) =>
  fc
    .tuple(
      fc.constantFrom(...samples),
      fc.array(fc.nat(), { maxLength: 8 }),
      values,
      fc.option(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("__proto__", "constructor", "toString", "valueOf", "hasOwnProperty", "z")), {
        nil: undefined
      })
    )
    .map(([sample, path, value, addKey]) => mutate(sample, path, value, addKey))

export const mutatedSample = mutatedSampleOf()
