/**
 * The query of GET /gateway/v0/sessions/:ssid/scanner: the locale, and the subject's stats under
 * the widget's `userStats` names (document 2) so that the widget can pass on what the page gave
 * it. Read here into the hosted scanner's options, checked by the session package's widget rules
 * (whole numbers, one system's names only, human ranges).
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Either } from "effect"
import { type DisplayStats, type Stats, type SystemOfMeasurement, fromDisplayStats } from "@scanbridge/model"
import { unknownNames } from "@scanbridge/model/internal"
import { checkWidgetOptions } from "@scanbridge/session"

/** The query parameters the endpoint takes. */
export const SCANNER_PARAMETERS = ["locale", "systemOfMeasurement", "heightCm", "weightKg", "heightFt", "heightIn", "weightLbs", "age", "gender"] as const

const STATS = new Set<string>(SCANNER_PARAMETERS.slice(2))
const NUMBER = /^-?\d+(\.\d+)?$/

export interface ScannerQuery {
  readonly locale: string | undefined
  readonly systemOfMeasurement: SystemOfMeasurement
  /** Undefined when no stat is given: the scanner then shows its form. */
  readonly subject: Stats | undefined
}

/** The query read, or the refusal's message, naming the parameter. */
export const readScannerQuery = (request: HttpServerRequest.HttpServerRequest): Either.Either<ScannerQuery, string> => {
  const params = new URL(request.url, "http://gateway.invalid").searchParams
  const names = [...params.keys()]
  const unknown = unknownNames(
    "scanner request",
    "query parameter",
    names.filter((n) => !(SCANNER_PARAMETERS as ReadonlyArray<string>).includes(n))
  )
  if (unknown !== undefined) return Either.left(unknown)
  const twice = names.find((n, i) => names.indexOf(n) !== i)
  if (twice !== undefined) return Either.left(`scanner request: query parameter ${twice} given more than once`)
  const userStats: Record<string, unknown> = {}
  for (const [name, value] of params) if (STATS.has(name)) userStats[name] = name === "gender" || !NUMBER.test(value) ? value : Number(value)
  const given = Object.keys(userStats).length > 0
  const checked = checkWidgetOptions({
    ssid: "-",
    ...(params.has("systemOfMeasurement") ? { systemOfMeasurement: params.get("systemOfMeasurement") } : {}),
    ...(given ? { userStats } : {})
  })
  // The widget's messages name userStats.heightCm; here the parameter is heightCm.
  if (Either.isLeft(checked)) return Either.left(checked.left.message.replace(/^userStats\./, ""))
  const { systemOfMeasurement, userStats: stats } = checked.right
  return Either.right({
    locale: params.get("locale") ?? undefined,
    systemOfMeasurement,
    subject: stats === undefined ? undefined : fromDisplayStats(stats as DisplayStats)
  })
}
