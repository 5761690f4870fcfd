/**
 * The proof that adapters are open: Tapeline, a format Scanbridge has never heard of, migrates in
 * a mixed export beside the vendor's own formats, through the `scanbridge` command (in-process,
 * on worker threads too) and through the plain API, with no edit to Scanbridge for it.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, Either, FastCheck as fc, Schema } from "effect"
import { readFileSync } from "node:fs"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Report, ScanbridgeError, detectFormat, encode, migrateFile, normalize } from "scanbridge"
import { command, run } from "../../../packages/cli/test/harness.js"
import { DecodeError, HUMAN_RANGES, type MeasurementName, PROPORTIONS, Scan, convertLength } from "@scanbridge/model"
import { FITTING_FORMAT, Fitting, SPELLINGS, TAPELINE, decodeFittingEither, encodeFittingEither, tapelineAdapter } from "../src/index.js"

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))
/** The adapter module as `--adapter` names it: a path. */
const MODULE = fileURLToPath(new URL("../src/index.ts", import.meta.url))
const TIMEOUT = 60_000

const exportLines = (file: string) =>
  readFileSync(join(repoRoot, "examples/export", file), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")

const fitting = (ref: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    tapeline: "fitting/2",
    ref,
    takenOn: "2025-11-02T10:00:00Z",
    unit: "cm",
    customer: { ref: `C-${ref}`, sex: "F", heightCm: 164 },
    tape: { chest: 86.2, waist: 70.1, hips: 94 },
    ...extra
  })

const FITTINGS = [
  fitting("F-1"),
  fitting("F-2", { unit: "in", tape: { waist: 27.5, inseam: 30 } }),
  // A reading the catalogue has no name for is dropped, with a note.
  fitting("F-3", { tape: { waist: 71, cuff: 22 } }),
  // A negative reading is a reject, with its path.
  fitting("F-4", { tape: { waist: -1 } })
]

/** A mixed export: the vendor's formats (one reject among them) and Tapeline's fittings. */
const MIXED = [
  ...exportLines("platform/entries.ndjson").slice(0, 3),
  FITTINGS[0]!,
  ...(JSON.parse(readFileSync(join(repoRoot, "examples/export/session/results.json"), "utf8")) as Array<unknown>).slice(0, 2).map((r) => JSON.stringify(r)),
  FITTINGS[1]!,
  ...exportLines("estimation/read-responses.ndjson").slice(0, 4),
  FITTINGS[2]!,
  ...exportLines("fit/estimations.ndjson"),
  FITTINGS[3]!
]

let dir: string
let input: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scanbridge-tapeline-"))
  input = join(dir, "mixed.ndjson")
  await writeFile(input, `${MIXED.join("\n")}\n`)
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const lines = (text: string): Array<Record<string, unknown>> =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)

// One body's readings (each within twice its share of the stature either way), in centimetres
// to one decimal: lengths of no body are judged, as every format's are.
const spellings = Object.entries(SPELLINGS) as ReadonlyArray<readonly [keyof typeof SPELLINGS, string]>
const bodies = fc
  .integer({ min: HUMAN_RANGES.heightMm.min / 10, max: HUMAN_RANGES.heightMm.max / 10 })
  .chain((heightCm) =>
    fc
      .subarray([...spellings])
      .chain((taken) =>
        fc
          .tuple(...taken.map(([name]) => fc.integer({ min: Math.ceil(PROPORTIONS[name] * heightCm * 5), max: Math.floor(PROPORTIONS[name] * heightCm * 20) })))
          .map((tenths) => ({ heightCm, tape: Object.fromEntries(taken.map(([, spelling], i) => [spelling, tenths[i]! / 10])) }))
      )
  )

