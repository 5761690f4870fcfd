/**
 * The differential test's records (differential.test.ts, differential.sweep.ts): every record of
 * examples/, records generated from the model's Arbitrary scans by every encoder, and both spoiled
 * by seeded mutations of the kinds a stored export holds (a key lost, respelled or unknown, keys in
 * another order, a value of another type, a number in another unit, a unit string changed, strings
 * emptied or huge, a value nested deeply, null for an object, arrays emptied or repeated, the text
 * cut short), some in `{source, payload}` envelopes. A batch is a function of its seed and number
 * alone, so any record can be made again from the two, and a run of a million holds one batch at a time.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Arbitrary, Either, FastCheck as fc } from "effect"
import { Scan, stringifyScan } from "@scanbridge/model"
import { type Wire, toContainedPanel } from "@scanbridge/fhir/adapter"
import { defaultNormalizer } from "../src/index.js"
import { mutateAt, replacements, repo, unknownKey } from "./records.js"

/** A record's JSON text (not always JSON) and where it came from, for the counts and a mismatch's report. */
export interface CorpusRecord {
  readonly raw: string
  readonly origin: string
}

type Path = ReadonlyArray<string | number>

const text = (file: string) => readFileSync(join(repo, file), "utf8")
const ndjsonLines = (file: string) => text(file).trim().split("\n")

/** Every record examples/ holds, as a migration reads it: lines as they are (broken ones too), lone documents as one line. */
const exampleRecords = (): ReadonlyArray<CorpusRecord> => {
  const lineFiles = ["platform/entries.ndjson", "estimation/read-responses.ndjson", "fit/estimations.ndjson", "broken.ndjson"]
  const fromLines = lineFiles.flatMap((file) => ndjsonLines(join("examples", "export", file)).map((raw) => ({ raw, origin: `examples ${file}` })))
  const page = JSON.parse(text("examples/export/platform/list-page.json")) as { readonly results: ReadonlyArray<unknown> }
  const sessions = JSON.parse(text("examples/export/session/results.json")) as ReadonlyArray<unknown>
  const responses = ndjsonLines("examples/export/estimation/read-responses.ndjson").map(
    (l) => JSON.parse(l) as { readonly measurements: ReadonlyArray<unknown> }
  )
  const documents: ReadonlyArray<readonly [string, unknown]> = [
    ["examples list page", page],
    ...page.results.map((entry) => ["examples list page result", entry] as const),
    ...sessions.map((s) => ["examples session result", s] as const),
    ...responses.flatMap((r) => r.measurements.map((item) => ["examples estimation item", item] as const)),
    ["examples canonical photo-scan", JSON.parse(text("examples/canonical/photo-scan.json"))],
    ["examples canonical broken-scan", JSON.parse(text("examples/canonical/broken-scan.json"))]
  ]
  return [...fromLines, ...documents.map(([origin, value]) => ({ raw: JSON.stringify(value), origin }))]
}

export const EXAMPLES: ReadonlyArray<CorpusRecord> = exampleRecords()

/** The examples that are JSON, as values to spoil. */
const exampleValues: ReadonlyArray<unknown> = EXAMPLES.flatMap((r) => {
  try {
    return [JSON.parse(r.raw) as unknown]
  } catch {
    return []
  }
})

// --- Generated records ----------------------------------------------------------------------

/** Every encoder's target (the canonical one writes the scan as it is), with the units each can write. */
const TARGETS = [...defaultNormalizer.encoders.values()].map((e) => ({ encoder: e, units: e.units ?? [undefined] }))

const wholeOr = (n: number | null, otherwise: number) => (n !== null && Number.isSafeInteger(Math.round(n)) ? Math.round(n) : otherwise)

/**
 * `scan` with what an API's record cannot go without (an id, a finished status, a subject's every
 * stat in whole units, an adjusted scan's adjustment) filled in: most of the Arbitrary's scans lack
 * one, and the platform's encoder, say, refuses them.
 */
const filledIn = (scan: Scan): Scan => ({
  ...scan,
  source: { ...scan.source, id: scan.source.id ?? "scan_generated" },
  status: scan.status === "pending" ? "success" : scan.status,
  method: scan.method === "adjusted" && scan.adjustment === null ? "photo" : scan.method,
  // Whole numbers of the units the brands name; an encoder checks them as it does any scan.
  subject: {
    age: wholeOr(scan.subject.age, 35),
    gender: scan.subject.gender ?? "female",
    heightMm: wholeOr(scan.subject.heightMm, 1_700),
    weightG: wholeOr(scan.subject.weightG, 70_000)
  } as Scan["subject"]
})

