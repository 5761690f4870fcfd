/**
 * The validator the export's tests rely on (support/validate.ts) catches what it is for. A bundle
 * as the encoder writes it gives no issue; each way of breaking one gives exactly the issues of
 * the checks meant to catch it, at the place broken: so each layer (medplum, the FHIRPath
 * invariants, our own checks) is shown to work, and to be needed where the others are silent.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { isRecord } from "@scanbridge/model"
import { encodeBundleEither } from "../src/codec.js"
import { ENCODE_OPTIONS, PATIENT_SYSTEM, everyQuantityScans, failedAndPendingScans } from "./support/codings.js"
import { type Issue, validateBundle } from "./support/validate.js"

type JsonObject = Record<string, unknown>

const object = (v: unknown): JsonObject => {
  if (!isRecord(v)) throw new Error(`expected an object, got ${JSON.stringify(v)}`)
  return v
}

/** A bundle of the scan holding every quantity, as it travels (parsed from its JSON). */
const bundleOf = (options: { readonly patientSystem?: string }): JsonObject => {
  const encoded = Either.getOrThrow(encodeBundleEither(everyQuantityScans()[0]!, { units: "cm", ...options }))
  return object(JSON.parse(JSON.stringify(encoded.value)))
}

/** Without a patient system: nothing claims a profile. */
const PLAIN = bundleOf({})
/** With one: height, weight and BMI claim the vital-signs profiles. */
const PROFILED = bundleOf({ patientSystem: PATIENT_SYSTEM })

const entries = (bundle: JsonObject): ReadonlyArray<JsonObject> => (bundle["entry"] as ReadonlyArray<unknown>).map(object)
const resource = (bundle: JsonObject, i: number): JsonObject => object(entries(bundle)[i]!["resource"])

/** The index of the entry whose Scanbridge code is `code` (`scan` for the panel). */
const indexOf = (bundle: JsonObject, code: string): number => {
  const i = entries(bundle).findIndex((e) => {
    const concept = isRecord(e["resource"]) ? e["resource"]["code"] : undefined
    return isRecord(concept) && Array.isArray(concept["coding"]) && concept["coding"].some((c) => isRecord(c) && c["code"] === code)
  })
  if (i < 0) throw new Error(`no entry coded ${code}`)
  return i
}

const quantityOf = (bundle: JsonObject, code: string): JsonObject => object(resource(bundle, indexOf(bundle, code))["valueQuantity"])
const codingsOf = (bundle: JsonObject, code: string): Array<JsonObject> =>
  object(resource(bundle, indexOf(bundle, code))["code"])["coding"] as Array<JsonObject>

/** A copy of the bundle with every occurrence of one string (a full URL, and so each reference to it) replaced. */
const replacedEverywhere = (bundle: JsonObject, from: string, to: string): JsonObject => object(JSON.parse(JSON.stringify(bundle).replaceAll(from, to)))

/** Each issue as `check @ where`, in order, once: what a fault is expected to give. */
const found = (issues: ReadonlyArray<Issue>): ReadonlyArray<string> => [...new Set(issues.map((i) => `${i.check} @ ${i.where}`))]

const at = (i: number, path = ""): string => `Bundle.entry[${i}].resource${path}`

interface Fault {
  readonly name: string
  readonly base: JsonObject
  /** Breaks a copy of the base; returns the issues expected, as `check @ where`. */
  readonly breakIt: (bundle: JsonObject) => ReadonlyArray<string>
}