describe("the Tapeline codec", () => {
  it("reads a fitting as a canonical scan in millimetres, catalogue order, noting what it drops", () => {
    const scan = Either.getOrThrow(decodeFittingEither(JSON.parse(fitting("F-9", { tape: { hips: 94, chest: 86.2, cuff: 22 }, colour: "blue" }))))
    expect(scan.source).toEqual({ api: "tapeline", id: "F-9" })
    expect(scan.createdAt).toBe("2025-11-02T10:00:00.000Z")
    expect(scan.externalId).toBe("C-F-9")
    expect(scan.subject).toEqual({ age: null, gender: "female", heightMm: 1640, weightG: null })
    expect(Object.entries(scan.measurementsMm)).toEqual([
      ["bustGirth", 862],
      ["hipGirth", 940]
    ])
    // The walk notes the conversion of the tape's centimetres, as it does every format's.
    expect(scan.notes.map((n) => `${n.kind} ${n.path}`)).toEqual(["dropped colour", "dropped tape.cuff", "converted tape"])
  })

  it("reads inches, with the walk's note", () => {
    const scan = Either.getOrThrow(decodeFittingEither(JSON.parse(FITTINGS[1]!)))
    expect(scan.measurementsMm).toEqual({ insideLegHeight: 762, waistGirth: 698.5 })
    expect(scan.notes).toEqual([{ kind: "converted", path: "tape", detail: "2 length(s) stated in inches, converted to millimetres" }])
  })

  // Inches stored under "cm", the mistake integrators make most: judged as every format's lengths are.
  const INCHES_AS_CM = JSON.parse(fitting("F-5", { tape: { chest: 34, waist: 27.6, hips: 37 } })) as unknown

  it("refuses lengths plausible only in another unit, naming the evidence and --length-unit", () => {
    const error = Either.getOrThrow(Either.flip(decodeFittingEither(INCHES_AS_CM)))
    expect(error.path).toEqual(["tape"])
    expect(error.message).toContain("plausible in inches and not in centimetres")
    expect(error.message).toContain("--length-unit in")
    expect(normalize.bind(null, INCHES_AS_CM, { adapters: [tapelineAdapter] })).toThrow(ScanbridgeError)
  })

  it("reads them in the caller's lengthUnit, with a note, in the codec and through the plain API", () => {
    const scan = Either.getOrThrow(decodeFittingEither(INCHES_AS_CM, { lengthUnit: "in" }))
    expect(scan.measurementsMm).toEqual({
      bustGirth: convertLength(34, "in", "mm"),
      waistGirth: convertLength(27.6, "in", "mm"),
      hipGirth: convertLength(37, "in", "mm")
    })
    expect(scan.notes).toEqual([
      { kind: "assumed", path: "tape", detail: 'lengths read as inches, as the caller said (lengthUnit "in"), where the record states centimetres' }
    ])
    expect(normalize(INCHES_AS_CM, { adapters: [tapelineAdapter], lengthUnit: "in" })).toEqual([scan])
    // A caller's unit is checked all the same: centimetres read as inches are no body's.
    expect(Either.isLeft(decodeFittingEither(JSON.parse(FITTINGS[0]!), { lengthUnit: "in" }))).toBe(true)
  })

  it("refuses a date it cannot read, and one past the contract's four-digit years", () => {
    for (const takenOn of ["yesterday", "+275760-09-13T00:00:00.000Z"]) {
      const error = Either.getOrThrow(Either.flip(decodeFittingEither(JSON.parse(fitting("F-6", { takenOn })))))
      expect([error.path, error.value]).toEqual([["takenOn"], takenOn])
    }
  })

  it("refuses a bad reading with its path", () => {
    const error = Either.getOrThrow(Either.flip(decodeFittingEither(JSON.parse(FITTINGS[3]!))))
    expect(error.path).toEqual(["tape", "waist"])
    expect(error.message).toContain("tapeline fitting")
  })

  // Whatever Tapeline writes (centimetres to one decimal, the names it has), it reads back as it was.
  it("writes back every fitting it reads", () => {
    const fittings = fc.tuple(bodies, fc.string({ minLength: 1 })).chain(([{ heightCm, tape }, ref]) =>
      fc.record({
        tapeline: fc.constant("fitting/2" as const),
        ref: fc.constant(ref),
        takenOn: fc.option(fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString())),
        unit: fc.constant("cm" as const),
        customer: fc.record({ ref: fc.option(fc.string()), sex: fc.option(fc.constantFrom("F" as const, "M" as const)), heightCm: fc.constant(heightCm) }),
        tape: fc.constant(tape)
      })
    )
    fc.assert(
      fc.property(fittings, (f) => {
        const scan = Either.getOrThrow(decodeFittingEither(f))
        const written = Either.getOrThrow(encodeFittingEither(scan))
        // Nothing is lost but the decode's own notes (the centimetres converted), which a fitting cannot hold.
        expect(written.notes).toEqual(scan.notes.length === 0 ? [] : [{ kind: "dropped", path: "notes", detail: "a fitting has no place for them" }])
        expect(written.value).toEqual(f)
      })
    )
  })

  // The walk builds the scan without validating it again: this is what holds it to the contract.
  it("decodes any fitting, in any unit, to a valid canonical scan or a DecodeError with its path", () => {
    const fittings = fc.tuple(Arbitrary.make(Fitting), fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 }))
    const lengthUnit = fc.constantFrom(undefined, "auto" as const, "mm" as const, "cm" as const, "in" as const)
    fc.assert(
      fc.property(fittings, lengthUnit, ([f, extra], unit) => {
        const decoded = decodeFittingEither({ ...extra, ...f }, unit === undefined ? undefined : { lengthUnit: unit })
        if (Either.isRight(decoded)) expect(Schema.is(Scan)(decoded.right)).toBe(true)
        else expect(decoded.left).toBeInstanceOf(DecodeError)
      })
    )
  })

  it("reads the same body in inches as in centimetres", () => {
    fc.assert(
      fc.property(bodies, ({ heightCm, tape }) => {
        const customer = { ref: null, sex: null, heightCm }
        const inCm = Either.getOrThrow(decodeFittingEither(JSON.parse(fitting("F-7", { customer, tape }))))
        const inches = Object.fromEntries(Object.entries(tape).map(([spelling, cm]) => [spelling, cm / 2.54]))
        const inInches = Either.getOrThrow(decodeFittingEither(JSON.parse(fitting("F-7", { customer, unit: "in", tape: inches }))))
        expect(Object.keys(inInches.measurementsMm)).toEqual(Object.keys(inCm.measurementsMm))
        for (const [name, mm] of Object.entries(inCm.measurementsMm)) expect(inInches.measurementsMm[name as MeasurementName]).toBeCloseTo(mm, 6)
      })
    )
  })
})

