/**
 * `scanbridge migrate --to fhir`: one FHIR R4 transaction Bundle per scan on each NDJSON line, its
 * lengths in the unit --units gives (cm by default, in), its patients named by
 * --fhir-patient-system, and the flags it cannot take refused before anything is written. Run
 * in-process as the executable runs it.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { repoRoot, run } from "./harness.js"

const TIMEOUT = 120_000
const PATIENTS = "https://hospital.example/patients"

interface Quantity {
  readonly value: number
  readonly code: string
}
interface Resource {
  readonly resourceType: string
  readonly identifier?: ReadonlyArray<{ readonly system: string; readonly value: string }>
  readonly subject?: { readonly reference: string; readonly identifier: { readonly system: string; readonly value: string } }
  readonly valueQuantity?: Quantity
}
interface Bundle {
  readonly resourceType: string
  readonly type: string
  readonly entry: ReadonlyArray<{ readonly fullUrl: string; readonly resource: Resource; readonly request: { readonly method: string } }>
}
interface Report {
  readonly records: number
  readonly migrated: number
  readonly rejected: number
  readonly scans: number
  readonly target: string
  readonly byFormat: Record<string, number>
  readonly byRejectReason: Record<string, number>
}

const lines = (text: string) => text.split("\n").filter((l) => l !== "")
const bundlesIn = async (file: string) => lines(await readFile(file, "utf8")).map((l) => JSON.parse(l) as Bundle)
const observations = (bundles: ReadonlyArray<Bundle>) => bundles.flatMap((b) => b.entry.map((e) => e.resource)).filter((r) => r.resourceType === "Observation")
/** Every value's quantity, by its Observation's identifier (the scan and the quantity). */
const quantities = (bundles: ReadonlyArray<Bundle>): ReadonlyMap<string, Quantity> =>
  new Map(
    observations(bundles).flatMap((o) => (o.valueQuantity === undefined ? [] : [[`${o.identifier![0]!.system}|${o.identifier![0]!.value}`, o.valueQuantity]]))
  )

let tmp: string
/** What a canonical run of the same inputs reads: its report and scans. */
let canonical: { readonly report: Report; readonly scans: ReadonlyArray<{ readonly externalId: string | null }> }
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "scanbridge-fhir-cli-"))
  const [out, report] = [join(tmp, "canonical.ndjson"), join(tmp, "canonical.json")]
  expect((await run("migrate", "examples/export", "--out", out, "--report", report)).code).toBe(0)
  canonical = {
    report: JSON.parse(await readFile(report, "utf8")) as Report,
    scans: lines(await readFile(out, "utf8")).map((l) => JSON.parse(l) as { externalId: string | null })
  }
}, TIMEOUT)
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

/** `migrate examples/export --to fhir` with `flags`, into files named `name`: its exit code, stderr, report and bundles. */
const migrated = async (name: string, ...flags: ReadonlyArray<string>) => {
  const [out, rejects, report] = ["ndjson", "rejects", "json"].map((ext) => join(tmp, `${name}.${ext}`)) as [string, string, string]
  const r = await run("migrate", "examples/export", "--to", "fhir", ...flags, "--out", out, "--rejects", rejects, "--report", report)
  expect(r.code, r.stderr).toBe(0)
  return {
    stderr: r.stderr,
    report: JSON.parse(await readFile(report, "utf8")) as Report,
    bundles: await bundlesIn(out),
    outLines: lines(await readFile(out, "utf8")),
    rejects: lines(await readFile(rejects, "utf8")).map((l) => JSON.parse(l) as { file: string; line: number; error: { tag: string } })
  }
}

