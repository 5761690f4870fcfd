/**
 * The canonical fit document, `scanbridge.size/v1`: what the fit service says about one
 * product for one estimation, from a GetRecommendedSize response or the client library's size
 * recommendation and size fitting results. The contract is docs/fit.md; like the scan, every
 * key is always present (null where unknown) and unknown keys are rejected.
 */
import { Either, Schema } from "effect"
import { boundedDecodeEither } from "./internal/bounded.js"
import { InvariantViolation } from "./errors.js"
import { Note } from "./scan.js"

export const SIZE_FORMAT = "scanbridge.size/v1"

const Finite = Schema.Number.pipe(Schema.finite())

export const ProductId = Schema.Struct({ brandId: Schema.String, garmentSku: Schema.String })
export interface ProductId extends Schema.Schema.Type<typeof ProductId> {}

/** How one part of the body fits one size; negative is tight, positive loose (as the service reports it). */
export const FittingPointFit = Schema.Struct({
  point: Schema.String,
  /** From spec 03's list; null for a point it does not list. */
  displayName: Schema.NullOr(Schema.String),
  tightness: Schema.NullOr(Finite)
})

export const SizeFit = Schema.Struct({
  /** The size's index in the product's size chart. */
  index: Schema.NullOr(Schema.Number.pipe(Schema.int())),
  name: Schema.String,
  /** recommendationRank: 1 is the size the service recommends most. */
  rank: Schema.NullOr(Finite),
  /** neutralRecommendationRank: the rank with no tightness preference. */
  neutralRank: Schema.NullOr(Finite),
  tightness: Schema.NullOr(Finite),
  fittingPoints: Schema.Array(FittingPointFit)
})
export interface SizeFit extends Schema.Schema.Type<typeof SizeFit> {}

const SizeFields = Schema.Struct({
  format: Schema.Literal(SIZE_FORMAT),
  source: Schema.Struct({ api: Schema.Literal("fit"), estimationToken: Schema.NullOr(Schema.String) }),
  product: Schema.NullOr(ProductId),
  recommendedSize: Schema.NullOr(Schema.String.pipe(Schema.minLength(1))),
  sizes: Schema.Array(SizeFit),
  notes: Schema.Array(Note)
})

const recommendedIssue = (d: typeof SizeFields.Type) =>
  d.recommendedSize !== null && d.sizes.length > 0 && !d.sizes.some((s) => s.name === d.recommendedSize)
    ? { path: ["recommendedSize"], message: `the recommended size is one of the sizes (${d.sizes.map((s) => s.name).join(", ")})` }
    : undefined

export const SizeDocument = SizeFields.pipe(Schema.filter((d) => recommendedIssue(d))).annotations({
  identifier: "SizeDocument",
  title: SIZE_FORMAT,
  parseOptions: { onExcessProperty: "error" }
})
export interface SizeDocument extends Schema.Schema.Type<typeof SizeDocument> {}
export interface SizeDocumentJson extends Schema.Schema.Encoded<typeof SizeDocument> {}

export interface SizeDocumentInit {
  readonly estimationToken: string | null
  readonly product?: ProductId | null
  readonly recommendedSize?: string | null
  readonly sizes?: ReadonlyArray<SizeFit>
  readonly notes?: ReadonlyArray<Note>
}

const validate = boundedDecodeEither(SizeDocument, { onExcessProperty: "error" })

/** Builds a size document, or says which rule the input breaks and where. */
export const makeSizeDocument = (init: SizeDocumentInit): Either.Either<SizeDocument, InvariantViolation> =>
  Either.mapLeft(
    validate({
      format: SIZE_FORMAT,
      source: { api: "fit", estimationToken: init.estimationToken },
      product: init.product ?? null,
      recommendedSize: init.recommendedSize ?? null,
      sizes: init.sizes ?? [],
      notes: init.notes ?? []
    }),
    InvariantViolation.fromIssueList
  )
