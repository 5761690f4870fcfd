/**
 * The hosted scanner's address (document 1, Hosted scanner options): the screens the user sees,
 * in order, the locale, and the subject's stats that let the form be skipped. Checked here, so a
 * link that the scanner would refuse, or open on the wrong screens, is never handed out.
 *
 * Two things the document leaves out, and what Scanbridge does about them:
 * - The address's shape is "not shown". Scanbridge invents none: the caller gives it, with
 *   `{LOCALE}` where the locale goes (the document's `{LOCALE}` path parameter), for example
 *   `https://scanner.example.com/{LOCALE}/`.
 * - The names and units of the form's query parameters are not shown either. Scanbridge uses the
 *   document's own words, `height`, `weight`, `age`, `gender`, and `inches` on imperial, in the
 *   units the chosen system shows: centimetres and kilograms, or feet (`height`), inches and
 *   pounds, as whole numbers (model's `toDisplayStats`). Check them against the vendor's scanner
 *   before relying on the form being skipped.
 */
import { Either } from "effect"
import { type Stats, type SystemOfMeasurement, checkLocale, formatPath, toDisplayStats } from "@scanbridge/model"
import { type StatProblem, checkHumanStats, previewValue } from "@scanbridge/model/adapter"
import { PlatformInputError } from "./errors.js"

/** The screens the hosted scanner can show, as the document spells them. */
export const HOSTED_SCANNER_SCREENS = ["form", "how-to-scan", "can-hear-voice", "gyro-permission", "gyro", "scan", "result", "all"] as const

export type HostedScannerScreen = (typeof HOSTED_SCANNER_SCREENS)[number]

export interface HostedScannerOptions {
  /** The scanner's address, with `{LOCALE}` where the locale goes; may carry a query of its own. */
  readonly address: string
  /** One of the vendor's locales (model's `LOCALES`). */
  readonly locale: string
  /** The screens, in the order shown; default `all` (then no `screens` parameter is sent). */
  readonly screens?: ReadonlyArray<HostedScannerScreen>
  /** The subject's stats: sent as the form's parameters, so the scanner skips the form. */
  readonly subject?: Stats
  /** The units the stats are sent in; default `metric`. */
  readonly systemOfMeasurement?: SystemOfMeasurement
}

const KNOWN_SCREENS: ReadonlySet<string> = new Set(HOSTED_SCANNER_SCREENS)

const refuse = (path: ReadonlyArray<string | number>, value: unknown, message: string) =>
  Either.left(new PlatformInputError({ path, value, message: `${formatPath(path)}: ${message}` }))

/** The document's rules for `screens`, in its words: `scan` is mandatory, `gyro` must be preceded by `gyro-permission`, `all` stands alone, no screen twice. */
const checkScreens = (screens: ReadonlyArray<unknown>): Either.Either<ReadonlyArray<HostedScannerScreen>, PlatformInputError> => {
  if (screens.length === 0) return refuse(["screens"], screens, "empty; scan is mandatory (leave screens out for all)")
  const seen = new Map<string, number>()
  for (let i = 0; i < screens.length; i++) {
    const screen = screens[i]
    if (typeof screen !== "string" || !KNOWN_SCREENS.has(screen)) {
      return refuse(["screens", i], screen, `${previewValue(screen)} is not a screen; expected one of ${HOSTED_SCANNER_SCREENS.join(", ")}`)
    }
    const first = seen.get(screen)
    if (first !== undefined) return refuse(["screens", i], screen, `"${screen}" is already screens[${first}]; a screen is shown once`)
    seen.set(screen, i)
  }
  const list = screens as ReadonlyArray<HostedScannerScreen>
  if (seen.has("all") && list.length > 1) return refuse(["screens"], list, `"all" stands alone, not with ${list.filter((s) => s !== "all").join(", ")}`)
  if (!seen.has("all") && !seen.has("scan")) return refuse(["screens"], list, "scan is mandatory")
  const gyro = seen.get("gyro")
  const permission = seen.get("gyro-permission")
  if (gyro !== undefined && (permission === undefined || permission > gyro)) {
    return refuse(["screens", gyro], "gyro", "gyro must be preceded by gyro-permission")
  }
  return Either.right(list)
}

