/** FHIR for the migration engine: bundles and bare panels read back as scans, and `--to fhir`. */
import type { Adapter } from "@scanbridge/model"
import { FHIR_UNITS, type FhirUnits } from "./dialect.js"
import { FORMATS, encodeBundleEither } from "./codec.js"
import { decodeBundleEither, decodePanelEither, isScanBundle, isScanPanel } from "./decode.js"

export const fhirAdapter: Adapter = {
  name: "fhir",
  formats: [
    {
      name: FORMATS.bundle,
      api: "fhir",
      shape: "`resourceType` is `Bundle` and an entry is a Scanbridge scan panel",
      detect: isScanBundle,
      decode: decodeBundleEither
    },
    {
      name: FORMATS.panel,
      api: "fhir",
      shape: "`resourceType` is `Observation` coded as a Scanbridge scan panel",
      detect: isScanPanel,
      decode: decodePanelEither
    }
  ],
  encoder: {
    target: "fhir",
    units: Object.keys(FHIR_UNITS) as ReadonlyArray<FhirUnits>,
    namesPatient: true,
    encode: (scan, options) =>
      encodeBundleEither(scan, {
        ...(options?.units === undefined ? {} : { units: options.units as FhirUnits }),
        ...(options?.patientSystem === undefined ? {} : { patientSystem: options.patientSystem })
      })
  }
}
