/**
 * `@scanbridge/fhir/adapter`: what reading and writing FHIR takes (the adapter, the codec, the
 * code table), for the migration engine and code that only converts.
 */
export type * as Wire from "./wire.js"
export * from "./dialect.js"
export { LOINC_TERMS, type LoincCode, type LoincTerm, loincTerm } from "./loinc.js"
export {
  CONTENT_ID_SYSTEM,
  DEVICE_ID_SYSTEM,
  EXTERNAL_ID_SYSTEM,
  FORMATS,
  type FhirOptions,
  SOURCE_ID_SYSTEM,
  encodeBundleEither,
  identifierQuery,
  toFhir
} from "./codec.js"
export { decodeBundleEither, decodePanelEither, isScanBundle, isScanPanel } from "./decode.js"
export { fhirAdapter } from "./adapter.js"
export { VERSION } from "./version.js"
