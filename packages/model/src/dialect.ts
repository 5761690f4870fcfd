/**
 * The shape of a dialect: how one API spells the catalogue's measurements, stats and posture
 * parts, keyed by canonical name. Each adapter's `dialect.ts` defines one with `makeDialect`,
 * an integrator's adapter can too, and codecs, docs tables, the simulator and tests read the
 * spellings and the lookups built here once, at module load.
 */
import {
  type CanonicalTarget,
  FOLDED_NAMES,
  type FrontPostureName,
  MEASUREMENTS,
  type MeasurementName,
  OTHER_SPELLINGS,
  type RightPostureName,
  STATS,
  foldName,
  nearest,
  uniqueIndex
} from "./catalogue.js"

/**
 * `waistGirth` as `waist_girth`: the snake_case spelling of a camelCase name, the one a proto
 * field's name most often has and the one SQL columns and CSV headers use.
 */
export const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** One spelling: the name on the wire, and its enum number or unit where the API has them. */
export interface Spelling {
  readonly name: string
  readonly number?: number
  readonly unit?: string
}

/** The names a dialect gives the posture parts (front angles and lines, right lines). */
export interface PostureSpellings {
  readonly front: Readonly<Record<FrontPostureName, string>>
  readonly right: Readonly<Record<RightPostureName, string>>
}

/**
 * What a dialect definition lists. Records over every canonical name, so a measurement or stat
 * left out is a type error; null says the API does not have it.
 */
export interface DialectSpellings<M extends Spelling = Spelling, S extends Spelling = Spelling> {
  /** The API these are the spellings of: its adapter's name. */
  readonly api: string
  readonly measurements: Readonly<Record<MeasurementName, M | null>>
  readonly stats: Readonly<Record<CanonicalTarget, S | null>>
  /** The posture part names, for an API that reports posture. */
  readonly posture?: PostureSpellings
  /**
   * Other spellings of measurements that this API's records are known to hold, each read as the
   * measurement it names with an `aliased` note. Besides these, every right-side measurement's
   * spelling without its R (`KNEE_HEIGHT` for `KNEE_HEIGHT_R`, as the catalogue's OTHER_SPELLINGS)
   * is one.
   */
  readonly aliases?: Readonly<Record<string, MeasurementName>>
}

/** One other spelling of a measurement, and the measurement with this API's spelling of it. */
export interface Alias<M extends Spelling = Spelling> extends SpelledMeasurement<M> {
  readonly alias: string
}

export interface SpelledMeasurement<M extends Spelling = Spelling> {
  readonly name: MeasurementName
  readonly spelling: M
}

export interface SpelledStat<S extends Spelling = Spelling> {
  readonly target: CanonicalTarget
  readonly spelling: S
}

/** A dialect with its lookups, each built once. */
export interface Dialect<M extends Spelling = Spelling, S extends Spelling = Spelling> extends DialectSpellings<M, S> {
  /** The measurements the API has, in catalogue order. */
  readonly measurementList: ReadonlyArray<SpelledMeasurement<M>>
  /** The stats the API has, in catalogue order. */
  readonly statList: ReadonlyArray<SpelledStat<S>>
  /** A measurement by the API's name for it. */
  readonly measurementBySpelling: (name: string) => SpelledMeasurement<M> | undefined
  /** Every other spelling this API's records are known to hold (`aliases`, and each right-side name without its R). */
  readonly aliasList: ReadonlyArray<Alias<M>>
  /** A measurement by another spelling of it: read as that measurement, with an `aliased` note. */
  readonly measurementByAlias: (name: string) => Alias<M> | undefined
  /** A stat by the API's name for it. */
  readonly statBySpelling: (name: string) => SpelledStat<S> | undefined
  /** A measurement by its enum number, for an API whose spellings have numbers. */
  readonly measurementByNumber: (n: number) => SpelledMeasurement<M> | undefined
  /** A stat by its enum number, for an API whose spellings have numbers. */
  readonly statByNumber: (n: number) => SpelledStat<S> | undefined
  /**
   * This API's spelling of the measurement a name probably means, whatever its case or
   * separators or within a typo of it, from the canonical names, the API's own spellings and
   * their other spellings. For messages only ("did you mean").
   */
  readonly suggest: (name: string) => M | undefined
}

const indexBy = <K, V>(api: string, entries: ReadonlyArray<V>, key: (v: V) => K | undefined): ReadonlyMap<K, V> =>
  uniqueIndex(entries, key, (k) => `dialect ${api}: duplicate spelling ${String(k)}`)

/**
 * A dialect from its spellings, with its lookups. Throws at module load on a spelling given to
 * two names, the one mistake the types cannot rule out.
 */
export const makeDialect = <M extends Spelling, S extends Spelling>(spellings: DialectSpellings<M, S>): Dialect<M, S> => {
  const { api } = spellings
  const measurementList = MEASUREMENTS.flatMap(({ name }): Array<SpelledMeasurement<M>> => {
    const spelling = spellings.measurements[name]
    return spelling === null ? [] : [{ name, spelling }]
  })
  const statList = STATS.flatMap(({ target }): Array<SpelledStat<S>> => {
    const spelling = spellings.stats[target]
    return spelling === null ? [] : [{ target, spelling }]
  })
  const byName = indexBy(api, measurementList, (m) => m.spelling.name)
  const statByName = indexBy(api, statList, (s) => s.spelling.name)
  // A name is one of the API's measurements or one of its stats, never both.
  for (const name of statByName.keys()) if (byName.has(name)) throw new Error(`dialect ${api}: ${name} spells a measurement and a stat`)
  const byNumber = indexBy(api, measurementList, (m) => m.spelling.number)
  const statByNumber = indexBy(api, statList, (s) => s.spelling.number)
  const spelled = new Map(measurementList.map((m) => [m.name, m] as const))
  const unsided = (spelling: string): string | undefined => {
    const m = /^(.*?)[_-]?[rR]$/.exec(spelling)
    return m === null ? undefined : m[1]
  }
  const aliasList: Array<Alias<M>> = []
  const aliasOf = (alias: string | undefined, name: MeasurementName) => {
    const m = spelled.get(name)
    if (alias === undefined || alias === "" || m === undefined || byName.has(alias) || statByName.has(alias)) return
    if (!aliasList.some((a) => a.alias === alias)) aliasList.push({ alias, ...m })
  }
  for (const [alias, name] of Object.entries(spellings.aliases ?? {})) aliasOf(alias, name)
  for (const [, name] of Object.entries(OTHER_SPELLINGS)) aliasOf(unsided(spelled.get(name)?.spelling.name ?? ""), name)
  const byAlias = indexBy(api, aliasList, (a) => a.alias)
  // Canonical names and other spellings first, so that the API's own spellings win where they fold alike.
  const byFolded = new Map<string, M>()
  for (const m of measurementList) byFolded.set(foldName(m.name), m.spelling)
  for (const a of aliasList) byFolded.set(foldName(a.alias), a.spelling)
  for (const m of measurementList) byFolded.set(foldName(m.spelling.name), m.spelling)
  return {
    ...spellings,
    measurementList,
    statList,
    measurementBySpelling: (name) => byName.get(name),
    aliasList,
    measurementByAlias: (name) => byAlias.get(name),
    statBySpelling: (name) => statByName.get(name),
    measurementByNumber: (n) => byNumber.get(n),
    statByNumber: (n) => statByNumber.get(n),
    suggest: (name) => nearest(byFolded, name, FOLDED_NAMES)
  }
}
