/**
 * CreatePurchase (spec 03): the order confirmation an integrator's server sends after payment.
 * The service answers most mistakes with success or a debugging message nobody reads (its errors
 * "must be invisible to end users"), so a wrong unit or code is caught here, before the request:
 * `buildPurchase` turns an order into the exact JSON body or names the first field that is wrong.
 */
import { Either } from "effect"
import type { Path } from "@scanbridge/model"
import { previewValue } from "@scanbridge/model/adapter"
import { type FitInputError, refuse } from "./errors.js"
import { COUNTRIES, CURRENCIES, LANGUAGES } from "./internal/iso.js"

/** One line of the order: a SKU in one size, its unit price and how many were bought. */
export interface PurchaseItem {
  readonly sku: string
  /** Brand name. */
  readonly brand: string
  /** The size label as the customer chose it. */
  readonly size: string
  /** Unit price in the order currency, in major units (19.99, not 1999). */
  readonly price: number
  /** Count of this SKU in this size. */
  readonly quantity: number
}

/** What the shop knows about an order; the client adds its clientKey. */
export interface PurchaseOrder {
  /** The id the product page embedded and the widget was started with. */
  readonly clientSessionId: string
  /** The shop's unique order id. */
  readonly orderId: string
  readonly items: ReadonlyArray<PurchaseItem>
  /** Order creation time: milliseconds since the Unix epoch (UTC), or a Date. */
  readonly createdAt: number | Date
  /** ISO 4217, upper case: EUR. */
  readonly currency: string
  /** ISO 3166-1 alpha-2 of the store's country, upper case: DE. */
  readonly countryCode: string
  /** ISO 639-1 of the widget instructions' language, lower case: de. */
  readonly languageCode: string
}

/** The CreatePurchase JSON body, field for field as spec 03's table. */
export interface CreatePurchaseRequest {
  readonly clientKey: string
  readonly clientSessionId: string
  readonly orderId: string
  readonly items: ReadonlyArray<PurchaseItem>
  /** Milliseconds since the Unix epoch (UTC), a whole number. */
  readonly createdAt: number
  readonly currency: string
  readonly countryCode: string
  readonly languageCode: string
}

/**
 * The smallest createdAt taken as milliseconds: 1e11, 1973-03-03T09:46:40Z as milliseconds and
 * 5138-11-16T09:46:40Z as seconds. Every order time in milliseconds lies far above it and every
 * seconds timestamp before the year 5138 below it, so a value under it is refused; when the value
 * read as seconds lands at or above it (value >= 1e8), the refusal says it looks like seconds and
 * gives `value * 1000`, the milliseconds to send.
 */
export const PURCHASE_SECONDS_THRESHOLD = 100_000_000_000

/** The largest createdAt: 9999-12-31T23:59:59.999Z in milliseconds. Later values are refused. */
export const PURCHASE_MAX_CREATED_AT = 253_402_300_799_999

const ok = Either.void

const iso = (ms: number): string => {
  const date = new Date(ms)
  return Number.isNaN(date.getTime()) ? `${ms} ms` : date.toISOString()
}

const nonEmptyString = (path: Path, value: unknown): Either.Either<void, FitInputError> => {
  if (typeof value !== "string") return refuse(path, value, `expected a non-empty string, got ${previewValue(value)}`)
  if (value.trim() === "") return refuse(path, value, value === "" ? "must not be empty" : "must not be blank")
  return ok
}

/**
 * Milliseconds since the epoch at `path` (`what` names the time in a refusal: "an order time");
 * a Date gives its time value, then passes the same checks. Used for the client library's
 * `capturedAt` too.
 */
export const epochMillis = (path: Path, value: unknown, what = "an order time"): Either.Either<number, FitInputError> => {
  let ms: number
  let shown: string
  if (value instanceof Date) {
    ms = value.getTime()
    if (Number.isNaN(ms)) return refuse(path, value, "an invalid Date")
    shown = `the Date's time value ${ms}`
  } else if (typeof value === "number") {
    ms = value
    shown = `${value}`
  } else {
    return refuse(path, value, `expected milliseconds since the Unix epoch or a Date, got ${previewValue(value)}`)
  }
  if (!Number.isFinite(ms)) return refuse(path, value, `expected milliseconds since the Unix epoch, got ${shown}`)
  if (ms < PURCHASE_SECONDS_THRESHOLD) {
    const asMs = Math.round(ms * 1000)
    if (asMs >= PURCHASE_SECONDS_THRESHOLD) {
      return refuse(path, value, `${shown} looks like seconds since the Unix epoch (${iso(asMs)}); send milliseconds: ${asMs}`)
    }
    return refuse(path, value, `${shown} is before ${iso(PURCHASE_SECONDS_THRESHOLD)} in milliseconds since the Unix epoch: not ${what}`)
  }
  if (!Number.isInteger(ms)) return refuse(path, value, `expected whole milliseconds; send ${Math.round(ms)}`)
  if (ms > PURCHASE_MAX_CREATED_AT) {
    for (const [unit, factor] of [
      ["microseconds", 1e3],
      ["nanoseconds", 1e6]
    ] as const) {
      const asMs = Math.round(ms / factor)
      if (asMs >= PURCHASE_SECONDS_THRESHOLD && asMs <= PURCHASE_MAX_CREATED_AT) {
        return refuse(path, value, `${shown} is after the year 9999 and looks like ${unit} since the Unix epoch (${iso(asMs)}); send milliseconds: ${asMs}`)
      }
    }
    return refuse(path, value, `${shown} is after the year 9999 in milliseconds since the Unix epoch`)
  }
  return Either.right(ms)
}

