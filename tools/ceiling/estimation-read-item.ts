/**
 * A one-pass reader of estimation read items, fused by hand: the ceiling of what a reader
 * generated for this format (issue 34, part 1) can reach, for the bench (tools/bench-ceiling.ts).
 * It is not Scanbridge's decoder and nothing but the bench runs it.
 *
 * It does, in one pass over the parsed record, what any reader of the format must still do on
 * the common record: check each value's type and range as the wire schema does, count the keys
 * (a key the schema does not name leaves the record to normalize), weigh the lengths against the
 * stature in millimetres and centimetres, write the notes' texts, and build the canonical scan.
 * It does no more: no Either per step, no walk, no copy of a scan being built, no guard pass
 * before the reading pass. Any record off the common path (an unknown key, a reject, a unit the
 * caller states, a note it does not write) is answered by `undefined`, for normalize to decode,
 * as a generated reader would fall back to the schema path. tools/test/ceiling.test.ts holds its
 * answers to normalize's, byte for byte, on every bench record of the format.
 *
 * Names, bands, ranges and texts come from the dialect, the catalogue and the codec's own
 * constants; the texts are the codec's, written here again (the test compares them).
 */
import { Option } from "effect"
import { Catalogue, HUMAN_RANGES, LENGTH_SPREAD, LENGTH_UNITS, PROPORTIONS, Proto3, SCAN_FORMAT, isRecord } from "@scanbridge/model"
import { hasOnlyKeysIn, isShortPlainString } from "@scanbridge/model/adapter"
import { estimationDialect } from "../../packages/estimation/src/dialect.js"

const round3 = (n: number) => Math.round(n * 1000) / 1000

/** The format's lengths in the dialect's order (the codec's evidence picks its example in it), and each one's band. */
const TARGETS = estimationDialect.measurementList.map((e) => ({
  key: e.spelling.name,
  name: e.name,
  low: PROPORTIONS[e.name] / LENGTH_SPREAD,
  high: PROPORTIONS[e.name] * LENGTH_SPREAD
}))
const BAND_TEXT = TARGETS.map((t) => `${round3(t.low)}-${round3(t.high)}`)
/** The scan's measurementsMm keys in catalogue order, each with its target's position. */
const IN_CATALOGUE_ORDER = Catalogue.measurements.flatMap((m) => {
  const i = TARGETS.findIndex((t) => t.name === m.name)
  return i < 0 ? [] : [{ name: m.name, i }]
})

interface Survey {
  /** Each length as read, by target position; the first decisive target, and whether some value fits both units. */
  readonly values: Array<number>
  readonly mm: boolean
  readonly cm: boolean
  readonly decisive: number
  readonly inBoth: boolean
}

/**
 * Reads every length of `result.measurement` and weighs it, in one generated function with each
 * band inlined; null where a length is missing, not a finite non-negative number, or the object
 * has a key the dialect does not name.
 */
const survey = new Function(
  "m",
  "s",
  `let mm = true, cm = true, inBoth = false, decisive = -1, v, lo, hi, a, b;
const values = new Array(${TARGETS.length});
${TARGETS.map(
  (t, i) => `v = m[${JSON.stringify(t.key)}];
if (typeof v !== "number" || !(v >= 0) || v === Infinity) return null;
values[${i}] = v; lo = ${t.low} * s; hi = ${t.high} * s;
a = v >= lo && v <= hi; b = v * 10 >= lo && v * 10 <= hi; mm = mm && a; cm = cm && b;
if (a !== b) { if (decisive < 0) decisive = ${i}; } else if (a) inBoth = true;`
).join("\n")}
let keys = 0;
for (const k in m) keys++;
return keys === ${TARGETS.length} ? { values, mm, cm, decisive, inBoth } : null;`
) as (m: object, statureMm: number) => Survey | null

/** The scan's measurementsMm from the survey's values: one object literal, its keys in catalogue order. */
const measurements = new Function(
  "v",
  "f",
  `return { ${IN_CATALOGUE_ORDER.map(({ name, i }) => `${JSON.stringify(name)}: f === undefined ? v[${i}] : f(v[${i}])`).join(", ")} };`
) as (values: ReadonlyArray<number>, toMm: ((raw: number) => number) | undefined) => Record<string, number>

