import { readFileSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { DecodeError, MAX_NOTES, type Note, type Path, Scan, formatPath } from "@scanbridge/model"
import { detectFormat, normalizeEither } from "@scanbridge/migrate/normalizer"
import {
  FORMATS,
  type FhirOptions,
  LOINC_SYSTEM,
  type Wire,
  decodeBundleEither,
  decodePanelEither,
  encodeBundleEither,
  isScanBundle,
  isScanPanel
} from "../src/index.js"

// --- Fixtures -----------------------------------------------------------------------------

const repo = fileURLToPath(new URL("../../..", import.meta.url))
const SCAN = Schema.decodeUnknownSync(Scan)(JSON.parse(readFileSync(join(repo, "examples/canonical/photo-scan.json"), "utf8")))

type Mutable<T> = T extends ReadonlyArray<infer A> ? Array<Mutable<A>> : T extends object ? { -readonly [K in keyof T]: Mutable<T[K]> } : T
type Bundle = Mutable<Wire.Bundle>
type Observation = Mutable<Wire.Observation>

/** A scan as a bundle's plain JSON, as it would be read from a line of NDJSON. */
const bundleOf = (scan: Scan = SCAN, options?: FhirOptions): Bundle => JSON.parse(JSON.stringify(Either.getOrThrow(encodeBundleEither(scan, options)).value))

const isPanel = (r: Wire.Observation | Wire.Device): boolean => r.resourceType === "Observation" && r.code.coding?.[0]?.code === "scan"

const panelIndex = (b: Bundle): number => b.entry.findIndex((e) => isPanel(e.resource))
const panelOf = (b: Bundle): Observation => b.entry[panelIndex(b)]!.resource as Observation

/** The entry of the member coded `code` in Scanbridge's CodeSystem. */
const memberIndex = (b: Bundle, code: string): number =>
  b.entry.findIndex((e) => e.resource.resourceType === "Observation" && e.resource.code.coding?.[0]?.code === code)
const memberOf = (b: Bundle, code: string): Observation => b.entry[memberIndex(b, code)]!.resource as Observation

const ok = <A>(result: Either.Either<A, DecodeError>): A => Either.getOrThrowWith(result, (e) => new Error(e.message))
const err = <A>(result: Either.Either<A, DecodeError>): DecodeError =>
  Either.getOrThrowWith(Either.flip(result), (a) => new Error(`expected a DecodeError, got ${JSON.stringify(a).slice(0, 500)}`))

const withoutNotes = (scan: Scan) => ({ ...scan, notes: [] })
const notesOf = (scan: Scan, kind: Note["kind"]) => scan.notes.filter((n) => n.kind === kind)

/** The one scan of a transaction bundle. */
const scanOf = (b: unknown): Scan => {
  const scans = ok(decodeBundleEither(b))
  expect(scans).toHaveLength(1)
  return scans[0]!
}

const BASE = "https://fhir.example/r4/"

/**
 * The bundles as a server's search answers them: each resource stored under an id, the panels
 * matched and their members and Device included, references relative (`Observation/<id>`).
 */
const asSearchset = (bundles: ReadonlyArray<Bundle>) => ({
  resourceType: "Bundle",
  id: "search-1",
  meta: { lastUpdated: "2026-01-03T00:00:00Z" },
  type: "searchset",
  total: bundles.length,
  entry: bundles.flatMap((b, n) => {
    const ids = new Map(b.entry.map((e, i) => [e.fullUrl, `${e.resource.resourceType}/s${n}-${i}`]))
    const ref = (r: { reference?: string }) => ({ ...r, reference: ids.get(r.reference!) ?? r.reference })
    return b.entry.map((e, i) => {
      const r = e.resource
      const resource =
        r.resourceType === "Observation"
          ? {
              ...r,
              ...(r.hasMember === undefined ? {} : { hasMember: r.hasMember.map(ref) }),
              ...(r.derivedFrom === undefined ? {} : { derivedFrom: r.derivedFrom.map(ref) }),
              ...(r.device === undefined ? {} : { device: ref(r.device) })
            }
          : r
      return {
        fullUrl: BASE + ids.get(e.fullUrl),
        resource: { ...resource, id: `s${n}-${i}`, meta: { versionId: "1", lastUpdated: "2026-01-03T00:00:00Z" } },
        search: { mode: isPanel(r) ? "match" : "include" }
      }
    })
  })
})

/** The bundle's panel as a server may store it: its members contained, referred to as `#id`. */
const asBarePanel = (b: Bundle) => {
  const ids = new Map(b.entry.map((e, i) => [e.fullUrl, `m${i}`]))
  const panel = panelOf(b)
  const members = (panel.hasMember ?? []).map((r) => b.entry.find((e) => e.fullUrl === r.reference)!)
  const local = (r: { reference?: string }) => ({ reference: `#${ids.get(r.reference!)}` })
  return {
    ...panel,
    id: "panel-1",
    // A server's own reference to the Device, which the panel does not hold.
    device: { reference: "Device/d-1" },
    contained: members.map((e) => {
      const { device: _device, ...m } = e.resource as Observation
      return { ...m, id: ids.get(e.fullUrl), ...(m.derivedFrom === undefined ? {} : { derivedFrom: m.derivedFrom.map(local) }) }
    }),
    hasMember: (panel.hasMember ?? []).map(local)
  }
}

// --- Detection and the migration engine ---------------------------------------------------

const lines = (file: string): Array<unknown> =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as unknown)