/**
 * A canonical scan from the model's Arbitrary written by one of the encoders, in one of its units,
 * and FHIR's bundles also as a panel with its members contained: a wire record of every format,
 * plausible or not as the Arbitrary makes it. A scan an encoder refuses is tried again filled in,
 * and else written as the canonical scan.
 */
const generated: fc.Arbitrary<{ readonly value: unknown; readonly origin: string }> = fc
  .tuple(Arbitrary.make(Scan), fc.nat(), fc.nat(), fc.boolean())
  .map(([scan, which, unit, contained]) => {
    const { encoder, units } = TARGETS[which % TARGETS.length]!
    const units_ = units[unit % units.length]
    const options = units_ === undefined ? {} : { units: units_ }
    const origin = `generated ${encoder.target}${units_ === undefined ? "" : ` ${units_}`}`
    const encoded = Either.orElse(encoder.encode(scan, options), () => encoder.encode(filledIn(scan), options))
    if (Either.isLeft(encoded)) return { value: JSON.parse(stringifyScan(scan)) as unknown, origin: "generated canonical" }
    return encoder.target === "fhir" && contained
      ? { value: toContainedPanel(encoded.right.value as Wire.Bundle), origin: `${origin} contained` }
      : { value: encoded.right.value, origin }
  })

// --- Mutations ------------------------------------------------------------------------------

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** How deep a mutation goes: a record already made deep is spoiled again nearer its top, not walked to its bottom. */
const MAX_DEPTH = 64

/**
 * Calls `visit` with the path of every value in `value`, `value` itself included, down to
 * MAX_DEPTH, until it answers true. The path is one array changed as the walk goes: a visitor that
 * keeps it copies it.
 */
const walkPaths = (value: unknown, visit: (u: unknown, at: Array<string | number>) => boolean, at: Array<string | number> = []): boolean => {
  if (visit(value, at)) return true
  if (typeof value !== "object" || value === null || at.length >= MAX_DEPTH) return false
  const array = Array.isArray(value)
  for (const [k, v] of Object.entries(value)) {
    at.push(array ? Number(k) : k)
    const done = walkPaths(v, visit, at)
    at.pop()
    if (done) return true
  }
  return false
}

/** The path of one of the values in `value` that `keep` keeps (the `n`th, modulo how many there are), or undefined where there is none. */
const pickPath = (value: unknown, keep: (u: unknown) => boolean, n: number): Path | undefined => {
  let count = 0
  walkPaths(value, (u) => (keep(u) && count++, false))
  if (count === 0) return undefined
  let target = n % count
  let found: Path | undefined
  walkPaths(value, (u, at) => keep(u) && target-- === 0 && ((found = [...at]), true))
  return found
}

/** A copy of `value` with what is at `path` replaced by `change` of it (the key deleted where `change` gives `DELETE`). */
const DELETE = Symbol("delete")
const changeAt = (value: unknown, path: Path, change: (u: unknown) => unknown): unknown => {
  if (path.length === 0) return change(value)
  const [key, ...rest] = path
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }) as Record<string | number, unknown>
  const inner = changeAt(copy[key!], rest, change)
  if (inner === DELETE) {
    if (Array.isArray(copy)) copy.splice(Number(key), 1)
    else delete copy[key!]
  } else copy[key!] = inner
  return copy
}

