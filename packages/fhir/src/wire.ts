/**
 * The FHIR R4 resources a bundle holds, as they travel. The interfaces describe the writing
 * side: only the elements Scanbridge writes. The schemas below them describe the reading side,
 * which accepts more: any element FHIR allows that they do not name is dropped with a note.
 */
import { Schema } from "effect"

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

// --- Reading ------------------------------------------------------------------------------
// What the decoder reads, as Effect Schemas: every element it places, and the ones it knows to
// be a server's bookkeeping (`id`, `meta`) or a transaction's (`request`, `search`, `response`).
// Any other key is surveyed by the kit (exactSchemaDecoder) and noted as dropped.

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const CodingIn = Schema.Struct({ system: optional(Schema.String), code: optional(Schema.String), display: optional(Schema.String) })
export const CodeableConceptIn = Schema.Struct({ coding: optional(Schema.Array(CodingIn)), text: optional(Schema.String) })
export const IdentifierIn = Schema.Struct({ system: optional(Schema.String), value: optional(Schema.String) })
export const ReferenceIn = Schema.Struct({
  reference: optional(Schema.String),
  identifier: optional(IdentifierIn),
  display: optional(Schema.String),
  type: optional(Schema.String)
})
/** `comparator` is read so that a bound (`< 5`) is never taken for the value. */
export const QuantityIn = Schema.Struct({
  value: optional(Schema.Number),
  comparator: optional(Schema.String),
  unit: optional(Schema.String),
  system: optional(Schema.String),
  code: optional(Schema.String)
})
export const AnnotationIn = Schema.Struct({ text: Schema.String })
/** A server's bookkeeping of a resource, and the profiles it claims: nothing of the scan. */
export const MetaIn = Schema.Struct({
  versionId: optional(Schema.String),
  lastUpdated: optional(Schema.String),
  source: optional(Schema.String),
  profile: optional(Schema.Array(Schema.String))
})

export const ObservationIn = Schema.Struct({
  resourceType: Schema.Literal("Observation"),
  id: optional(Schema.String),
  meta: optional(MetaIn),
  identifier: optional(Schema.Array(IdentifierIn)),
  status: Schema.String,
  category: optional(Schema.Array(CodeableConceptIn)),
  code: CodeableConceptIn,
  subject: optional(ReferenceIn),
  effectiveDateTime: optional(Schema.String),
  valueQuantity: optional(QuantityIn),
  valueCodeableConcept: optional(CodeableConceptIn),
  dataAbsentReason: optional(CodeableConceptIn),
  note: optional(Schema.Array(AnnotationIn)),
  method: optional(CodeableConceptIn),
  device: optional(ReferenceIn),
  hasMember: optional(Schema.Array(ReferenceIn)),
  derivedFrom: optional(Schema.Array(ReferenceIn)),
  // Each read as an Observation when a reference reaches it; the others are noted as dropped.
  contained: optional(Schema.Array(Schema.Unknown))
})
export type ObservationIn = typeof ObservationIn.Type

/** Any resource, by its type: each is read by what it is once a panel refers to it. */
export const ResourceIn = Schema.Struct({ resourceType: Schema.String }, Schema.Record({ key: Schema.String, value: Schema.Unknown }))

export const BundleEntryIn = Schema.Struct({
  fullUrl: optional(Schema.String),
  resource: optional(ResourceIn),
  request: optional(Schema.Unknown),
  response: optional(Schema.Unknown),
  search: optional(Schema.Unknown)
})

/** Any Bundle.type: a transaction as written, a server's searchset, a collection, a batch. */
export const BundleIn = Schema.Struct({
  resourceType: Schema.Literal("Bundle"),
  id: optional(Schema.String),
  meta: optional(MetaIn),
  type: optional(Schema.String),
  timestamp: optional(Schema.String),
  total: optional(Schema.Number),
  entry: optional(Schema.Array(BundleEntryIn))
})
export type BundleIn = typeof BundleIn.Type

/** A resource held inside another, named by its `id` (`#id` in a reference). */
export type Contained<R> = R & { readonly id: string }

/** A scan as one resource: the panel, its Device and members contained. */
export interface ContainedPanel extends Observation {
  readonly contained: ReadonlyArray<Contained<Device> | Contained<Observation>>
}