/** Every record of examples/export and the canonical example: the formats the fhir formats must leave alone. */
const otherRecords = (): Array<unknown> => {
  const dir = join(repo, "examples/export")
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f !== "broken.ndjson" && /\.(nd)?json$/.test(f))
  return [
    ...files.flatMap((f) => (f.endsWith(".ndjson") ? lines(join(dir, f)) : [JSON.parse(readFileSync(join(dir, f), "utf8")) as unknown])),
    JSON.parse(readFileSync(join(repo, "examples/canonical/photo-scan.json"), "utf8")) as unknown
  ]
}

describe("the migration engine reads FHIR", () => {
  it("detects a written bundle and a bare panel as formats of their own, and normalize gives back the scan", () => {
    const b = bundleOf()
    expect(detectFormat(b).pipe(Either.map((d) => d.format.name))).toEqual(Either.right(FORMATS.bundle))
    const back = ok(normalizeEither(b) as Either.Either<ReadonlyArray<Scan>, DecodeError>)
    expect(back.map(withoutNotes)).toEqual([withoutNotes(SCAN)])
    // The scan's own note first, then the decoder's conversions.
    expect(back[0]!.notes[0]).toEqual(SCAN.notes[0])
    expect(back[0]!.notes.slice(1).every((n) => n.kind === "converted")).toBe(true)

    const bare = asBarePanel(b)
    expect(detectFormat(bare).pipe(Either.map((d) => d.format.name))).toEqual(Either.right(FORMATS.panel))
    expect(ok(normalizeEither(bare) as Either.Either<ReadonlyArray<Scan>, DecodeError>).map(withoutNotes)).toEqual([withoutNotes(SCAN)])
  })

  it("every example record, migrated to FHIR and read back by normalize, is the scan it was (metric: exactly)", () => {
    let read = 0
    for (const record of otherRecords()) {
      const scans = normalizeEither(record)
      if (Either.isLeft(scans)) continue
      for (const scan of scans.right) {
        const encoded = encodeBundleEither(scan)
        if (Either.isLeft(encoded)) continue
        const back = ok(normalizeEither(JSON.parse(JSON.stringify(encoded.right.value))) as Either.Either<ReadonlyArray<Scan>, DecodeError>)
        const expected = {
          ...withoutNotes(scan),
          ...(scan.status === "success" ? {} : { subject: { age: null, gender: null, heightMm: null, weightG: null }, measurementsMm: {}, composition: null }),
          posture: null,
          avatar: null,
          adjustment: null,
          expiresAt: null
        }
        expect(back.map(withoutNotes)).toEqual([expected])
        read++
      }
    }
    expect(read).toBeGreaterThan(20)
  })

  it("claims no record of another format: every example record is neither a scan bundle nor a scan panel", () => {
    const records = otherRecords()
    expect(records.length).toBeGreaterThan(10)
    for (const r of records) {
      expect(isScanBundle(r)).toBe(false)
      expect(isScanPanel(r)).toBe(false)
    }
    // Nor FHIR that holds no scan: a Bundle without a panel, an Observation of another code.
    expect(isScanBundle({ resourceType: "Bundle", type: "searchset", entry: [{ resource: memberOf(bundleOf(), "height") }] })).toBe(false)
    expect(isScanPanel(memberOf(bundleOf(), "height"))).toBe(false)
    expect(isScanPanel({ resourceType: "Observation", code: { coding: [{ system: LOINC_SYSTEM, code: "scan" }] } })).toBe(false)
  })
})

