import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, Layer, Schema } from "effect"
import { readFileSync } from "node:fs"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Adapter, type Path, Proto3, Scan, UnknownFormatError, decodeScanEither, formatPath, isRecord, stringifyScan } from "@scanbridge/model"
import { Normalizer, type Report, builtInAdapters, detectFormat, migrate, normalizeEither, outputFile, textOf } from "../src/index.js"
import { defaultNormalizer } from "../src/normalizer.js"
import { EXPORT, lines, mutateAt, mutatedSample, objectPaths, repo, sampleWithUnknownKey, samples } from "./records.js"
import { ACME } from "./acme-adapter.js"
import { assertInTurns } from "./turns.js"

const layer = Layer.mergeAll(NodeContext.layer, Normalizer.default)

/** Runs a migration into memory: the output text, the rejects text and the report. */
const run = (inputs: ReadonlyArray<string>, to?: string) =>
  Effect.gen(function* () {
    let out = ""
    let rejects = ""
    const report = yield* migrate({
      inputs,
      ...(to === undefined ? {} : { to }),
      output: (t) => Effect.sync(() => void (out += textOf(t))),
      rejects: (t) => Effect.sync(() => void (rejects += textOf(t)))
    })
    return { out, rejects, report }
  }).pipe(Effect.provide(layer))

const sum = (counts: Readonly<Record<string, number>>) => Object.values(counts).reduce((a, b) => a + b, 0)