const FAULTS: ReadonlyArray<Fault> = [
  {
    name: "an Observation.status outside its required ValueSet",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "scan")
      resource(b, i)["status"] = "done"
      return [`binding @ ${at(i, ".status")}`]
    }
  },
  {
    name: "kg/m^2 for a profiled BMI (not UCUM, not the profile's fixed kg/m2, not the table's unit)",
    base: PROFILED,
    breakIt: (b) => {
      const i = indexOf(b, "bmi")
      quantityOf(b, "bmi")["code"] = "kg/m^2"
      return [`slice @ ${at(i, ".valueQuantity.code")}`, `ucum @ ${at(i, ".valueQuantity.code")}`, `code-table @ ${at(i, ".valueQuantity.code")}`]
    }
  },
  {
    name: "a profiled height in kg (outside ucum-bodylength, and not a length)",
    base: PROFILED,
    breakIt: (b) => {
      const i = indexOf(b, "height")
      Object.assign(quantityOf(b, "height"), { code: "kg", unit: "kg" })
      return [`binding @ ${at(i, ".valueQuantity.code")}`, `code-table @ ${at(i, ".valueQuantity.code")}`]
    }
  },
  {
    name: "a height in kg that claims no profile: only the code table knows a height is a length",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "height")
      Object.assign(quantityOf(b, "height"), { code: "kg", unit: "kg" })
      return [`code-table @ ${at(i, ".valueQuantity.code")}`]
    }
  },
  {
    name: "a Quantity code without its system (qty-3, which medplum does not evaluate below a resource's root)",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "hipGirth")
      delete quantityOf(b, "hipGirth")["system"]
      return [`invariant/qty-3 @ ${at(i, ".valueQuantity")}`, `ucum @ ${at(i, ".valueQuantity.system")}`]
    }
  },
  {
    name: "a unit that is not UCUM",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "hipGirth")
      quantityOf(b, "hipGirth")["code"] = "furlong"
      return [`ucum @ ${at(i, ".valueQuantity.code")}`, `code-table @ ${at(i, ".valueQuantity.code")}`]
    }
  },
  {
    name: "a Quantity comparator outside its required ValueSet (a datatype's binding)",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "hipGirth")
      quantityOf(b, "hipGirth")["comparator"] = "~"
      return [`binding @ ${at(i, ".valueQuantity.comparator")}`]
    }
  },
  {
    name: "a urn:uuid reference that no entry's fullUrl resolves",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "scan")
      object((resource(b, i)["hasMember"] as ReadonlyArray<unknown>)[0])["reference"] = "urn:uuid:00000000-0000-4000-8000-000000000000"
      return [`reference @ ${at(i, ".hasMember[0].reference")}`]
    }
  },
  {
    name: "two entries of one fullUrl (bdl-7; the references follow, so none dangles)",
    base: PLAIN,
    breakIt: (b) => {
      const [first, second] = [entries(b)[2]!["fullUrl"] as string, entries(b)[3]!["fullUrl"] as string]
      Object.assign(b, replacedEverywhere(b, second, first))
      return ["fullUrl @ Bundle.entry[3].fullUrl", "medplum/invariant @ Bundle", "invariant/bdl-7 @ Bundle"]
    }
  },
  {
    name: "a fullUrl that is no urn:uuid (upper-case hex): neither medplum nor an invariant checks it",
    base: PLAIN,
    breakIt: (b) => {
      const url = entries(b)[2]!["fullUrl"] as string
      Object.assign(b, replacedEverywhere(b, url, url.toUpperCase().replace("URN:UUID:", "urn:uuid:")))
      return ["fullUrl @ Bundle.entry[2].fullUrl"]
    }
  },
  {
    name: "a LOINC code the repo's list does not hold, on a girth the table leaves uncoded",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "hipGirth")
      codingsOf(b, "hipGirth").push({ system: "http://loinc.org", code: "0000-0", display: "Bogus" })
      return [`loinc @ ${at(i, ".code.coding[1].code")}`, `code-table @ ${at(i, ".code")}`]
    }
  },
  {
    name: "a LOINC display other than the term's long common name",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "weight")
      codingsOf(b, "weight")[1]!["display"] = "Weight"
      return [`loinc @ ${at(i, ".code.coding[1].display")}`]
    }
  },
  {
    name: "a profiled height coded with weight's LOINC code (the profile's pattern slice, and the table)",
    base: PROFILED,
    breakIt: (b) => {
      const i = indexOf(b, "height")
      codingsOf(b, "height")[1] = { system: "http://loinc.org", code: "29463-7", display: "Body weight" }
      return [`medplum/structure @ ${at(i, ".code.coding")}`, `code-table @ ${at(i, ".code")}`]
    }
  },
  {
    name: "a Scanbridge code the table does not hold, and one with another display",
    base: PLAIN,
    breakIt: (b) => {
      const [hip, waist] = [indexOf(b, "hipGirth"), indexOf(b, "waistGirth")]
      codingsOf(b, "hipGirth")[0]!["code"] = "hipGirthX"
      codingsOf(b, "waistGirth")[0]!["display"] = "Waist"
      return [`code-table @ ${at(hip, ".code.coding[0].code")}`, `code-table @ ${at(waist, ".code.coding[0].display")}`]
    }
  },
  {
    name: "a profiled height without its subject (the vital-signs profile's cardinality)",
    base: PROFILED,
    breakIt: (b) => {
      const i = indexOf(b, "height")
      delete resource(b, i)["subject"]
      return [`medplum/structure @ ${at(i, ".subject")}`]
    }
  },
  {
    name: "a profiled height whose value is a string (the profile's closed type slice)",
    base: PROFILED,
    breakIt: (b) => {
      const i = indexOf(b, "height")
      const r = resource(b, i)
      delete r["valueQuantity"]
      r["valueString"] = "170 cm"
      return [`slice @ ${at(i, ".valueString")}`]
    }
  },
  {
    name: "a profiled height's quantity without its value (the valueQuantity slice's cardinality)",
    base: PROFILED,
    breakIt: (b) => {
      const i = indexOf(b, "height")
      delete quantityOf(b, "height")["value"]
      return [`slice @ ${at(i, ".valueQuantity.value")}`]
    }
  },
  {
    name: "a profile claimed that the definitions do not hold",
    base: PROFILED,
    breakIt: (b) => {
      const i = indexOf(b, "weight")
      ;(object(resource(b, i)["meta"])["profile"] as Array<string>).push("https://example.org/fhir/StructureDefinition/weight")
      return [`profile @ ${at(i, ".meta.profile")}`]
    }
  },
  {
    name: "obs-6 broken inside an entry: a value and a dataAbsentReason",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "hipGirth")
      resource(b, i)["dataAbsentReason"] = { text: "not measured" }
      return [`medplum/invariant @ ${at(i)}`, `invariant/obs-6 @ ${at(i)}`]
    }
  },
  {
    name: "obs-7 broken inside an entry: a component coded as the Observation itself",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "hipGirth")
      const r = resource(b, i)
      r["component"] = [{ code: r["code"], valueQuantity: r["valueQuantity"] }]
      return [`medplum/invariant @ ${at(i)}`, `invariant/obs-7 @ ${at(i)}`]
    }
  },
  {
    name: "a property FHIR does not define",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "hipGirth")
      resource(b, i)["girth"] = 1
      return [`medplum/structure @ ${at(i, ".girth")}`]
    }
  },
  {
    name: "a dateTime that is no date",
    base: PLAIN,
    breakIt: (b) => {
      const i = indexOf(b, "scan")
      resource(b, i)["effectiveDateTime"] = "2026-13-02"
      return [`medplum/structure @ ${at(i, ".effective[x]")}`]
    }
  },
  {
    name: "a request method outside http-verb",
    base: PLAIN,
    breakIt: (b) => {
      object(entries(b)[2]!["request"])["method"] = "FOO"
      return ["binding @ Bundle.entry[2].request.method"]
    }
  },
  {
    name: "an entry of a transaction without its request (bdl-3)",
    base: PLAIN,
    breakIt: (b) => {
      delete entries(b)[2]!["request"]
      return ["medplum/invariant @ Bundle", "invariant/bdl-3 @ Bundle"]
    }
  },
  {
    name: "a Device name type outside device-nametype",
    base: PLAIN,
    breakIt: (b) => {
      const i = entries(b).findIndex((e) => isRecord(e["resource"]) && e["resource"]["resourceType"] === "Device")
      object((resource(b, i)["deviceName"] as ReadonlyArray<unknown>)[0])["type"] = "nickname"
      return [`binding @ ${at(i, ".deviceName[0].type")}`]
    }
  }
]

