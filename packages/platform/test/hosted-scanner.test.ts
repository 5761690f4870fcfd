/**
 * The hosted scanner's address, against document 1's "Hosted scanner options" (transcribed in
 * vendor/hosted-scanner.json): the screens and their rules, the locales, the form's skip rule.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import { LOCALES, type Stats, toDisplayStats } from "@scanbridge/model"
import { humanStats } from "@scanbridge/model/internal"
import { HOSTED_SCANNER_SCREENS, type HostedScannerOptions, type HostedScannerScreen, hostedScannerUrl } from "../src/index.js"

const VENDOR: {
  readonly screens: ReadonlyArray<string>
  readonly default: string
  readonly mandatory: string
  readonly mustBePrecededBy: Readonly<Record<string, string>>
  readonly formSkippedByQuery: ReadonlyArray<string>
  readonly formSkippedByQueryOnImperialAlso: ReadonlyArray<string>
} = JSON.parse(readFileSync(new URL("vendor/hosted-scanner.json", import.meta.url), "utf8"))
const ADDRESS = "https://scanner.example.com/{LOCALE}/start"
const SUBJECT: Stats = { age: 34, gender: "male", heightMm: 1755, weightG: 72_400 }

const url = (options: Partial<HostedScannerOptions>) => hostedScannerUrl({ address: ADDRESS, locale: "en", ...options })
const refusal = (options: Partial<HostedScannerOptions>) => {
  const built = url(options)
  if (Either.isRight(built)) throw new Error(`expected a refusal, got ${built.right}`)
  return built.left
}

describe("hostedScannerUrl", () => {
  it("knows the document's screens, spelled as it spells them", () => {
    expect(new Set(VENDOR.screens)).toEqual(new Set(HOSTED_SCANNER_SCREENS))
    expect(HOSTED_SCANNER_SCREENS).toHaveLength(VENDOR.screens.length)
  })

  it("puts the locale where the caller's address says, and sends no screens for the default (all)", () => {
    expect(url({ locale: "pt-BR" })).toEqual(Either.right("https://scanner.example.com/pt-BR/start"))
    expect(url({ screens: ["form", "how-to-scan", "scan", "result"] })).toEqual(
      Either.right("https://scanner.example.com/en/start?screens=form,how-to-scan,scan,result")
    )
    expect(url({ screens: ["all"] })).toEqual(Either.right("https://scanner.example.com/en/start?screens=all"))
    // A query of the caller's own is kept.
    expect(hostedScannerUrl({ address: "https://s.example/{LOCALE}?brand=acme", locale: "ja", screens: ["scan"], subject: SUBJECT })).toEqual(
      Either.right("https://s.example/ja?brand=acme&screens=scan&height=176&weight=72&age=34&gender=male")
    )
  })

  it("refuses what the document rules out: no scan, gyro before gyro-permission, all with others, a screen twice", () => {
    expect(refusal({ screens: ["how-to-scan", "result"] }).message).toBe("screens: scan is mandatory")
    expect(refusal({ screens: [] }).message).toContain("scan is mandatory")
    expect(refusal({ screens: ["gyro", "gyro-permission", "scan"] }).message).toBe("screens[0]: gyro must be preceded by gyro-permission")
    expect(refusal({ screens: ["scan", "gyro"] }).path).toEqual(["screens", 1])
    expect(refusal({ screens: ["all", "scan"] }).message).toBe('screens: "all" stands alone, not with scan')
    expect(refusal({ screens: ["scan", "result", "scan"] }).message).toBe('screens[2]: "scan" is already screens[0]; a screen is shown once')
    expect(refusal({ screens: ["scan", "results" as HostedScannerScreen] }).message).toContain('screens[1]: "results" is not a screen')
    expect(Either.isRight(url({ screens: ["form", "gyro-permission", "how-to-scan", "gyro", "scan"] }))).toBe(true)
  })

  it("accepts every order of distinct screens that keeps the rules, and refuses every other", () => {
    const screens = fc.uniqueArray(fc.constantFrom(...HOSTED_SCANNER_SCREENS), { minLength: 1 })
    fc.assert(
      fc.property(screens, (list) => {
        // The document's rules, as transcribed: the default stands alone, the mandatory screen is there, each ordered pair in order.
        const names: ReadonlyArray<string> = list
        const all = names.includes(VENDOR.default)
        const ordered = Object.entries(VENDOR.mustBePrecededBy).every(([screen, before]) => {
          const at = names.indexOf(screen)
          return at < 0 || (names.indexOf(before) >= 0 && names.indexOf(before) < at)
        })
        const valid = (all ? list.length === 1 : names.includes(VENDOR.mandatory)) && ordered
        // Without form, the form's stats must be given; with it, they must not.
        const built = url({ screens: list, ...(all || list.includes("form") ? {} : { subject: SUBJECT }) })
        expect(Either.isRight(built)).toBe(valid)
        if (Either.isRight(built)) expect(new URL(built.right).searchParams.get("screens")).toBe(list.join(","))
      })
    )
  })

  it("takes the 13 locales and names the near one for a miss", () => {
    for (const locale of LOCALES) expect(Either.isRight(url({ locale }))).toBe(true)
    expect(refusal({ locale: "pt" }).message).toBe('locale: "pt" is not a locale the vendor accepts; did you mean pt-BR?')
    expect(refusal({ locale: "zh" }).message).toContain("did you mean zh-CN or zh-HK or zh-TW?")
  })

  it("skips the form with the stats as query parameters, in the chosen system's units, inches on imperial", () => {
    const metric = new URL(Either.getOrThrow(url({ subject: SUBJECT })))
    expect(Object.fromEntries(metric.searchParams)).toEqual({ height: "176", weight: "72", age: "34", gender: "male" })
    expect(new Set(metric.searchParams.keys())).toEqual(new Set(VENDOR.formSkippedByQuery))
    const imperial = new URL(Either.getOrThrow(url({ subject: SUBJECT, systemOfMeasurement: "imperial" })))
    // 1755 mm is 69.1 in: 5 ft 9 in; 72.4 kg is 159.6 lb.
    expect(Object.fromEntries(imperial.searchParams)).toEqual({ height: "5", inches: "9", weight: "160", age: "34", gender: "male" })
    expect(new Set(imperial.searchParams.keys())).toEqual(new Set([...VENDOR.formSkippedByQuery, ...VENDOR.formSkippedByQueryOnImperialAlso]))
    // Screens that leave out form need the stats; a listed form and stats contradict each other.
    expect(refusal({ screens: ["scan"] }).path).toEqual(["subject"])
    expect(refusal({ screens: ["form", "scan"], subject: SUBJECT }).message).toContain("form is listed, but a subject's stats skip it")
  })

  it("sends the stats the display conversion gives, for every human subject", () => {
    fc.assert(
      fc.property(humanStats(fc), fc.constantFrom("metric" as const, "imperial" as const), (subject, system) => {
        const query = new URL(Either.getOrThrow(url({ subject, systemOfMeasurement: system }))).searchParams
        const shown = toDisplayStats(subject, system)
        const expected =
          "heightCm" in shown ? { height: shown.heightCm, weight: shown.weightKg } : { height: shown.heightFt, inches: shown.heightIn, weight: shown.weightLbs }
        expect(Object.fromEntries(query)).toEqual({
          ...Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, String(v)])),
          age: String(subject.age),
          gender: subject.gender
        })
      })
    )
  })

  it("refuses a subject outside the human ranges with the unit it probably was in, and an address it cannot use", () => {
    const cm = refusal({ subject: { ...SUBJECT, heightMm: 175 } })
    expect(cm.path).toEqual(["subject", "heightMm"])
    expect(cm.message).toContain("175 looks like centimetres (send 1750)")
    expect(refusal({ address: "https://scanner.example.com/start" }).message).toContain("must hold {LOCALE} once")
    expect(refusal({ address: "/{LOCALE}/relative" }).message).toContain("is not an absolute URL")
    expect(refusal({ address: "ftp://scanner.example.com/{LOCALE}" }).message).toContain("expected https")
    expect(refusal({ address: "https://s.example/{LOCALE}?screens=all", screens: ["scan"], subject: SUBJECT }).message).toContain("already has screens")
    // A hostile address is named by a preview, whatever its size.
    expect(refusal({ address: "x".repeat(1_000_000) }).message.length).toBeLessThan(300)
  })
})
