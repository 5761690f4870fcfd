/** Deterministic randomness: the same seed or the same input always gives the same numbers. */

/** FNV-1a, 32 bits. */
export const hash = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** A value in [-amplitude, amplitude], fixed for a given input. */
export const jitter = (input: string, amplitude: number): number => ((hash(input) / 0xffffffff) * 2 - 1) * amplitude

/** mulberry32: a small seeded generator of floats in [0, 1). */
export const seeded = (seed: number): (() => number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