describe("migrate --to fhir", () => {
  it(
    "writes one transaction Bundle per scan on each line, every record in the output or the rejects",
    async () => {
      const { report, bundles, outLines, rejects } = await migrated("cm")
      expect(report.target).toBe("fhir")
      expect(report.records).toBe(report.migrated + report.rejected)
      expect(Object.values(report.byFormat).reduce((a, b) => a + b, 0)).toBe(report.migrated)
      expect(Object.values(report.byRejectReason).reduce((a, b) => a + b, 0)).toBe(report.rejected)
      // The same records a canonical run reads: none lost on the way to FHIR.
      const { records, scans, rejected } = canonical.report
      expect({ records: report.records, scans: report.scans, rejected: report.rejected }).toEqual({ records, scans, rejected })
      expect(rejects).toHaveLength(report.rejected)
      expect(rejects.map((r) => r.error.tag).sort()).toEqual(
        Object.entries(report.byRejectReason)
          .flatMap(([tag, n]) => Array<string>(n).fill(tag))
          .sort()
      )
      expect(outLines).toHaveLength(report.scans)
      for (const bundle of bundles) {
        expect(bundle.resourceType).toBe("Bundle")
        expect(bundle.type).toBe("transaction")
        expect(bundle.entry.map((e) => e.resource.resourceType)).toContain("Device")
        for (const entry of bundle.entry) expect(entry.request.method).toBe("POST")
      }
      // Lengths in cm and masses in kg by default; no patient is named without --fhir-patient-system.
      const codes = new Set([...quantities(bundles).values()].map((q) => q.code))
      expect(codes).toContain("cm")
      expect(codes).toContain("kg")
      expect([...codes].filter((c) => c.startsWith("["))).toEqual([])
      expect(observations(bundles).filter((o) => o.subject !== undefined)).toEqual([])
    },
    TIMEOUT
  )

  it(
    "--units in writes [in_i] and [lb_av], the same quantities as cm and kg",
    async () => {
      const [cm, inch] = [await migrated("default"), await migrated("in", "--units", "in")]
      const [metric, imperial] = [quantities(cm.bundles), quantities(inch.bundles)]
      expect([...imperial.keys()]).toEqual([...metric.keys()])
      let lengths = 0
      let masses = 0
      for (const [id, q] of metric) {
        const other = imperial.get(id)!
        // Inches and pounds to a hundredth.
        if (q.code === "cm") {
          lengths++
          expect(other.code, id).toBe("[in_i]")
          expect(Math.abs(other.value * 2.54 - q.value), id).toBeLessThanOrEqual(0.0127 + 1e-9)
        } else if (q.code === "kg") {
          masses++
          expect(other.code, id).toBe("[lb_av]")
          expect(Math.abs(other.value * 0.45359237 - q.value), id).toBeLessThanOrEqual(0.00227 + 1e-9)
        } else expect(other, id).toEqual(q)
      }
      expect(lengths).toBeGreaterThan(100)
      expect(masses).toBeGreaterThan(5)
      // --units cm is the default said.
      const said = await migrated("said-cm", "--units", "cm")
      expect(said.outLines).toEqual(cm.outLines)
    },
    TIMEOUT
  )

  it(
    "--fhir-patient-system names each scan's patient by its externalId, by a conditional reference",
    async () => {
      const { bundles } = await migrated("patients", "--fhir-patient-system", PATIENTS)
      const named = observations(bundles).filter((o) => o.subject !== undefined)
      expect(named.length).toBeGreaterThan(0)
      for (const o of named) {
        expect(o.subject!.identifier.system).toBe(PATIENTS)
        expect(o.subject!.reference).toBe(`Patient?identifier=${encodeURIComponent(PATIENTS)}|${encodeURIComponent(o.subject!.identifier.value)}`)
      }
      // Every scan with an externalId, and only those.
      const withPatient = bundles.filter((b) => b.entry.some((e) => e.resource.subject !== undefined))
      expect(withPatient.length).toBe(canonical.scans.filter((s) => s.externalId !== null).length)
    },
    TIMEOUT
  )

  /** `scanbridge migrate examples/export ...args --out F`, refused as a bad command line: exit 2, `message`, no output. */
  const refused = async (args: ReadonlyArray<string>, message: string) => {
    const out = join(tmp, "refused.ndjson")
    const r = await run("migrate", "examples/export", ...args, "--out", out)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toBe(`scanbridge: ${message}\n`)
    expect(r.stdout).toBe("")
    expect(existsSync(out)).toBe(false)
  }

  it(
    "refuses a unit fhir does not write, a patient system that is not an absolute URI, and one for a target that names no patient",
    async () => {
      await refused(["--to", "fhir", "--units", "mm"], "--units mm: --to fhir writes its lengths in cm or in")
      const notUri = "expected an absolute URI without spaces, the identifier system of your patients (https://hospital.example/patients, urn:oid:1.2.3)"
      for (const system of ["patients", "my system", "https://hospital.example/my patients", "", "1http://x"])
        await refused(["--to", "fhir", "--fhir-patient-system", system], `--fhir-patient-system ${system}: ${notUri}`)
      await refused(
        ["--to", "platform", "--fhir-patient-system", PATIENTS],
        `--fhir-patient-system ${PATIENTS}: only --to fhir names a patient; platform names none`
      )
      await refused(["--fhir-patient-system", PATIENTS], `--fhir-patient-system ${PATIENTS}: only --to fhir names a patient; canonical names none`)
      await refused(["--to", "session", "--units", "in"], "--units in: only --to csv, parquet or fhir writes lengths in a chosen unit; session has its own")
      const into = await run("migrate", "examples/export", "--into", "postgres://u@127.0.0.1:1/db", "--fhir-patient-system", PATIENTS)
      expect(into.code).toBe(2)
      expect(into.stderr).toBe("scanbridge: --into writes canonical scans in millimetres: drop --fhir-patient-system\n")
    },
    TIMEOUT
  )

  it(
    "--workers 2 writes the same bytes and report as --workers 0, with --units in and a patient system",
    async () => {
      // Twelve chunks, most of their records of no known format (rejected, counted), so that the
      // workers have chunks to take once they are up, each with bundles to write; the session
      // results hold externalIds, which name patients.
      const fromRepo = (file: string) => readFileSync(join(repoRoot, file), "utf8")
      const real = [
        ...lines(fromRepo("examples/export/platform/entries.ndjson")),
        ...(JSON.parse(fromRepo("examples/export/session/results.json")) as ReadonlyArray<unknown>).map((r) => JSON.stringify(r)),
        ...lines(fromRepo("examples/export/estimation/read-responses.ndjson")),
        ...lines(fromRepo("examples/export/fit/estimations.ndjson"))
      ]
      const input = join(tmp, "many.ndjson")
      await writeFile(
        input,
        `${Array.from({ length: 12_000 }, (_, i) => (i % 40 === 0 ? real[(i / 40) % real.length] : `{"no":"scan","i":${i}}`)).join("\n")}\n`
      )
      const runWith = async (workers: number) => {
        const files = ["ndjson", "json"].map((ext) => join(tmp, `w${workers}.${ext}`)) as [string, string]
        const r = await run(
          "migrate",
          input,
          "--to",
          "fhir",
          "--units",
          "in",
          "--fhir-patient-system",
          PATIENTS,
          "--workers",
          String(workers),
          "--out",
          files[0],
          "--report",
          files[1],
          "--quiet"
        )
        expect(r.code, r.stderr).toBe(0)
        return Promise.all(files.map((f) => readFile(f)))
      }
      const [none, two] = [await runWith(0), await runWith(2)]
      // Compared as bytes and searched as booleans: a diff of megabytes would not help anyone.
      const text = none[0]!.toString("utf8")
      expect(lines(text)).toHaveLength(300)
      expect(text.includes('"code":"[in_i]"')).toBe(true)
      expect(text.includes(`"system":"${PATIENTS}"`)).toBe(true)
      expect(two[0]!.equals(none[0]!)).toBe(true)
      expect(two[1]!.equals(none[1]!)).toBe(true)
    },
    TIMEOUT
  )
})
