/**
 * The umbrella API for code that does not use Effect: plain functions over plain JSON that throw
 * (or reject with) an error whose `code` is the tag of the typed error behind it.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  type FhirBundle,
  type LengthUnit,
  type Report,
  ScanbridgeError,
  detectFormat,
  encode,
  encoders,
  migrateFile,
  migratePostgres,
  normalize,
  toFhir
} from "../src/index.js"

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))
const text = (file: string) => readFileSync(join(repoRoot, file), "utf8")
const json = (file: string) => JSON.parse(text(file)) as unknown
const ndjson = (file: string) =>
  text(file)
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as unknown)

const platformEntries = ndjson("examples/export/platform/entries.ndjson")
const listPage = json("examples/export/platform/list-page.json")
const sessionResults = json("examples/export/session/results.json") as ReadonlyArray<unknown>
const readResponses = ndjson("examples/export/estimation/read-responses.ndjson")
const fitEstimations = ndjson("examples/export/fit/estimations.ndjson")
const photoScan = json("examples/canonical/photo-scan.json") as { measurementsMm: Record<string, number> } & Record<string, unknown>
const brokenScan = json("examples/canonical/broken-scan.json")
/** A read response whose estimation is still running: a pending scan. */
const pendingResponse = readResponses[3]

/** Calls `f`, expecting it to throw a ScanbridgeError; returns the error. */
const thrown = (f: () => unknown): ScanbridgeError => {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(ScanbridgeError)
    expect(e).toBeInstanceOf(Error)
    return e as ScanbridgeError
  }
  throw new Error("expected a ScanbridgeError, nothing was thrown")
}

describe("normalize", () => {
  it("a platform entry line gives one canonical scan", () => {
    const scans = normalize(platformEntries[0])
    expect(scans).toHaveLength(1)
    const scan = scans[0]!
    expect(scan.format).toBe("scanbridge.scan/v1")
    expect(scan.source).toMatchObject({ api: "platform", id: "scan_000001" })
    expect(scan.status).toBe("success")
    expect(scan.subject).toEqual({ age: 29, gender: "female", heightMm: 1640, weightG: 54000 })
    expect(scan.measurementsMm["bustGirth"]).toBe(875)
    expect(scan.measurementsMm["hipGirth"]).toBe(925)
    // Plain JSON: survives a JSON round trip unchanged, and is itself a canonical scan.
    expect(JSON.parse(JSON.stringify(scan))).toEqual(scan)
    expect(normalize(JSON.parse(JSON.stringify(scan)))).toEqual([scan])
  })

  it("every line of the platform export gives exactly one scan", () => {
    for (const line of platformEntries) expect(normalize(line)).toHaveLength(1)
  })

  it("a list page gives one scan per result, in page order", () => {
    const scans = normalize(listPage)
    expect(scans.map((s) => [s.source.api, s.source.id, s.status])).toEqual([
      ["platform", "scan_000005", "success"],
      ["platform", "scan_000004", "failure"],
      ["platform", "scan_000003", "success"]
    ])
    for (const s of scans) expect(s.subject.age).not.toBeNull()
  })

  it("reads every other API's records", () => {
    expect(normalize(sessionResults[0])[0]!.source).toMatchObject({ api: "session", id: "ss_00000001" })
    expect(normalize(readResponses[0])[0]!.source).toMatchObject({ api: "estimation", id: "est_00000001" })
    expect(normalize(fitEstimations[0])[0]!.source).toMatchObject({ api: "fit", id: "et_00000001" })
    expect(normalize(pendingResponse)[0]!.status).toBe("pending")
  })

  it("garbage throws ScanbridgeError with code UnknownFormatError", () => {
    for (const garbage of [{ kind: "not a scan", value: 1 }, 42, "scan", null, true, [], {}, [1, 2], sessionResults]) {
      const e = thrown(() => normalize(garbage))
      expect(e.name).toBe("ScanbridgeError")
      expect(e.code).toBe("UnknownFormatError")
      expect(e.message).toMatch(/^unknown format/)
      expect(e.path).toEqual([])
    }
  })

  it("any JSON value of no known shape throws UnknownFormatError, never anything else", () => {
    // Keys no format uses, so nothing generated can match a format by chance.
    const key = fc.string({ maxLength: 8 }).map((k) => `zz_${k}`)
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }).filter((v) => v === null || typeof v !== "object" || Array.isArray(v)),
      fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 })
    )
    fc.assert(
      fc.property(value, (v) => {
        expect(thrown(() => normalize(v)).code).toBe("UnknownFormatError")
      }),
      { numRuns: 200 }
    )
  })

  it("a broken canonical scan throws DecodeError with the path of its first problem and every issue", () => {
    const e = thrown(() => normalize(brokenScan))
    expect(e.code).toBe("DecodeError")
    expect(e.path).toEqual(["subject", "gender"])
    expect(e.message).toContain("subject.gender")
    expect(e.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining([
        ["subject", "gender"],
        ["measurementsMm", "waist_girth"],
        ["measurementsMm", "hipGirth"]
      ])
    )
    expect(e.issues.find((i) => i.path.join(".") === "measurementsMm.waist_girth")!.message).toContain("waistGirth")
  })
})

