/**
 * A canonical scan as one row of a table: the columns an analyst's table has, in a stable,
 * documented order, each with its type and unit. The PostgreSQL sink's table, the CSV export's
 * header and the Parquet schema all come from this one list (issue 18); the names and units come
 * from the catalogue, so a measurement added there is a column here.
 *
 * Order: the scan's identity and state, the subject, every catalogue measurement in millimetres
 * (catalogue order), the body composition, the posture angles (front, one per name; right, one
 * per segment of each line), and the count of the scan's notes.
 */
import {
  type LengthUnit,
  MEASUREMENT_NAMES,
  type MeasurementName,
  POSTURE_FRONT,
  POSTURE_RIGHT,
  type RightPostureName,
  type Scan,
  Catalogue,
  convertLength,
  snakeCase
} from "@scanbridge/model"

/** The targets that write scans as rows of `scanColumns` rather than as JSON; no adapter may take their names. */
export const TABLE_TARGETS = ["csv", "parquet"] as const
export type TableTarget = (typeof TABLE_TARGETS)[number]

export const isTableTarget = (to: string): to is TableTarget => (TABLE_TARGETS as ReadonlyArray<string>).includes(to)

export type ColumnType = "text" | "integer" | "double" | "timestamp"

/** A cell: text (a timestamp as ISO-8601 UTC), a number, or null for a value the scan lacks. */
export type Cell = string | number | null

export interface Column {
  /** snake_case, unique: a SQL identifier as it is, a CSV header as it is. */
  readonly name: string
  readonly type: ColumnType
  /** The unit of a number: `mm`, `g`, `percent`, `degrees`, `years`. */
  readonly unit?: string
  readonly value: (scan: Scan) => Cell
}

// The model's rule, which its proto3 reader also spells keys by; kept in this module's surface.
export { snakeCase }

const measurement = (name: MeasurementName): Column => ({
  name: `${snakeCase(name)}_mm`,
  type: "double",
  unit: "mm",
  value: (scan) => scan.measurementsMm[name] ?? null
})

const rightAngles = (name: RightPostureName): ReadonlyArray<Column> =>
  Array.from({ length: Catalogue.rightPosturePoints(name)! - 1 }, (_, i) => ({
    name: `posture_right_${snakeCase(name)}_${i + 1}_degrees`,
    type: "double" as const,
    unit: "degrees",
    value: (scan: Scan) => scan.posture?.right?.angles[name]?.[i] ?? null
  }))

/** Every column, in order. */
export const SCAN_COLUMNS: ReadonlyArray<Column> = [
  { name: "source_api", type: "text", value: (s) => s.source.api },
  { name: "source_id", type: "text", value: (s) => s.source.id },
  { name: "external_id", type: "text", value: (s) => s.externalId },
  { name: "status", type: "text", value: (s) => s.status },
  { name: "created_at", type: "timestamp", value: (s) => s.createdAt },
  { name: "method", type: "text", value: (s) => s.method },
  { name: "age", type: "integer", unit: "years", value: (s) => s.subject.age },
  { name: "gender", type: "text", value: (s) => s.subject.gender },
  { name: "height_mm", type: "double", unit: "mm", value: (s) => s.subject.heightMm },
  { name: "weight_g", type: "double", unit: "g", value: (s) => s.subject.weightG },
  ...MEASUREMENT_NAMES.map(measurement),
  { name: "body_fat_percent", type: "double", unit: "percent", value: (s) => s.composition?.bodyFatPercent ?? null },
  { name: "body_fat_mass_g", type: "double", unit: "g", value: (s) => s.composition?.bodyFatMassG ?? null },
  { name: "lean_mass_g", type: "double", unit: "g", value: (s) => s.composition?.leanMassG ?? null },
  { name: "skeletal_muscle_mass_g", type: "double", unit: "g", value: (s) => s.composition?.skeletalMuscleMassG ?? null },
  ...POSTURE_FRONT.map(
    (p): Column => ({
      name: `posture_front_${snakeCase(p.name)}_degrees`,
      type: "double",
      unit: "degrees",
      value: (s) => s.posture?.front?.angles[p.name] ?? null
    })
  ),
  ...POSTURE_RIGHT.flatMap((p) => rightAngles(p.name)),
  { name: "note_count", type: "integer", value: (s) => s.notes.length }
]

/** A scan's cells, in `SCAN_COLUMNS`' order. */
export const scanRow = (scan: Scan): ReadonlyArray<Cell> => SCAN_COLUMNS.map((c) => c.value(scan))

/**
 * The columns with lengths in `units`: a millimetre column becomes a centimetre or inch column
 * (`height_mm` is `height_cm`), its value converted by the model's own units. Masses stay in
 * grams and angles in degrees: `--units` chooses a length unit, as the vendor's forms do.
 */
export const scanColumns = (units: LengthUnit = "mm"): ReadonlyArray<Column> =>
  units === "mm"
    ? SCAN_COLUMNS
    : SCAN_COLUMNS.map((column) => {
        if (column.unit !== "mm") return column
        const value = column.value
        return {
          ...column,
          name: `${column.name.slice(0, -"mm".length)}${units}`,
          unit: units,
          value: (scan: Scan) => {
            const mm = value(scan)
            return typeof mm === "number" ? convertLength(mm, "mm", units) : mm
          }
        }
      })
