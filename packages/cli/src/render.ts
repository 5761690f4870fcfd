/**
 * Text the command prints: scan tables, diffs and the migration summary. Plain strings, so the
 * same rendering serves a terminal, a pipe and a test.
 */
import { Catalogue, type MeasurementName, type Scan, mmToCm, mmToInches, round } from "@scanbridge/model"
import { table } from "@scanbridge/migrate"

const cm = (mm: number) => round(mmToCm(mm as never), 1).toFixed(1)
const inches = (mm: number) => round(mmToInches(mm as never), 2).toFixed(2)

/** One scan, readably: who, what, every measurement in cm and inches, and its notes. */
export const renderScan = (scan: Scan): string => {
  const s = scan.subject
  const head = [
    `${scan.source.api} ${scan.source.id ?? "(no id)"}: ${scan.status}${scan.method === null ? "" : `, ${scan.method}`}${scan.createdAt === null ? "" : `, ${scan.createdAt}`}`,
    `subject: ${s.gender ?? "?"}, ${s.age ?? "?"} y, ${s.heightMm === null ? "?" : `${cm(s.heightMm)} cm`}, ${s.weightG === null ? "?" : `${s.weightG / 1000} kg`}`
  ]
  if (scan.failure !== null)
    head.push(`failure: ${scan.failure.code} (${scan.failure.category})${scan.failure.message === null ? "" : `: ${scan.failure.message}`}`)
  if (scan.expiresAt !== null) head.push(`expires: ${scan.expiresAt}`)
  const c = scan.composition
  if (c !== null)
    head.push(
      `composition: body fat ${c.bodyFatPercent ?? "?"} %, skeletal muscle ${c.skeletalMuscleMassG === null ? "?" : `${c.skeletalMuscleMassG / 1000} kg`}`
    )
  const rows = Catalogue.measurements.flatMap((e) => {
    const mm = scan.measurementsMm[e.name]
    return mm === undefined ? [] : [[e.name, mm, cm(mm), inches(mm)]]
  })
  const parts = [head.join("\n")]
  if (rows.length > 0) parts.push(table(["measurement", "mm", "cm", "in"], rows))
  if (scan.notes.length > 0) parts.push(["notes:", ...scan.notes.map((n) => `  ${n.kind} ${n.path}: ${n.detail}`)].join("\n"))
  return parts.join("\n\n")
}

export interface Difference {
  readonly name: MeasurementName
  readonly a: number
  readonly b: number
  /** b - a, in mm. */
  readonly delta: number
  /** (b - a) / a in percent; null when a is 0. */
  readonly percent: number | null
}

/** The measurements two scans share, largest absolute difference first. */
export const differences = (a: Scan, b: Scan): ReadonlyArray<Difference> =>
  Catalogue.measurements
    .flatMap((e) => {
      const x = a.measurementsMm[e.name]
      const y = b.measurementsMm[e.name]
      return x === undefined || y === undefined
        ? []
        : [{ name: e.name, a: x, b: y, delta: round(y - x, 1), percent: x === 0 ? null : round(((y - x) / x) * 100, 2) }]
    })
    .sort((p, q) => Math.abs(q.delta) - Math.abs(p.delta) || p.name.localeCompare(q.name))

/** The measurements of `x` that `y` does not have. */
export const onlyIn = (x: Scan, y: Scan): ReadonlyArray<string> => Object.keys(x.measurementsMm).filter((k) => !(k in y.measurementsMm))

export const renderDiff = (a: Scan, b: Scan, labels: readonly [string, string]): string => {
  const diffs = differences(a, b)
  const lines = [
    `a: ${labels[0]} (${a.source.api} ${a.source.id ?? "-"})`,
    `b: ${labels[1]} (${b.source.api} ${b.source.id ?? "-"})`,
    "",
    diffs.length === 0
      ? "no measurement in common"
      : table(
          ["measurement", "a mm", "b mm", "b - a mm", "b - a %"],
          diffs.map((d) => [d.name, d.a, d.b, d.delta, d.percent === null ? "-" : d.percent.toFixed(2)])
        )
  ]
  const onlyA = onlyIn(a, b)
  const onlyB = onlyIn(b, a)
  if (onlyA.length > 0) lines.push("", `only in a: ${onlyA.join(", ")}`)
  if (onlyB.length > 0) lines.push("", `only in b: ${onlyB.join(", ")}`)
  return lines.join("\n")
}
