/**
 * The options of the vendor's scanning widget (document 2, Widget: `new
 * BodygramScanningWidget(containerId, options)`), built from a session id and a canonical subject,
 * and checked against the document's rules before a page hands them to the widget: `ssid`
 * required, `systemOfMeasurement` metric (default) or imperial, `userStats` in that system's
 * units only, with the clients' human ranges and unit-mistake hints. `onResult`'s payload is read
 * by the session adapter, so a page gets a canonical scan or a `DecodeError`, never raw JSON.
 *
 * What the document leaves out, and what Scanbridge does:
 * - Whether `userStats` takes fractions: not shown. Every figure is a whole number of its unit
 *   (model's `toDisplayStats`: 1720 mm is 5 ft 8 in, not 5 ft 7.7 in); a fraction given here is
 *   refused with the whole number to send, rather than left for the widget to refuse on opening.
 * - The error object given to `onError`: not shown. It arrives as a `SessionWidgetError` whose
 *   message is the object's `message` where it has one, and which keeps the object itself.
 *
 * No code is generated on this path (the options' checks are plain functions), so it runs under
 * a strict Content-Security-Policy; decoding `onResult`'s payload uses the adapter's guards, for
 * which such a page calls `Codegen.configure({ jitless: true })` first (docs/front-end.md).
 */
import { Either, Schema } from "effect"
import {
  type DecodeError,
  type DisplayStats,
  GRAMS_PER_POUND,
  HUMAN_RANGES,
  MM_PER_INCH,
  type Range,
  type ImperialDisplayStats,
  type MetricDisplayStats,
  type Scan,
  type Stats,
  type SystemOfMeasurement,
  formatPath,
  isRecord,
  toDisplayStats
} from "@scanbridge/model"
import { type UnitMistake, checkHumanStats, unitMistakeHint, previewKey, previewValue } from "@scanbridge/model/adapter"
import { decodeResultsEither } from "./codec.js"
import { SessionInputError } from "./errors.js"

/** The error object the widget gave `onError`, whatever its shape (the document does not show it). */
export class SessionWidgetError extends Schema.TaggedError<SessionWidgetError>("@scanbridge/session/SessionWidgetError")("SessionWidgetError", {
  message: Schema.String,
  /** What the widget passed, as it was. */
  error: Schema.Unknown
}) {
  static of(error: unknown): SessionWidgetError {
    const message =
      typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
        ? error.message
        : `the scanning widget reported ${previewValue(error)}`
    return new SessionWidgetError({ message, error })
  }
}

/** The options object the widget's constructor takes, as the document lists it. */
export interface WidgetOptions {
  readonly ssid: string
  readonly systemOfMeasurement: SystemOfMeasurement
  readonly os?: string
  readonly version?: string
  readonly userStats?: MetricDisplayStats | ImperialDisplayStats
  readonly onLoad?: () => void
  readonly onResult?: (result: unknown) => void
  readonly onError?: (error: unknown) => void
}

/** What `widgetOptions` builds the widget's options from. */
export interface WidgetSettings {
  /** The session id, from `SessionClient.createSession`. */
  readonly ssid: string
  /** Default `metric`. */
  readonly systemOfMeasurement?: SystemOfMeasurement
  /** Inferred from the user agent when left out (the widget's default). */
  readonly os?: string
  readonly version?: string
  /** The subject, in canonical units: the widget's form opens filled in, in the chosen system. */
  readonly subject?: Stats
  readonly onLoad?: () => void
  /** The widget's result, read as the session API's results: a canonical scan, or why not. */
  readonly onResult?: (result: Either.Either<Scan, DecodeError>) => void
  readonly onError?: (error: SessionWidgetError) => void
}

type Refusal = Either.Either<never, SessionInputError>

const refuse = (path: ReadonlyArray<string | number>, value: unknown, message: string): Refusal =>
  Either.left(new SessionInputError({ path, value, message: `${formatPath(path)}: ${message}` }))

