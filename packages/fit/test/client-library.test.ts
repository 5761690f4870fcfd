/**
 * The client library as a page uses it, against document 3's "Client library operations"
 * (transcribed in vendor/client-library.json): the constructor's options, the results and
 * rejection codes of scan and selfie, the two operations' options, the product operations'
 * spellings, and a scan flowing into a photo estimation.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import { humanStats } from "@scanbridge/model/internal"
import {
  CLIENT_LIBRARY_REJECTIONS,
  type FitInputError,
  checkClientLibraryOptions,
  checkEstimationToken,
  checkIsProductSupportedParams,
  checkProductInfo,
  checkScanCapture,
  checkScanConfig,
  checkSelfieCapture,
  checkSelfieConfig,
  checkSizeParams,
  fitPhotoEstimationOf,
  readRejection
} from "../src/index.js"

interface Operation {
  readonly options: Readonly<Record<string, { readonly values?: ReadonlyArray<string | false>; readonly default?: string | false }>>
  readonly rejections: ReadonlyArray<string>
}
const VENDOR: {
  readonly constructorOptions: ReadonlyArray<{ readonly name: string; readonly required: boolean }>
  readonly scan: Operation
  readonly selfie: Operation
  readonly getFitIsProductSupported: { readonly parameters: ReadonlyArray<string> }
  readonly getFitSizeRecommendation: { readonly parameters: ReadonlyArray<string>; readonly productInfo: ReadonlyArray<string> }
  readonly getFitTokenEstimation: { readonly parameters: ReadonlyArray<string> }
} = JSON.parse(readFileSync(new URL("vendor/client-library.json", import.meta.url), "utf8"))

// A JPEG's first bytes (FF D8 FF E0 ...) in base64, as a data URL.
const JPEG = "/9j/4AAQSkZJRgABAQ=="
const DATA_URL = `data:image/jpeg;base64,${JPEG}`
const SCAN = { front: DATA_URL, side: DATA_URL }

const refusal = <A>(checked: Either.Either<A, FitInputError>): FitInputError => {
  if (Either.isRight(checked)) throw new Error(`expected a refusal, got ${JSON.stringify(checked.right)}`)
  return checked.left
}

describe("the client library's constructor options", () => {
  it("need clientKey and locale: a typed error where the library throws", () => {
    expect(Either.isRight(checkClientLibraryOptions({ clientKey: "org-1", locale: "en" }))).toBe(true)
    expect(refusal(checkClientLibraryOptions({ locale: "en" })).message).toBe(
      "clientKey: required: the client key, as a non-empty string (this one is missing)"
    )
    expect(refusal(checkClientLibraryOptions({ clientKey: "org-1" })).message).toBe("locale: required: one of the vendor's locales")
    expect(refusal(checkClientLibraryOptions({ clientKey: "org-1", locale: "pt" })).message).toBe(
      'locale: "pt" is not a locale the vendor accepts; did you mean pt-BR?'
    )
    expect(refusal(checkClientLibraryOptions({ clientKey: "org-1", locale: "en", scanShouldIncludeOverlay: "yes" })).path).toEqual(["scanShouldIncludeOverlay"])
    expect(refusal(checkClientLibraryOptions({ clientKey: "org-1", locale: "en", clientkey: "x" })).message).toContain("did you mean clientKey?")
    expect(refusal(checkClientLibraryOptions(null)).path).toEqual(["options"])
  })

  it("take every option the document lists, and refuse each required one missing by its name", () => {
    const values: Readonly<Record<string, unknown>> = { clientKey: "org-1", locale: "en", container: "#scanner", scanShouldIncludeOverlay: true }
    const all = Object.fromEntries(VENDOR.constructorOptions.map(({ name }) => [name, values[name]]))
    expect(checkClientLibraryOptions(all)).toEqual(Either.right(all))
    // The loop below is not empty: the document requires these two.
    expect(VENDOR.constructorOptions.filter((o) => o.required).map((o) => o.name)).toEqual(["clientKey", "locale"])
    for (const { name } of VENDOR.constructorOptions.filter((o) => o.required))
      expect(refusal(checkClientLibraryOptions({ ...all, [name]: undefined })).path).toEqual([name])
  })

  it("never repeat the client key in an error", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8 }), fc.oneof(fc.constant("xx"), fc.constant(undefined)), (key, locale) => {
        const error = refusal(checkClientLibraryOptions({ clientKey: key.trim() === "" ? 12345678 : key, locale }))
        expect(JSON.stringify({ ...error, message: error.message })).not.toContain(key.trim() === "" ? "12345678" : key)
      })
    )
  })
})

describe("scan and selfie", () => {
  it("resolve with JPEG data URLs, each checked as a JPEG", () => {
    expect(checkScanCapture(SCAN)).toEqual(Either.right(SCAN))
    expect(refusal(checkScanCapture({ front: JPEG, side: DATA_URL })).message).toContain(
      "scan.front: expected a JPEG data URL: data:image/jpeg;base64, followed by the base64: prefix the base64"
    )
    expect(refusal(checkScanCapture({ front: DATA_URL, side: "data:image/jpeg;base64,iVBORw0KGgo=" })).message).toBe(
      "scan.side: not a JPEG: its bytes do not start with FF D8 FF"
    )
    expect(refusal(checkScanCapture({ front: DATA_URL })).path).toEqual(["scan", "side"])
  })

  it("resolve with a selfie whose time is in milliseconds", () => {
    const selfie = { image: DATA_URL, width: 720, height: 1280, capturedAt: 1_764_000_000_000 }
    expect(checkSelfieCapture(selfie)).toEqual(Either.right(selfie))
    expect(refusal(checkSelfieCapture({ ...selfie, capturedAt: 1_764_000_000 })).message).toContain("looks like seconds since the Unix epoch")
    expect(refusal(checkSelfieCapture({ ...selfie, width: 0 })).path).toEqual(["selfie", "width"])
  })

  it("reject with the document's codes, read as typed values whatever the rejection's shape", () => {
    expect(VENDOR.scan.rejections).toEqual([...CLIENT_LIBRARY_REJECTIONS.scan])
    expect(VENDOR.selfie.rejections).toEqual([...CLIENT_LIBRARY_REJECTIONS.selfie])
    expect(readRejection("scan", "SCAN_CLOSED_BY_USER")).toMatchObject({ code: "SCAN_CLOSED_BY_USER", closedByUser: true })
    expect(readRejection("scan", { code: "SCAN_FAILED" })).toMatchObject({ code: "SCAN_FAILED", closedByUser: false })
    expect(readRejection("selfie", new Error("INVALID_SELFIE_CAPTURE_PAYLOAD")).code).toBe("INVALID_SELFIE_CAPTURE_PAYLOAD")
    // A selfie's code from a scan, or anything else: UNKNOWN, the rejection kept.
    const other = readRejection("scan", { code: "SELFIE_CLOSED_BY_USER" })
    expect(other.code).toBe("UNKNOWN")
    expect(other.error).toEqual({ code: "SELFIE_CLOSED_BY_USER" })
    expect(readRejection("selfie", "x".repeat(1_000_000)).message.length).toBeLessThan(300)
  })

  it("take the options the document lists, with its values", () => {
    const names = (operation: Operation) => Object.keys(operation.options)
    const scanOptions = {
      camera: {},
      silhouette: "male",
      isDebuggerEnabled: true,
      screensToInclude: ["how-to-scan", "scan"],
      welcomeModal: false,
      isMirrored: true,
      hasHeader: false,
      hasActionsArea: false
    }
    expect(new Set(names(VENDOR.scan))).toEqual(new Set(Object.keys(scanOptions)))
    expect(checkScanConfig(scanOptions)).toEqual(Either.right(scanOptions))
    expect(refusal(checkScanConfig({ silhouette: "child" })).message).toBe('config.silhouette: expected one of male, female, got "child"')
    expect(refusal(checkScanConfig({ welcomeModal: true })).message).toBe("config.welcomeModal: expected one of tap-to-start, how-to-scan, false, got true")
    expect(refusal(checkScanConfig({ screensToInclude: ["all", "scan"] })).message).toBe('config.screensToInclude: "all" stands alone')
    expect(refusal(checkScanConfig({ screensToInclude: ["how-to-scan"] })).message).toContain("include scan (or all)")
    expect(refusal(checkScanConfig({ screenToInclude: ["scan"] })).path).toEqual(["config", "screenToInclude"])
    const selfieOptions = { facingMode: "environment", orientation: "portrait", requireGyro: true, isDebug: false }
    expect(new Set(names(VENDOR.selfie))).toEqual(new Set(Object.keys(selfieOptions)))
    expect(checkSelfieConfig(selfieOptions)).toEqual(Either.right(selfieOptions))
    expect(refusal(checkSelfieConfig({ orientation: "upside-down" })).path).toEqual(["config", "orientation"])
    expect(checkScanConfig(undefined)).toEqual(Either.right({}))
  })

  it("take each value the document lists for an option, and name the list when given another", () => {
    const check: Record<"scan" | "selfie", (config: unknown) => Either.Either<unknown, FitInputError>> = { scan: checkScanConfig, selfie: checkSelfieConfig }
    for (const operation of ["scan", "selfie"] as const) {
      for (const [name, { values }] of Object.entries(VENDOR[operation].options)) {
        if (values === undefined || name === "screensToInclude") continue
        for (const value of values) expect(check[operation]({ [name]: value })).toEqual(Either.right({ [name]: value }))
        expect(refusal(check[operation]({ [name]: "other" })).message).toBe(`config.${name}: expected one of ${values.join(", ")}, got "other"`)
      }
    }
    // screensToInclude is a list: each screen is taken with scan, but all stands alone.
    for (const screen of VENDOR.scan.options["screensToInclude"]!.values!) {
      const screens = screen === "all" ? ["all"] : [...new Set([screen, "scan"])]
      expect(checkScanConfig({ screensToInclude: screens })).toEqual(Either.right({ screensToInclude: screens }))
    }
  })
})

describe("the product operations' spellings", () => {
  it("garmentSKU in getFitIsProductSupported only, garmentSku in productInfo", () => {
    // The parameters as the document spells them: garmentSKU here, garmentSku in productInfo.
    const product = (names: ReadonlyArray<string>) => Object.fromEntries(names.map((n) => [n, n === "brandId" ? "acme" : "TEE-1"]))
    expect(checkIsProductSupportedParams(product(VENDOR.getFitIsProductSupported.parameters))).toEqual(Either.right({ brandId: "acme", garmentSKU: "TEE-1" }))
    expect(checkProductInfo([product(VENDOR.getFitSizeRecommendation.productInfo)])).toEqual(Either.right([{ brandId: "acme", garmentSku: "TEE-1" }]))
    expect(checkIsProductSupportedParams({ brandId: "acme", garmentSKU: "TEE-1" })).toEqual(Either.right({ brandId: "acme", garmentSKU: "TEE-1" }))
    expect(refusal(checkIsProductSupportedParams({ brandId: "acme", garmentSku: "TEE-1" })).message).toContain("this operation spells it garmentSKU")
    expect(checkProductInfo([{ brandId: "acme", garmentSku: "tee-1" }])).toEqual(Either.right([{ brandId: "acme", garmentSku: "tee-1" }]))
    expect(
      refusal(
        checkProductInfo([
          { brandId: "acme", garmentSku: "a" },
          { brandId: "acme", garmentSKU: "b" }
        ])
      ).path
    ).toEqual(["productInfo", 1, "garmentSKU"])
    expect(refusal(checkProductInfo([])).path).toEqual(["productInfo"])
  })

  it("take the estimation token as the result carries it, or bare", () => {
    // getFitTokenEstimation's one parameter is the token the size operations take first.
    expect(VENDOR.getFitTokenEstimation.parameters).toEqual(VENDOR.getFitSizeRecommendation.parameters.slice(0, 1))
    expect(checkEstimationToken({ token: "t-1" })).toEqual(Either.right({ token: "t-1" }))
    expect(checkEstimationToken("t-1")).toEqual(Either.right("t-1"))
    expect(refusal(checkEstimationToken({ token: "" })).path).toEqual(["estimationToken", "token"])
    expect(refusal(checkEstimationToken(undefined)).message).toContain("required")
    const size = { estimationToken: { token: "t-1" }, productInfo: [{ brandId: "acme", garmentSku: "tee-1" }] }
    expect(Object.keys(size)).toEqual(VENDOR.getFitSizeRecommendation.parameters)
    expect(checkSizeParams(size)).toEqual(Either.right(size))
    expect(refusal(checkSizeParams({ ...size, productInfo: [{ brandId: "acme", garmentSKU: "TEE-1" }] })).message).toContain("productInfo spells it garmentSku")
  })
})

describe("a scan into a fit photo estimation", () => {
  it("keeps the photos and gives the subject in the operation's units, for every human subject", () => {
    fc.assert(
      fc.property(humanStats(fc), (subject) => {
        const params = Either.getOrThrow(fitPhotoEstimationOf(SCAN, subject, { avatarType: "GLB" }))
        expect(params).toEqual({
          avatarType: "GLB",
          front: DATA_URL,
          side: DATA_URL,
          age: subject.age,
          gender: subject.gender,
          height: subject.heightMm,
          weight: subject.weightG
        })
      })
    )
  })

  it("refuses a photo that is not a JPEG and a subject in the wrong unit, by the operation's rules", () => {
    const subject = { age: 30, gender: "male" as const, heightMm: 1800, weightG: 80_000 }
    expect(refusal(fitPhotoEstimationOf({ ...SCAN, front: "data:image/png;base64,iVBORw0KGgo=" }, subject)).path).toEqual(["scan", "front"])
    expect(refusal(fitPhotoEstimationOf(SCAN, { ...subject, heightMm: 180 })).message).toContain("180 looks like centimetres (send 1800)")
  })
})
