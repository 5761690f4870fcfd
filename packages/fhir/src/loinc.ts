/**
 * The LOINC terms Scanbridge writes, as LOINC's records state them (release 2.82): the code
 * table (dialect.ts) may name no other, and a test holds every entry of the table to the term it
 * names here: a measurement code of the right property, on the patient, and quantitative. The
 * docs' mapping table (docs/fhir.md) is generated from this list and the table together.
 */

/** One LOINC term, by its six axes and the names a reader checks it by. */
export interface LoincTerm {
  readonly code: string
  readonly longCommonName: string
  readonly component: string
  /** `Len` (length), `Mass`, `MFr` (mass fraction), `Ratio`. */
  readonly property: string
  readonly timing: "Pt"
  /** `^Patient` (the body as a whole) or a body site. */
  readonly system: string
  readonly scale: "Qn"
  /** Empty where LOINC states none. */
  readonly method: string
  readonly status: "ACTIVE"
  readonly class: string
  /** Where the term's attributes were read. */
  readonly source: string
}

export const LOINC_TERMS = [
  {
    code: "8302-2",
    longCommonName: "Body height",
    component: "Body height",
    property: "Len",
    timing: "Pt",
    system: "^Patient",
    scale: "Qn",
    method: "",
    status: "ACTIVE",
    class: "BDYHGT.ATOM",
    source: "LOINC 2.82 term 8302-2; fixed as the code of the FHIR R4 bodyheight profile"
  },
  {
    code: "29463-7",
    longCommonName: "Body weight",
    component: "Body weight",
    property: "Mass",
    timing: "Pt",
    system: "^Patient",
    scale: "Qn",
    method: "",
    status: "ACTIVE",
    class: "BDYWGT.ATOM",
    source: "LOINC 2.82 term 29463-7; fixed as the code of the FHIR R4 bodyweight profile"
  },
  {
    code: "39156-5",
    longCommonName: "Body mass index (BMI) [Ratio]",
    component: "Body mass index",
    property: "Ratio",
    timing: "Pt",
    system: "^Patient",
    scale: "Qn",
    method: "",
    status: "ACTIVE",
    class: "BMI.ATOM",
    source: "LOINC 2.82 term 39156-5; fixed as the code of the FHIR R4 bmi profile"
  },
  {
    code: "41982-0",
    longCommonName: "Percentage of body fat Measured",
    component: "Body fat",
    property: "MFr",
    timing: "Pt",
    system: "^Patient",
    scale: "Qn",
    method: "Measured",
    status: "ACTIVE",
    class: "BDYCRC.ATOM",
    source: "LOINC 2.82 term 41982-0; the code Open mHealth's body-fat-percentage schema names"
  },
  {
    code: "73708-0",
    longCommonName: "Body fat [Mass] Calculated",
    component: "Body fat",
    property: "Mass",
    timing: "Pt",
    system: "^Patient",
    scale: "Qn",
    method: "Calculated",
    status: "ACTIVE",
    class: "BDYCRC.ATOM",
    source: "LOINC 2.82 term 73708-0"
  },
  {
    code: "8280-0",
    longCommonName: "Waist Circumference at umbilicus by Tape measure",
    component: "Circumference^at umbilicus",
    property: "Len",
    timing: "Pt",
    system: "Abdomen",
    scale: "Qn",
    method: "Tape measure",
    status: "ACTIVE",
    class: "BDYSURF.ATOM",
    source: "LOINC 2.82 term 8280-0"
  }
] as const satisfies ReadonlyArray<LoincTerm>

export type LoincCode = (typeof LOINC_TERMS)[number]["code"]

const byCode: ReadonlyMap<string, LoincTerm> = new Map(LOINC_TERMS.map((t) => [t.code, t]))

/** The term of a code this list holds (a code the table names always is). */
export const loincTerm = (code: LoincCode): LoincTerm => byCode.get(code)!
