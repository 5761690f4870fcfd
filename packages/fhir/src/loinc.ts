/**
 * The LOINC terms Scanbridge writes, as copies of LOINC's records state them (release 2.82): the code
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
  /** LOINC's class, where a copy of the term's record showed it; null where none was read (no guess). */
  readonly class: string | null
  /** Where the term's attributes were read, and what was not checked. */
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
    class: null,
    source: "the code the FHIR R4 bodyheight profile fixes; its axes as the cgmlife LOINC table gives them; class not read"
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
    source: "healthassure.in's copy of the LOINC 2.82 record; the code the FHIR R4 bodyweight profile fixes"
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
    class: null,
    source: "the code the FHIR R4 bmi profile fixes; its axes as the cgmlife LOINC table gives them; class not read"
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
    class: null,
    source:
      "Open mHealth's body-fat-percentage schema, which cites it with its axes (mass fraction, point in time, ^Patient, quantitative, measured); class not read"
  },
  {
    code: "73708-0",
    longCommonName: "Body fat [Mass] Calculated",
    component: "Body fat mass",
    property: "Mass",
    timing: "Pt",
    system: "^Patient",
    scale: "Qn",
    method: "Calculated",
    status: "ACTIVE",
    class: "BDYWGT.ATOM",
    source: "healthassure.in's copy of the LOINC 2.82 record, whose description has it calculated as body weight times body fat percentage (41982-0)"
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
    class: null,
    source:
      "its long name as the LOINC 2.82 expansion of HL7 Lithuania's waist-circumference value set gives it; component, system and method read from that name; class not read"
  }
] as const satisfies ReadonlyArray<LoincTerm>

export type LoincCode = (typeof LOINC_TERMS)[number]["code"]

const byCode: ReadonlyMap<string, LoincTerm> = new Map(LOINC_TERMS.map((t) => [t.code, t]))

/** The term of a code this list holds (a code the table names always is). */
export const loincTerm = (code: LoincCode): LoincTerm => byCode.get(code)!

/** A LOINC code a reader might expect on a quantity of a scan, and why Scanbridge never writes it. */
export interface LoincNotWritten {
  readonly code: string
  readonly longCommonName: string
  readonly why: string
}

/**
 * The codes public mappings give body measurements that are protocols or panels (how to measure,
 * not a measured value), and the measurement terms weighed for a quantity and rejected. No bundle
 * holds any of them (a property test over generated scans); the docs list them with these reasons.
 */
export const LOINC_NOT_WRITTEN: ReadonlyArray<LoincNotWritten> = [
  {
    code: "62409-8",
    longCommonName: "PhenX - hip circumference protocol 020801",
    why: "a PhenX protocol, not a measurement, though public mappings give it to the hip girth; no measurement term for the hip girth was found, so hipGirth is uncoded"
  },
  {
    code: "56086-2",
    longCommonName: "Adult Waist Circumference Protocol",
    why: "a panel of three waist protocols (NHANES, the natural waist, the umbilicus), not a measurement; HL7 Europe's discharge-report example gives it a valueQuantity all the same"
  },
  {
    code: "56087-0",
    longCommonName: "Child Waist Circumference Protocol",
    why: "a panel of the children's waist protocols (status DISCOURAGED), not a measurement"
  },
  {
    code: "56073-0",
    longCommonName: "Deprecated PhenX measure - neck circumference",
    why: "a PhenX panel (class PANEL.PHENX, status DEPRECATED), not a measurement"
  },
  {
    code: "63520-1",
    longCommonName: "PhenX - body composition by dual-energy x-ray absorptiometry protocol 020301",
    why: "a protocol panel (status DISCOURAGED) for a DXA examination; a scan's composition is neither a protocol nor a DXA measurement"
  },
  {
    code: "56074-8",
    longCommonName: "Circumference Neck",
    why: "a measurement, just below the larynx, but a trial term (status TRIAL, class PHENX): neckGirth is uncoded until LOINC makes it active"
  },
  {
    code: "56114-2",
    longCommonName: "Waist Circumference by NHANES",
    why: "the girth at the uppermost lateral border of the ilium by the NHANES protocol; no girth of the scan is defined at that landmark"
  },
  {
    code: "56115-9",
    longCommonName: "Waist Circumference by NCFS",
    why: "the girth midway between the lowest rib and the iliac crest, ISO 8559-1's waist level too, but by the protocol of the National Children's Food Survey (NCFS), which a scan does not follow: waistGirth is uncoded"
  },
  {
    code: "73964-9",
    longCommonName: "Body muscle mass Calculated",
    why: "all of the body's muscle, not the skeletal muscle mass a scan gives: skeletalMuscleMass is uncoded"
  }
]
