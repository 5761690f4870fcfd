/** Tests on parsed JSON that every layer makes, from the adapters' shape tests to the guards. */

/** A plain object, not an array or null: the start of every shape test. */
export const isRecord = (json: unknown): json is Record<string, unknown> => typeof json === "object" && json !== null && !Array.isArray(json)

const hop = Object.prototype.hasOwnProperty

// Both read an object's own enumerable keys, as Object.keys lists them, with for-in, which
// allocates nothing where Object.keys makes an array of every record's keys only to look at
// them once. (for-in also visits inherited enumerable keys: skipped, as Object.keys has none.)

/** Whether `key` is an object's one own enumerable key (an `{entry}` envelope's shape). */
export const hasOnlyKey = (json: Record<string, unknown>, key: string): boolean => {
  let count = 0
  for (const k in json) {
    if (!hop.call(json, k)) continue
    if (k !== key) return false
    count++
  }
  return count === 1
}

/** Whether every own enumerable key of an object is one of `keys`. */
export const hasOnlyKeysIn = (json: Record<string, unknown>, keys: ReadonlySet<string>): boolean => {
  for (const k in json) if (!keys.has(k) && hop.call(json, k)) return false
  return true
}