const LABELS = ["millimetres", "centimetres"] as const
const lengthHead = (cm: boolean, inBoth: boolean) => `result.measurement read as ${LABELS[cm ? 1 : 0]} (the API states no unit): ${inBoth ? "some of" : "all"} `
const HEADS = [lengthHead(false, false), lengthHead(false, true), lengthHead(true, false), lengthHead(true, true)]
const verdict = (cm: boolean) => ` value(s) are plausible in ${LABELS[cm ? 1 : 0]} and not in ${LABELS[cm ? 0 : 1]}; e.g. `
const VERDICTS = [verdict(false), verdict(true)]
const FAT =
  "body_fat_percentage read as percent (the API states no unit): all 1 value(s) are plausible in percent and not in percent x 10^4; e.g. body_fat_percentage "
const MUSCLE =
  "skeletal_muscle_mass read as grams (the API states no unit): all 1 value(s) are plausible in grams and not in kilograms; e.g. skeletal_muscle_mass "
const JOB_DROPPED = ": the canonical scan does not record the estimation job"
const ZONELESS = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)$/

type Note = { readonly kind: string; readonly path: string; readonly detail: string }

const ITEM_KEYS = new Set(["created_at", "status", "estimation_id", "estimation"])
const ESTIMATION_KEYS = new Set(["code", "input", "result", "status", "version", "work_id"])
const RESULT_KEYS = new Set(["body_composition", "measurement", "status", "version", "work_id"])
const INPUT_KEYS = new Set(["age", "gender", "height", "weight"])
const COMPOSITION_KEYS = new Set(["body_fat_percentage", "skeletal_muscle_mass"])

const inRange = (v: unknown, r: { readonly min: number; readonly max: number }): v is number => typeof v === "number" && v >= r.min && v <= r.max

/** created_at as the codec reads it (readCreatedAt), its note pushed; undefined off the common path. */
const createdAt = (value: unknown, notes: Array<Note>): string | null | undefined => {
  if (value === undefined) return null
  if (typeof value !== "string") return undefined
  if (Proto3.isCanonicalTimestamp(value)) return value
  const rfc = Proto3.parseTimestamp(value)
  if (Option.isSome(rfc)) {
    if (rfc.value.iso !== value) notes.push({ kind: "converted", path: "created_at", detail: `${value} -> ${rfc.value.iso}` })
    return rfc.value.iso
  }
  const zoneless = ZONELESS.exec(value)
  const utc = zoneless === null ? Option.none() : Proto3.parseTimestamp(`${zoneless[1]}T${zoneless[2]}Z`)
  if (Option.isNone(utc)) return undefined
  notes.push({ kind: "assumed", path: "created_at", detail: `${value} has no time zone: read as UTC, ${utc.value.iso}` })
  return utc.value.iso
}

const scan = (
  id: string,
  status: string,
  created: string | null,
  subject: object,
  measurementsMm: object,
  composition: object | null,
  failure: object | null,
  notes: ReadonlyArray<Note>
) => ({
  format: SCAN_FORMAT,
  source: { api: "estimation", id },
  status,
  createdAt: created,
  expiresAt: null,
  externalId: null,
  method: "photo",
  subject,
  measurementsMm,
  composition,
  posture: null,
  avatar: null,
  adjustment: null,
  failure,
  notes
})

const NO_SUBJECT = () => ({ age: null, gender: null, heightMm: null, weightG: null })

