/**
 * The bench's peers (tools/peers/) are timed only on records they accept, and accept them because
 * they check what the wire schemas check: every bench record of their formats reads, and broken
 * ones are refused, by every peer and by normalize alike (where normalize's answer differs, the
 * case says so).
 */
import { FastCheck as fc, type SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import { Wire } from "@scanbridge/platform/adapter"
import { templates } from "../bench-inputs.js"
import { normalizeOrThrow } from "../bench-pairs.js"
import { repoRoot } from "../docs/generated.js"
import * as ValibotPeer from "../peers/platform-entry.valibot.js"
import * as ZodPeer from "../peers/platform-entry.zod.js"
import { PEERS, type PeerFormat } from "../peers/readers.js"

type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

const all = templates(repoRoot)
const FORMATS = Object.keys(PEERS) as Array<PeerFormat>
const jsonOf = (format: PeerFormat) => all[format].map((t) => ({ variant: t.variant, json: JSON.parse(t.pieces.join("0000abc")) as JsonObject }))

const accepts = (read: (json: unknown) => unknown, json: unknown) => {
  try {
    read(json)
    return true
  } catch {
    return false
  }
}
const normalize = normalizeOrThrow("normalize")
const normalizes = (json: unknown) => accepts(normalize, json)

/** Every reader of a format: normalize and its peers. */
const readersOf = (format: PeerFormat) => [{ name: "normalize", read: normalize }, ...PEERS[format]]

describe("the bench's peers accept every bench record of their formats", () => {
  it.each(FORMATS.flatMap((format) => jsonOf(format).flatMap(({ variant, json }) => readersOf(format).map((r) => ({ format, variant, json, ...r })))))(
    "$format, $variant: $name",
    ({ read, json }) => {
      expect(read(json)).toBeDefined()
    }
  )
})

/** The record's JSON, changed by `change` (given a copy). */
const broken = (json: JsonObject, change: (copy: JsonObject) => void): JsonObject => {
  const copy = structuredClone(json)
  change(copy)
  return copy
}
const at = (json: Json, ...path: Array<string | number>): JsonObject => path.reduce<Json>((j, k) => (j as Record<string, Json>)[k]!, json) as JsonObject

const entry = jsonOf("platformEntry")[0]!.json
const entryCases: ReadonlyArray<readonly [string, (e: JsonObject) => void]> = [
  ["a height of words", (e) => void (at(e, "input", "statsEstimations")["height"] = "tall")],
  ["no status", (e) => void delete e["status"]],
  ["a status no API sends", (e) => void (e["status"] = "done")],
  ["a fractional age", (e) => void (at(e, "input", "statsEstimations")["age"] = 29.5)],
  ["a negative measurement", (e) => void (at(e, "measurements", 0)["value"] = -1)],
  ["two input shapes", (e) => void (at(e, "input")["photoScan"] = { ...at(e, "input", "statsEstimations"), frontPhoto: null, rightPhoto: null })],
  ["no input shape", (e) => void delete at(e, "input")["statsEstimations"]],
  ["no measurements", (e) => void delete e["measurements"]]
]

const session = jsonOf("session")[0]!.json
const sessionCases: ReadonlyArray<readonly [string, (s: JsonObject) => void, { normalizeRefuses: boolean }]> = [
  ["a session id of a number", (s) => void (s["scanningSessionId"] = 5), { normalizeRefuses: true }],
  ["an int64 of a fraction", (s) => void (at(s, "results", "measurements", 0)["value"] = "20.5"), { normalizeRefuses: true }],
  ["results and pending", (s) => void (s["pending"] = { expireAtTimestamp: "2026-11-22T07:00:38.628Z" }), { normalizeRefuses: true }],
  ["a point of words", (s) => void (at(s, "results", "posture", "front", "lines", 0, "points", 0)["x"] = "left"), { normalizeRefuses: true }],
  // proto3 has no required fields: a conforming parser refuses a key it does not know where normalize notes it.
  ["an unknown key in results", (s) => void (at(s, "results")["scanId"] = "x"), { normalizeRefuses: false }]
]

describe("the bench's peers refuse broken records", () => {
  it.each(
    FORMATS.filter((f) => f !== "session").flatMap((format) =>
      entryCases.flatMap(([what, change]) => {
        const json = format === "platformEnvelope" ? { entry: broken(entry, change) } : broken(entry, change)
        return PEERS[format].map((peer) => ({ format, what, json, ...peer }))
      })
    )
  )("$format, $what: $name refuses it, as normalize does", ({ json, read }) => {
    expect(accepts(read, json)).toBe(false)
    expect(normalizes(json)).toBe(false)
  })

  it.each(
    sessionCases.flatMap(([what, change, { normalizeRefuses }]) =>
      PEERS.session.map((peer) => ({ what, json: broken(session, change), normalizeRefuses, ...peer }))
    )
  )("session, $what: $name refuses it", ({ json, read, normalizeRefuses }) => {
    expect(accepts(read, json)).toBe(false)
    expect(normalizes(json)).toBe(!normalizeRefuses)
  })
})

/** Every path to a leaf (string, number, boolean or null) of `json`. */
const leavesOf = (json: Json, path: Array<string | number> = []): Array<Array<string | number>> =>
  json !== null && typeof json === "object" ? Object.entries(json).flatMap(([k, v]) => leavesOf(v, [...path, Array.isArray(json) ? Number(k) : k])) : [path]

describe("no peer accepts a value of the wrong kind anywhere", () => {
  // Peers only: normalize may read such a record as another format (an entry whose error code is
  // no string is a client-library entry, whose error may be anything). No field of these wire schemas holds a boolean, so a leaf made `true` is the wrong type wherever it is: a peer that reads
  // some field as anything (a typo'd schema, z.any) fails here.
  it.each(FORMATS)("%s: every record with one leaf made `true` is refused by every peer (seeded)", (format) => {
    const records = jsonOf(format).map((r) => r.json)
    const mutated = fc.integer({ min: 0, max: records.length - 1 }).chain((i) => {
      const leaves = leavesOf(records[i]!)
      return fc.integer({ min: 0, max: leaves.length - 1 }).map((l) => ({ record: records[i]!, path: leaves[l]! }))
    })
    fc.assert(
      fc.property(mutated, ({ record, path }) => {
        const json = broken(record, (copy) => void (at(copy, ...path.slice(0, -1))[path.at(-1)!] = true))
        for (const peer of PEERS[format]) expect(accepts(peer.read, json), `${peer.name} at ${path.join(".")}`).toBe(false)
      }),
      { seed: 34, numRuns: 300 }
    )
  })
})

/**
 * A schema's shape as text: object keys (sorted, `?` where optional), arrays, unions (sorted),
 * literals, string and number. Constraints (integers, non-negative) are left to the refusal
 * tests above; the shape is what a field rename, a new field or a new literal in the wire schema
 * changes, and what the peers must then follow.
 */
const union = (members: ReadonlyArray<string>) => [...new Set(members)].sort().join(" | ")
const objectShape = (fields: ReadonlyArray<readonly [string, boolean, string]>) =>
  `{ ${[...fields]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, optional, shape]) => `${k}${optional ? "?" : ""}: ${shape}`)
    .join(", ")} }`

const effectShape = (ast: SchemaAST.AST): string => {
  switch (ast._tag) {
    case "Refinement":
      return effectShape(ast.from)
    case "TypeLiteral":
      return objectShape(ast.propertySignatures.map((p) => [String(p.name), p.isOptional, effectShape(p.type)] as const))
    case "Union":
      return union(ast.types.map(effectShape))
    case "TupleType":
      return `Array<${union(ast.rest.map((r) => effectShape(r.type)))}>`
    case "Literal":
      return JSON.stringify(ast.literal)
    case "StringKeyword":
      return "string"
    case "NumberKeyword":
      return "number"
    default:
      throw new Error(`no shape for ${ast._tag}`)
  }
}

interface ZodNode {
  readonly _zod: {
    readonly def: {
      readonly type: string
      readonly shape?: Readonly<Record<string, ZodNode>>
      readonly innerType?: ZodNode
      readonly element?: ZodNode
      readonly entries?: Readonly<Record<string, string>>
    }
  }
}
const zodField = (node: ZodNode): readonly [boolean, string] =>
  node._zod.def.type === "optional" ? [true, zodShape(node._zod.def.innerType!)] : [false, zodShape(node)]
const zodShape = (node: ZodNode): string => {
  const def = node._zod.def
  switch (def.type) {
    case "object":
      return objectShape(Object.entries(def.shape!).map(([k, v]) => [k, ...zodField(v)] as const))
    case "nullable":
      return union([zodShape(def.innerType!), "null"])
    case "array":
      return `Array<${zodShape(def.element!)}>`
    case "enum":
      return union(Object.values(def.entries!).map((e) => JSON.stringify(e)))
    case "string":
    case "number":
      return def.type
    default:
      throw new Error(`no shape for zod's ${def.type}`)
  }
}

interface ValibotNode {
  readonly type: string
  readonly entries?: Readonly<Record<string, ValibotNode>>
  readonly wrapped?: ValibotNode
  readonly item?: ValibotNode
  readonly options?: ReadonlyArray<string>
}
const valibotField = (node: ValibotNode): readonly [boolean, string] =>
  node.type === "exact_optional" ? [true, valibotShape(node.wrapped!)] : [false, valibotShape(node)]
const valibotShape = (node: ValibotNode): string => {
  switch (node.type) {
    case "object":
      return objectShape(Object.entries(node.entries!).map(([k, v]) => [k, ...valibotField(v)] as const))
    case "nullable":
      return union([valibotShape(node.wrapped!), "null"])
    case "array":
      return `Array<${valibotShape(node.item!)}>`
    case "picklist":
      return union(node.options!.map((o) => JSON.stringify(o)))
    case "string":
    case "number":
      return node.type
    default:
      throw new Error(`no shape for valibot's ${node.type}`)
  }
}

describe("zod and valibot mirror the platform wire schema", () => {
  it.each([
    ["Entry", Wire.Entry, ZodPeer.Entry, ValibotPeer.Entry],
    ["EntryEnvelope", Wire.EntryEnvelope, ZodPeer.EntryEnvelope, ValibotPeer.EntryEnvelope]
  ] as const)("%s: the same fields, types, literals and optionality", (_, wire, zod, valibot) => {
    const shape = effectShape(wire.ast)
    expect(zodShape(zod as unknown as ZodNode)).toBe(shape)
    expect(valibotShape(valibot as unknown as ValibotNode)).toBe(shape)
  })
})