// --- Shapes a server or an integrator writes ----------------------------------------------

describe("a searchset, a bare panel", () => {
  it("reads a searchset of two panels as two scans, members by relative reference, a server's ids and versions without a note", () => {
    const other = Schema.decodeUnknownSync(Scan)({
      ...SCAN,
      source: { api: "session", id: "session-9" },
      externalId: null,
      subject: { ...SCAN.subject, heightMm: 1790, weightG: 82000 },
      notes: []
    })
    const bundles = [bundleOf(SCAN), bundleOf(other, { units: "in" })]
    const scans = ok(decodeBundleEither(asSearchset(bundles)))
    expect(scans.map(withoutNotes)).toEqual(bundles.map((b) => withoutNotes(scanOf(b))))
    expect(scans.map((s) => s.source)).toEqual([SCAN.source, other.source])
    for (const s of scans) expect(s.notes.filter((n) => n.kind !== "converted" && n.path !== "createdAt")).toEqual([])
  })

  it("resolves absolute references to a searchset's fullUrls too", () => {
    const set = asSearchset([bundleOf()])
    const panel = set.entry.find((e) => e.search.mode === "match")!.resource as { hasMember: Array<{ reference: string }> }
    panel.hasMember = panel.hasMember.map((r) => ({ reference: BASE + r.reference }))
    expect(ok(decodeBundleEither(set)).map(withoutNotes)).toEqual([withoutNotes(SCAN)])
  })

  it("reads a bare panel whose members are contained, as a server may store it", () => {
    const bare = asBarePanel(bundleOf())
    const [scan] = ok(decodePanelEither(bare))
    expect(withoutNotes(scan!)).toEqual(withoutNotes(SCAN))
    // Its unresolvable Device reference is no loss, and nothing else is left out.
    expect(notesOf(scan!, "dropped")).toEqual([])
  })

  it("notes, on each scan of a bundle, a resource that no panel refers to", () => {
    const set = asSearchset([bundleOf(), bundleOf()])
    set.entry.push({
      fullUrl: `${BASE}Patient/p1`,
      resource: { resourceType: "Patient", id: "p1" } as never,
      search: { mode: "include" }
    })
    const scans = ok(decodeBundleEither(set))
    for (const s of scans) expect(notesOf(s, "dropped").map((n) => n.path)).toEqual([`entry[${set.entry.length - 1}].resource`])
  })
})

// --- Members ------------------------------------------------------------------------------

