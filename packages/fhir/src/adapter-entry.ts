/**
 * `@scanbridge/fhir/adapter`: what reading and writing FHIR takes (the adapter, the codec, the
 * code table), for the migration engine and code that only converts.
 */
export type * as Wire from "./wire.js"
export {
  ADMINISTRATIVE_GENDER_SYSTEM,
  DATA_ABSENT_REASON_SYSTEM,
  FAILURE_CATEGORIES,
  FAILURE_CATEGORY_SYSTEM,
  FAILURE_CODE_SYSTEM,
  FHIR_CODES,
  FHIR_UNITS,
  FIXED_UNITS,
  type FhirCode,
  type FhirQuantityKind,
  type FhirTarget,
  type FhirUnits,
  LOINC_SYSTEM,
  METHOD_CODE_SYSTEM,
  METHOD_DEFINITION,
  METHOD_DISPLAY,
  OBSERVATION_CATEGORY_SYSTEM,
  PANEL_CODE,
  PROFILES,
  SCANBRIDGE_FHIR,
  SCAN_CODE_SYSTEM,
  UCUM_SYSTEM,
  UNIT_DISPLAY,
  VITAL_SIGNS_PROFILE,
  type VitalSignsProfile,
  codeOf,
  displayOf,
  loincOf
} from "./dialect.js"
export { LOINC_NOT_WRITTEN, LOINC_TERMS, type LoincCode, type LoincNotWritten, type LoincTerm, loincTerm } from "./loinc.js"
export {
  CONTENT_ID_SYSTEM,
  DEVICE_ID_SYSTEM,
  EXTERNAL_ID_SYSTEM,
  FORMATS,
  type FhirOptions,
  SOURCE_ID_SYSTEM,
  encodeBundleEither,
  identifierQuery,
  toContainedPanel,
  toFhir
} from "./codec.js"
export { decodeBundleEither, decodePanelEither, isScanBundle, isScanPanel } from "./decode.js"
export { fhirAdapter } from "./adapter.js"
export { VERSION } from "./version.js"