/** The example photo scan with every measurement in inches, as a canonical record states millimetres. */
const inchesScan = {
  ...photoScan,
  measurementsMm: Object.fromEntries(Object.entries(photoScan.measurementsMm).map(([k, v]) => [k, Math.round((v / 25.4) * 100) / 100])),
  notes: []
}

describe("read options", () => {
  it('lengthUnit: lengths plausible only in inches are refused naming the option; with lengthUnit "in", read as inches with a note', () => {
    const refused = thrown(() => normalize(inchesScan))
    expect(refused.code).toBe("DecodeError")
    expect(refused.message).toContain('(lengthUnit: "in")')
    const scan = normalize(inchesScan, { lengthUnit: "in" })[0]!
    const read: Readonly<Record<string, number | undefined>> = scan.measurementsMm
    for (const [name, mm] of Object.entries(photoScan.measurementsMm)) expect(Math.abs(read[name]! - mm), name).toBeLessThanOrEqual(0.13)
    expect(scan.notes).toContainEqual(expect.objectContaining({ kind: "assumed", detail: expect.stringContaining('lengthUnit "in"') }))
    // auto is the default, stated or not.
    expect(thrown(() => normalize(inchesScan, { lengthUnit: "auto" })).message).toBe(refused.message)
  })

  it("bodyFatScale and muscleMassUnit reach the estimation API's decode, noted on the scan", () => {
    const detailsOf = (options: Parameters<typeof normalize>[1]) => normalize(readResponses[0], options)[0]!.notes.map((n) => n.detail)
    expect(detailsOf({}).filter((d) => /bodyFatScale|muscleMassUnit/.test(d))).toEqual([])
    expect(detailsOf({ bodyFatScale: "percent" }).filter((d) => d.includes("given by the caller (bodyFatScale)"))).toHaveLength(1)
    expect(detailsOf({ muscleMassUnit: "g" }).filter((d) => d.includes("given by the caller (muscleMassUnit)"))).toHaveLength(1)
  })

  it("a value that is none of an option's throws OptionError naming the option, the value and the values", () => {
    const values = { lengthUnit: ["auto", "mm", "cm", "in"], bodyFatScale: ["auto", "percent", "e4"], muscleMassUnit: ["auto", "g", "kg"] } as const
    fc.assert(
      fc.property(fc.constantFrom(...(Object.keys(values) as ReadonlyArray<keyof typeof values>)), fc.anything(), (option, value) => {
        fc.pre(value !== undefined && !(values[option] as ReadonlyArray<unknown>).includes(value))
        const error = thrown(() => normalize(photoScan, { [option]: value } as Parameters<typeof normalize>[1]))
        expect(error.code).toBe("OptionError")
        expect(error.value).toBe(value)
        expect(error.message).toMatch(new RegExp(`^${option} .*: expected one of ${values[option].map((v) => `"${v}"`).join(", ")}$`))
      })
    )
  })

  it("migrateFile and migratePostgres take them too: a file of inch lengths migrates with lengthUnit, and is rejected without", async () => {
    const dir = await mkdtemp(join(tmpdir(), "scanbridge-plain-read-"))
    try {
      const input = join(dir, "inches.ndjson")
      await writeFile(input, `${JSON.stringify(inchesScan)}\n`)
      const without = await migrateFile(input, { out: join(dir, "a.ndjson") })
      expect([without.migrated, without.rejected]).toEqual([0, 1])
      const withIt = await migrateFile(input, { out: join(dir, "b.ndjson"), lengthUnit: "in" })
      expect([withIt.migrated, withIt.rejected]).toEqual([1, 0])
      const bad = await migrateFile(input, { out: join(dir, "c.ndjson"), lengthUnit: "inch" as "in" }).catch((e: unknown) => e)
      expect(bad).toBeInstanceOf(ScanbridgeError)
      expect((bad as ScanbridgeError).code).toBe("OptionError")
      // Refused before anything is written.
      expect((await readdir(dir)).sort()).toEqual(["a.ndjson", "b.ndjson", "inches.ndjson"])
      const badPostgres = await migratePostgres({
        from: input,
        into: { url: "postgres://127.0.0.1:1/none", table: "scans" },
        muscleMassUnit: "lb" as "g"
      }).catch((e: unknown) => e)
      expect((badPostgres as ScanbridgeError).code).toBe("OptionError")
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe("detectFormat", () => {
  it("names the format and its API", () => {
    const cases: ReadonlyArray<readonly [unknown, string, string | null]> = [
      [photoScan, "scanbridge.scan/v1", null],
      [platformEntries[0], "platform entry envelope", "platform"],
      [listPage, "platform list page", "platform"],
      [sessionResults[0], "session ScanningResults", "session"],
      [readResponses[0], "estimation read response", "estimation"],
      [fitEstimations[0], "fit estimation result", "fit"]
    ]
    for (const [value, format, api] of cases) expect(detectFormat(value)).toEqual({ format, api })
  })

  it("only detects: a broken canonical scan is still the canonical format", () => {
    expect(detectFormat(brokenScan)).toEqual({ format: "scanbridge.scan/v1", api: null })
  })

  it("a {source, payload} envelope names the format", () => {
    expect(detectFormat({ source: "fit", payload: fitEstimations[0] })).toEqual({ format: "fit estimation result", api: "fit" })
    expect(detectFormat({ source: "estimation read response", payload: readResponses[0] })).toEqual({ format: "estimation read response", api: "estimation" })
    expect(thrown(() => detectFormat({ source: "csv", payload: {} })).code).toBe("UnknownFormatError")
  })

  it("garbage throws UnknownFormatError", () => {
    expect(thrown(() => detectFormat({ kind: "not a scan" })).code).toBe("UnknownFormatError")
  })
})

describe("migrateFile", () => {
  let tmp: string
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "scanbridge-plain-"))
  })
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true })
  })

  const lines = async (file: string) => (await readFile(file, "utf8")).split("\n").filter((l) => l !== "")

  it("refuses an out that is its input, and leaves out as it was when the run fails", async () => {
    const input = join(tmp, "same.ndjson")
    const text = readFileSync(join(repoRoot, "examples/export/platform/entries.ndjson"), "utf8")
    await writeFile(input, text)
    const same = await migrateFile(input, { out: input }).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(same).toBeInstanceOf(ScanbridgeError)
    // A mistake of the options, refused before anything is opened (Migration.run's plan check).
    expect((same as ScanbridgeError).code).toBe("MigratePlanError")
    expect((same as ScanbridgeError).cause).toMatchObject({ option: "out" })
    expect((same as ScanbridgeError).message).toMatch(/^out .*same\.ndjson is the input /)
    expect(await readFile(input, "utf8")).toBe(text)

    const out = join(tmp, "kept.ndjson")
    await writeFile(out, "what was there\n")
    await expect(migrateFile([input, join(tmp, "missing.ndjson")], { out })).rejects.toMatchObject({ code: "MigrateInputError" })
    expect(await readFile(out, "utf8")).toBe("what was there\n")
    expect((await readdir(tmp)).filter((n) => n.endsWith(".partial"))).toEqual([])
  })

  it("migrates the export folder to canonical scans and resolves with the report", async () => {
    const out = join(tmp, "canonical.ndjson")
    const rejects = join(tmp, "rejects.ndjson")
    const report: Report = await migrateFile(join(repoRoot, "examples/export"), { out, rejects })
    expect(report.target).toBe("canonical")
    expect(report.records).toBe(report.migrated + report.rejected)
    expect(report.rejected).toBe(3)
    expect(report.byRejectReason).toEqual({ InvalidJson: 1, UnknownFormatError: 1, DecodeError: 1 })
    const scans = await lines(out)
    expect(scans).toHaveLength(report.scans)
    for (const line of scans) expect(detectFormat(JSON.parse(line))).toEqual({ format: "scanbridge.scan/v1", api: null })
    expect(await lines(rejects)).toHaveLength(3)
  })

  it("accepts several inputs and a target", async () => {
    const inputs = [join(repoRoot, "examples/export/platform"), join(repoRoot, "examples/canonical/photo-scan.json")]
    const out = join(tmp, "session.ndjson")
    const report = await migrateFile(inputs, { out, to: "session" })
    expect(report.target).toBe("session")
    expect(report.rejected).toBe(0)
    // Each entry line, the list page and the canonical file are one record each; the page holds 3 scans.
    expect(report.records).toBe(platformEntries.length + 1 + 1)
    expect(report.scans).toBe(platformEntries.length + 3 + 1)
    const written = await lines(out)
    expect(written).toHaveLength(report.scans)
    for (const line of written) expect(detectFormat(JSON.parse(line)).api).toBe("session")

    // The fit shape holds successful estimations only: a failed scan rejects its whole record.
    const rejects = join(tmp, "fit-rejects.ndjson")
    const fit = await migrateFile(inputs, { out: join(tmp, "fit.ndjson"), to: "fit", rejects })
    expect(fit).toMatchObject({ target: "fit", records: report.records, rejected: 2, byRejectReason: { EncodeError: 2 } })
    expect((await lines(rejects)).map((l) => (JSON.parse(l) as { error: { path: unknown } }).error.path)).toEqual([["status"], ["status"]])
  })

  it("without rejects, rejects are counted, not kept", async () => {
    const out = join(tmp, "counted.ndjson")
    const report = await migrateFile(join(repoRoot, "examples/export/broken.ndjson"), { out })
    expect(report).toMatchObject({ records: 3, migrated: 0, rejected: 3, scans: 0 })
    expect(await readFile(out, "utf8")).toBe("")
  })

  it("a missing input rejects with an Error whose code is MigrateInputError", async () => {
    const missing = join(tmp, "no-such-input.ndjson")
    const error: unknown = await migrateFile(missing, { out: join(tmp, "never.ndjson") }).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain(missing)
    expect((error as { code?: unknown }).code).toBe("MigrateInputError")
    expect((error as Error).name).toBe("ScanbridgeError")
  })

  it("an unknown target rejects with code UnknownTargetError, naming the targets", async () => {
    const error: unknown = await migrateFile(join(repoRoot, "examples/canonical/photo-scan.json"), { out: join(tmp, "xml.ndjson"), to: "xml" }).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toMatch(/canonical, platform, session, estimation, fit/)
    expect((error as { code?: unknown }).code).toBe("UnknownTargetError")
  })
})

