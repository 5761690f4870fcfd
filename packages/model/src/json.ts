/** Tests on parsed JSON that every layer makes, from the adapters' shape tests to the guards. */

/** A plain object, not an array or null: the start of every shape test. */
export const isRecord = (json: unknown): json is Record<string, unknown> => typeof json === "object" && json !== null && !Array.isArray(json)
