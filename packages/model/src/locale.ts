/**
 * The vendor's locale codes (document 1, Hosted scanner options; document 3 takes the same codes
 * for the client library's `locale`), and a check that names the code a near miss meant.
 */
import { Either } from "effect"

/** Every locale the hosted scanner and the client library accept, as the document spells them. */
export const LOCALES = ["ar", "en", "es", "es-419", "fr", "hi-IN", "ja", "pt-BR", "tr", "vi", "zh-CN", "zh-HK", "zh-TW"] as const

export type Locale = (typeof LOCALES)[number]

const KNOWN: ReadonlySet<string> = new Set(LOCALES)

export const isLocale = (value: unknown): value is Locale => typeof value === "string" && KNOWN.has(value)

// `pt_br`, `PT-br`: compared by lower case, with `_` for `-`.
const fold = (code: string) => code.trim().toLowerCase().replaceAll("_", "-")

/**
 * The locales a code that is not one of them probably meant: the same code in another case or
 * with `_` (`pt_br`: `pt-BR`), or those of its language (`pt`: `pt-BR`; `zh`: `zh-CN`,
 * `zh-HK`, `zh-TW`; `en-US`: `en`). Empty when none is near.
 */
export const nearLocales = (code: string): ReadonlyArray<Locale> => {
  const folded = fold(code)
  const same = LOCALES.filter((l) => fold(l) === folded)
  if (same.length > 0) return same
  const language = folded.split("-")[0]!
  return language === "" ? [] : LOCALES.filter((l) => fold(l).split("-")[0] === language)
}

/** A locale, or why the value is not one (naming the near ones); `field` names it in the message. */
export const checkLocale = (value: unknown, field = "locale"): Either.Either<Locale, string> => {
  if (isLocale(value)) return Either.right(value)
  if (typeof value !== "string") return Either.left(`${field}: expected one of ${LOCALES.join(", ")}`)
  const near = nearLocales(value)
  const hint = near.length === 0 ? `expected one of ${LOCALES.join(", ")}` : `did you mean ${near.join(" or ")}?`
  return Either.left(`${field}: ${JSON.stringify(value.slice(0, 40))} is not a locale the vendor accepts; ${hint}`)
}