describe("detectFormat", () => {
  const entry = lines("platform/entries.ndjson")[0] as { entry: unknown }
  const cases: ReadonlyArray<[string, unknown]> = [
    ["scanbridge.scan/v1", JSON.parse(readFileSync(join(repo, "examples/canonical/photo-scan.json"), "utf8"))],
    ["platform entry envelope", entry],
    ["platform entry", entry.entry],
    ["platform client-library entry", lines("platform/entries.ndjson")[6]],
    ["platform list page", JSON.parse(readFileSync(join(EXPORT, "platform/list-page.json"), "utf8"))],
    ["session ScanningResults", (JSON.parse(readFileSync(join(EXPORT, "session/results.json"), "utf8")) as Array<unknown>)[1]],
    ["estimation read response", lines("estimation/read-responses.ndjson")[0]],
    ["estimation read item", (lines("estimation/read-responses.ndjson")[0] as { measurements: Array<unknown> }).measurements[0]],
    ["fit estimation result", lines("fit/estimations.ndjson")[2]]
  ]
  it.each(cases)("tells %s from its shape alone", (name, json) => {
    const detected = detectFormat(json)
    expect(Either.isRight(detected) && detected.right.format.name).toBe(name)
  })

  it("lists what it tried when nothing matches", () => {
    const error = Either.getLeft(detectFormat({ kind: "not a scan" })).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
    expect(error).toBeInstanceOf(UnknownFormatError)
    expect(error.tried).toEqual(defaultNormalizer.formats.map((f) => f.name))
    expect(error.matched).toEqual([])
  })

  it("says which formats matched when more than one does", () => {
    const greedy: Adapter = {
      name: "greedy",
      formats: [{ name: "anything", api: "greedy", detect: isRecord, decode: () => Either.right([]) }],
      encoder: { target: "anything", encode: (scan) => Either.right({ value: scan, notes: [] }) }
    }
    const n = Either.getOrThrow(Normalizer.make([greedy]))
    const error = Either.getLeft(n.detect({ format: "scanbridge.scan/v1" }))
    expect(error._tag === "Some" && error.value.matched).toEqual(["scanbridge.scan/v1", "anything"])
  })

  it("follows a {source, payload} envelope: by format name, by API, and refuses an unknown source", () => {
    const session = (JSON.parse(readFileSync(join(EXPORT, "session/results.json"), "utf8")) as Array<unknown>)[0]
    const byApi = detectFormat({ source: "session", payload: session })
    expect(Either.isRight(byApi) && byApi.right).toMatchObject({ explicit: true, format: { name: "session ScanningResults" } })
    // Named explicitly, a payload decodes even where its shape test alone would not decide.
    const forced = normalizeEither({ source: "session ScanningResults", payload: { error: { errorType: 2 }, extra: 1 } })
    expect(Either.isRight(forced) && forced.right[0]!.failure?.code).toBe("SESSION_EXPIRED")
    const unknown = detectFormat({ source: "csv", payload: {} })
    expect(Either.isLeft(unknown) && unknown.left.message).toContain('unknown source "csv"')
    // A source of any size is named by a preview, not whole.
    const huge = defaultNormalizer.normalize({ source: "x".repeat(1_000_000), payload: {} })
    expect(Either.isLeft(huge) && huge.left.message.length).toBeLessThan(1000)
    expect(Either.isLeft(huge) && huge.left.message).toMatch(/^unknown source "x+…/)
  })
})

describe("normalize", () => {
  it("yields every scan of a list page", () => {
    const page = JSON.parse(readFileSync(join(EXPORT, "platform/list-page.json"), "utf8")) as { results: Array<unknown> }
    const scans = normalizeEither(page)
    expect(Either.isRight(scans) && scans.right.length).toBe(page.results.length)
  })

  it.effect("is an Effect over the Normalizer in context, which takes an integrator's own adapter", () =>
    Effect.gen(function* () {
      const n = yield* Normalizer
      const [scan] = yield* n.normalize("acme,scan_9,812")
      expect(scan!.measurementsMm.waistGirth).toBe(812)
      expect(scan!.source).toEqual({ api: "acme", id: "scan_9" })
      expect(n.encoders.has("acme")).toBe(true)
      expect(n.formats.map((f) => f.name)).toContain("session ScanningResults")
    }).pipe(Effect.provide(Normalizer.layer([...builtInAdapters, ACME])))
  )

  // Decoders build scans without validating them again (the wire was validated): these
  // properties are what guarantees every scan they build keeps the canonical invariants.
  // Each scan also goes out as canonical JSON text and back through the strict canonical
  // decoder: whatever Scanbridge writes, it reads.
  //
  // With `unknownKey`, the path of a key added to the record that no wire schema names: the
  // record is a reject, or one of its scans has a `dropped` note at that key. A note's path is
  // from the scan's own record (an entry in its envelope, an item of a list): a tail of the key's,
  // spelled as the input does or, for a proto3 message, as its printer does.
  const isScan = Schema.is(Scan, { onExcessProperty: "error" })
  const checkResult = (result: ReturnType<typeof normalizeEither>, unknownKey?: Path) => {
    if (Either.isLeft(result)) expect(["DecodeError", "UnknownFormatError"]).toContain(result.left._tag)
    else {
      for (const scan of result.right) {
        expect(isScan(scan), JSON.stringify(scan)).toBe(true)
        const back = decodeScanEither(JSON.parse(stringifyScan(scan)))
        expect(Either.isRight(back), Either.isLeft(back) ? back.left.message : "").toBe(true)
      }
      if (unknownKey !== undefined) {
        const printed = [...unknownKey.slice(0, -1).map((k) => (typeof k === "string" ? Proto3.toJsonName(k) : k)), unknownKey[unknownKey.length - 1]!]
        const tails = new Set([unknownKey, printed].flatMap((path) => path.map((_, i) => formatPath(path.slice(i)))))
        const dropped = result.right.flatMap((scan) => scan.notes.filter((n) => n.kind === "dropped" && tails.has(n.path)))
        expect(dropped, `no dropped note at ${formatPath(unknownKey)} in ${JSON.stringify(result.right.map((s) => s.notes))}`).not.toEqual([])
      }
    }
  }

  it(
    "fed arbitrary JSON, gives valid scans or a typed error, never a throw (100,000 runs)",
    () =>
      assertInTurns(
        fc.property(fc.jsonValue(), (json) => checkResult(normalizeEither(json))),
        100_000
      ),
    120_000
  )

  it("fed JSON shaped like each format with a value replaced or a key added anywhere, gives valid scans or a typed error", () => {
    return assertInTurns(
      fc.property(mutatedSample, (json) => checkResult(normalizeEither(json))),
      20_000
    )
  }, 60_000)

  it("fed a record of any format with an unknown key added to any of its objects, rejects it or notes the key as dropped", () => {
    return assertInTurns(
      fc.property(sampleWithUnknownKey, ({ at, value }) => checkResult(normalizeEither(value), at)),
      5_000
    )
  }, 60_000)

  // Every object of every sample in turn. A reject is right only where a format refuses any
  // unknown key: anywhere in a canonical scan (its decoder is strict), and at a record's root,
  // where one key more changes what the record looks like (no format is detected).
  it.each(samples.map((sample, i) => [i, sample] as const))(
    "sample %i with an unknown key added to each of its objects in turn, notes the key as dropped",
    (_, sample) => {
      const strict = isRecord(sample) && sample["format"] === "scanbridge.scan/v1"
      for (const at of objectPaths(sample)) {
        const steps = at.map((segment, i) => {
          const node = at.slice(0, i).reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], sample)
          return Object.keys(node as object).indexOf(String(segment))
        })
        const added = mutateAt(sample, steps, 1, "x-unknown")
        expect(added.at).toEqual([...at, "x-unknown"])
        const result = normalizeEither(added.value)
        if (!strict && at.length > 0) expect(Either.isRight(result), `${formatPath(added.at)}: ${Either.isLeft(result) ? result.left.message : ""}`).toBe(true)
        checkResult(result, added.at)
      }
    }
  )
})

