/**
 * Paired rounds, for the bench's in-process comparisons against JSON.parse (tools/bench-normalize.ts,
 * tools/bench-peers.ts): one place that decides how two loops over the same records are timed,
 * and what records they loop over.
 */
import { Either } from "effect"
import { defaultNormalizer } from "@scanbridge/migrate"
import type { Template } from "./bench-inputs.js"

/** The q-quantile of `xs` (nearest rank). */
export const quantile = (xs: ReadonlyArray<number>, q: number): number => [...xs].sort((a, b) => a - b)[Math.round((xs.length - 1) * q)]!

/** Milliseconds `run` takes, with `collect` (a gc(), or nothing) before and after it, inside the timing. */
export const timeWith =
  (collect: () => void) =>
  (run: () => void): number => {
    collect()
    const start = performance.now()
    run()
    collect()
    return performance.now() - start
  }

export interface Paired {
  /** Median milliseconds of a `base` round. */
  readonly base: number
  /** Median milliseconds of an `other` round. */
  readonly other: number
  /** Median of the pairs' base / other: above 1, `other` is faster. */
  readonly ratio: number
  /** The middle half of the pairs' ratios. */
  readonly low: number
  readonly high: number
}

/**
 * `base` rounds and `other` rounds in pairs, back to back, in alternating order, so that both
 * halves of a pair run on the same machine weather; the ratio is the median of the pairs'
 * ratios, with the middle half of them beside it. A neighbour's burst of load spoils a pair or
 * two, where "best of n" of each side apart let one burst move the ratio by a third.
 */
export const measure = (base: () => void, other: () => void, options: { readonly pairs: number; readonly collect: () => void }): Paired => {
  const time = timeWith(options.collect)
  for (let r = 0; r < 3; r++) base(), other()
  const baseMs: Array<number> = []
  const otherMs: Array<number> = []
  const ratios: Array<number> = []
  for (let r = 0; r < options.pairs; r++) {
    // Each side goes first in half the pairs.
    let b: number
    let o: number
    if (r % 2 === 0) {
      b = time(base)
      o = time(other)
    } else {
      o = time(other)
      b = time(base)
    }
    baseMs.push(b)
    otherMs.push(o)
    ratios.push(b / o)
  }
  return {
    base: quantile(baseMs, 0.5),
    other: quantile(otherMs, 0.5),
    ratio: quantile(ratios, 0.5),
    low: quantile(ratios, 0.25),
    high: quantile(ratios, 0.75)
  }
}

/** A round: JSON.parse of each line then `read` of it (which throws on a record it refuses). */
export const readEach = (lines: ReadonlyArray<string>, read: (json: unknown) => unknown) => (): void => {
  for (const l of lines) read(JSON.parse(l))
}

/** JSON.parse of each line against JSON.parse then `read` of it: a reader that refuses is not timed as a fast one. */
export const againstParse = (
  lines: ReadonlyArray<string>,
  read: (json: unknown) => unknown,
  options: { readonly pairs: number; readonly collect: () => void }
) =>
  measure(
    () => {
      for (const l of lines) JSON.parse(l)
    },
    readEach(lines, read),
    options
  )

/** normalize of one record; throws its error's message, named `name`, on a reject. */
export const normalizeOrThrow =
  (name: string) =>
  (json: unknown): unknown => {
    const result = defaultNormalizer.normalize(json)
    if (Either.isLeft(result)) throw new Error(`${name}: ${result.left.message}`)
    return result.right
  }

/** `n` records cycling through `variants`, each with its own id, as in the bench's inputs. */
export const recordsOf = (variants: ReadonlyArray<Template>, n: number) =>
  Array.from({ length: n }, (_, i) => variants[i % variants.length]!.pieces.join(i.toString(36).padStart(7, "0")))
export const meanBytes = (lines: ReadonlyArray<string>) => Math.round(lines.reduce((n, l) => n + Buffer.byteLength(l), 0) / lines.length)
/** The middle half of the pairs' ratios, as a table cell. */
export const middleHalf = (m: { readonly low: number; readonly high: number }) => `${m.low.toFixed(2)}-${m.high.toFixed(2)} x`