describe("a panel's members", () => {
  it("places a member coded only in LOINC by its LOINC code, with an aliased note", () => {
    const b = bundleOf()
    const height = memberOf(b, "height")
    height.code.coding = height.code.coding!.filter((c) => c.system === LOINC_SYSTEM)
    const scan = scanOf(b)
    expect(scan.subject.heightMm).toBe(SCAN.subject.heightMm)
    expect(notesOf(scan, "aliased")).toEqual([
      { kind: "aliased", path: `entry[${memberIndex(bundleOf(), "height")}].resource.code`, detail: expect.stringContaining("LOINC 8302-2 read as height") }
    ])
  })

  it("drops a member coded neither way with a note naming it, and keeps the rest", () => {
    const b = bundleOf()
    const hip = memberOf(b, "hipGirth")
    hip.code = { coding: [{ system: "http://snomed.info/sct", code: "284473002", display: "Hip circumference" }] }
    const scan = scanOf(b)
    expect(scan.measurementsMm.hipGirth).toBeUndefined()
    const { hipGirth: _hip, ...rest } = SCAN.measurementsMm
    expect(scan.measurementsMm).toEqual(rest)
    const [note] = notesOf(scan, "dropped")
    expect(note).toEqual({ kind: "dropped", path: `entry[${memberIndex(bundleOf(), "hipGirth")}].resource`, detail: expect.stringContaining("284473002") })
    expect(note!.detail).toContain("91")
  })

  it("refuses a member whose LOINC code says another quantity than its Scanbridge code", () => {
    const b = bundleOf()
    memberOf(b, "height").code.coding![1]!.code = "29463-7"
    const e = err(decodeBundleEither(b))
    expect(e.path).toEqual(["entry", memberIndex(b, "height"), "resource", "code"])
  })

  it("keeps the first of two members of one quantity, with a note", () => {
    const b = bundleOf()
    const panel = panelOf(b)
    const hip = b.entry[memberIndex(b, "hipGirth")]!
    panel.hasMember!.push({ reference: hip.fullUrl })
    const scan = scanOf(b)
    expect(scan.measurementsMm.hipGirth).toBe(SCAN.measurementsMm.hipGirth)
    expect(notesOf(scan, "dropped").map((n) => n.path)).toEqual([`entry[${memberIndex(b, "hipGirth")}].resource`])
  })

  it("converts every unit UCUM gives a length or a mass, and notes each conversion", () => {
    const b = bundleOf()
    const set = (code: string, value: number, unit: string) => {
      memberOf(b, code).valueQuantity = { value, unit, system: "http://unitsofmeasure.org", code: unit }
    }
    set("height", 1.64, "m")
    set("hipGirth", 910, "mm")
    set("waistGirth", 0.701, "m")
    set("weight", 54000, "g")
    set("bodyFatMass", 28.69, "[lb_av]")
    const scan = scanOf(b)
    expect(scan.subject.heightMm).toBe(1640)
    expect(scan.measurementsMm.hipGirth).toBe(910)
    expect(scan.measurementsMm.waistGirth).toBe(701)
    expect(scan.subject.weightG).toBe(54000)
    expect(scan.composition!.bodyFatMassG).toBeCloseTo(28.69 * 453.59237, 9)
    const converted = notesOf(scan, "converted").map((n) => n.detail)
    expect(converted).toContain("height 1.64 m converted to 1640 mm")
    expect(converted).toContain("0.701 m read as 70.1 cm")
    expect(converted).toContain("1 mass(es) stated in [lb_av], converted to grams")
  })

  it("reads male and female; drops other and unknown rather than guess a body model", () => {
    for (const [code, gender] of [
      ["male", "male"],
      ["female", "female"],
      ["other", null],
      ["unknown", null]
    ] as const) {
      const b = bundleOf()
      memberOf(b, "gender").valueCodeableConcept!.coding![0]!.code = code
      const scan = scanOf(b)
      expect(scan.subject.gender).toBe(gender)
      expect(notesOf(scan, "dropped").length).toBe(gender === null ? 1 : 0)
    }
  })

  it("checks a written BMI against the height and weight: silent within their rounding, a note past it, or without both", () => {
    const b = bundleOf(SCAN, { units: "in" })
    expect(notesOf(scanOf(b), "dropped")).toEqual([])
    memberOf(b, "bmi").valueQuantity!.value += 0.2
    const [note] = notesOf(scanOf(b), "dropped")
    expect(note).toEqual({ kind: "dropped", path: `entry[${memberIndex(b, "bmi")}].resource`, detail: expect.stringContaining("disagrees") })
    const c = bundleOf()
    // 164 cm and 54 kg as written may be 163.5-164.5 cm and 53.5-54.5 kg: BMI 19.77-20.39.
    memberOf(c, "bmi").valueQuantity!.value = 20.35
    expect(notesOf(scanOf(c), "dropped")).toEqual([])
    memberOf(c, "bmi").valueQuantity!.value = 20.5
    expect(notesOf(scanOf(c), "dropped")).toHaveLength(1)
    const d = bundleOf()
    panelOf(d).hasMember = panelOf(d).hasMember!.filter((r) => r.reference !== d.entry[memberIndex(d, "weight")]!.fullUrl)
    // The weight, which the panel no longer names, is dropped as well.
    expect(notesOf(scanOf(d), "dropped").map((n) => [n.path, n.detail])).toEqual([
      [`entry[${memberIndex(d, "weight")}].resource`, expect.stringContaining("no scan panel refers to it")],
      [`entry[${memberIndex(d, "bmi")}].resource`, expect.stringContaining("not both")]
    ])
  })

  it("drops a member that is not a result, a bound, or holds no value, each with a note", () => {
    const b = bundleOf()
    memberOf(b, "hipGirth").status = "entered-in-error" as never
    ;(memberOf(b, "waistGirth").valueQuantity as Record<string, unknown>)["comparator"] = "<"
    const neck = memberOf(b, "neckGirth")
    delete neck.valueQuantity
    neck.dataAbsentReason = { coding: [{ system: "http://terminology.hl7.org/CodeSystem/data-absent-reason", code: "not-performed" }] }
    const scan = scanOf(b)
    expect(scan.measurementsMm.hipGirth).toBeUndefined()
    expect(scan.measurementsMm.waistGirth).toBeUndefined()
    expect(scan.measurementsMm.neckGirth).toBeUndefined()
    expect(notesOf(scan, "dropped").map((n) => n.path)).toEqual(
      [
        `entry[${memberIndex(b, "hipGirth")}].resource.status`,
        `entry[${memberIndex(b, "neckGirth")}].resource`,
        `entry[${memberIndex(b, "waistGirth")}].resource.valueQuantity`
      ].sort((x, y) => x.localeCompare(y, "en", { numeric: true }))
    )
  })

  it("notes what a member says that the scan has no place for: an unknown element; another time or subject, once for all such members", () => {
    const b = bundleOf()
    const hip = memberOf(b, "hipGirth")
    ;(hip as Record<string, unknown>)["interpretation"] = [{ text: "high" }]
    for (const code of ["hipGirth", "waistGirth"]) {
      memberOf(b, code).effectiveDateTime = "2026-02-02T00:00:00Z"
      memberOf(b, code).subject = { reference: "Patient/other" }
    }
    const notes = notesOf(scanOf(b), "dropped")
    const at = `entry[${memberIndex(b, "hipGirth")}].resource`
    expect(notes.map((n) => n.path)).toEqual([`${at}.interpretation`, `${at}.effectiveDateTime`, `${at}.subject`])
    expect(notes[1]!.detail).toMatch(
      /^2 member\(s\) with another effectiveDateTime than the panel's "2026-03-14T09:26:53.000Z", the first "2026-02-02T00:00:00Z"/
    )
    expect(notes[2]!.detail).toContain("Patient/other")
  })

  it("reads a failed scan's failure and a pending scan's status from the panel", () => {
    const failed = Schema.decodeUnknownSync(Scan)({
      ...SCAN,
      status: "failure",
      failure: { code: "306", category: "posing", message: "arms too close to the body" }
    })
    const scan = scanOf(bundleOf(failed))
    expect(scan.status).toBe("failure")
    expect(scan.failure).toEqual(failed.failure)
    const pending = scanOf(bundleOf(Schema.decodeUnknownSync(Scan)({ ...SCAN, status: "pending" })))
    expect(pending.status).toBe("pending")
    expect(pending.failure).toBeNull()
    expect(notesOf(pending, "dropped")).toEqual([])
  })
})

