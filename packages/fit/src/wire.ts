/**
 * The fit service's JSON (spec 03), in the printed form: lowerCamelCase, enum value names.
 * Its messages follow protocol-buffer schemas, so `Proto3.reader` reads the other spellings a
 * proto3 parser accepts; the spec's own JSON examples write `estimation_token`,
 * `recommended_size` and `error_type`, which the codec reads with an `aliased` note.
 * CreatePurchase and the client library's results are plain JSON.
 */
import { Schema } from "effect"
import { Proto3 } from "@scanbridge/model"
import { oneOfKeys } from "@scanbridge/model/adapter"

const { field } = Proto3

// --- Enums --------------------------------------------------------------------------------

export const SUPPORT_STATUS = Proto3.enumType("SupportStatus", { SUPPORT_STATUS_UNSPECIFIED: 0, UNSUPPORTED: 1, SUPPORTED: 2 })
export type SupportStatus = "SUPPORT_STATUS_UNSPECIFIED" | "UNSUPPORTED" | "SUPPORTED"

export const CREATE_SESSION_ERROR_TYPE = Proto3.enumType("CreateSessionErrorType", {
  ERROR_TYPE_UNSPECIFIED: 0,
  INTERNAL_ERROR: 1,
  INVALID_CLIENT_KEY: 2,
  INVALID_PRODUCT_ID: 3,
  MALFORMED_REQUEST: 4
})

export const RECOMMENDED_SIZE_ERROR_TYPE = Proto3.enumType("GetRecommendedSizeErrorType", {
  ERROR_TYPE_UNSPECIFIED: 0,
  INTERNAL_ERROR: 1,
  INVALID_CLIENT_KEY: 2,
  INVALID_ESTIMATION_TOKEN: 3,
  INVALID_PRODUCT_ID: 4,
  PRODUCT_NOT_FOUND: 5,
  MALFORMED_REQUEST: 6
})

/** Client-library inputType values and the canonical method of each (spec 03). */
export const INPUT_TYPES = {
  CAMERA_FLOW: "photo",
  SELFIE_FLOW: "selfie",
  // "current backends may emit INPUT_TYPE_UNSPECIFIED instead, which clients treat as the selfie response"
  INPUT_TYPE_UNSPECIFIED: "selfie",
  MANUAL_STATS: "stats"
} as const
export type InputType = keyof typeof INPUT_TYPES

// --- Messages -----------------------------------------------------------------------------

export const ProductId = Schema.Struct({ brandId: field(Schema.String), garmentSku: field(Schema.String) })
export const ProductInfo = Schema.Struct({ productId: field(ProductId) })
export const EstimationToken = Schema.Struct({ token: field(Schema.String) })

const ErrorDetail = (type: Proto3.EnumType) => Schema.Struct({ errorType: field(Proto3.Enum(type)), message: field(Schema.String) })

export const CreateSessionRequest = Schema.Struct({
  clientKey: field(Schema.String),
  productInfo: field(ProductInfo),
  clientSessionId: field(Schema.String)
})
export type CreateSessionRequest = typeof CreateSessionRequest.Type

export const Support = Schema.Struct({
  productId: field(ProductId),
  supported: field(Proto3.Enum(SUPPORT_STATUS)),
  sessionId: field(Schema.String)
})

export const CreateSessionResponse = Schema.Struct({
  support: field(Support),
  error: field(ErrorDetail(CREATE_SESSION_ERROR_TYPE))
}).pipe(Schema.filter(...oneOfKeys(["support", "error"])))
export type CreateSessionResponse = typeof CreateSessionResponse.Type

export const GetRecommendedSizeRequest = Schema.Struct({
  clientKey: field(Schema.String),
  estimationToken: field(EstimationToken),
  productInfo: field(ProductInfo)
})
export type GetRecommendedSizeRequest = typeof GetRecommendedSizeRequest.Type

export const Recommendation = Schema.Struct({ recommendedSize: field(Schema.String) })

export const GetRecommendedSizeResponse = Schema.Struct({
  recommendation: field(Recommendation),
  error: field(ErrorDetail(RECOMMENDED_SIZE_ERROR_TYPE))
}).pipe(Schema.filter(...oneOfKeys(["recommendation", "error"])))
export type GetRecommendedSizeResponse = typeof GetRecommendedSizeResponse.Type

// --- CreatePurchase (plain JSON) ----------------------------------------------------------

export const PurchaseItem = Schema.Struct({
  sku: Schema.String,
  brand: Schema.String,
  size: Schema.String,
  price: Schema.Number,
  quantity: Schema.Number
})

export const CreatePurchaseRequestSchema = Schema.Struct({
  clientKey: Schema.String,
  clientSessionId: Schema.String,
  orderId: Schema.String,
  items: Schema.Array(PurchaseItem),
  createdAt: Schema.Number,
  currency: Schema.String,
  countryCode: Schema.String,
  languageCode: Schema.String
})

export const CreatePurchaseResponse = Schema.Union(
  Schema.Struct({ status: Schema.Literal("success") }),
  Schema.Struct({ status: Schema.Literal("error"), error: Schema.Struct({ message: Schema.String }) })
)

// --- The client library's results ---------------------------------------------------------

export const EstimationItem = Schema.Struct({
  estimationType: field(Schema.String),
  /** A string in the spec's example; a number is read too. */
  value: field(Schema.Union(Schema.String, Schema.Number)),
  unit: field(Schema.String)
})
export type EstimationItem = typeof EstimationItem.Type

export const EstimationInput = Schema.Struct({
  preferredSystemOfMeasurement: field(Schema.String),
  tightness: field(Proto3.Double),
  inputType: field(Schema.String)
})

/** What the client library's estimation operations resolve with. */
export const EstimationResult = Schema.Struct({
  estimations: Schema.Struct({
    estimationToken: field(EstimationToken),
    measurements: field(Schema.Array(EstimationItem)),
    /** null with the default avatar type; its shape when present is not shown. */
    avatarData: field(Schema.Unknown),
    input: field(EstimationInput)
  })
})
export type EstimationResult = typeof EstimationResult.Type
export type EstimationResultJson = typeof EstimationResult.Encoded

/** getFitSizeRecommendation: one item per product, in the order of the request's productInfo. */
export const SizeRecommendations = Schema.Array(Schema.Struct({ recommendation: field(Recommendation) }))

export const SizeItem = Schema.Struct({
  size: field(Schema.Struct({ index: field(Proto3.Double), name: field(Schema.String) })),
  recommendationRank: field(Proto3.Double),
  fittingPoints: field(Schema.Array(Schema.Struct({ fittingPoint: field(Schema.String), tightness: field(Proto3.Double) }))),
  tightness: field(Proto3.Double),
  neutralRecommendationRank: field(Proto3.Double)
})

/** getFitSizeFitting: one item per product. */
export const SizeFitting = Schema.Array(
  Schema.Struct({
    result: field(
      Schema.Struct({
        estimationToken: field(EstimationToken),
        sizes: field(Schema.Array(SizeItem)),
        /** Not shown beyond an empty list. */
        sizeGroups: field(Schema.Array(Schema.Unknown))
      })
    )
  })
)
