/**
 * The vendor's client library (document 3, "Client library operations"), as a page uses it: its
 * constructor options, the results of `scan` and `selfie` and their rejection codes as typed
 * values, the options of those two operations, the spelling rules of the product operations,
 * and a scan result turned into a fit photo estimation. The library "throws when a required
 * parameter is missing or out of range"; here each refusal is a FitInputError naming the
 * parameter and the value, before the call.
 *
 * Runs in a browser: plain checks, no Node built-in, no code generated. `clientKey` is never
 * repeated in an error: it identifies the integrator.
 */
import { Either, Schema } from "effect"
import { type Locale, type Path, type Stats, checkLocale, isRecord } from "@scanbridge/model"
import { previewKey, previewValue } from "@scanbridge/model/adapter"
import { FitInputError, refuse } from "./errors.js"
import { epochMillis } from "./purchase.js"
import { type EstimationOptions, type PhotoEstimationParams, checkPhotoEstimation, jpegDataUrl, oneOf } from "./validators.js"

type Checked<A> = Either.Either<A, FitInputError>

const object = (path: Path, value: unknown): Checked<Readonly<Record<string, unknown>>> =>
  isRecord(value) ? Either.right(value) : refuse(path, value, `expected an object, got ${previewValue(value)}`)

const optionalBoolean = (path: Path, value: unknown): Checked<void> =>
  value === undefined || typeof value === "boolean" ? Either.void : refuse(path, value, `expected true or false, got ${previewValue(value)}`)

/** Keys the document does not list for an options object: a typo the library would ignore. */
const onlyKeys = (path: Path, value: Readonly<Record<string, unknown>>, keys: ReadonlyArray<string>): Checked<void> => {
  for (const key of Object.keys(value)) {
    if (keys.includes(key)) continue
    const named = previewKey(key)
    const near = keys.find((k) => k.toLowerCase() === key.toLowerCase())
    return refuse(
      [...path, named],
      value[key],
      `not an option of this operation${near === undefined ? "" : `; did you mean ${near}?`} (expected ${keys.join(", ")})`
    )
  }
  return Either.void
}

// --- The constructor ------------------------------------------------------------------------

/** The client library's constructor options (document 3). */
export interface ClientLibraryOptions {
  /** Required; the organization id for platform use. */
  readonly clientKey: string
  /** Required; one of the vendor's locales (model's `LOCALES`). */
  readonly locale: Locale
  /** A selector, or an element. */
  readonly container?: string | object
  /** Adds a tap overlay before the scan UI (iOS audio). */
  readonly scanShouldIncludeOverlay?: boolean
}

const CONSTRUCTOR_KEYS = ["clientKey", "locale", "container", "scanShouldIncludeOverlay"]

/**
 * The constructor's options, checked: a missing `clientKey` or `locale` is a FitInputError, not
 * a throw from inside the library. The client key's value never appears in the error.
 */
export const checkClientLibraryOptions = (options: unknown): Checked<ClientLibraryOptions> =>
  Either.gen(function* () {
    const o = yield* object(["options"], options)
    yield* onlyKeys([], o, CONSTRUCTOR_KEYS)
    if (typeof o.clientKey !== "string" || o.clientKey.trim() === "") {
      const what = o.clientKey === undefined ? "missing" : typeof o.clientKey === "string" ? "blank" : `a ${typeof o.clientKey}`
      return yield* refuse(["clientKey"], undefined, `required: the client key, as a non-empty string (this one is ${what})`)
    }
    const locale = checkLocale(o.locale)
    if (Either.isLeft(locale)) {
      // checkLocale's message names the field already.
      return yield* o.locale === undefined
        ? refuse(["locale"], o.locale, "required: one of the vendor's locales")
        : Either.left(new FitInputError({ path: ["locale"], value: o.locale, message: locale.left }))
    }
    if (o.container !== undefined && typeof o.container !== "string" && !isRecord(o.container)) {
      return yield* refuse(["container"], o.container, `expected a selector or an element, got ${previewValue(o.container)}`)
    }
    yield* optionalBoolean(["scanShouldIncludeOverlay"], o.scanShouldIncludeOverlay)
    return o as unknown as ClientLibraryOptions
  })

