import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { FitInputError } from "../src/errors.js"
import { COUNTRIES, CURRENCIES, LANGUAGES } from "../src/internal/iso.js"
import {
  type CreatePurchaseRequest,
  PURCHASE_MAX_CREATED_AT,
  PURCHASE_SECONDS_THRESHOLD,
  type PurchaseItem,
  type PurchaseOrder,
  buildPurchase
} from "../src/purchase.js"

const KEY = "ck_live_7f3a"
// 2024-05-01T12:00:00.000Z
const CREATED_AT = 1_714_564_800_000

const ITEM: PurchaseItem = { sku: "SKU-1", brand: "Acme", size: "M", price: 49.9, quantity: 1 }
const ORDER: PurchaseOrder = {
  clientSessionId: "sess-42",
  orderId: "order-1001",
  items: [ITEM, { sku: "SKU-2", brand: "Acme", size: "32/34", price: 89, quantity: 2 }, { ...ITEM, sku: "SKU-3" }],
  createdAt: CREATED_AT,
  currency: "EUR",
  countryCode: "DE",
  languageCode: "de"
}

/** An order with some fields replaced by anything, wrong types included. */
const withOrder = (patch: Record<string, unknown>): PurchaseOrder => ({ ...ORDER, ...patch }) as unknown as PurchaseOrder
const withItem = (index: number, patch: Record<string, unknown>): PurchaseOrder =>
  withOrder({ items: ORDER.items.map((item, i) => (i === index ? { ...item, ...patch } : item)) })