describe("encoders", () => {
  type Measure = { readonly name?: string; readonly measurementType?: string; readonly estimationType?: string; readonly value: unknown; readonly unit: string }
  const notePaths = (notes: ReadonlyArray<{ kind: string; path: string }>) => notes.map((n) => `${n.kind} ${n.path}`)

  it("toPlatformEntry writes a platform entry, noting what it drops", () => {
    const { value, notes } = encoders.toPlatformEntry(photoScan)
    const entry = value as {
      id: string
      status: string
      customScanId: string
      input: { photoScan: Record<string, unknown> }
      measurements: ReadonlyArray<Measure>
    }
    expect(entry.id).toBe("scan_8f2c1a")
    expect(entry.status).toBe("success")
    expect(entry.customScanId).toBe("customer-4711")
    expect(entry.input.photoScan).toMatchObject({ age: 29, gender: "female", height: 1640, weight: 54000 })
    expect(entry.measurements).toContainEqual({ name: "bustGirth", unit: "mm", value: 862 })
    expect(entry.measurements).toHaveLength(Object.keys(photoScan.measurementsMm).length)
    expect(notePaths(notes)).toEqual(expect.arrayContaining(["dropped createdAt", "dropped notes"]))
    expect(detectFormat(value)).toEqual({ format: "platform entry", api: "platform" })
  })

  it("toSessionResults writes ScanningResults, noting what it converts and drops", () => {
    const { value, notes } = encoders.toSessionResults(photoScan)
    const results = value as { scanningSessionId: string; clientScanningId: string; results: { measurements: ReadonlyArray<Measure> } }
    expect(results.scanningSessionId).toBe("platform:scan_8f2c1a")
    expect(results.clientScanningId).toBe("customer-4711")
    expect(results.results.measurements).toContainEqual({ measurementType: "BUST_GIRTH", value: "862", unit: "MILLIMETERS" })
    expect(results.results.measurements).toContainEqual({ measurementType: "BODY_FAT_PERCENTAGE", value: "241000", unit: "PERCENTAGE_E4" })
    expect(notePaths(notes)).toEqual(expect.arrayContaining(["converted source.id", "dropped composition.bodyFatMassG", "dropped composition.leanMassG"]))
  })

  it("toEstimationResponse writes a read response, noting the rounding and the dropped measurements", () => {
    const { value, notes } = encoders.toEstimationResponse(photoScan)
    const response = value as {
      measurements: ReadonlyArray<{
        estimation_id: string
        estimation: { input: Record<string, unknown>; result: { measurement: Record<string, number>; body_composition: Record<string, number> } }
      }>
    }
    const [item] = response.measurements
    expect(item!.estimation_id).toBe("platform:scan_8f2c1a")
    expect(item!.estimation.input).toEqual({ age: 29, gender: "female", height: 1640, weight: 54000 })
    expect(item!.estimation.result.measurement["bust_girth"]).toBe(862)
    expect(item!.estimation.result.body_composition["body_fat_percentage"]).toBe(24)
    expect(notePaths(notes)).toEqual(
      expect.arrayContaining([
        "converted composition.bodyFatPercent",
        "dropped measurementsMm.bellyWaistDepth",
        "dropped measurementsMm.bellyWaistWidth",
        "dropped externalId"
      ])
    )
  })

  it("toFitEstimation writes a fit estimation, noting what it drops", () => {
    const { value, notes } = encoders.toFitEstimation(photoScan)
    const estimation = value as { estimations: { estimationToken: { token: string }; measurements: ReadonlyArray<Measure> } }
    expect(estimation.estimations.estimationToken.token).toBe("platform:scan_8f2c1a")
    expect(estimation.estimations.measurements).toContainEqual({ estimationType: "BUST_GIRTH", value: "862", unit: "MILLIMETERS" })
    expect(estimation.estimations.measurements).toContainEqual({ estimationType: "GENDER", value: "2", unit: "GENDER" })
    expect(notePaths(notes)).toEqual(expect.arrayContaining(["dropped composition", "dropped createdAt", "dropped measurementsMm.bellyWaistDepth"]))
  })

  it("every encoding reads back to the same measurements, except those it notes as dropped", () => {
    for (const encode of [encoders.toPlatformEntry, encoders.toSessionResults, encoders.toEstimationResponse, encoders.toFitEstimation]) {
      const { value, notes } = encode(photoScan)
      const back = normalize(value)[0]!
      expect(back.subject).toEqual(photoScan["subject"])
      const lost = Object.keys(photoScan.measurementsMm).filter(
        (name) => back.measurementsMm[name as keyof typeof back.measurementsMm] !== photoScan.measurementsMm[name]
      )
      const dropped = notes.filter((n) => n.kind === "dropped" && n.path.startsWith("measurementsMm.")).map((n) => n.path.slice("measurementsMm.".length))
      expect(lost.sort()).toEqual(dropped.sort())
    }
  })

  it("encoders accept any record Scanbridge reads", () => {
    const { value } = encoders.toPlatformEntry(readResponses[0])
    expect((value as { measurements: ReadonlyArray<Measure> }).measurements).toContainEqual({ name: "bustGirth", unit: "mm", value: 875 })
  })

  it("toPlatformEntry of a pending scan throws EncodeError at status", () => {
    for (const pending of [pendingResponse, normalize(pendingResponse)[0]]) {
      const e = thrown(() => encoders.toPlatformEntry(pending))
      expect(e.code).toBe("EncodeError")
      expect(e.path).toEqual(["status"])
      expect(e.message).toContain("pending")
    }
  })

  it("an encoder given garbage throws UnknownFormatError", () => {
    expect(thrown(() => encoders.toFitEstimation({ kind: "not a scan" })).code).toBe("UnknownFormatError")
  })
})

