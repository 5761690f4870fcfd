/**
 * @scanbridge/fhir: body scans for health systems. Each canonical scan as one HL7 FHIR R4
 * transaction Bundle (a panel Observation, one member Observation per quantity, a Device),
 * coded in Scanbridge's CodeSystem and in LOINC where LOINC has a measurement term, valued in
 * UCUM; and such bundles read back as scans. There is no FHIR client: a bundle is POSTed as it is.
 */
export * from "./adapter-entry.js"
