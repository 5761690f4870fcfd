/**
 * The inputs of `pnpm bench` (tools/bench.ts): large NDJSON files made of the example export's
 * records (examples/export, examples/canonical), each record given its own id. One input per
 * format the built-in adapters (and the canonical form) detect, each cycling through every variant
 * of that format the export holds, and a mixed input: every format in the proportions of a
 * real archive, with 10 % of records nothing can migrate (broken JSON, unknown shapes, invalid
 * values), shuffled so that consecutive records switch formats as they do in a real export.
 *
 * Records are written from templates: each is serialized once with a marker where its ids go,
 * and a record is the template's pieces joined by its id, so that a file of millions of
 * records takes seconds to write. The writer says what a migration of the file must report
 * (records per format, rejects per reason), for the bench to check every run against.
 */
import { closeSync, openSync, readFileSync, writeSync } from "node:fs"
import { join } from "node:path"
import { Either } from "effect"
import type { Scan } from "@scanbridge/model"
import { encodeBundleEither, toContainedPanel } from "@scanbridge/fhir/adapter"

/** Where a record's id goes in a template. No example record holds it. */
const MARK = "\u0000id\u0000"
/** The marker as JSON.stringify writes it. */
const MARK_JSON = JSON.stringify(MARK).slice(1, -1)

/** A kind of record: one of the nine formats, or a reject with the reason a migration gives. */
export interface Template {
  /** The format a migration detects it as, or undefined for a reject. */
  readonly format: string | undefined
  /** A reject's reason, as a migration's report counts it (`byRejectReason`). */
  readonly reason: string | undefined
  /** What it is, in a few words. */
  readonly variant: string
  /** The record's text split where its id goes. */
  readonly pieces: ReadonlyArray<string>
}

type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

const read = (root: string, file: string) => readFileSync(join(root, "examples", file), "utf8")
const ndjson = (root: string, file: string) =>
  read(root, file)
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as JsonObject)
const copy = <A extends Json>(a: A): A => JSON.parse(JSON.stringify(a)) as A
const object = (json: Json | undefined): JsonObject => json as JsonObject

const template = (format: string | undefined, reason: string | undefined, variant: string, value: Json | string): Template => {
  const text = typeof value === "string" ? value : JSON.stringify(value)
  const pieces = text.split(MARK_JSON)
  if (pieces.length < 2) throw new Error(`bench input ${variant}: the template has no id`)
  return { format, reason, variant, pieces }
}
const accepted = (format: string, variant: string, value: Json | string) => template(format, undefined, variant, value)
const rejected = (reason: string, variant: string, value: Json | string) => template(undefined, reason, variant, value)

/** The name each format has in the normalizer (its `formats`), checked by tools/test/bench-inputs.test.ts. */
export const FORMATS = {
  canonical: "scanbridge.scan/v1",
  platformEntry: "platform entry",
  platformEnvelope: "platform entry envelope",
  platformClientLibrary: "platform client-library entry",
  platformListPage: "platform list page",
  session: "session ScanningResults",
  estimationResponse: "estimation read response",
  estimationItem: "estimation read item",
  fit: "fit estimation result",
  fhirBundle: "fhir Bundle",
  fhirPanel: "fhir Observation panel"
} as const