const METRIC_KEYS = ["heightCm", "weightKg", "age", "gender"] as const
const IMPERIAL_KEYS = ["heightFt", "heightIn", "weightLbs", "age", "gender"] as const

interface DisplayField {
  readonly unit: string
  /** The human range in this field's unit: the canonical one, shown as `toDisplayStats` shows it (rounded). */
  readonly range: Range
  /** Units people send instead, with what one of them is in this field's unit. */
  readonly mistakes: ReadonlyArray<UnitMistake>
}

/** A canonical range in a display unit of `perUnit` canonical units, rounded as the display rounds. */
const shownRange = (range: Range, perUnit: number): Range => ({ min: Math.round(range.min / perUnit), max: Math.round(range.max / perUnit) })

const ANY: Range = { min: 0, max: Number.POSITIVE_INFINITY }

const FIELDS: Record<string, DisplayField> = {
  heightCm: {
    unit: "cm",
    range: shownRange(HUMAN_RANGES.heightMm, 10),
    mistakes: [
      { unit: "metres", factor: 100 },
      { unit: "millimetres", factor: 0.1 },
      { unit: "inches", factor: MM_PER_INCH / 10 }
    ]
  },
  weightKg: {
    unit: "kg",
    range: shownRange(HUMAN_RANGES.weightG, 1000),
    mistakes: [
      { unit: "grams", factor: 0.001 },
      { unit: "pounds", factor: GRAMS_PER_POUND / 1000 }
    ]
  },
  // Checked with heightIn, as the total height (below).
  heightFt: { unit: "ft", range: ANY, mistakes: [] },
  heightIn: { unit: "in", range: ANY, mistakes: [] },
  weightLbs: {
    unit: "lb",
    range: shownRange(HUMAN_RANGES.weightG, GRAMS_PER_POUND),
    mistakes: [
      { unit: "kilograms", factor: 1000 / GRAMS_PER_POUND },
      { unit: "grams", factor: 1 / GRAMS_PER_POUND }
    ]
  },
  age: { unit: "years", range: HUMAN_RANGES.age, mistakes: [] }
}
const HEIGHT_INCHES = shownRange(HUMAN_RANGES.heightMm, MM_PER_INCH)

const inRange = (v: number, r: Range) => v >= r.min && v <= r.max

/** A display field outside the human range: the range in the field's unit, and the unit the value probably was in. */
const outOfRange = (value: number, field: DisplayField): string =>
  `${value} is outside the human range ${field.range.min}-${field.range.max} ${field.unit}${unitMistakeHint(value, field.range, field.mistakes)}`

/** `userStats` in `system`'s units: that system's keys only, a human subject, whole numbers. */
const checkUserStats = (value: unknown, system: SystemOfMeasurement): Either.Either<DisplayStats, SessionInputError> => {
  if (!isRecord(value)) return refuse(["userStats"], value, `expected an object, not ${previewValue(value)}`)
  const keys: ReadonlyArray<string> = system === "metric" ? METRIC_KEYS : IMPERIAL_KEYS
  const other: ReadonlyArray<string> = system === "metric" ? IMPERIAL_KEYS : METRIC_KEYS
  const record = value
  for (const key of Object.keys(record)) {
    if (keys.includes(key)) continue
    const hint = other.includes(key)
      ? `, which is ${system === "metric" ? "imperial" : "metric"}: the stats must be in the system of measurement (${system})`
      : ""
    return refuse(["userStats", previewKey(key)], record[key], `not a ${system} stat${hint}; expected ${keys.join(", ")}`)
  }
  for (const key of keys) {
    const v = record[key]
    if (key === "gender") {
      if (v !== "male" && v !== "female") return refuse(["userStats", key], v, `expected male or female, not ${previewValue(v)}`)
      continue
    }
    const field = FIELDS[key]!
    if (typeof v !== "number" || !Number.isFinite(v)) return refuse(["userStats", key], v, `expected a number of ${field.unit}, not ${previewValue(v)}`)
    if (!inRange(v, field.range)) return refuse(["userStats", key], v, outOfRange(v, field))
    if (!Number.isInteger(v)) return refuse(["userStats", key], v, `expected a whole number of ${field.unit}; send ${Math.round(v)}`)
  }
  if (system === "imperial") {
    const inches = record.heightIn as number
    if (inches > 11) return refuse(["userStats", "heightIn"], inches, "expected 0 to 11: the inches beyond heightFt")
    const total = (record.heightFt as number) * 12 + inches
    if (!inRange(total, HEIGHT_INCHES)) {
      return refuse(
        ["userStats", "heightFt"],
        record.heightFt,
        `${record.heightFt as number} ft ${inches} in (${total} in) is outside the human range ${HEIGHT_INCHES.min}-${HEIGHT_INCHES.max} in`
      )
    }
  }
  return Either.right(record as unknown as DisplayStats)
}