describe("migrate", () => {
  it.effect("sends every record of the mixed export to the output or the rejects, and the report reconciles", () =>
    Effect.gen(function* () {
      const { out, rejects, report } = yield* run([EXPORT])
      const outLines = out.trim().split("\n")
      const rejectLines = rejects
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { file: string; line: number; error: { tag: string }; raw: string })
      expect(report.records).toBe(report.migrated + report.rejected)
      expect(sum(report.byFormat)).toBe(report.migrated)
      expect(sum(report.byRejectReason)).toBe(report.rejected)
      expect(sum(report.byStatus)).toBe(report.scans)
      expect(outLines.length).toBe(report.scans)
      expect(rejectLines.length).toBe(report.rejected)
      expect(Object.keys(report.byFormat).sort()).toEqual(
        [
          "estimation read response",
          "fit estimation result",
          "platform client-library entry",
          "platform entry",
          "platform entry envelope",
          "platform list page",
          "session ScanningResults"
        ].sort()
      )
      expect(report.byStatus).toMatchObject({ success: expect.any(Number), failure: expect.any(Number), pending: expect.any(Number) })
      expect(rejectLines.map((r) => [r.line, r.error.tag])).toEqual([
        [1, "InvalidJson"],
        [2, "UnknownFormatError"],
        [3, "DecodeError"]
      ])
      expect(rejectLines[0]!.raw).toBe(readFileSync(join(EXPORT, "broken.ndjson"), "utf8").split("\n")[0])
      for (const line of outLines) expect((JSON.parse(line) as { format: string }).format).toBe("scanbridge.scan/v1")
    })
  )

  it.effect("writes byte-identical output on two runs over the same input", () =>
    Effect.gen(function* () {
      const a = yield* run([EXPORT], "session")
      const b = yield* run([EXPORT], "session")
      expect(a.out).toBe(b.out)
      expect(a.rejects).toBe(b.rejects)
      expect(a.report).toEqual(b.report)
    })
  )

  it.effect("writes each legacy shape; a scan a shape cannot hold is a reject with the EncodeError", () =>
    Effect.gen(function* () {
      const results: Record<string, Report> = {}
      for (const to of ["platform", "session", "estimation", "fit"]) {
        const { out, report } = yield* run([EXPORT], to)
        results[to] = report
        expect(report.records).toBe(report.migrated + report.rejected)
        expect(out.trim().split("\n").length).toBe(report.scans)
      }
      // The platform has no pending scans; the fit result is a success only.
      expect(results["platform"]!.byRejectReason["EncodeError"]).toBeGreaterThan(0)
      expect(results["fit"]!.byRejectReason["EncodeError"]).toBeGreaterThan(0)
    })
  )

  it.effect("reads NDJSON files, JSON arrays and lone JSON objects, and writes to files", () =>
    Effect.gen(function* () {
      const dir = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "scanbridge-migrate-")))
      const scan = readFileSync(join(repo, "examples/canonical/photo-scan.json"), "utf8")
      yield* Effect.promise(() => writeFile(join(dir, "one.json"), scan))
      yield* Effect.promise(() => writeFile(join(dir, "many.json"), `[${scan},${scan}]`))
      yield* Effect.promise(() => writeFile(join(dir, "lines.ndjson"), `${JSON.stringify(JSON.parse(scan))}\n\n{bad\n`))
      const report = yield* Effect.scoped(
        Effect.gen(function* () {
          const output = yield* outputFile(join(dir, "out.ndjson"))
          const rejects = yield* outputFile(join(dir, "rejects.ndjson"))
          const done = yield* migrate({
            inputs: [join(dir, "lines.ndjson"), join(dir, "many.json"), join(dir, "one.json")],
            output: output.write,
            rejects: rejects.write
          })
          yield* Effect.zipRight(output.commit, rejects.commit)
          return done
        })
      ).pipe(Effect.provide(layer))
      expect(report).toMatchObject({ records: 5, migrated: 4, rejected: 1 })
      const rejected = JSON.parse(yield* Effect.promise(() => readFile(join(dir, "rejects.ndjson"), "utf8"))) as { line: number }
      expect(rejected.line).toBe(3)
      expect((yield* Effect.promise(() => readFile(join(dir, "out.ndjson"), "utf8"))).trim().split("\n")).toHaveLength(4)
      yield* Effect.promise(() => rm(dir, { recursive: true }))
    })
  )

  it.effect("fails with a typed error for an input it cannot read, or an unknown target", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flip(run([join(EXPORT, "nope.ndjson")]))
      expect(missing).toMatchObject({ _tag: "MigrateInputError" })
      expect(missing.message).toContain("nope.ndjson")
      const target = yield* Effect.flip(run([EXPORT], "xml"))
      expect(target).toMatchObject({ _tag: "UnknownTargetError", target: "xml" })
    })
  )
})