/** Every template, by format (and `rejects`), made from the examples under `root`/examples. */
export const templates = (root: string): Readonly<Record<keyof typeof FORMATS | "rejects", ReadonlyArray<Template>>> => {
  const entries = ndjson(root, "export/platform/entries.ndjson")
  // The export's entries: five in their `{entry}` envelope (statistics, photo, failed photo,
  // adjusted), one bare with the "degree" angle unit, one of the client library's.
  const envelopes = entries.filter((e) => "entry" in e)
  const bare = entries.filter((e) => !("entry" in e))
  const withId = (entry: JsonObject): JsonObject => ({ ...copy(entry), id: `scan_${MARK}` })
  const envelopeOf = (e: JsonObject) => ({ entry: withId(object(e["entry"])) })
  // The client library's entry holds bare numbers in `bodyComposition` (the REST one, {unit, value}).
  const isClientLibrary = (e: JsonObject) => typeof object(e["bodyComposition"] ?? {})["bodyFatPercentage"] === "number"
  const statusOf = (e: JsonObject) => `${String(e["status"])}, ${Object.keys(object(e["input"]))[0]}`

  const page = JSON.parse(read(root, "export/platform/list-page.json")) as JsonObject
  const pageTemplate = { ...copy(page), results: (page["results"] as Array<JsonObject>).map((e, i) => ({ ...copy(e), id: `scan_${MARK}${"abc"[i] ?? i}` })) }

  const sessions = JSON.parse(read(root, "export/session/results.json")) as Array<JsonObject>
  const sessionTemplate = (s: JsonObject) => {
    const t = copy(s)
    if ("scanningSessionId" in t) t["scanningSessionId"] = `ss_${MARK}`
    if ("scanning_session_id" in t) t["scanning_session_id"] = `ss_${MARK}`
    return t
  }
  const sessionVariant = (s: JsonObject) =>
    `${"scanning_session_id" in s ? "snake_case, " : ""}${["results", "pending", "error"].find((k) => k in s)}${"error" in s ? ` ${String(object(s["error"])["errorType"])}` : ""}`

  const responses = ndjson(root, "export/estimation/read-responses.ndjson")
  const itemTemplate = (item: JsonObject) => ({ ...copy(item), estimation_id: `est_${MARK}` })
  const responseTemplate = (r: JsonObject) => ({ ...copy(r), measurements: (r["measurements"] as Array<JsonObject>).map(itemTemplate) })
  const itemVariant = (item: JsonObject) =>
    `${String(item["status"])}${item["status"] === "completed" ? `, code ${String(object(item["estimation"])["code"])}` : ""}${String(item["created_at"]).includes("T") ? "" : ", zone-less created_at"}`

  const fits = ndjson(root, "export/fit/estimations.ndjson")
  const fitTemplate = (f: JsonObject) => {
    const t = copy(f)
    const estimations = object(t["estimations"])
    for (const key of ["estimationToken", "estimation_token"]) if (key in estimations) estimations[key] = { token: `et_${MARK}` }
    return t
  }

  const scan = JSON.parse(read(root, "canonical/photo-scan.json")) as JsonObject
  const scanTemplate = { ...copy(scan), source: { ...object(scan["source"]), id: `scan_${MARK}` } }
  // The canonical scan in FHIR, as `--to fhir` writes it. FHIR text holds no control character,
  // so its id is a word that the marker then replaces (the full URLs, name-based UUIDs of the
  // ids, are then alike in every record: each record's references still resolve inside it).
  const FHIR_ID = "FHIRIDMARK"
  const fhirOf = (write: (bundle: ReturnType<typeof fhirBundle>) => unknown, units: "cm" | "in") =>
    JSON.stringify(write(fhirBundle(units))).replaceAll(FHIR_ID, MARK_JSON)
  const fhirBundle = (units: "cm" | "in") =>
    Either.getOrThrow(encodeBundleEither({ ...(scan as unknown as Scan), source: { api: "platform", id: `scan_${FHIR_ID}` } }, { units })).value

  // Rejects, each as a real archive has them: a record cut short, a line of something else, and
  // records of a known shape holding values no API sends.
  const broken = read(root, "export/broken.ndjson").trim().split("\n")
  const envelopeText = JSON.stringify(envelopeOf(envelopes[0]!))
  const invalidEntry = envelopeOf(envelopes[0]!)
  object(object(invalidEntry.entry["input"])["statsEstimations"])["height"] = "tall"
  const invalidEstimation = JSON.parse(broken[2]!) as JsonObject
  for (const item of invalidEstimation["measurements"] as Array<JsonObject>) item["estimation_id"] = `est_${MARK}`

  return {
    canonical: [accepted(FORMATS.canonical, "photo scan", scanTemplate)],
    platformEntry: [
      ...envelopes.map((e, i) =>
        accepted(FORMATS.platformEntry, `bare, ${statusOf(object(e["entry"]))} (entries.ndjson:${i + 1})`, withId(object(e["entry"])))
      ),
      ...bare.filter((e) => !isClientLibrary(e)).map((e) => accepted(FORMATS.platformEntry, `bare, "degree" angles`, withId(e)))
    ],
    platformEnvelope: envelopes.map((e, i) => accepted(FORMATS.platformEnvelope, `${statusOf(object(e["entry"]))} (entries.ndjson:${i + 1})`, envelopeOf(e))),
    platformClientLibrary: bare.filter(isClientLibrary).map((e) => accepted(FORMATS.platformClientLibrary, "bodyComposition, glb avatar", withId(e))),
    platformListPage: [accepted(FORMATS.platformListPage, `${(page["results"] as Array<Json>).length} entries`, pageTemplate)],
    session: sessions.map((s) => accepted(FORMATS.session, sessionVariant(s), sessionTemplate(s))),
    estimationResponse: responses.map((r, i) =>
      accepted(
        FORMATS.estimationResponse,
        `${itemVariant(object((r["measurements"] as Array<Json>)[0]))} (read-responses.ndjson:${i + 1})`,
        responseTemplate(r)
      )
    ),
    estimationItem: responses.map((r, i) => {
      const item = object((r["measurements"] as Array<Json>)[0])
      return accepted(FORMATS.estimationItem, `${itemVariant(item)} (read-responses.ndjson:${i + 1}, its first item)`, itemTemplate(item))
    }),
    fit: fits.map((f, i) =>
      accepted(
        FORMATS.fit,
        `${"estimation_token" in object(f["estimations"]) ? "snake_case token" : "estimationToken"} (estimations.ndjson:${i + 1})`,
        fitTemplate(f)
      )
    ),
    fhirBundle: (["cm", "in"] as const).map((units) =>
      accepted(
        FORMATS.fhirBundle,
        `transaction, ${units}`,
        fhirOf((b) => b, units)
      )
    ),
    fhirPanel: (["cm", "in"] as const).map((units) => accepted(FORMATS.fhirPanel, `members contained, ${units}`, fhirOf(toContainedPanel, units))),
    rejects: [
      rejected("InvalidJson", "a platform entry cut short", envelopeText.slice(0, Math.floor(envelopeText.length / 2))),
      rejected("UnknownFormatError", "not a scan", { kind: "not a scan", id: MARK, value: 1 }),
      rejected("DecodeError", "a platform entry with a height of words", invalidEntry),
      rejected("DecodeError", "an estimation read response with a failed status on a result", invalidEstimation)
    ]
  }
}

