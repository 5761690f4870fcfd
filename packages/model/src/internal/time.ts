/**
 * Instants as numbers, for the per-record path: reading RFC 3339 fields and printing
 * `Date.prototype.toISOString()`'s form by arithmetic. A Date costs a runtime call for each
 * setter and getter (Node 20): `parseTimestamp` made four, and `toISOString` one, per timestamp.
 * Property tests hold these to what the Date methods answer.
 */

const DAY_MS = 86_400_000
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** The earliest and latest instants toISOString prints with a four-digit year (0000-9999). */
export const FOUR_DIGIT_YEARS_MS = { min: -62_167_219_200_000, max: 253_402_300_799_999 } as const

/** The two digits at s[at, at + 2) as a number; -1 where one is not a digit. Unrolled: most fields are two digits. */
const twoDigitsAt = (s: string, at: number): number => {
  const a = s.charCodeAt(at) - 48
  const b = s.charCodeAt(at + 1) - 48
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1
}

/** The digits at s[at, at + length) as a number; -1 where one is not a digit. */
export const digitsAt = (s: string, at: number, length: number): number => {
  let v = 0
  for (let i = at; i < at + length; i++) {
    const d = s.charCodeAt(i) - 48
    if (d < 0 || d > 9) return -1
    v = v * 10 + d
  }
  return v
}

/** Whether `day` exists in `month` (1-12) of the proleptic Gregorian `year`. */
export const isCalendarDay = (year: number, month: number, day: number): boolean => {
  if (month < 1 || month > 12 || day < 1) return false
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return day <= (month === 2 && !leap ? 28 : MONTH_DAYS[month - 1]!)
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468
}

/**
 * Whether `s` begins with a wall clock `YYYY-MM-DDTHH:MM:SS` that is one: every field digits and
 * in range (no February 30th, no hour 24). Its separators are the caller's to check.
 */
export const isWallClock = (s: string): boolean => {
  const hour = twoDigitsAt(s, 11)
  const minute = twoDigitsAt(s, 14)
  const second = twoDigitsAt(s, 17)
  const year = digitsAt(s, 0, 4)
  return (
    hour >= 0 &&
    hour <= 23 &&
    minute >= 0 &&
    minute <= 59 &&
    second >= 0 &&
    second <= 59 &&
    year >= 0 &&
    isCalendarDay(year, twoDigitsAt(s, 5), twoDigitsAt(s, 8))
  )
}

/**
 * The milliseconds from the epoch of the wall-clock `YYYY-MM-DDTHH:MM:SS` that begins `s`, read
 * as UTC (its separators are the caller's to check); NaN where it is none (`isWallClock`). Both
 * timestamp readers (scan.ts, proto3.ts) start here.
 */
export const wallClockMillis = (s: string): number => {
  if (!isWallClock(s)) return Number.NaN
  const day = daysFromCivil(digitsAt(s, 0, 4), twoDigitsAt(s, 5), twoDigitsAt(s, 8))
  return day * DAY_MS + ((twoDigitsAt(s, 11) * 60 + twoDigitsAt(s, 14)) * 60 + twoDigitsAt(s, 17)) * 1000
}

// Fields by value, so one is printed by a lookup, not a number's conversion and a pad.
const PADDED_2 = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, "0"))
const MILLIS_Z = Array.from({ length: 1000 }, (_, n) => `.${String(n).padStart(3, "0")}Z`)

// The last minute printed and its `YYYY-MM-DDTHH:MM:`, and the same of its day: most timestamps
// of a bulk migration fall on the day, many in the minute, of the one before.
let lastMinute = Number.NaN
let minutePrefix = ""
let lastDay = Number.NaN
let dayPrefix = ""

/**
 * `new Date(ms).toISOString()` without the Date: by arithmetic (civil_from_days) for an
 * integer `ms` of the years 0000-9999, through the Date otherwise (six-digit years, NaN's throw).
 */
export const utcTimestampOfMillis = (ms: number): string => {
  if (!(ms >= FOUR_DIGIT_YEARS_MS.min && ms <= FOUR_DIGIT_YEARS_MS.max) || !Number.isInteger(ms)) return new Date(ms).toISOString()
  const minutes = Math.floor(ms / 60_000)
  if (minutes !== lastMinute) {
    const days = Math.floor(minutes / 1440)
    if (days !== lastDay) {
      dayPrefix = datePrefix(days)
      lastDay = days
    }
    const minuteOfDay = minutes - days * 1440
    const hour = Math.floor(minuteOfDay / 60)
    minutePrefix = dayPrefix + PADDED_2[hour]! + ":" + PADDED_2[minuteOfDay - hour * 60]! + ":"
    lastMinute = minutes
  }
  const millis = ms - minutes * 60_000
  const second = Math.floor(millis / 1000)
  return minutePrefix + PADDED_2[second]! + MILLIS_Z[millis - second * 1000]!
}

/** `YYYY-MM-DDT` of a day from 1970-01-01 in the years 0000-9999 (H. Hinnant's civil_from_days). */
const datePrefix = (days: number): string => {
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0)
  return String(year).padStart(4, "0") + "-" + PADDED_2[month]! + "-" + PADDED_2[day]! + "T"
}