describe("scanbridge migrate with --adapter", () => {
  const migrated = async (...extra: ReadonlyArray<string>) => {
    const name = extra.join("_").replace(/[^a-z0-9]/gi, "") || "plain"
    const [out, rejects, report] = ["out", "rejects", "report"].map((k) => join(dir, `${name}.${k}`))
    const r = await run("migrate", input, "--out", out!, "--rejects", rejects!, "--report", report!, "--quiet", ...extra)
    return {
      code: r.code,
      stderr: r.stderr,
      out: r.code === 0 ? await readFile(out!, "utf8") : "",
      rejects: r.code === 0 ? lines(await readFile(rejects!, "utf8")) : [],
      report: r.code === 0 ? (JSON.parse(await readFile(report!, "utf8")) as Report) : undefined
    }
  }

  it(
    "without it, Tapeline's fittings are records of no known format",
    async () => {
      const r = await migrated()
      expect(r.code).toBe(0)
      expect(r.report!.byFormat[FITTING_FORMAT]).toBeUndefined()
      expect(r.report!.byRejectReason["UnknownFormatError"]).toBe(FITTINGS.length)
    },
    TIMEOUT
  )

  it(
    "with it, migrates the fittings beside the vendor's formats, and counts them in the report",
    async () => {
      const without = await migrated()
      const r = await migrated("--adapter", MODULE)
      expect(r.code).toBe(0)
      const report = r.report!
      expect(report.records).toBe(MIXED.length)
      expect(report.byFormat[FITTING_FORMAT]).toBe(3)
      // The vendor's formats are counted as they were without the adapter.
      expect({ ...report.byFormat, [FITTING_FORMAT]: undefined }).toEqual({ ...without.report!.byFormat, [FITTING_FORMAT]: undefined })
      expect(report.migrated).toBe(without.report!.migrated + 3)
      expect(report.rejected + report.migrated).toBe(report.records)
      // The one bad fitting is a reject with its path; the rest are the vendor's.
      const fittingRejects = r.rejects.filter((j) => String(j["raw"]).includes('"tapeline"'))
      expect(fittingRejects.map((j) => j["error"])).toEqual([expect.objectContaining({ tag: "DecodeError", path: ["tape", "waist"] })])
      const scans = lines(r.out).filter((s) => (s["source"] as { api: string }).api === TAPELINE)
      expect(scans.map((s) => s["source"])).toEqual([
        { api: "tapeline", id: "F-1" },
        { api: "tapeline", id: "F-2" },
        { api: "tapeline", id: "F-3" }
      ])
      expect(scans[0]!["measurementsMm"]).toEqual({ bustGirth: 862, hipGirth: 940, waistGirth: 701 })
    },
    TIMEOUT
  )

  it(
    "writes every scan as a Tapeline fitting with --to tapeline, rejecting what a fitting cannot hold",
    async () => {
      const r = await migrated("--adapter", MODULE, "--to", "tapeline")
      expect(r.code).toBe(0)
      expect(r.report!.target).toBe("tapeline")
      const written = lines(r.out)
      expect(written.length).toBe(r.report!.scans)
      expect(written.every((f) => f["tapeline"] === "fitting/2" && f["unit"] === "cm")).toBe(true)
      // A platform entry keeps its id, prefixed with its API.
      expect(written.some((f) => String(f["ref"]).startsWith("platform:"))).toBe(true)
      expect(written).toContainEqual(expect.objectContaining({ ref: "F-1", tape: { chest: 86.2, waist: 70.1, hips: 94 } }))
      // Pending and failed scans are EncodeErrors, not lost.
      expect(r.report!.byRejectReason["EncodeError"]).toBeGreaterThan(0)
      expect(r.report!.rejected + r.report!.migrated).toBe(MIXED.length)
    },
    TIMEOUT
  )

  it(
    "refuses --to tapeline without the adapter, listing the targets there are",
    async () => {
      const r = await run("migrate", input, "--to", "tapeline")
      expect(r.code).toBe(2)
      expect(r.stderr).toContain("--to tapeline: expected one of canonical, platform, session, estimation, fit")
      const withIt = await run("migrate", input, "--adapter", MODULE, "--to", "nowhere")
      expect(withIt.code).toBe(2)
      expect(withIt.stderr).toContain("--to nowhere: expected one of canonical, platform, session, estimation, fit, fhir, tapeline")
    },
    TIMEOUT
  )

  it(
    "writes the same bytes on worker threads, which import the adapter module themselves",
    async () => {
      const here = await migrated("--adapter", MODULE, "--workers", "0")
      const pooled = await migrated("--adapter", MODULE, "--workers", "1")
      expect(pooled.code).toBe(0)
      expect(pooled.out).toBe(here.out)
      expect(pooled.rejects).toEqual(here.rejects)
      expect(pooled.report).toEqual(here.report)
    },
    TIMEOUT
  )

  it(
    "takes the adapter as a value from the programmatic runner too",
    async () => {
      const byModule = await migrated("--adapter", MODULE)
      const out = join(dir, "runner.out")
      const r = await Effect.runPromise(command(["migrate", input, "--out", out, "--quiet", "--workers", "1"], { adapters: [tapelineAdapter] }))
      expect(r.code).toBe(0)
      expect(await readFile(out, "utf8")).toBe(byModule.out)
    },
    TIMEOUT
  )

  it(
    "says which module it cannot use",
    async () => {
      const r = await run("migrate", input, "--adapter", join(dir, "no-such-adapter.js"))
      expect(r.code).toBe(1)
      expect(r.stderr).toContain("cannot import the adapter module")
      const twice = await run("migrate", input, "--adapter", MODULE, "--adapter", MODULE)
      expect(twice.stderr).toContain('adapters tapeline and tapeline both claim the API name "tapeline"')
    },
    TIMEOUT
  )

  it(
    "inspect shows a fitting with --adapter",
    async () => {
      const file = join(dir, "fitting.json")
      await writeFile(file, FITTINGS[0]!)
      const r = await run("inspect", file, "--adapter", MODULE, "--json")
      expect(r.code).toBe(0)
      expect(JSON.parse(r.stdout).source).toEqual({ api: "tapeline", id: "F-1" })
    },
    TIMEOUT
  )
})