// --- scan and selfie ------------------------------------------------------------------------

/** What `scan` resolves with: the two photos as JPEG data URLs. */
export interface ScanCapture {
  readonly front: string
  readonly side: string
}

/** What `selfie` resolves with. */
export interface SelfieCapture {
  /** A JPEG data URL. */
  readonly image: string
  readonly width: number
  readonly height: number
  /** Milliseconds since the epoch. */
  readonly capturedAt: number
}

/** `scan`'s result, each photo a JPEG data URL whose bytes start as a JPEG's. */
export const checkScanCapture = (value: unknown): Checked<ScanCapture> =>
  Either.gen(function* () {
    const o = yield* object(["scan"], value)
    yield* jpegDataUrl(["scan", "front"], o.front, true)
    yield* jpegDataUrl(["scan", "side"], o.side, true)
    return { front: o.front as string, side: o.side as string }
  })

const pixels = (path: Path, value: unknown): Checked<void> =>
  typeof value === "number" && Number.isInteger(value) && value > 0
    ? Either.void
    : refuse(path, value, `expected a whole number of pixels above 0, got ${previewValue(value)}`)

/** `selfie`'s result: a JPEG data URL, its size in pixels, and when it was taken (epoch ms). */
export const checkSelfieCapture = (value: unknown): Checked<SelfieCapture> =>
  Either.gen(function* () {
    const o = yield* object(["selfie"], value)
    yield* jpegDataUrl(["selfie", "image"], o.image, true)
    yield* pixels(["selfie", "width"], o.width)
    yield* pixels(["selfie", "height"], o.height)
    const capturedAt = yield* epochMillis(["selfie", "capturedAt"], o.capturedAt, "a capture time")
    return { image: o.image as string, width: o.width as number, height: o.height as number, capturedAt }
  })

/** The codes `scan` and `selfie` reject with (document 3). */
export const CLIENT_LIBRARY_REJECTIONS = {
  scan: ["SCAN_CLOSED_BY_USER", "SCAN_FAILED"],
  selfie: ["SELFIE_CLOSED_BY_USER", "INVALID_SELFIE_CAPTURE_PAYLOAD"]
} as const

export type ScanRejectionCode = (typeof CLIENT_LIBRARY_REJECTIONS.scan)[number]
export type SelfieRejectionCode = (typeof CLIENT_LIBRARY_REJECTIONS.selfie)[number]

/**
 * A rejection of `scan` or `selfie`, read whatever its shape (the document names the codes, not
 * the object): `code` is one of the operation's codes, or `UNKNOWN` for anything else, which
 * `error` keeps.
 */
export class ClientLibraryRejection extends Schema.TaggedError<ClientLibraryRejection>("@scanbridge/fit/ClientLibraryRejection")("ClientLibraryRejection", {
  operation: Schema.Literal("scan", "selfie"),
  code: Schema.Literal(...CLIENT_LIBRARY_REJECTIONS.scan, ...CLIENT_LIBRARY_REJECTIONS.selfie, "UNKNOWN"),
  message: Schema.String,
  error: Schema.Unknown
}) {
  /** Whether the user closed the scanner (as opposed to a failure). */
  get closedByUser(): boolean {
    return this.code === "SCAN_CLOSED_BY_USER" || this.code === "SELFIE_CLOSED_BY_USER"
  }
}

/** What a `scan` or `selfie` promise rejected with, as a typed value. */
export const readRejection = (operation: "scan" | "selfie", error: unknown): ClientLibraryRejection => {
  const codes: ReadonlyArray<string> = CLIENT_LIBRARY_REJECTIONS[operation]
  const candidates = [
    error,
    isRecord(error) ? error.code : undefined,
    isRecord(error) ? error.message : undefined,
    error instanceof Error ? error.message : undefined
  ]
  const code = candidates.find((c): c is ScanRejectionCode | SelfieRejectionCode => typeof c === "string" && codes.includes(c)) ?? "UNKNOWN"
  const message =
    code === "UNKNOWN"
      ? `${operation} rejected with ${previewValue(error instanceof Error ? error.message : error)}, not one of its codes (${codes.join(", ")})`
      : `${operation} rejected: ${code}`
  return new ClientLibraryRejection({ operation, code, message, error })
}