describe("toFhir", () => {
  const PATIENTS = "https://hospital.example/patients"
  const observations = (bundle: FhirBundle) => bundle.entry.flatMap((e) => (e.resource.resourceType === "Observation" ? [e.resource] : []))
  /** The value of the member Observation coded `code` in Scanbridge's CodeSystem. */
  const quantityOf = (bundle: FhirBundle, code: string) => observations(bundle).find((o) => o.code.coding?.some((c) => c.code === code))?.valueQuantity

  it("writes a scan as one transaction Bundle, lengths in cm and masses in kg, as encode and encoders.toFhir do", () => {
    const encoded = toFhir(photoScan)
    expect(encoded.value).toMatchObject({ resourceType: "Bundle", type: "transaction" })
    expect(quantityOf(encoded.value, "height")).toMatchObject({ value: 164, code: "cm" })
    expect(quantityOf(encoded.value, "weight")).toMatchObject({ value: 54, code: "kg" })
    // No patient is named without a patient system.
    expect(observations(encoded.value).filter((o) => o.subject !== undefined)).toEqual([])
    expect(encoders.toFhir(photoScan)).toEqual(encoded)
    expect(encode(photoScan, { to: "fhir" })).toEqual(encoded)
    expect(toFhir(photoScan, { units: "cm" })).toEqual(encoded)
    // Any record Scanbridge reads.
    expect(toFhir(platformEntries[0]).value.resourceType).toBe("Bundle")
  })

  it("tells the encoder the units and the patient system", () => {
    const encoded = toFhir(photoScan, { units: "in", patientSystem: PATIENTS })
    // 1640 mm and 54000 g, to a hundredth.
    expect(quantityOf(encoded.value, "height")).toMatchObject({ value: 64.57, code: "[in_i]" })
    expect(quantityOf(encoded.value, "weight")).toMatchObject({ value: 119.05, code: "[lb_av]" })
    const subjects = observations(encoded.value).map((o) => o["subject"])
    expect(subjects.length).toBeGreaterThan(1)
    for (const subject of subjects) expect(subject).toMatchObject({ identifier: { system: PATIENTS, value: "customer-4711" } })
    expect(encoders.toFhir(photoScan, { units: "in", patientSystem: PATIENTS })).toEqual(encoded)
    expect(encode(photoScan, { to: "fhir", units: "in", patientSystem: PATIENTS })).toEqual(encoded)
  })

  it("refuses options the target does not take with OptionError, naming the option and the value, as a migration does", () => {
    const refused = (f: () => unknown, value: unknown, message: string) => {
      const e = thrown(f)
      expect(e.code).toBe("OptionError")
      expect(e.value).toBe(value)
      expect(e.message).toBe(message)
    }
    refused(() => toFhir(photoScan, { units: "mm" as "cm" }), "mm", 'units "mm": to fhir writes its lengths in cm or in')
    refused(() => encode(photoScan, { to: "fhir", units: "ft" as LengthUnit }), "ft", 'units "ft": expected one of mm, cm, in')
    refused(
      () => encode(photoScan, { to: "platform", units: "cm" }),
      "cm",
      'units "cm": only to csv, parquet or fhir writes lengths in a chosen unit; platform has its own'
    )
    refused(
      () => encode(photoScan, { to: "platform", patientSystem: PATIENTS }),
      PATIENTS,
      `patientSystem "${PATIENTS}": only to fhir names a patient; platform names none`
    )
    for (const system of ["patients", "https://hospital.example/my patients", ""])
      refused(
        () => toFhir(photoScan, { patientSystem: system }),
        system,
        `patientSystem "${system}": expected an absolute URI without spaces, the identifier system of your patients (https://hospital.example/patients, urn:oid:1.2.3)`
      )
    expect(thrown(() => toFhir({ kind: "not a scan" })).code).toBe("UnknownFormatError")
  })

  it("migrateFile writes one bundle per scan, in the units and with the patient system given, and refuses a patient system elsewhere", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "scanbridge-plain-fhir-"))
    try {
      const out = join(tmp, "bundles.ndjson")
      const report = await migrateFile(join(repoRoot, "examples/export/session"), { out, to: "fhir", units: "in", patientSystem: PATIENTS })
      expect(report).toMatchObject({ target: "fhir", rejected: 0 })
      const bundles = (await readFile(out, "utf8"))
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as FhirBundle)
      expect(bundles).toHaveLength(report.scans)
      // The same bundles toFhir writes of the same records.
      expect(bundles).toEqual(sessionResults.map((r) => toFhir(r, { units: "in", patientSystem: PATIENTS }).value))
      expect(bundles.some((b) => JSON.stringify(b).includes(`"system":"${PATIENTS}"`))).toBe(true)
      const elsewhere = await migrateFile(join(repoRoot, "examples/export/session"), { out: join(tmp, "x.ndjson"), patientSystem: PATIENTS }).then(
        () => undefined,
        (e: unknown) => e
      )
      expect(elsewhere).toMatchObject({ code: "MigratePlanError", message: `patientSystem "${PATIENTS}": only to fhir names a patient; canonical names none` })
      expect(await readdir(tmp)).toEqual(["bundles.ndjson"])
    } finally {
      await rm(tmp, { recursive: true, force: true })
    }
  })
})
