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
 * The milliseconds from the epoch of the wall-clock `YYYY-MM-DDTHH:MM:SS` that begins `s`, read
 * as UTC (its separators are the caller's to check); NaN when a field is not digits or out of
 * range (February 30th, hour 24). Both timestamp readers (scan.ts, proto3.ts) start here.
 */
export const wallClockMillis = (s: string): number => {
  const year = digitsAt(s, 0, 4)
  const month = digitsAt(s, 5, 2)
  const day = digitsAt(s, 8, 2)
  const hour = digitsAt(s, 11, 2)
  const minute = digitsAt(s, 14, 2)
  const second = digitsAt(s, 17, 2)
  if (year < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || !isCalendarDay(year, month, day)) return NaN
  return daysFromCivil(year, month, day) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000
}

const two = (n: number): string => (n < 10 ? "0" + n : "" + n)

/**
 * `new Date(ms).toISOString()` without the Date: by arithmetic (civil_from_days) for an
 * integer `ms` of the years 0000-9999, through the Date otherwise (six-digit years, NaN's throw).
 */
export const utcTimestampOfMillis = (ms: number): string => {
  if (!(ms >= FOUR_DIGIT_YEARS_MS.min && ms <= FOUR_DIGIT_YEARS_MS.max) || !Number.isInteger(ms)) return new Date(ms).toISOString()
  const days = Math.floor(ms / DAY_MS)
  let rest = ms - days * DAY_MS
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0)
  const hour = Math.floor(rest / 3_600_000)
  rest -= hour * 3_600_000
  const minute = Math.floor(rest / 60_000)
  rest -= minute * 60_000
  const second = Math.floor(rest / 1000)
  const milli = rest - second * 1000
  const y = year < 10 ? "000" + year : year < 100 ? "00" + year : year < 1000 ? "0" + year : "" + year
  const m = milli < 10 ? "00" + milli : milli < 100 ? "0" + milli : "" + milli
  return y + "-" + two(month) + "-" + two(day) + "T" + two(hour) + ":" + two(minute) + ":" + two(second) + "." + m + "Z"
}