/** What an input holds, and so what a migration of it must report. */
export interface Expected {
  readonly records: number
  readonly bytes: number
  /** Records per detected format (the report's `byFormat`). */
  readonly byFormat: Readonly<Record<string, number>>
  /** Rejects per reason (the report's `byRejectReason`). */
  readonly byRejectReason: Readonly<Record<string, number>>
}

/**
 * The mixed input's proportions, per 100 records: platform entries most (their envelope above
 * all), session and estimation records next, fit and canonical records, a few list pages; and
 * 10 rejects: broken JSON, unknown shapes and invalid values. No FHIR: Scanbridge writes it, no
 * vendor archive holds it, and the mixed figures stay comparable with the earlier runs'.
 */
export const MIXED: ReadonlyArray<readonly [keyof ReturnType<typeof templates>, number]> = [
  ["platformEnvelope", 24],
  ["platformEntry", 8],
  ["platformClientLibrary", 4],
  ["platformListPage", 2],
  ["session", 18],
  ["estimationResponse", 13],
  ["estimationItem", 6],
  ["fit", 10],
  ["canonical", 5],
  ["rejects", 10]
]

/** The inputs the bench writes: one per format, and the mixed one. */
export type InputKind = keyof typeof FORMATS | "mixed"

// A small PRNG with a fixed seed (mulberry32): the same file on every run.
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The kinds of the next 100 records of the mixed input, in an order drawn by `next`. */
const shuffled = (next: () => number) => {
  const slots = MIXED.flatMap(([kind, n]) => Array.from({ length: n }, () => kind))
  for (let i = slots.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[slots[i], slots[j]] = [slots[j]!, slots[i]!]
  }
  return slots
}

const BATCH = 8 * 1024 * 1024

/**
 * Writes `records` records of `kind` to `file`: each format's records cycle through its
 * variants; the mixed input's kinds are shuffled in blocks of 100, each kind cycling through its
 * variants. Every record has its own id.
 */
export const writeInput = (root: string, file: string, kind: InputKind, records: number): Expected => {
  const all = templates(root)
  const cursors = new Map<ReadonlyArray<Template>, number>()
  const nextOf = (ts: ReadonlyArray<Template>) => {
    const i = cursors.get(ts) ?? 0
    cursors.set(ts, i + 1)
    return ts[i % ts.length]!
  }
  const next = random(16)
  let block: Array<keyof ReturnType<typeof templates>> = []
  const pick = (i: number): Template => {
    if (kind !== "mixed") return nextOf(all[kind])
    if (i % 100 === 0) block = shuffled(next)
    return nextOf(all[block[i % 100]!])
  }

  const byFormat: Record<string, number> = {}
  const byRejectReason: Record<string, number> = {}
  const fd = openSync(file, "w")
  let bytes = 0
  let out = ""
  try {
    for (let i = 0; i < records; i++) {
      const t = pick(i)
      if (t.format !== undefined) byFormat[t.format] = (byFormat[t.format] ?? 0) + 1
      if (t.reason !== undefined) byRejectReason[t.reason] = (byRejectReason[t.reason] ?? 0) + 1
      out += t.pieces.join(i.toString(36).padStart(7, "0")) + "\n"
      if (out.length >= BATCH) {
        bytes += writeSync(fd, out)
        out = ""
      }
    }
    if (out !== "") bytes += writeSync(fd, out)
  } finally {
    closeSync(fd)
  }
  return { records, bytes, byFormat, byRejectReason }
}