interface CodeList {
  readonly codes: ReadonlySet<string>
  readonly standard: string
  readonly letterCase: "upper" | "lower"
  /** Codes people send that the standard replaced or only reserves, and what to send instead. */
  readonly replacements: Readonly<Record<string, string>>
  /** Whether a locale tag (en-US, en_GB) names the code to send in its first two letters. */
  readonly fromLocaleTag: boolean
}

const CURRENCY: CodeList = { codes: CURRENCIES, standard: "ISO 4217", letterCase: "upper", replacements: {}, fromLocaleTag: false }
const COUNTRY: CodeList = {
  codes: COUNTRIES,
  standard: "ISO 3166-1 alpha-2",
  letterCase: "upper",
  // Reserved codes in common use: UK for the United Kingdom, EL (the EU's) for Greece.
  replacements: { UK: "GB", EL: "GR" },
  fromLocaleTag: false
}
const LANGUAGE: CodeList = {
  codes: LANGUAGES,
  standard: "ISO 639-1",
  letterCase: "lower",
  // Withdrawn ISO 639-1 codes that old Java and browser locales still produce.
  replacements: { iw: "he", in: "id", ji: "yi", jw: "jv", mo: "ro", sh: "sr, hr or bs" },
  fromLocaleTag: true
}

const code = (path: Path, value: unknown, list: CodeList): Either.Either<void, FitInputError> => {
  const { codes, standard } = list
  if (typeof value !== "string") return refuse(path, value, `expected an ${standard} code, got ${previewValue(value)}`)
  if (codes.has(value)) return ok
  const shown = previewValue(value)
  const cased = list.letterCase === "upper" ? value.trim().toUpperCase() : value.trim().toLowerCase()
  if (codes.has(cased)) {
    const form = `${list.letterCase} case${value.trim() === value ? "" : " without spaces"}`
    return refuse(path, value, `${shown} is not an ${standard} code as written: codes are ${form}; use ${cased}`)
  }
  if (Object.hasOwn(list.replacements, cased)) {
    return refuse(path, value, `${shown} is not an assigned ${standard} code; use ${list.replacements[cased]}`)
  }
  const tag = list.fromLocaleTag ? /^([A-Za-z]{2})[-_]/.exec(value.trim()) : null
  const language = tag?.[1]?.toLowerCase()
  if (language !== undefined && codes.has(language)) {
    return refuse(path, value, `${shown} is a locale tag; the field takes the ${standard} code alone: use ${language}`)
  }
  return refuse(path, value, `${shown} is not an ${standard} code`)
}

const item = (index: number, value: unknown): Either.Either<PurchaseItem, FitInputError> => {
  const at = (field: string): Path => ["items", index, field]
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return refuse(["items", index], value, `expected an item {sku, brand, size, price, quantity}, got ${previewValue(value)}`)
  }
  const { brand, price, quantity, size, sku } = value as Record<string, unknown>
  for (const [field, v] of [
    ["sku", sku],
    ["brand", brand],
    ["size", size]
  ] as const) {
    const checked = nonEmptyString(at(field), v)
    if (Either.isLeft(checked)) return Either.left(checked.left)
  }
  if (typeof price !== "number" || !Number.isFinite(price)) return refuse(at("price"), price, `expected a finite number, got ${previewValue(price)}`)
  if (price < 0) return refuse(at("price"), price, `${price} is negative: expected a unit price of 0 or more`)
  if (typeof quantity !== "number" || !Number.isSafeInteger(quantity) || quantity < 1) {
    return refuse(at("quantity"), quantity, `expected a whole number of 1 or more, got ${previewValue(quantity)}`)
  }
  return Either.right({ sku: sku as string, brand: brand as string, size: size as string, price, quantity })
}

/**
 * The CreatePurchase body for `order`, or the first field that is wrong, in the body's order:
 * clientKey, clientSessionId, orderId, items (each: sku, brand, size, price, quantity),
 * createdAt, currency, countryCode, languageCode. A Date createdAt becomes its epoch
 * milliseconds; items are copied with their five fields only; nothing else is changed (no
 * trimming, no case folding: a code in the wrong case is refused with the right spelling).
 */
export const buildPurchase = (clientKey: string, order: PurchaseOrder): Either.Either<CreatePurchaseRequest, FitInputError> =>
  Either.gen(function* () {
    yield* nonEmptyString(["clientKey"], clientKey)
    if (typeof order !== "object" || order === null) {
      return yield* refuse([], order, `expected a purchase order {clientSessionId, orderId, items, createdAt, currency, countryCode, languageCode}`)
    }
    yield* nonEmptyString(["clientSessionId"], order.clientSessionId)
    yield* nonEmptyString(["orderId"], order.orderId)
    const rawItems: unknown = order.items
    if (!Array.isArray(rawItems)) return yield* refuse(["items"], rawItems, `expected an array of items, got ${previewValue(rawItems)}`)
    if (rawItems.length === 0) return yield* refuse(["items"], rawItems, "expected at least one item")
    const items: Array<PurchaseItem> = []
    for (let i = 0; i < rawItems.length; i++) items.push(yield* item(i, rawItems[i]))
    const createdAt = yield* epochMillis(["createdAt"], order.createdAt)
    yield* code(["currency"], order.currency, CURRENCY)
    yield* code(["countryCode"], order.countryCode, COUNTRY)
    yield* code(["languageCode"], order.languageCode, LANGUAGE)
    return {
      clientKey,
      clientSessionId: order.clientSessionId,
      orderId: order.orderId,
      items,
      createdAt,
      currency: order.currency,
      countryCode: order.countryCode,
      languageCode: order.languageCode
    }
  })
