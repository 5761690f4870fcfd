/** Markdown tables rendered from the catalogue in @scanbridge/model. */
import {
  GENDER_CODES,
  MEASUREMENTS,
  POSTURE_FRONT,
  POSTURE_RIGHT,
  SESSION_ANGLE_UNITS,
  STATS,
  WIRE_UNITS
} from "@scanbridge/model"

export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  [header, header.map(() => "---"), ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n")

export const code = (s: string | null): string => (s === null ? "(none)" : `\`${s}\``)

export const measurementTable = (): string =>
  table(
    ["canonical (platform)", "session enum (number)", "estimation key", "fit estimationType", "kind", "side", "ISO 8559-1"],
    MEASUREMENTS.map((e) => [
      code(e.name),
      `${code(e.session.name)} (${e.session.number})`,
      code(e.estimation),
      code(e.fit),
      e.kind,
      e.side,
      e.iso8559 ?? ""
    ])
  )

export const statTable = (): string =>
  table(
    ["session enum (number, unit)", "fit estimationType (unit)", "estimation key", "platform key", "canonical"],
    STATS.map((s) => [
      `${code(s.session.name)} (${s.session.number}, ${s.session.unit})`,
      s.fit === null ? "(none)" : `${code(s.fit.name)} (${s.fit.unit})`,
      code(s.estimation),
      code(s.platform),
      code(s.target)
    ])
  )

export const postureTable = (): string =>
  [
    table(
      ["front angle and line (canonical)", "session name", "landmark", "ISO 8559-1"],
      POSTURE_FRONT.map((p) => [code(p.name), code(p.session), p.landmark, p.iso8559 ?? ""])
    ),
    "",
    table(
      ["right line (canonical)", "session name", "points", "segment angles"],
      POSTURE_RIGHT.map((l) => [code(l.name), code(l.session), String(l.points), String(l.points - 1)])
    )
  ].join("\n")

const genderCodes = Object.entries(GENDER_CODES)
  .map(([gender, n]) => `${n} ${gender}`)
  .join(", ")

export const unitTable = (): string =>
  [
    table(
      ["quantity", "platform", "session", "fit"],
      [
        ["length", code(WIRE_UNITS.platform.length), code(WIRE_UNITS.session.length), code(WIRE_UNITS.fit.length)],
        ["mass", code(WIRE_UNITS.platform.mass), code(WIRE_UNITS.session.mass), code(WIRE_UNITS.fit.mass)],
        ["percentage", code(WIRE_UNITS.platform.percent), `${code(WIRE_UNITS.session.percentE4)} (percent x 10^4)`, "(none)"],
        ["age", "(unitless integer)", code(WIRE_UNITS.session.years), code(WIRE_UNITS.fit.years)],
        [
          "gender",
          Object.keys(GENDER_CODES).map(code).join(" / "),
          `${code(WIRE_UNITS.session.gender)} (${genderCodes})`,
          `${code(WIRE_UNITS.fit.gender)} (${genderCodes})`
        ],
        [
          "posture angle",
          [WIRE_UNITS.platform.angle, ...WIRE_UNITS.platform.angleAliases].map(code).join(" or "),
          SESSION_ANGLE_UNITS.map((u) => `${code(u.name)} (${u.number})`).join(", "),
          "(none)"
        ]
      ]
    ),
    "",
    `The estimation API states no unit for its measurements or body composition; the estimation adapter infers them per record. Session \`UnitType\` numbers other than ${code(WIRE_UNITS.session.unspecified.name)} (${WIRE_UNITS.session.unspecified.number}) are not given by the spec.`
  ].join("\n")
