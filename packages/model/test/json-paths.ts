/**
 * Paths into a JSON value, for tests that change a record somewhere and check what a decoder
 * makes of it: the tests of several packages and of the bench's tools share these.
 */
import type { Path } from "../src/index.js"

/** Every path into a JSON value, the root (`[]`) first, each parent before its children. */
export const pathsOf = (value: unknown, at: Path = []): Array<Path> => {
  if (typeof value !== "object" || value === null) return [at]
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i): [number, unknown] => [i, v]) : Object.entries(value)
  return [at, ...entries.flatMap(([k, v]) => pathsOf(v, [...at, k]))]
}

/** What `path` reaches in `json`. */
export const valueAt = (json: unknown, path: Path): unknown => path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], json)

/** A copy of `json` with `value` where `path` reaches (at the root, `value` itself); `json` is left as it was. */
export const withValueAt = <A>(json: A, path: Path, value: unknown): A => {
  if (path.length === 0) return value as A
  const copy = structuredClone(json)
  const parent = valueAt(copy, path.slice(0, -1)) as Record<string | number, unknown>
  parent[path[path.length - 1]!] = value
  return copy
}