// --- The operations' options ----------------------------------------------------------------

/** `scan`'s optional config (document 3). */
export interface ScanConfig {
  readonly camera?: object
  /** Default `female`. */
  readonly silhouette?: "male" | "female"
  readonly isDebuggerEnabled?: boolean
  readonly screensToInclude?: ReadonlyArray<"scan" | "how-to-scan" | "all">
  /** Default `how-to-scan`. */
  readonly welcomeModal?: "tap-to-start" | "how-to-scan" | false
  readonly isMirrored?: boolean
  readonly hasHeader?: boolean
  readonly hasActionsArea?: boolean
}

const SCREENS_TO_INCLUDE = ["scan", "how-to-scan", "all"] as const

/**
 * `scan`'s config against the document's values. `screensToInclude` is a list (its name is
 * plural; the document shows no example): distinct values, `all` alone, and `scan` or `all`
 * among them, since the operation scans (Scanbridge's reading, as for the hosted scanner).
 */
export const checkScanConfig = (config: unknown): Checked<ScanConfig> =>
  Either.gen(function* () {
    if (config === undefined) return {}
    const o = yield* object(["config"], config)
    yield* onlyKeys(["config"], o, [
      "camera",
      "silhouette",
      "isDebuggerEnabled",
      "screensToInclude",
      "welcomeModal",
      "isMirrored",
      "hasHeader",
      "hasActionsArea"
    ])
    if (o.camera !== undefined && !isRecord(o.camera))
      return yield* refuse(["config", "camera"], o.camera, `expected media constraints (an object), got ${previewValue(o.camera)}`)
    yield* oneOf(["config", "silhouette"], o.silhouette, ["male", "female"], false)
    yield* oneOf(["config", "welcomeModal"], o.welcomeModal, ["tap-to-start", "how-to-scan", false], false)
    for (const key of ["isDebuggerEnabled", "isMirrored", "hasHeader", "hasActionsArea"]) yield* optionalBoolean(["config", key], o[key])
    const screens = o.screensToInclude
    if (screens !== undefined) {
      const path = ["config", "screensToInclude"]
      if (!Array.isArray(screens)) return yield* refuse(path, screens, `expected a list of ${SCREENS_TO_INCLUDE.join(", ")}, got ${previewValue(screens)}`)
      for (let i = 0; i < screens.length; i++) {
        yield* oneOf([...path, i], screens[i] ?? null, SCREENS_TO_INCLUDE, false)
        if (screens.indexOf(screens[i]) !== i) return yield* refuse([...path, i], screens[i], `"${String(screens[i])}" is listed twice`)
      }
      if (screens.includes("all") && screens.length > 1) return yield* refuse(path, screens, '"all" stands alone')
      if (!screens.includes("scan") && !screens.includes("all")) return yield* refuse(path, screens, "scan is the operation: include scan (or all)")
    }
    return o as ScanConfig
  })

/** `selfie`'s optional config (document 3). */
export interface SelfieConfig {
  /** Default `user`. */
  readonly facingMode?: "user" | "environment"
  /** Default `auto`. */
  readonly orientation?: "auto" | "portrait" | "landscape"
  readonly requireGyro?: boolean
  readonly isDebug?: boolean
}

export const checkSelfieConfig = (config: unknown): Checked<SelfieConfig> =>
  Either.gen(function* () {
    if (config === undefined) return {}
    const o = yield* object(["config"], config)
    yield* onlyKeys(["config"], o, ["facingMode", "orientation", "requireGyro", "isDebug"])
    yield* oneOf(["config", "facingMode"], o.facingMode, ["user", "environment"], false)
    yield* oneOf(["config", "orientation"], o.orientation, ["auto", "portrait", "landscape"], false)
    yield* optionalBoolean(["config", "requireGyro"], o.requireGyro)
    yield* optionalBoolean(["config", "isDebug"], o.isDebug)
    return o as SelfieConfig
  })

// --- The product operations' spellings --------------------------------------------------------

const text = (path: Path, value: unknown): Checked<string> =>
  typeof value === "string" && value.trim() !== "" ? Either.right(value) : refuse(path, value, `required: a non-empty string, got ${previewValue(value)}`)