describe("the plain API with { adapters }", () => {
  const adapters = [tapelineAdapter]
  const record = JSON.parse(FITTINGS[0]!) as unknown

  it("normalizes and detects a fitting, and refuses it without the adapter", () => {
    expect(normalize(record, { adapters })[0]!.source).toEqual({ api: "tapeline", id: "F-1" })
    expect(detectFormat(record, { adapters })).toEqual({ format: FITTING_FORMAT, api: TAPELINE })
    expect(() => normalize(record)).toThrow(ScanbridgeError)
  })

  it("encodes any record as a fitting, and a fitting as any built-in shape", () => {
    const entry = JSON.parse(exportLines("platform/entries.ndjson")[0]!) as unknown
    const { value, notes } = encode(entry, { to: TAPELINE, adapters })
    expect(value).toMatchObject({ tapeline: "fitting/2", unit: "cm" })
    expect(notes.map((n) => n.path)).toContain("source.id")
    expect(detectFormat(encode(record, { to: "session", adapters }).value)).toEqual({ format: "session ScanningResults", api: "session" })
  })

  it("refuses a collection it cannot use with ScanbridgeError AdapterError", () => {
    let error: unknown
    try {
      normalize(record, { adapters: [tapelineAdapter, tapelineAdapter] })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ScanbridgeError)
    expect((error as ScanbridgeError).code).toBe("AdapterError")
  })

  it(
    "migrateFile migrates the mixed export as the command does",
    async () => {
      const out = join(dir, "plain.out")
      const rejects = join(dir, "plain.rejects")
      const report = await migrateFile(input, { out, rejects, adapters })
      const cli = await run("migrate", input, "--adapter", MODULE, "--quiet", "--report", "-", "--out", join(dir, "cli.out"))
      expect(report).toEqual(JSON.parse(cli.stdout))
      expect(await readFile(out, "utf8")).toBe(await readFile(join(dir, "cli.out"), "utf8"))
      expect(report.byFormat[FITTING_FORMAT]).toBe(3)
    },
    TIMEOUT
  )
})