// --- Times --------------------------------------------------------------------------------

describe("the panel's effectiveDateTime", () => {
  /** The bundle with every Observation's time `value`, as a writer gives panel and members one. */
  const at = (value: string): Scan => {
    const b = bundleOf()
    for (const e of b.entry) if (e.resource.resourceType === "Observation") e.resource.effectiveDateTime = value
    return scanOf(b)
  }
  it("converts an offset or a finer fraction to the canonical instant, with a note", () => {
    const scan = at("2026-03-14T10:26:53.1234+01:00")
    expect(scan.createdAt).toBe("2026-03-14T09:26:53.123Z")
    expect(notesOf(scan, "converted").find((n) => n.path.endsWith("effectiveDateTime"))!.detail).toContain("4, dropped")
  })
  it("drops a date without a time, or a time without a zone, rather than make one up", () => {
    for (const value of ["2026", "2026-03", "2026-03-14", "2026-03-14T09:26:53"]) {
      const scan = at(value)
      expect(scan.createdAt).toBeNull()
      expect(notesOf(scan, "dropped").map((n) => n.detail)).toEqual([expect.stringContaining(value)])
    }
  })
})

// --- Rejections ---------------------------------------------------------------------------

interface Rejection {
  readonly what: string
  /** Spoils a written bundle; answers the path and value the error must name. */
  readonly spoil: (b: Bundle) => { readonly path: Path; readonly value: unknown }
}