const statProblem = (problem: StatProblem) =>
  new PlatformInputError({ path: ["subject", ...problem.path], value: problem.value, message: `subject.${problem.message}` })

/** The form's query parameters for these stats, in `system`'s units (see above). */
const formParameters = (subject: Stats, system: SystemOfMeasurement): ReadonlyArray<readonly [string, string]> => {
  const common = [
    ["age", String(subject.age)],
    ["gender", subject.gender]
  ] as const
  if (system === "metric") {
    const shown = toDisplayStats(subject, "metric")
    return [["height", String(shown.heightCm)], ["weight", String(shown.weightKg)], ...common]
  }
  const shown = toDisplayStats(subject, "imperial")
  return [["height", String(shown.heightFt)], ["inches", String(shown.heightIn)], ["weight", String(shown.weightLbs)], ...common]
}

/**
 * The hosted scanner's address for these options, or a `PlatformInputError` naming the option
 * and what is wrong with it (a locale's near miss: `pt` is `pt-BR`).
 */
export const hostedScannerUrl = (options: HostedScannerOptions): Either.Either<string, PlatformInputError> => {
  const locale = checkLocale(options.locale)
  // checkLocale's message names the field already.
  if (Either.isLeft(locale)) return Either.left(new PlatformInputError({ path: ["locale"], value: options.locale, message: locale.left }))
  const system = options.systemOfMeasurement ?? "metric"
  if (system !== "metric" && system !== "imperial") return refuse(["systemOfMeasurement"], system, `${previewValue(system)}; expected metric or imperial`)
  const screens = options.screens === undefined ? Either.right(undefined) : checkScreens(options.screens)
  if (Either.isLeft(screens)) return Either.left(screens.left)
  const listed = screens.right
  const subject = options.subject
  if (subject !== undefined) {
    const checked = checkHumanStats(subject)
    if (Either.isLeft(checked)) return Either.left(statProblem(checked.left))
    if (listed?.includes("form")) {
      return refuse(["screens"], listed, "form is listed, but a subject's stats skip it; leave form out, or give no subject")
    }
  } else if (listed !== undefined && !listed.includes("form") && !listed.includes("all")) {
    return refuse(["subject"], undefined, "the screens leave out form, so the scanner needs the stats the form would ask for (height, weight, age, gender)")
  }

  const template = options.address
  const at = typeof template === "string" ? template.indexOf("{LOCALE}") : -1
  if (at < 0 || template.indexOf("{LOCALE}", at + 1) >= 0) {
    return refuse(
      ["address"],
      template,
      `${previewValue(template)} must hold {LOCALE} once, where the locale goes (the scanner's address is the caller's: the document does not show it)`
    )
  }
  let url: URL
  try {
    url = new URL(template.replace("{LOCALE}", locale.right))
  } catch {
    return refuse(["address"], template, `${previewValue(template)} is not an absolute URL`)
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return refuse(["address"], template, `${previewValue(template)}: expected https (or http)`)

  const parameters: Array<readonly [string, string]> = []
  if (subject !== undefined) parameters.push(...formParameters(subject, system))
  for (const name of [...(listed === undefined ? [] : ["screens"]), ...parameters.map(([n]) => n)]) {
    if (url.searchParams.has(name)) return refuse(["address"], template, `its query already has ${name}, which the options set`)
  }
  // The screens' commas as they are (the document's list is comma-separated; every name is URL-safe).
  const query = [
    ...(listed === undefined ? [] : [`screens=${listed.join(",")}`]),
    ...parameters.map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
  ].join("&")
  if (query !== "") url.search = url.search === "" ? `?${query}` : `${url.search}&${query}`
  return Either.right(url.href)
}