/** `getFitIsProductSupported`'s parameters: `garmentSKU`, all caps, in this operation only. */
export const checkIsProductSupportedParams = (params: unknown): Checked<{ readonly brandId: string; readonly garmentSKU: string }> =>
  Either.gen(function* () {
    const o = yield* object(["params"], params)
    if (o.garmentSKU === undefined && o.garmentSku !== undefined) {
      return yield* refuse(["garmentSku"], o.garmentSku, "this operation spells it garmentSKU (all caps; only productInfo spells it garmentSku)")
    }
    return { brandId: yield* text(["brandId"], o.brandId), garmentSKU: yield* text(["garmentSKU"], o.garmentSKU) }
  })

/** `productInfo` of the size operations: `{brandId, garmentSku}` items, `garmentSku` with a lowercase `ku`. */
export const checkProductInfo = (productInfo: unknown): Checked<ReadonlyArray<{ readonly brandId: string; readonly garmentSku: string }>> =>
  Either.gen(function* () {
    if (!Array.isArray(productInfo) || productInfo.length === 0)
      return yield* refuse(["productInfo"], productInfo, `expected a non-empty list of {brandId, garmentSku}, got ${previewValue(productInfo)}`)
    const items: Array<{ readonly brandId: string; readonly garmentSku: string }> = []
    for (let i = 0; i < productInfo.length; i++) {
      const item = yield* object(["productInfo", i], productInfo[i])
      if (item.garmentSku === undefined && item.garmentSKU !== undefined) {
        return yield* refuse(
          ["productInfo", i, "garmentSKU"],
          item.garmentSKU,
          "productInfo spells it garmentSku (lowercase ku; only getFitIsProductSupported spells it garmentSKU)"
        )
      }
      items.push({
        brandId: yield* text(["productInfo", i, "brandId"], item.brandId),
        garmentSku: yield* text(["productInfo", i, "garmentSku"], item.garmentSku)
      })
    }
    return items
  })

/**
 * The estimation token `getFitTokenEstimation`, `getFitSizeRecommendation` and
 * `getFitSizeFitting` take. Its shape is not shown: the estimation result carries it as
 * `estimationToken: {token}`, so either that object or the bare token string is taken, as given,
 * once its token is a non-empty string.
 */
export const checkEstimationToken = (value: unknown): Checked<string | { readonly token: string }> => {
  if (typeof value === "string") return Either.map(text(["estimationToken"], value), () => value)
  if (isRecord(value)) return Either.map(text(["estimationToken", "token"], value.token), (token) => ({ token }))
  return refuse(["estimationToken"], value, `required: the estimation result's estimationToken ({token}) or its token, got ${previewValue(value)}`)
}

/** `getFitSizeRecommendation`'s and `getFitSizeFitting`'s parameters: an estimation token and `productInfo`. */
export const checkSizeParams = (
  params: unknown
): Checked<{
  readonly estimationToken: string | { readonly token: string }
  readonly productInfo: ReadonlyArray<{ readonly brandId: string; readonly garmentSku: string }>
}> =>
  Either.gen(function* () {
    const o = yield* object(["params"], params)
    return { estimationToken: yield* checkEstimationToken(o.estimationToken), productInfo: yield* checkProductInfo(o.productInfo) }
  })

// --- A scan into a fit photo estimation ---------------------------------------------------------

/**
 * `getFitPhotoEstimation`'s parameters from a `scan` result and the subject: the photos checked
 * as JPEG data URLs (the operation takes them so), the stats in its units (mm, g), then every
 * rule of the operation (`validatePhotoEstimation`'s).
 */
export const fitPhotoEstimationOf = (scan: unknown, subject: Stats, options: EstimationOptions = {}): Checked<PhotoEstimationParams> =>
  Either.flatMap(checkScanCapture(scan), (capture) => {
    const params: PhotoEstimationParams = {
      ...options,
      front: capture.front,
      side: capture.side,
      age: subject.age,
      gender: subject.gender,
      height: subject.heightMm,
      weight: subject.weightG
    }
    return checkPhotoEstimation(params)
  })