const member = (b: Bundle, code: string, ...rest: Path): Path => ["entry", memberIndex(b, code), "resource", ...rest]

/** Sets `key` of the valueQuantity of the member coded `code` (undefined: leaves it out of the JSON). */
const quantityWith =
  (code: string, key: "code" | "value" | "system", value: unknown): Rejection["spoil"] =>
  (b) => {
    ;(memberOf(b, code).valueQuantity as Record<string, unknown>)[key] = value
    return { path: member(b, code, "valueQuantity", key), value }
  }

/** Sets `key` of the panel. */
const panelWith =
  (key: "status" | "effectiveDateTime", value: string): Rejection["spoil"] =>
  (b) => {
    ;(panelOf(b) as Record<string, unknown>)[key] = value
    return { path: ["entry", panelIndex(b), "resource", key], value }
  }

const NOWHERE = "urn:uuid:00000000-0000-5000-8000-000000000000"

const REJECTIONS: ReadonlyArray<Rejection> = [
  { what: "a unit UCUM does not have, or Scanbridge does not read", spoil: quantityWith("hipGirth", "code", "furlong") },
  { what: "a unit of the wrong kind: a height in kg", spoil: quantityWith("height", "code", "kg") },
  { what: "a girth in %", spoil: quantityWith("waistGirth", "code", "%") },
  { what: "a body fat percentage in kg", spoil: quantityWith("bodyFatPercent", "code", "kg") },
  { what: "no unit", spoil: quantityWith("weight", "code", undefined) },
  { what: "a unit outside UCUM", spoil: quantityWith("weight", "system", "http://example.org/units") },
  { what: "a negative length", spoil: quantityWith("hipGirth", "value", -91) },
  { what: "a body fat percentage over 100", spoil: quantityWith("bodyFatPercent", "value", 241) },
  { what: "an age in part years", spoil: quantityWith("age", "value", 29.5) },
  { what: "a value that is not a number", spoil: quantityWith("hipGirth", "value", "91") },
  { what: "a mass past what a double holds in grams", spoil: quantityWith("weight", "value", 1e307) },
  { what: "a panel entered in error", spoil: panelWith("status", "entered-in-error") },
  { what: "a preliminary panel", spoil: panelWith("status", "preliminary") },
  { what: "an effectiveDateTime that is no dateTime", spoil: panelWith("effectiveDateTime", "yesterday") },
  {
    what: "a hasMember that points at nothing",
    spoil: (b) => {
      panelOf(b).hasMember![3] = { reference: NOWHERE }
      return { path: ["entry", panelIndex(b), "resource", "hasMember", 3, "reference"], value: NOWHERE }
    }
  },
  {
    what: "a hasMember that points at a Device",
    spoil: (b) => {
      const reference = b.entry[0]!.fullUrl
      panelOf(b).hasMember![0] = { reference }
      return { path: ["entry", panelIndex(b), "resource", "hasMember", 0, "reference"], value: reference }
    }
  },
  {
    what: "two identifiers of the scan",
    spoil: (b) => {
      const panel = panelOf(b)
      panel.identifier = [...panel.identifier, { system: "https://scanbridge.dev/fhir/scan/session", value: "s-1" }]
      return { path: ["entry", panelIndex(b), "resource", "identifier", 2], value: "s-1" }
    }
  }
]

