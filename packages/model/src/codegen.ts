/**
 * The one place Scanbridge generates code. Guards, measurement constructors and readers of fixed
 * keys are generated as JavaScript source (`new Function`) where the runtime allows it, and made
 * of closures otherwise: the same behaviour, slower.
 *
 * - Nothing is generated on import: every generator runs on its first use.
 * - Whether the runtime allows `new Function` is probed once, on the first use; a runtime that
 *   refuses it (a strict Content-Security-Policy, `node --disallow-code-generation-from-strings`)
 *   sees one attempt, not one per guard. A strict CSP reports even a caught attempt.
 * - `configure({ jitless: true })` turns generation off everywhere before anything is tried; the
 *   library never reads the environment itself (the CLI maps `SCANBRIDGE_JITLESS=1` to it).
 * - Generated code names itself with a `//# sourceURL=scanbridge-<kind>/<name>.js` comment, so
 *   its frames read as such in stack traces, profiles and debuggers.
 */

/** How Scanbridge may generate code. */
export interface Options {
  /**
   * Never call `new Function`: every guard and constructor is made of closures. Takes effect for
   * whatever is first used after the call; set it before any data is read (what was generated
   * earlier stays). A migration pool passes it on to its worker threads.
   */
  readonly jitless?: boolean
}

let jitless = false
// Whether `new Function` works here: unknown until first needed, then probed once.
let allowed: boolean | undefined

/** Sets how Scanbridge may generate code; options left out keep their value. */
export const configure = (options: Options): void => {
  if (options.jitless !== undefined) jitless = options.jitless
}

/** The options in force. */
export const options = (): Required<Options> => ({ jitless })

const refused = (e: unknown): boolean => e instanceof EvalError

const probe = (): boolean => {
  try {
    new Function("")
    return true
  } catch (e) {
    if (refused(e)) return false
    throw e
  }
}

/** Whether code will be generated: not jitless, and the runtime allows it (probed once, on the first call). */
export const available = (): boolean => !jitless && (allowed ??= probe())

// Generated sources get distinct names: one schema's name may be compiled under several options.
let sequence = 0

const SAFE_NAME = /[^A-Za-z0-9_.-]+/g

/** What to generate: the function's parameters and body, and what its frames are called. */
export interface Source {
  /** The kind of function: `guard`, `measurements`, `length-survey`. */
  readonly kind: string
  /** What it is for (a schema's identifier, say); made safe for a file name and numbered. */
  readonly name: string
  readonly params: ReadonlyArray<string>
  /** The body, in strict mode. */
  readonly body: string
}

/** The sourceURL a source is given (`scanbridge-guard/ScanJson-3.js`). */
const sourceUrl = (source: Source): string =>
  `scanbridge-${source.kind.replace(SAFE_NAME, "_")}/${source.name.replace(SAFE_NAME, "_").slice(0, 80) || "anonymous"}-${sequence++}.js`

/**
 * A function made from JavaScript source with `new Function` (strict mode), or `fallback()`
 * where code is not generated (jitless, or a runtime that refuses it): the same behaviour, made
 * of closures. Readers of fixed keys gain most: one named load per key lets V8 serve each from
 * the object's shape, where a loop over the keys makes one slow, megamorphic site.
 */
export const compiled = <F>(source: Source, fallback: () => F): F => {
  if (!available()) return fallback()
  try {
    return new Function(...source.params, `"use strict";\n${source.body}\n//# sourceURL=${sourceUrl(source)}`) as F
  } catch (e) {
    // Refused after the probe allowed it (a policy changed under us): stop trying.
    if (!refused(e)) throw e
    allowed = false
    return fallback()
  }
}
