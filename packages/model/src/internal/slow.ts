/**
 * How often decoding left its fast path, counted where it happens: a value a compiled guard
 * refused and Effect Schema then decoded, and a DecodeError built. A bulk migration's accepted
 * records should add to neither; tests read the counts to pin each documented record variant to
 * the fast path. Counting costs an increment on paths that cost microseconds.
 */
export const slowPaths = {
  /** Values a compiled guard refused, decoded by Effect Schema instead (`boundedDecodeEither`). */
  schemaDecodes: 0,
  /** DecodeErrors built, each with its message, issue list and stack. */
  decodeErrors: 0,
  /**
   * Proto3 messages neither printed exactly nor read by the generated one pass, read by the
   * reference reader (key by key, then the guard): a value the one pass refused, or none generated.
   */
  proto3ReferenceReads: 0,
  /** Not a slow path: proto3 messages the generated one pass read, so that a test can tell it ran. */
  proto3OnePassReads: 0
}

type Counts = { readonly [K in keyof typeof slowPaths]: number }

/** `f`'s result, and what it added to each count. */
export const countSlowPaths = <A>(f: () => A): { readonly result: A } & Counts => {
  const before: Counts = { ...slowPaths }
  const result = f()
  const added = { ...slowPaths }
  for (const count of Object.keys(added) as Array<keyof Counts>) added[count] -= before[count]
  return { result, ...added }
}

/** What a format answers to, as an adapter lists it: enough to find and decode a value's format. */
interface Detecting<R> {
  readonly name: string
  readonly detect: (json: unknown) => boolean
  readonly decode: (json: unknown) => R
}

/**
 * `json` decoded by the first of `formats` that detects it, with the names of all that do (one,
 * for a value an adapter reads unambiguously) and what the decode added to each count.
 */
export const decodeCounted = <R>(formats: ReadonlyArray<Detecting<R>>, json: unknown) => {
  const detected = formats.filter((f) => f.detect(json))
  return { detected: detected.map((f) => f.name), ...countSlowPaths(() => detected[0]?.decode(json)) }
}