const isFunction = (value: unknown): value is (...args: ReadonlyArray<unknown>) => unknown => typeof value === "function"

/**
 * Checks an options object for the widget against the document's rules (a page's own, or one
 * `widgetOptions` built): `ssid` a non-empty string, `systemOfMeasurement` metric or imperial,
 * `os` and `version` strings, `userStats` in the chosen system, the callbacks functions.
 */
export const checkWidgetOptions = (options: unknown): Either.Either<WidgetOptions, SessionInputError> => {
  if (!isRecord(options)) return refuse(["options"], options, `expected an object, not ${previewValue(options)}`)
  const o = options
  if (typeof o.ssid !== "string" || o.ssid.trim() === "") return refuse(["ssid"], o.ssid, "required: the session id from create-session")
  const system = o.systemOfMeasurement ?? "metric"
  if (system !== "metric" && system !== "imperial") return refuse(["systemOfMeasurement"], system, `expected metric or imperial, not ${previewValue(system)}`)
  for (const key of ["os", "version"] as const) {
    if (o[key] !== undefined && typeof o[key] !== "string") return refuse([key], o[key], `expected a string, not ${previewValue(o[key])}`)
  }
  if (o.userStats !== undefined) {
    const stats = checkUserStats(o.userStats, system)
    if (Either.isLeft(stats)) return Either.left(stats.left)
  }
  for (const key of ["onLoad", "onResult", "onError"] as const) {
    if (o[key] !== undefined && !isFunction(o[key])) return refuse([key], o[key], `expected a function, not ${previewValue(o[key])}`)
  }
  return Either.right({ ...o, systemOfMeasurement: system } as WidgetOptions)
}

/**
 * The widget's options for a session: the subject's stats converted to the chosen system (whole
 * numbers, see above), the result decoded by the session adapter, the error object wrapped. A
 * subject outside the human ranges is refused with the unit it probably was in.
 */
export const widgetOptions = (settings: WidgetSettings): Either.Either<WidgetOptions, SessionInputError> => {
  const system = settings.systemOfMeasurement ?? "metric"
  let userStats: DisplayStats | undefined
  if (settings.subject !== undefined) {
    const checked = checkHumanStats(settings.subject)
    if (Either.isLeft(checked)) {
      const problem = checked.left
      // checkHumanStats's message names the field already.
      return Either.left(new SessionInputError({ path: ["subject", ...problem.path], value: problem.value, message: `subject.${problem.message}` }))
    }
    if (system === "metric" || system === "imperial") userStats = toDisplayStats(settings.subject, system)
  }
  const { onError, onLoad, onResult } = settings
  return checkWidgetOptions({
    ssid: settings.ssid,
    systemOfMeasurement: system,
    ...(settings.os === undefined ? {} : { os: settings.os }),
    ...(settings.version === undefined ? {} : { version: settings.version }),
    ...(userStats === undefined ? {} : { userStats }),
    ...(onLoad === undefined ? {} : { onLoad }),
    ...(onResult === undefined ? {} : { onResult: (result: unknown) => onResult(decodeResultsEither(result)) }),
    ...(onError === undefined ? {} : { onError: (error: unknown) => onError(SessionWidgetError.of(error)) })
  })
}