const built = (order: PurchaseOrder, clientKey = KEY): CreatePurchaseRequest => {
  const result = buildPurchase(clientKey, order)
  if (Either.isLeft(result)) throw new Error(`expected a request, got: ${result.left.message}`)
  return result.right
}
const refused = (order: PurchaseOrder, ...key: [clientKey?: unknown]): FitInputError => {
  const result = buildPurchase((key.length === 0 ? KEY : key[0]) as string, order)
  if (Either.isRight(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result.right)}`)
  return result.left
}

describe("ISO code sets", () => {
  it("holds 176 currencies, 249 countries and 183 languages, each in its standard's form", () => {
    expect(CURRENCIES.size).toBe(176)
    expect(COUNTRIES.size).toBe(249)
    expect(LANGUAGES.size).toBe(183)
    for (const c of CURRENCIES) expect(c).toMatch(/^[A-Z]{3}$/)
    for (const c of COUNTRIES) expect(c).toMatch(/^[A-Z]{2}$/)
    for (const c of LANGUAGES) expect(c).toMatch(/^[a-z]{2}$/)
  })

  it("has the current currencies and none of the withdrawn or no-currency codes", () => {
    for (const c of ["EUR", "JPY", "USD", "CHF", "GBP", "SLE", "ZWG", "XCG", "VED", "XOF", "CHE"]) expect(CURRENCIES.has(c), c).toBe(true)
    for (const c of ["XXX", "XTS", "HRK", "SLL", "ZWL", "ANG", "BGN", "DEM", "eur", "EURO"]) expect(CURRENCIES.has(c), c).toBe(false)
  })

  it("has the assigned countries and none of the reserved or user-assigned codes", () => {
    for (const c of ["GB", "JP", "DE", "US", "AQ", "BV", "UM", "EH", "PS", "TW", "SS", "BQ", "CW", "SX"]) expect(COUNTRIES.has(c), c).toBe(true)
    for (const c of ["UK", "EU", "XK", "AN", "YU", "SU", "CS", "TP", "ZR", "AC", "IC", "EA", "QO", "ZZ", "gb"]) expect(COUNTRIES.has(c), c).toBe(false)
  })

  it("has the ISO 639-1 languages in force and none of the withdrawn codes", () => {
    for (const c of ["en", "ja", "zh", "de", "he", "id", "yi", "jv", "ro", "sr", "hr", "bs", "nb", "nn", "no"]) expect(LANGUAGES.has(c), c).toBe(true)
    for (const c of ["iw", "in", "ji", "jw", "mo", "sh", "bh", "EN", "eng", "zz"]) expect(LANGUAGES.has(c), c).toBe(false)
  })
})

describe("buildPurchase: the request", () => {
  it("is the spec's JSON body: the client key first, then the order, in the table's order", () => {
    const request = built(ORDER)
    expect(request).toEqual({ clientKey: KEY, ...ORDER })
    expect(Object.keys(request)).toEqual(["clientKey", "clientSessionId", "orderId", "items", "createdAt", "currency", "countryCode", "languageCode"])
    expect(Object.keys(request.items[0]!)).toEqual(["sku", "brand", "size", "price", "quantity"])
    expect(JSON.parse(JSON.stringify(request))).toEqual(request)
  })

  it("turns a Date createdAt into its epoch milliseconds", () => {
    expect(built(withOrder({ createdAt: new Date("2024-05-01T12:00:00.000Z") })).createdAt).toBe(CREATED_AT)
    expect(built(withOrder({ createdAt: new Date(PURCHASE_SECONDS_THRESHOLD) })).createdAt).toBe(PURCHASE_SECONDS_THRESHOLD)
  })

  it("copies items with their five fields only", () => {
    const request = built(withItem(1, { colour: "red", discount: 10 }))
    expect(request.items[1]).toEqual({ sku: "SKU-2", brand: "Acme", size: "32/34", price: 89, quantity: 2 })
  })

  it("accepts a price of 0 and the createdAt bounds", () => {
    expect(built(withItem(0, { price: 0 })).items[0]!.price).toBe(0)
    expect(built(withOrder({ createdAt: PURCHASE_SECONDS_THRESHOLD })).createdAt).toBe(1e11)
    expect(built(withOrder({ createdAt: PURCHASE_MAX_CREATED_AT })).createdAt).toBe(PURCHASE_MAX_CREATED_AT)
    expect(new Date(PURCHASE_MAX_CREATED_AT).toISOString()).toBe("9999-12-31T23:59:59.999Z")
    expect(new Date(PURCHASE_SECONDS_THRESHOLD).toISOString()).toBe("1973-03-03T09:46:40.000Z")
  })

  it("changes no string: codes, ids and sizes go out as given", () => {
    const request = built(withOrder({ orderId: " 1001 ", items: [{ ...ITEM, size: " m " }] }))
    expect(request.orderId).toBe(" 1001 ")
    expect(request.items[0]!.size).toBe(" m ")
  })
})

describe("buildPurchase: refusals", () => {
  it("is a FitInputError with the path, the value and a one-line message that starts with the path", () => {
    const error = refused(withItem(2, { quantity: 0 }))
    expect(error).toBeInstanceOf(FitInputError)
    expect(error._tag).toBe("FitInputError")
    expect(error.path).toEqual(["items", 2, "quantity"])
    expect(error.value).toBe(0)
    expect(error.message).toBe("items[2].quantity: expected a whole number of 1 or more, got 0")
    expect(error.message).not.toContain("\n")
  })

  it("refuses an empty, blank or missing clientKey", () => {
    for (const key of ["", "   ", undefined, 42]) {
      const error = refused(ORDER, key)
      expect(error.path).toEqual(["clientKey"])
      expect(error.value).toBe(key)
    }
    expect(refused(ORDER, "").message).toBe("clientKey: must not be empty")
    expect(refused(ORDER, " \t").message).toBe("clientKey: must not be blank")
  })

  it("refuses an empty or non-string clientSessionId and orderId", () => {
    for (const field of ["clientSessionId", "orderId"]) {
      for (const value of ["", "  ", null, 7]) {
        const error = refused(withOrder({ [field]: value }))
        expect(error.path).toEqual([field])
        expect(error.value).toBe(value)
      }
    }
  })

  it("refuses items that are not a non-empty array", () => {
    expect(refused(withOrder({ items: [] }))).toMatchObject({ path: ["items"], value: [], message: "items: expected at least one item" })
    expect(refused(withOrder({ items: ITEM })).path).toEqual(["items"])
    expect(refused(withOrder({ items: undefined })).path).toEqual(["items"])
  })

  it("refuses an item that is no object at its index", () => {
    const error = refused(withOrder({ items: [ITEM, null] }))
    expect(error.path).toEqual(["items", 1])
    expect(error.value).toBe(null)
  })

  it("refuses an empty sku, brand or size at its path", () => {
    for (const field of ["sku", "brand", "size"]) {
      for (const value of ["", " ", undefined, 12]) {
        const error = refused(withItem(1, { [field]: value }))
        expect(error.path).toEqual(["items", 1, field])
        expect(error.value).toBe(value)
      }
    }
  })

  it("refuses a price that is negative, not finite or not a number", () => {
    for (const price of [-0.01, -1, Number.NaN, Number.POSITIVE_INFINITY, "49.90", null]) {
      const error = refused(withItem(2, { price }))
      expect(error.path).toEqual(["items", 2, "price"])
      expect(error.value).toBe(price)
    }
    expect(refused(withItem(0, { price: -5 })).message).toBe("items[0].price: -5 is negative: expected a unit price of 0 or more")
  })

  it("refuses a quantity that is not a positive whole number", () => {
    for (const quantity of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, "2", undefined]) {
      const error = refused(withItem(0, { quantity }))
      expect(error.path).toEqual(["items", 0, "quantity"])
      expect(error.value).toBe(quantity)
    }
  })

  it("refuses createdAt in seconds, naming the milliseconds to send", () => {
    const error = refused(withOrder({ createdAt: 1_714_564_800 }))
    expect(error.path).toEqual(["createdAt"])
    expect(error.value).toBe(1_714_564_800)
    expect(error.message).toBe("createdAt: 1714564800 looks like seconds since the Unix epoch (2024-05-01T12:00:00.000Z); send milliseconds: 1714564800000")
    // Fractional seconds (Python's time.time()) and the values next to the boundary.
    expect(refused(withOrder({ createdAt: 1_714_564_800.123 })).message).toContain("send milliseconds: 1714564800123")
    expect(refused(withOrder({ createdAt: PURCHASE_SECONDS_THRESHOLD - 1 })).message).toContain("send milliseconds: 99999999999000")
    expect(refused(withOrder({ createdAt: 1e8 })).message).toContain("looks like seconds")
  })

  it("refuses a Date made from seconds with the same hint", () => {
    const date = new Date(1_714_564_800)
    const error = refused(withOrder({ createdAt: date }))
    expect(error.value).toBe(date)
    expect(error.message).toBe(
      "createdAt: the Date's time value 1714564800 looks like seconds since the Unix epoch (2024-05-01T12:00:00.000Z); send milliseconds: 1714564800000"
    )
  })

  it("refuses createdAt too small to be seconds either, without a seconds hint", () => {
    for (const createdAt of [0, 5, 99_999_999, -1, -1_714_564_800_000]) {
      const error = refused(withOrder({ createdAt }))
      expect(error.path).toEqual(["createdAt"])
      expect(error.message).toContain("is before 1973-03-03T09:46:40.000Z")
      expect(error.message).not.toContain("looks like")
    }
  })

  it("refuses createdAt after the year 9999, with a hint for microseconds and nanoseconds", () => {
    expect(refused(withOrder({ createdAt: 1e21 })).message).toBe("createdAt: 1e+21 is after the year 9999 in milliseconds since the Unix epoch")
    // Just past the end, read as microseconds, is 1978.
    expect(refused(withOrder({ createdAt: PURCHASE_MAX_CREATED_AT + 1 })).message).toBe(
      "createdAt: 253402300800000 is after the year 9999 and looks like microseconds since the Unix epoch (1978-01-11T21:31:40.800Z); send milliseconds: 253402300800"
    )
    expect(refused(withOrder({ createdAt: CREATED_AT * 1000 })).message).toContain(
      "looks like microseconds since the Unix epoch (2024-05-01T12:00:00.000Z); send milliseconds: 1714564800000"
    )
    expect(refused(withOrder({ createdAt: CREATED_AT * 1e6 })).message).toContain("looks like nanoseconds")
  })

  it("refuses createdAt that is fractional, not finite, an invalid Date or no number", () => {
    expect(refused(withOrder({ createdAt: CREATED_AT + 0.5 })).message).toBe("createdAt: expected whole milliseconds; send 1714564800001")
    for (const createdAt of [Number.NaN, Number.POSITIVE_INFINITY, new Date("not a date"), "1714564800000", null, undefined]) {
      const error = refused(withOrder({ createdAt }))
      expect(error.path).toEqual(["createdAt"])
      expect(error.value).toBe(createdAt)
    }
    expect(refused(withOrder({ createdAt: new Date(Number.NaN) })).message).toBe("createdAt: an invalid Date")
  })

  it("refuses a currency outside ISO 4217, with the upper-case spelling when that is one", () => {
    expect(refused(withOrder({ currency: "eur" }))).toMatchObject({
      path: ["currency"],
      value: "eur",
      message: 'currency: "eur" is not an ISO 4217 code as written: codes are upper case; use EUR'
    })
    expect(refused(withOrder({ currency: "Jpy" })).message).toContain("use JPY")
    expect(refused(withOrder({ currency: " USD " })).message).toBe(
      'currency: " USD " is not an ISO 4217 code as written: codes are upper case without spaces; use USD'
    )
    for (const currency of ["EURO", "€", "XXX", "HRK", "", 978]) {
      const error = refused(withOrder({ currency }))
      expect(error.path).toEqual(["currency"])
      expect(error.value).toBe(currency)
      expect(error.message).not.toContain("use")
    }
  })

  it("refuses a country outside ISO 3166-1 alpha-2, with the right spelling or the assigned code", () => {
    expect(refused(withOrder({ countryCode: "de" })).message).toBe(
      'countryCode: "de" is not an ISO 3166-1 alpha-2 code as written: codes are upper case; use DE'
    )
    expect(refused(withOrder({ countryCode: "UK" })).message).toBe('countryCode: "UK" is not an assigned ISO 3166-1 alpha-2 code; use GB')
    expect(refused(withOrder({ countryCode: "uk" })).message).toContain("use GB")
    for (const countryCode of ["XK", "EU", "DEU", "Germany"]) {
      const error = refused(withOrder({ countryCode }))
      expect(error.path).toEqual(["countryCode"])
      expect(error.message).toBe(`countryCode: "${countryCode}" is not an ISO 3166-1 alpha-2 code`)
    }
  })

  it("refuses a language outside ISO 639-1, with the lower-case, current or bare code", () => {
    expect(refused(withOrder({ languageCode: "DE" })).message).toBe('languageCode: "DE" is not an ISO 639-1 code as written: codes are lower case; use de')
    expect(refused(withOrder({ languageCode: "iw" })).message).toBe('languageCode: "iw" is not an assigned ISO 639-1 code; use he')
    expect(refused(withOrder({ languageCode: "en-US" })).message).toBe(
      'languageCode: "en-US" is a locale tag; the field takes the ISO 639-1 code alone: use en'
    )
    expect(refused(withOrder({ languageCode: "pt_BR" })).message).toContain("use pt")
    expect(refused(withOrder({ languageCode: "sh" })).message).toContain("use sr, hr or bs")
    expect(refused(withOrder({ languageCode: "IN" })).message).toContain("use id")
    for (const languageCode of ["deu", "german", "xx", "xx-YY"]) {
      expect(refused(withOrder({ languageCode })).message).toBe(`languageCode: "${languageCode}" is not an ISO 639-1 code`)
    }
  })

  it("reports only the first problem, in the body's field order", () => {
    const everythingWrong = withOrder({
      clientSessionId: "",
      orderId: "",
      items: [
        { ...ITEM, price: -1, quantity: 0 },
        { ...ITEM, sku: "" }
      ],
      createdAt: 1,
      currency: "eur",
      countryCode: "de",
      languageCode: "DE"
    })
    expect(refused(everythingWrong, "").path).toEqual(["clientKey"])
    expect(refused(everythingWrong).path).toEqual(["clientSessionId"])
    expect(refused({ ...everythingWrong, clientSessionId: "s" }).path).toEqual(["orderId"])
    const fromItems = { ...everythingWrong, clientSessionId: "s", orderId: "o" }
    expect(refused(fromItems).path).toEqual(["items", 0, "price"])
    expect(
      refused({
        ...fromItems,
        items: [
          { ...ITEM, quantity: 0 },
          { ...ITEM, sku: "" }
        ]
      }).path
    ).toEqual(["items", 0, "quantity"])
    expect(refused({ ...fromItems, items: [ITEM, { ...ITEM, sku: "", quantity: 0 }] }).path).toEqual(["items", 1, "sku"])
    const fromCreatedAt = { ...fromItems, items: [ITEM] }
    expect(refused(fromCreatedAt).path).toEqual(["createdAt"])
    expect(refused({ ...fromCreatedAt, createdAt: CREATED_AT }).path).toEqual(["currency"])
    expect(refused({ ...fromCreatedAt, createdAt: CREATED_AT, currency: "EUR" }).path).toEqual(["countryCode"])
    expect(refused({ ...fromCreatedAt, createdAt: CREATED_AT, currency: "EUR", countryCode: "DE" }).path).toEqual(["languageCode"])
  })
})

describe("buildPurchase: properties", () => {
  const text = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== "")
  const item = fc.record({
    sku: text,
    brand: text,
    size: text,
    price: fc.double({ min: 0, max: 1e7, noNaN: true }),
    quantity: fc.integer({ min: 1, max: 10_000 })
  })
  const createdAt = fc.oneof(
    fc.integer({ min: PURCHASE_SECONDS_THRESHOLD, max: PURCHASE_MAX_CREATED_AT }),
    fc.date({ min: new Date(PURCHASE_SECONDS_THRESHOLD), max: new Date(PURCHASE_MAX_CREATED_AT), noInvalidDate: true })
  )
  const order: fc.Arbitrary<PurchaseOrder> = fc.record({
    clientSessionId: text,
    orderId: text,
    items: fc.array(item, { minLength: 1, maxLength: 5 }),
    createdAt,
    currency: fc.constantFrom(...CURRENCIES),
    countryCode: fc.constantFrom(...COUNTRIES),
    languageCode: fc.constantFrom(...LANGUAGES)
  })

  it("accepts every valid order and carries every field over", () => {
    fc.assert(
      fc.property(text, order, (clientKey, o) => {
        const request = built(o, clientKey)
        const ms = o.createdAt instanceof Date ? o.createdAt.getTime() : o.createdAt
        expect(request).toEqual({ clientKey, ...o, createdAt: ms })
        expect(Number.isInteger(request.createdAt)).toBe(true)
      }),
      { numRuns: 300 }
    )
  })

  it("refuses every whole createdAt in [1e9, 1e11) as seconds, naming value * 1000", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1e9, max: PURCHASE_SECONDS_THRESHOLD - 1 }), (seconds) => {
        const error = refused(withOrder({ createdAt: seconds }))
        expect(error.path).toEqual(["createdAt"])
        expect(error.value).toBe(seconds)
        expect(error.message).toContain("seconds")
        expect(error.message).toContain(`send milliseconds: ${seconds * 1000}`)
      }),
      { numRuns: 300 }
    )
  })

  it("refuses every quantity that is not a positive whole number, at its path", () => {
    const badQuantity = fc.oneof(
      fc.integer({ min: -1_000_000, max: 0 }),
      fc.double({ noNaN: false }).filter((x) => !Number.isInteger(x) || x > Number.MAX_SAFE_INTEGER),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0),
      fc.string(),
      fc.constantFrom(null, undefined, true, [1], { n: 1 })
    )
    fc.assert(
      fc.property(order, fc.nat(), badQuantity, (o, at, quantity) => {
        const index = at % o.items.length
        const items = o.items.map((it, i) => (i === index ? { ...it, quantity } : it))
        const error = refused({ ...o, items } as unknown as PurchaseOrder)
        expect(error.path).toEqual(["items", index, "quantity"])
        expect(Object.is(error.value, quantity)).toBe(true)
      }),
      { numRuns: 300 }
    )
  })

  it("answers every valid code in the wrong case with the code itself", () => {
    fc.assert(
      fc.property(fc.constantFrom(...CURRENCIES), fc.constantFrom(...COUNTRIES), fc.constantFrom(...LANGUAGES), (cur, country, lang) => {
        expect(refused(withOrder({ currency: cur.toLowerCase() })).message).toContain(`use ${cur}`)
        expect(refused(withOrder({ countryCode: country.toLowerCase() })).message).toContain(`use ${country}`)
        expect(refused(withOrder({ languageCode: lang.toUpperCase() })).message).toContain(`use ${lang}`)
      }),
      { numRuns: 200 }
    )
  })
})