describe("a bundle that cannot be read as stated is refused, naming the path and the value", () => {
  for (const { what, spoil } of REJECTIONS) {
    it(what, () => {
      const b = bundleOf()
      const { path, value } = spoil(b)
      const e = err(decodeBundleEither(JSON.parse(JSON.stringify(b))))
      expect(e).toBeInstanceOf(DecodeError)
      expect(e.path).toEqual(path)
      expect(e.value).toEqual(value)
      expect(e.message).toContain(`at ${formatPath(path)}`)
    })
  }

  it("a value past a double (1e400 in the JSON text is Infinity)", () => {
    const text = JSON.stringify(bundleOf()).replace(/"value":91(?=,)/, '"value":1e400')
    const b = JSON.parse(text) as Bundle
    const e = err(decodeBundleEither(b))
    expect(e.path).toEqual(member(b, "hipGirth", "valueQuantity", "value"))
    expect(e.value).toBe(Number.POSITIVE_INFINITY)
  })

  it("a bare panel whose member is not contained", () => {
    const bare = asBarePanel(bundleOf())
    bare.hasMember[1] = { reference: "Observation/123" }
    const e = err(decodePanelEither(bare))
    expect(e.path).toEqual(["hasMember", 1, "reference"])
    expect(e.value).toBe("Observation/123")
  })

  it("lengths stated in cm that are plausible only in inches, as every format's are; read with lengthUnit in", () => {
    const b = bundleOf(SCAN, { units: "in" })
    for (const e of b.entry)
      if (e.resource.resourceType === "Observation" && e.resource.valueQuantity?.code === "[in_i]" && memberOf(b, "height") !== e.resource)
        e.resource.valueQuantity.code = "cm"
    const e = err(decodeBundleEither(b))
    expect(e.path).toEqual(["entry", panelIndex(b), "resource", "hasMember"])
    expect(e.message).toContain("--length-unit in")
    const scan = ok(decodeBundleEither(b, { lengthUnit: "in" }))[0]!
    expect(scan.measurementsMm.hipGirth).toBeCloseTo(910, 0)
  })
})

// --- Hostile input ------------------------------------------------------------------------

