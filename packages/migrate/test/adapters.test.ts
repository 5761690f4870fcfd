/** Collections of adapters: what a normalizer is built from, and what it refuses to be built from. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { Adapter } from "@scanbridge/model"
import { AdapterError, Normalizer, adaptersOfModule, builtInAdapters, checkAdapters, defaultNormalizer, importAdapters } from "../src/index.js"
import { isAdapter } from "../src/adapters.js"
import { ACME } from "./acme-adapter.js"
import { EXPORT, lines } from "./records.js"

const make = (adapters: ReadonlyArray<Adapter>) => Either.getOrThrow(Normalizer.make(adapters))
const errorOf = <A>(result: Either.Either<A, AdapterError>): AdapterError => Either.getOrThrow(Either.flip(result))

/** A record of each built-in format, from the example export. */
const RECORDS: ReadonlyArray<unknown> = [
  lines("platform/entries.ndjson")[0],
  lines("platform/entries.ndjson")[6],
  JSON.parse(readFileSync(join(EXPORT, "platform/list-page.json"), "utf8")),
  (JSON.parse(readFileSync(join(EXPORT, "session/results.json"), "utf8")) as Array<unknown>)[0],
  lines("estimation/read-responses.ndjson")[0],
  lines("fit/estimations.ndjson")[2]
]

describe("a normalizer built from a collection", () => {
  it("detects in the collection's order, after the canonical form, and encodes to each adapter's target", () => {
    const n = make([ACME, ...builtInAdapters])
    expect(n.adapters.map((a) => a.name)).toEqual(["acme", "platform", "session", "estimation", "fit", "fhir"])
    expect(n.formats.map((f) => f.name)).toEqual(["scanbridge.scan/v1", ...[ACME, ...builtInAdapters].flatMap((a) => a.formats.map((f) => f.name))])
    expect([...n.encoders.keys()]).toEqual(["canonical", "acme", "platform", "session", "estimation", "fit", "fhir"])
  })

  it("over the built-in adapters is the default normalizer", () => {
    expect(defaultNormalizer.adapters).toBe(builtInAdapters)
    expect(defaultNormalizer.adapters.map((a) => a.name)).toEqual(["platform", "session", "estimation", "fit", "fhir"])
    // Each vendor API with its own dialect; FHIR names the catalogue's quantities by codes, in its code table.
    expect(builtInAdapters.map((a) => a.dialect?.api)).toEqual(["platform", "session", "estimation", "fit", undefined])
  })

  it("reads every record alike whatever the order of the collection", () => {
    const inOrder = make([...builtInAdapters, ACME])
    // Each record is exactly one format's: the order decides nothing but the order of `tried`.
    expect(RECORDS.every((r) => Either.isRight(inOrder.normalize(r)))).toBe(true)
    fc.assert(
      fc.property(fc.shuffledSubarray([ACME, ...builtInAdapters], { minLength: builtInAdapters.length + 1 }), (adapters) => {
        const n = make(adapters)
        for (const record of [...RECORDS, "acme,scan_1,700"]) expect(n.normalize(record)).toEqual(inOrder.normalize(record))
      }),
      { numRuns: 20 }
    )
  })

  it("reads an integrator's format by shape and by envelope, and keeps its open API name in source.api", () => {
    const n = make([...builtInAdapters, ACME])
    const byShape = n.normalize("acme,scan_2,731")
    expect(Either.isRight(byShape) && byShape.right[0]!.source).toEqual({ api: "acme", id: "scan_2" })
    const byApi = n.detect({ source: "acme", payload: "acme,scan_3,700" })
    expect(Either.isRight(byApi) && byApi.right.format.name).toBe("acme csv row")
    // The default normalizer does not know it, and says which APIs it does know.
    const unknown = defaultNormalizer.detect({ source: "acme", payload: "acme,scan_3,700" })
    expect(Either.isLeft(unknown) && unknown.left.message).toContain("expected an API (platform, session, estimation, fit, fhir)")
  })

  it.effect("is a layer that fails with AdapterError on a collection it cannot use", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.provide(Normalizer, Normalizer.layer([...builtInAdapters, { ...ACME, name: "platform", formats: [{ ...ACME.formats[0]!, api: "platform" }] }]))
      )
      expect(error).toBeInstanceOf(AdapterError)
      expect(error.message).toBe('adapters platform and platform both claim the API name "platform"')
    })
  )
})

