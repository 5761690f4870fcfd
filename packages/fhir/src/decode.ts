/**
 * FHIR -> canonical: a bundle of Scanbridge scan panels (a transaction as `toFhir` writes it, or a
 * server's searchset of them), or a bare panel with its members contained, back to the scans.
 */
import type { Either } from "effect"
import type { DecodeError, DecodeOptions, Scan } from "@scanbridge/model"

// Placeholder until the decoder lands.
export const isScanBundle = (_json: unknown): boolean => false
export const isScanPanel = (_json: unknown): boolean => false
export const decodeBundleEither = (_json: unknown, _options?: DecodeOptions): Either.Either<ReadonlyArray<Scan>, DecodeError> => {
  throw new Error("not yet")
}
export const decodePanelEither = decodeBundleEither
