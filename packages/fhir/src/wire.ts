/**
 * The FHIR R4 resources a bundle holds, as they travel: only the elements Scanbridge writes.
 * Reading accepts more (any element FHIR allows is ignored with a note), so these describe the
 * writing side.
 */

export interface Coding {
  readonly system: string
  readonly code: string
  readonly display?: string
}

export interface CodeableConcept {
  readonly coding?: ReadonlyArray<Coding>
  readonly text?: string
}

export interface Identifier {
  readonly system: string
  readonly value: string
}

export interface Reference {
  readonly reference?: string
  readonly identifier?: Identifier
  readonly display?: string
}

export interface Quantity {
  readonly value: number
  readonly unit: string
  readonly system: string
  readonly code: string
}

export interface Annotation {
  readonly text: string
}

export interface Observation {
  readonly resourceType: "Observation"
  readonly meta?: { readonly profile: ReadonlyArray<string> }
  readonly identifier: ReadonlyArray<Identifier>
  readonly status: "registered" | "final" | "cancelled"
  readonly category?: ReadonlyArray<CodeableConcept>
  readonly code: CodeableConcept
  readonly subject?: Reference
  readonly effectiveDateTime?: string
  readonly valueQuantity?: Quantity
  readonly valueCodeableConcept?: CodeableConcept
  readonly dataAbsentReason?: CodeableConcept
  readonly note?: ReadonlyArray<Annotation>
  readonly method?: CodeableConcept
  readonly device?: Reference
  readonly hasMember?: ReadonlyArray<Reference>
  readonly derivedFrom?: ReadonlyArray<Reference>
}

export interface Device {
  readonly resourceType: "Device"
  readonly identifier: ReadonlyArray<Identifier>
  readonly deviceName: ReadonlyArray<{ readonly name: string; readonly type: "user-friendly-name" }>
  readonly type?: CodeableConcept
  readonly version: ReadonlyArray<{ readonly value: string }>
}

export interface BundleEntry {
  readonly fullUrl: string
  readonly resource: Observation | Device
  readonly request: { readonly method: "POST"; readonly url: "Observation" | "Device"; readonly ifNoneExist: string }
}

/** One scan: a transaction that creates its Device, its panel and the panel's members, each once. */
export interface Bundle {
  readonly resourceType: "Bundle"
  readonly type: "transaction"
  readonly entry: ReadonlyArray<BundleEntry>
}