describe("checkAdapters", () => {
  it("takes a collection whose names are all distinct", () => {
    expect(checkAdapters([...builtInAdapters, ACME])).toEqual(Either.right([...builtInAdapters, ACME]))
  })

  const refusals: ReadonlyArray<[string, unknown, string]> = [
    ["a value that is not an object", 42, "adapter #6 is not an object"],
    ["an adapter without a name", { ...ACME, name: "" }, "adapter #6 has no name (a non-empty string)"],
    ["an adapter without formats", { ...ACME, formats: [] }, "adapter acme has no formats (a non-empty array)"],
    [
      "a format without detect",
      { ...ACME, formats: [{ name: "x", api: "acme", decode: ACME.formats[0]!.decode }] },
      "adapter acme formats[0] is not a format ({name, api, detect, decode})"
    ],
    [
      "a format of another API",
      { ...ACME, formats: [{ ...ACME.formats[0]!, api: "platform" }] },
      'adapter acme formats[0] ("acme csv row") names the API "platform", not its adapter\'s "acme"'
    ],
    ["an adapter without an encoder", { ...ACME, encoder: { target: "acme" } }, "adapter acme has no encoder ({target, encode})"],
    ...[["mm", "ft"], [], "cm", [["cm"]]].map((units): [string, unknown, string] => [
      `an encoder whose units are ${JSON.stringify(units)}`,
      { ...ACME, encoder: { ...ACME.encoder, units } },
      "adapter acme has an encoder whose units are not a list of length units (mm, cm, in), its default first"
    ]),
    [
      "an encoder that names a patient with something else than true or false",
      { ...ACME, encoder: { ...ACME.encoder, namesPatient: "yes" } },
      "adapter acme has an encoder whose namesPatient is not true or false"
    ],
    [
      "an adapter with another API's dialect",
      { ...ACME, dialect: builtInAdapters[0]!.dialect },
      'adapter acme has a dialect that is not its own (its api is not "acme")'
    ],
    [
      "an API name taken",
      { ...ACME, name: "session", formats: [{ ...ACME.formats[0]!, api: "session" }] },
      'adapters session and session both claim the API name "session"'
    ],
    [
      "a format name taken",
      { ...ACME, formats: [{ ...ACME.formats[0]!, name: "fit estimation result" }] },
      'adapters fit and acme both claim the format name "fit estimation result"'
    ],
    [
      "the canonical form's format name",
      { ...ACME, formats: [{ ...ACME.formats[0]!, name: "scanbridge.scan/v1" }] },
      'adapter acme: the format name "scanbridge.scan/v1" is the canonical form\'s'
    ],
    ["a target taken", { ...ACME, encoder: { ...ACME.encoder, target: "platform" } }, 'adapters platform and acme both claim the target "platform"'],
    ["the canonical target", { ...ACME, encoder: { ...ACME.encoder, target: "canonical" } }, 'adapter acme: the target "canonical" is the canonical form\'s']
  ]
  it.each(refusals)("refuses %s, naming the adapter", (_, extra, message) => {
    const error = errorOf(checkAdapters([...builtInAdapters, extra]))
    expect(error).toBeInstanceOf(AdapterError)
    expect(error.message).toBe(message)
    // A clash is the collection's fault, not the adapter's shape.
    expect(isAdapter(extra)).toBe(message.includes("claim") || message.includes("canonical form's"))
  })
})

describe("the adapters of a module", () => {
  it("are its default export, an adapter or an array of them", () => {
    expect(adaptersOfModule({ default: ACME }, "acme.js")).toEqual(Either.right([ACME]))
    expect(adaptersOfModule({ default: [ACME], other: builtInAdapters[0] }, "acme.js")).toEqual(Either.right([ACME]))
  })

  it("are otherwise its named exports that are adapters", () => {
    expect(adaptersOfModule({ ACME, version: "1", helper: () => 1 }, "acme.js")).toEqual(Either.right([ACME]))
  })

  it("must be at least one, each an adapter", () => {
    expect(errorOf(adaptersOfModule({ version: "1" }, "acme.js")).message).toBe(
      "acme.js exports no adapter (a default export, or a named export with name, formats and encoder)"
    )
    expect(errorOf(adaptersOfModule({ default: { name: "acme" } }, "acme.js")).message).toBe("acme.js: adapter acme has no formats (a non-empty array)")
  })

  it.effect("are imported by URL, or fail with AdapterError naming the module", () =>
    Effect.gen(function* () {
      const url = new URL("./acme-adapter.ts", import.meta.url).href
      expect(yield* importAdapters([url])).toEqual([ACME])
      const missing = new URL("./no-such-adapter.js", import.meta.url).href
      const error = yield* Effect.flip(importAdapters([missing]))
      expect(error.adapter).toBe(missing)
      expect(error.message).toContain(`cannot import the adapter module ${missing}`)
    })
  )
})