/** A key spelled another way: snake_case and camelCase each into the other, all capitals, all small, its first letter capital. */
const respellings: ReadonlyArray<(key: string) => string> = [
  (k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
  (k) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
  (k) => k.toUpperCase(),
  (k) => k.toLowerCase(),
  (k) => k.charAt(0).toUpperCase() + k.slice(1)
]

/** Factors a unit mistaken for another gives a number: cm for mm, in for cm and mm, and back. */
const FACTORS = [10, 1 / 10, 2.54, 1 / 2.54, 25.4, 1 / 25.4]

/** The unit strings the examples state, and others an API or a person might write. */
const UNITS: ReadonlyArray<string> = [
  ...new Set([
    ...exampleValues.flatMap((v) => {
      const units: Array<string> = []
      walkPaths(v, (u, at) => (typeof u === "string" && /unit/i.test(String(at.at(-1))) && units.push(u), false))
      return units
    }),
    ...[
      "cm",
      "in",
      "inch",
      "inches",
      "kg",
      "lb",
      "lbs",
      "m",
      "MM",
      "CENTIMETERS",
      "INCHES",
      "KILOGRAMS",
      "POUNDS",
      "PERCENTAGE",
      "radians",
      "ANGLE_UNIT_TYPE_RADIANS",
      ""
    ]
  ])
]

const isUnitString = (u: unknown) => typeof u === "string" && UNITS.includes(u)

/** Whether `value` holds arrays and objects more than `limit` deep (walked without recursion: it may be too deep for that). */
const deeperThan = (value: unknown, limit: number): boolean => {
  const stack: Array<readonly [unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (depth > limit) return true
    if (typeof v === "object" && v !== null) for (const inner of Object.values(v)) stack.push([inner, depth + 1])
  }
  return false
}

/** The deepest a record is made: JSON.stringify, which writes it, recurses. */
const DEEPEST = 4_000

/** A value `depth` arrays and objects deep, alternating. */
const nested = (depth: number, inside: unknown): unknown => {
  let v = inside
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { a: v }
  return v
}

/** What a mutation is told: numbers it picks paths and variants by, a replacement value and an unknown key. */
interface Draw {
  readonly picks: ReadonlyArray<number>
  readonly replacement: unknown
  readonly key: string
}

type Mutation = (value: unknown, draw: Draw) => unknown

/** Each spoils one place in a record, or leaves it as it is where the record has no such place. */
const MUTATIONS: Readonly<Record<string, Mutation>> = {
  "key deleted": (v, { picks }) => {
    const at = pickPath(v, (u) => u !== v, picks[0]!)
    return at === undefined ? v : changeAt(v, at, () => DELETE)
  },
  "type changed": (v, { picks, replacement }) => mutateAt(v, picks, replacement).value,
  "unknown key": (v, { picks, replacement, key }) => mutateAt(v, picks, replacement, key).value,
  "key respelled": (v, { picks }) => {
    const at = pickPath(v, (u) => isObject(u) && Object.keys(u).length > 0, picks[0]!)
    if (at === undefined) return v
    return changeAt(v, at, (o) => {
      const entries = Object.entries(o as Record<string, unknown>)
      const which = picks[1]! % entries.length
      const respell = respellings[picks[2]! % respellings.length]!
      return Object.fromEntries(entries.map(([k, x], i) => [i === which ? respell(k) : k, x]))
    })
  },
  "keys reordered": (v, { picks }) => {
    const at = pickPath(v, (u) => isObject(u) && Object.keys(u).length > 1, picks[0]!)
    return at === undefined ? v : changeAt(v, at, (o) => Object.fromEntries(Object.entries(o as Record<string, unknown>).reverse()))
  },
  "number scaled": (v, { picks }) => {
    const at = pickPath(v, (u) => typeof u === "number", picks[0]!)
    const factor = FACTORS[picks[1]! % FACTORS.length]!
    return at === undefined ? v : changeAt(v, at, (n) => (n as number) * factor)
  },
  "numeric string scaled": (v, { picks }) => {
    const at = pickPath(v, (u) => typeof u === "string" && u !== "" && Number.isFinite(Number(u)), picks[0]!)
    const factor = FACTORS[picks[1]! % FACTORS.length]!
    return at === undefined ? v : changeAt(v, at, (s) => String(Math.round(Number(s) * factor)))
  },
  "unit changed": (v, { picks }) => {
    const at = pickPath(v, isUnitString, picks[0]!)
    return at === undefined ? v : changeAt(v, at, () => UNITS[picks[1]! % UNITS.length])
  },
  "string emptied": (v, { picks }) => {
    const at = pickPath(v, (u) => typeof u === "string", picks[0]!)
    return at === undefined ? v : changeAt(v, at, () => "")
  },
  "string made huge": (v, { picks }) => {
    const at = pickPath(v, (u) => typeof u === "string", picks[0]!)
    return at === undefined ? v : changeAt(v, at, (s) => `${s as string}${"x".repeat(20_000 + (picks[1]! % 50_000))}`)
  },
  "value made deep": (v, { picks }) => {
    const at = pickPath(v, () => true, picks[0]!)
    const depth = [3, 40, 400, 3_000][picks[1]! % 4]!
    return at === undefined || deeperThan(v, DEEPEST - depth - MAX_DEPTH) ? v : changeAt(v, at, (u) => nested(depth, u))
  },
  "object nulled": (v, { picks }) => {
    const at = pickPath(v, isObject, picks[0]!)
    return at === undefined ? v : changeAt(v, at, () => null)
  },
  "array emptied": (v, { picks }) => {
    const at = pickPath(v, Array.isArray, picks[0]!)
    return at === undefined ? v : changeAt(v, at, () => [])
  },
  "array repeated": (v, { picks }) => {
    const at = pickPath(v, Array.isArray, picks[0]!)
    return at === undefined ? v : changeAt(v, at, (a) => [...(a as Array<unknown>), ...(a as Array<unknown>)])
  }
}

/** Each cheap mutation three times as often as one that makes a record huge or deep (they cost the most to make and read). */
const MUTATION_NAMES = Object.keys(MUTATIONS).flatMap((name) => (name === "string made huge" || name === "value made deep" ? [name] : [name, name, name]))

const draw: fc.Arbitrary<Draw> = fc.record({
  picks: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
  replacement: replacements,
  key: unknownKey
})

/** One to three mutations, each with its own draw. */
const mutations = fc.array(fc.tuple(fc.constantFrom(...MUTATION_NAMES), draw), { minLength: 1, maxLength: 3 })

/** The names a `{source, payload}` envelope may give: every format's and API's, and one nothing answers to. */
const SOURCES = [...new Set([...defaultNormalizer.formats.flatMap((f) => [f.name, ...(f.api === null ? [] : [f.api])]), "canonical", "nobody"])]

/** Now and then (one in eight) `value` in an envelope: mostly naming its own API or format, else any name. */
const envelope = fc.tuple(fc.nat({ max: 7 }), fc.nat(), fc.boolean())

const enveloped = (value: unknown, origin: string, [chance, which, own]: readonly [number, number, boolean]): { value: unknown; origin: string } => {
  if (chance !== 0) return { value, origin }
  const detected = defaultNormalizer.detect(value)
  const name = own && Either.isRight(detected) ? (which % 2 === 0 ? detected.right.format.name : detected.right.format.api) : undefined
  const source = name ?? SOURCES[which % SOURCES.length]!
  return { value: { source, payload: value }, origin: `${origin}, in an envelope` }
}

type Base = { readonly value: unknown; readonly origin: string }

const EXAMPLE_BASES: ReadonlyArray<Base> = exampleValues.map((value) => ({ value, origin: "example" }))

/** Now and then (one in fifty) a record's text cut short, as a line of an export written in part. */
const cutShort = fc.tuple(fc.nat({ max: 49 }), fc.nat())

/**
 * A record from one of `bases` (examples and generated ones), mostly spoiled (three in four),
 * sometimes in an envelope, and now and then cut short.
 */
const recordOf = (generatedBases: ReadonlyArray<Base>): fc.Arbitrary<CorpusRecord> =>
  fc
    .tuple(fc.constantFrom(...EXAMPLE_BASES, ...generatedBases), fc.nat({ max: 3 }), mutations, envelope, cutShort)
    .map(([base, spoil, changes, env, [cut, at]]) => {
      const [value, origin] =
        spoil === 0
          ? [base.value, base.origin]
          : [changes.reduce((v, [name, d]) => MUTATIONS[name]!(v, d), base.value), `${base.origin}, ${changes.map(([name]) => name).join(", ")}`]
      const { value: out, origin: said } = enveloped(value, origin, env)
      const raw = JSON.stringify(out)
      return cut === 0 && raw.length > 1 ? { raw: raw.slice(0, at % raw.length), origin: `${said}, text cut short` } : { raw, origin: said }
    })

/** The seed of the default suite and of the sweep; a batch's seed is derived from it and the batch's number. */
export const SEED = 34

/** One in this many records of a batch is a generated one as it was written; the others spoil them (and the examples). */
const GENERATED_SHARE = 10

/**
 * Batch `index` of the corpus seeded by `seed`: `size` records, the same on every call. Batch 0
 * starts with every example; each batch holds its own generated records (a scan costs more to make
 * than a record to spoil, so each is spoiled a few times), then records made of them and the examples.
 */
export const corpusBatch = (seed: number, index: number, size: number): ReadonlyArray<CorpusRecord> => {
  const examples = index === 0 ? EXAMPLES.slice(0, size) : []
  const bases = fc.sample(generated, { seed: batchSeed(seed, index), numRuns: Math.min(size - examples.length, Math.ceil(size / GENERATED_SHARE)) })
  const asWritten = bases.map((b) => ({ raw: JSON.stringify(b.value), origin: b.origin }))
  const rest = size - examples.length - asWritten.length
  return [...examples, ...asWritten, ...(rest > 0 ? fc.sample(recordOf(bases), { seed: batchSeed(seed, index), numRuns: rest }) : [])]
}

/** A batch's own seed: distinct batches of one seed never share one. */
export const batchSeed = (seed: number, index: number): number => (Math.imul(seed, 1_000_003) + index) | 0
