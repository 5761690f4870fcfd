/**
 * Markdown tables rendered from the catalogue in @scanbridge/model and the adapters' dialects:
 * one column per dialect, so a dialect added to the list is a column more.
 */
import { type Dialect, GENDER_CODES, MEASUREMENTS, POSTURE_FRONT, POSTURE_RIGHT, STATS, type Spelling } from "@scanbridge/model"
import { type ColumnType, SCAN_COLUMNS, defaultNormalizer } from "@scanbridge/migrate"
import { FIT_UNITS } from "@scanbridge/fit"
import { PLATFORM_UNITS } from "@scanbridge/platform"
import { SESSION_ANGLE_UNITS, SESSION_UNITS } from "@scanbridge/session"

// The built-in adapters' dialects, in the collection's order.
const DIALECTS: ReadonlyArray<Dialect> = defaultNormalizer.adapters.flatMap((a) => (a.dialect === undefined ? [] : [a.dialect]))

export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  [header, header.map(() => "---"), ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n")

export const code = (s: string | null): string => (s === null ? "(none)" : `\`${s}\``)

/** A spelling with its enum number and unit where it has them: `WEIGHT` (3, GRAMS). */
const spelled = (s: Spelling | null): string => {
  if (s === null) return "(none)"
  const extra = [s.number, s.unit].filter((x) => x !== undefined)
  return extra.length === 0 ? code(s.name) : `${code(s.name)} (${extra.join(", ")})`
}

// A dialect that spells every measurement by its canonical name needs no column of its own.
const canonicallySpelled = (d: Dialect): boolean => MEASUREMENTS.every((e) => d.measurements[e.name]?.name === e.name)
const canonicalHeader = (dialects: ReadonlyArray<Dialect>): string => {
  const apis = dialects.filter(canonicallySpelled).map((d) => d.api)
  return apis.length === 0 ? "canonical" : `canonical (${apis.join(", ")})`
}

export const measurementTable = (dialects: ReadonlyArray<Dialect> = DIALECTS): string => {
  const own = dialects.filter((d) => !canonicallySpelled(d))
  return table(
    [canonicalHeader(dialects), ...own.map((d) => d.api), "kind", "side", "ISO 8559-1"],
    MEASUREMENTS.map((e) => [code(e.name), ...own.map((d) => spelled(d.measurements[e.name])), e.kind, e.side, e.iso8559 ?? ""])
  )
}

export const statTable = (dialects: ReadonlyArray<Dialect> = DIALECTS): string =>
  table(
    ["canonical", ...dialects.map((d) => d.api)],
    STATS.map((s) => [code(s.target), ...dialects.map((d) => spelled(d.stats[s.target]))])
  )

export const postureTable = (dialects: ReadonlyArray<Dialect> = DIALECTS): string => {
  const own = dialects.flatMap((d) => (d.posture === undefined || canonicallySpelled(d) ? [] : [{ api: d.api, posture: d.posture }]))
  const header = canonicalHeader(dialects.filter((d) => d.posture !== undefined))
  return [
    table(
      [`front angle and line, ${header}`, ...own.map((d) => d.api), "landmark", "ISO 8559-1"],
      POSTURE_FRONT.map((p) => [code(p.name), ...own.map((d) => code(d.posture.front[p.name])), p.landmark, p.iso8559 ?? ""])
    ),
    "",
    table(
      [`right line, ${header}`, ...own.map((d) => d.api), "points", "segment angles"],
      POSTURE_RIGHT.map((l) => [code(l.name), ...own.map((d) => code(d.posture.right[l.name])), String(l.points), String(l.points - 1)])
    )
  ].join("\n")
}

const genderCodes = Object.entries(GENDER_CODES)
  .map(([gender, n]) => `${n} ${gender}`)
  .join(", ")

export const unitTable = (): string =>
  [
    table(
      ["quantity", "platform", "session", "fit"],
      [
        ["length", code(PLATFORM_UNITS.length), code(SESSION_UNITS.length), code(FIT_UNITS.length)],
        ["mass", code(PLATFORM_UNITS.mass), code(SESSION_UNITS.mass), code(FIT_UNITS.mass)],
        ["percentage", code(PLATFORM_UNITS.percent), `${code(SESSION_UNITS.percentE4)} (percent x 10^4)`, "(none)"],
        ["age", "(unitless integer)", code(SESSION_UNITS.years), code(FIT_UNITS.years)],
        [
          "gender",
          Object.keys(GENDER_CODES).map(code).join(" / "),
          `${code(SESSION_UNITS.gender)} (${genderCodes})`,
          `${code(FIT_UNITS.gender)} (${genderCodes})`
        ],
        [
          "posture angle",
          [PLATFORM_UNITS.angle, ...PLATFORM_UNITS.angleAliases].map(code).join(" or "),
          SESSION_ANGLE_UNITS.map((u) => `${code(u.name)} (${u.number})`).join(", "),
          "(none)"
        ]
      ]
    ),
    "",
    `The estimation API states no unit for its measurements or body composition; the estimation adapter infers them per record. Session \`UnitType\` numbers other than ${code(SESSION_UNITS.unspecified.name)} (${SESSION_UNITS.unspecified.number}) are not given by the spec.`
  ].join("\n")

// How each column type is stored: in PostgreSQL, and read back from a CSV.
const STORED: Readonly<Record<ColumnType, string>> = {
  text: "text",
  integer: "integer",
  double: "double precision",
  timestamp: "timestamptz (CSV: ISO-8601 UTC)"
}

/** The analyst's table: every column of `SCAN_COLUMNS`, in order, with its type and unit. */
export const scanColumnTable = (): string =>
  table(
    ["#", "column", "type", "unit"],
    SCAN_COLUMNS.map((c, i) => [String(i + 1), code(c.name), STORED[c.type], c.unit ?? ""])
  )