describe("validateBundle", () => {
  it("finds nothing in the bundles the encoder writes: every quantity, both units, with and without a patient, and failed and pending scans", () => {
    for (const scan of [...everyQuantityScans(), ...failedAndPendingScans()])
      for (const options of ENCODE_OPTIONS) {
        const bundle = JSON.parse(JSON.stringify(Either.getOrThrow(encodeBundleEither(scan, options)).value)) as unknown
        expect(validateBundle(bundle)).toEqual([])
      }
  })

  it("the profiled bundle does claim the vital-signs profiles the faults below break", () => {
    const claimed = entries(PROFILED).flatMap((e) => {
      const meta = isRecord(e["resource"]) ? e["resource"]["meta"] : undefined
      return isRecord(meta) ? (meta["profile"] as ReadonlyArray<string>) : []
    })
    expect([...new Set(claimed)].sort()).toEqual(
      ["bmi", "bodyheight", "bodyweight", "vitalsigns"].map((name) => `http://hl7.org/fhir/StructureDefinition/${name}`)
    )
  })

  for (const fault of FAULTS) {
    it(`catches ${fault.name}`, () => {
      const broken = object(structuredClone(fault.base))
      const expected = fault.breakIt(broken)
      expect(found(validateBundle(broken))).toEqual(expected)
    })
  }

  it("refuses what is not a Bundle, naming it", () => {
    expect(validateBundle(5)).toEqual([{ where: "", check: "bundle", message: "not a Bundle: 5" }])
    expect(found(validateBundle({ resourceType: "Observation" }))).toEqual(["bundle @ "])
  })

  it.prop(
    "never throws, whatever the JSON: what it cannot check is an issue too",
    [
      fc.oneof(
        fc.jsonValue(),
        fc.record({
          resourceType: fc.constant("Bundle"),
          type: fc.oneof(fc.constant("transaction"), fc.string()),
          entry: fc.array(
            fc.record({
              fullUrl: fc.string(),
              resource: fc.oneof(fc.jsonValue(), fc.record({ resourceType: fc.constantFrom("Observation", "Device", "Nope") }))
            }),
            {
              maxLength: 3
            }
          )
        })
      )
    ],
    ([json]) => {
      const issues = validateBundle(json)
      for (const i of issues) expect(typeof i.check === "string" && typeof i.where === "string" && typeof i.message === "string").toBe(true)
    },
    { fastCheck: { numRuns: 50 } }
  )
})