describe("hostile input is a typed error or notes, never a throw or a hang", () => {
  it("references in a cycle: a panel among its own members, a member whose members are the panel", () => {
    const b = bundleOf()
    const panel = panelOf(b)
    const self = b.entry[panelIndex(b)]!.fullUrl
    panel.hasMember!.push({ reference: self })
    memberOf(b, "hipGirth").hasMember = [{ reference: self }]
    const scan = scanOf(b)
    expect(withoutNotes(scan)).toEqual(withoutNotes(SCAN))
    expect(notesOf(scan, "dropped").map((n) => n.detail)).toEqual([expect.stringContaining("hasMember"), expect.stringContaining("panels are not nested")])
  })

  it("odd keys and codes: __proto__, constructor, toString", () => {
    const text = JSON.stringify(bundleOf())
      .replace('"code":"hipGirth"', '"code":"__proto__"')
      .replaceAll('"code":"photo"', '"code":"constructor"')
      .replace('"resourceType":"Bundle"', '"resourceType":"Bundle","__proto__":{"polluted":true},"toString":1')
    const scan = scanOf(JSON.parse(text))
    expect(scan.measurementsMm.hipGirth).toBeUndefined()
    expect(scan.method).toBeNull()
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
    expect(notesOf(scan, "dropped").map((n) => n.path)).toEqual(
      expect.arrayContaining(["__proto__", "toString", `entry[${memberIndex(bundleOf(), "hipGirth")}].resource`])
    )
  })

  it("a value nested 100,000 deep under an unknown key", () => {
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = { a: deep }
    const b = bundleOf()
    ;(memberOf(b, "hipGirth") as Record<string, unknown>)["extension"] = deep
    const scan = scanOf(b)
    expect(notesOf(scan, "dropped").map((n) => n.path)).toEqual([`entry[${memberIndex(b, "hipGirth")}].resource.extension`])
  })

  it("a bundle of 50,000 other resources and 10,000 references to one member: bounded notes", () => {
    const b = bundleOf()
    const hip = b.entry[memberIndex(b, "hipGirth")]!.fullUrl
    for (let i = 0; i < 10_000; i++) panelOf(b).hasMember!.push({ reference: hip })
    for (let i = 0; i < 50_000; i++) b.entry.push({ fullUrl: `urn:uuid:p${i}`, resource: { resourceType: "Patient" } as never } as never)
    const scan = scanOf(b)
    expect(withoutNotes(scan)).toEqual(withoutNotes(SCAN))
    expect(scan.notes.length).toBe(MAX_NOTES + 1)
    expect(scan.notes.at(-1)).toEqual({ kind: "dropped", path: "notes", detail: expect.stringContaining("left out") })
  })

  it("not a bundle at all, or entries of the wrong shape", () => {
    expect(err(decodeBundleEither({ resourceType: "Bundle", entry: 5 })).path).toEqual(["entry"])
    expect(err(decodeBundleEither({ resourceType: "Bundle", entry: [{ resource: "x" }] })).path).toEqual(["entry", 0, "resource"])
    expect(err(decodeBundleEither({ resourceType: "Bundle", entry: [] })).path).toEqual(["entry"])
    expect(err(decodePanelEither(null)).path).toEqual([])
  })

  // Values to put where a written bundle's were: JSON of every kind, and the edges of numbers.
  const replacement = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(-1, -0.5, 0, 1e308, 2 ** 53, 1.5, "", "#m0", "urn:uuid:x", null, [], {}))

  /** A copy of `value` with what `steps` reach (each picks a key by index, modulo the keys there) replaced. */
  const spoiled = (value: unknown, steps: ReadonlyArray<number>, by: unknown): unknown => {
    if (steps.length === 0 || typeof value !== "object" || value === null) return by
    const keys = Object.keys(value)
    if (keys.length === 0) return by
    const key = keys[steps[0]! % keys.length]!
    const copy: Record<string, unknown> | Array<unknown> = Array.isArray(value) ? [...value] : { ...value }
    ;(copy as Record<string, unknown>)[key] = spoiled((value as Record<string, unknown>)[key], steps.slice(1), by)
    return copy
  }

  it.prop(
    "a written bundle or bare panel spoiled anywhere decodes to valid canonical scans or a DecodeError",
    [fc.array(fc.nat(), { minLength: 1, maxLength: 7 }), replacement, fc.boolean(), fc.constantFrom("cm" as const, "in" as const)],
    ([steps, by, bare, units]) => {
      const b = bundleOf(SCAN, { units, patientSystem: "https://hospital.example/patients" })
      const input = spoiled(bare ? asBarePanel(b) : b, steps, by)
      const result = bare ? decodePanelEither(input) : decodeBundleEither(input)
      if (Either.isLeft(result)) {
        expect(result.left).toBeInstanceOf(DecodeError)
        return
      }
      for (const scan of result.right) expect(Either.isRight(Schema.decodeUnknownEither(Scan)(JSON.parse(JSON.stringify(scan))))).toBe(true)
    },
    { fastCheck: { numRuns: 500 } }
  )
})