/** The item's scans as normalize answers them (a list of one), or undefined where normalize must decode it. */
export const readEstimationItem = (j: unknown): ReadonlyArray<object> | undefined => {
  if (!isRecord(j) || !hasOnlyKeysIn(j, ITEM_KEYS)) return undefined
  const id = j["estimation_id"]
  const e = j["estimation"]
  if (typeof id !== "string" || !isRecord(e) || !hasOnlyKeysIn(e, ESTIMATION_KEYS)) return undefined
  const notes: Array<Note> = []
  const created = createdAt(j["created_at"], notes)
  if (created === undefined) return undefined
  const status = j["status"]
  if (status === "in-progress") {
    if (Object.keys(e).length > 0) return undefined
    return [scan(id, "pending", created, NO_SUBJECT(), {}, null, null, notes)]
  }
  if (status !== "completed") return undefined
  const input = e["input"]
  if (!isRecord(input) || !hasOnlyKeysIn(input, INPUT_KEYS)) return undefined
  const { age, gender, height, weight } = input
  if (typeof age !== "number" || !Number.isSafeInteger(age) || age < 0 || (gender !== "male" && gender !== "female")) return undefined
  if (!inRange(height, HUMAN_RANGES.heightMm) || !inRange(weight, HUMAN_RANGES.weightG)) return undefined
  const subject = { age, gender, heightMm: height, weightG: weight }
  const { code, version, work_id: workId, result } = e
  if (typeof code !== "number" || !Number.isSafeInteger(code) || !isShortPlainString(version) || !isShortPlainString(workId)) return undefined
  if (e["status"] === "fail") {
    if (result !== undefined) return undefined
    notes.push({ kind: "dropped", path: "estimation", detail: `code ${code}, version "${version}", work_id "${workId}"${JOB_DROPPED}` })
    return [scan(id, "failure", created, subject, {}, null, { code: String(code), category: "estimation", message: null }, notes)]
  }
  if (e["status"] !== "success" || !isRecord(result) || !hasOnlyKeysIn(result, RESULT_KEYS)) return undefined
  const { version: resultVersion, work_id: resultWorkId, measurement, body_composition: c } = result
  if (!isShortPlainString(resultVersion) || !isShortPlainString(resultWorkId) || (result["status"] !== undefined && result["status"] !== "success"))
    return undefined
  notes.push({
    kind: "dropped",
    path: "estimation",
    detail: `code ${code}, version "${version}", work_id "${workId}", result.version "${resultVersion}", result.work_id "${resultWorkId}"${JOB_DROPPED}`
  })
  if (!isRecord(measurement)) return undefined
  const s = survey(measurement, height)
  if (s === null || s.mm === s.cm || s.decisive < 0) return undefined
  const t = TARGETS[s.decisive]!
  const raw = s.values[s.decisive]!
  const reading = s.cm ? `${raw} = ${round3(raw * 10)}` : `${raw}`
  notes.push({
    kind: "assumed",
    path: "estimation.result.measurement",
    detail: `${HEADS[(s.cm ? 2 : 0) + (s.inBoth ? 1 : 0)]}${TARGETS.length}${VERDICTS[s.cm ? 1 : 0]}${t.key} ${reading} mm, plausible ${Math.round(t.low * height)}-${Math.round(t.high * height)} mm: ${BAND_TEXT[s.decisive]} x stature ${height} mm`
  })
  if (!isRecord(c) || !hasOnlyKeysIn(c, COMPOSITION_KEYS)) return undefined
  const fat = c["body_fat_percentage"]
  const muscle = c["skeletal_muscle_mass"]
  // Percent and grams only: the other scale and unit, and the values no unit fits, are normalize's.
  // (A value that fits percent cannot fit percent x 10^4, nor one that fits grams kilograms.)
  if (!inRange(fat, { min: 2, max: 70 }) || !inRange(muscle, { min: 0.1 * weight, max: 0.65 * weight })) return undefined
  notes.push({ kind: "assumed", path: "estimation.result.body_composition.body_fat_percentage", detail: `${FAT}${fat} %, plausible 2-70 %: people` })
  notes.push({
    kind: "assumed",
    path: "estimation.result.body_composition.skeletal_muscle_mass",
    detail: `${MUSCLE}${muscle} g, plausible ${Math.round(0.1 * weight)}-${Math.round(0.65 * weight)} g: 10-65 % of weight ${weight} g`
  })
  const composition = { bodyFatPercent: fat, bodyFatMassG: null, leanMassG: null, skeletalMuscleMassG: muscle }
  return [scan(id, "success", created, subject, measurements(s.values, s.cm ? LENGTH_UNITS.cm.toBase : undefined), composition, null, notes)]
}
