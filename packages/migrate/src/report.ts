/** The migration report: its counts, its rejects, and as text a summary line and a table of counts. */
/** A record that could not be migrated, and why: one line of the rejects output. */
export interface Reject {
  readonly file: string
  readonly line: number
  /** The record's key in its source (a database row's key column), when it has one. */
  readonly key?: string
  /** `offset`: only for InvalidUtf8, the byte offset in the file of the first byte that is not UTF-8. */
  readonly error: { readonly tag: string; readonly message: string; readonly path: ReadonlyArray<string | number> | null; readonly offset?: number }
  /** The record's text; a byte that is not UTF-8 as U+FFFD. */
  readonly raw: string
  /** Only when `raw` cannot hold the record's bytes (InvalidUtf8): the exact bytes, base64. */
  readonly rawBase64?: string
}

/** A migration's counts: `records = migrated + rejected`. */
export interface Report {
  /** Records read. */
  readonly records: number
  readonly migrated: number
  /** Scans written (a list page is one record and several scans). */
  readonly scans: number
  readonly byFormat: Readonly<Record<string, number>>
  readonly byStatus: Readonly<Record<string, number>>
  readonly byNoteKind: Readonly<Record<string, number>>
  readonly byRejectReason: Readonly<Record<string, number>>
  readonly rejected: number
  readonly target: string
  /**
   * Only into a sink that keeps one row per scan (a database table, `--into`): scans written over
   * a row this run had written already, because several records were the same scan (the same
   * API and id). The table then holds `scans - repeatedScans` rows of this run. Absent when none.
   */
  readonly repeatedScans?: number
  /** What a count does not say and the run should (an input that held no record at all). Absent when none. */
  readonly warnings?: ReadonlyArray<string>
}

const pad = (s: string | number, n: number) => String(s).padEnd(n)
const right = (s: string | number, n: number) => String(s).padStart(n)
const NUMERIC = /^-?\d+(\.\d+)?$/

/** A table with a header row, columns as wide as their widest cell; numbers align right. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string | number>>): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string | number>) =>
    cells
      .map((c, i) => (typeof c === "number" || NUMERIC.test(c) ? right(c, widths[i]!) : pad(c, widths[i]!)))
      .join("  ")
      .trimEnd()
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")
}

const counts = (title: string, c: Readonly<Record<string, number>>) => {
  const entries = Object.entries(c).sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
  return entries.length === 0 ? [] : [[title, "", ""] as const, ...entries.map(([k, v]) => ["", k, v] as const)]
}

/** The summary at the end of a migration; with the time it took when given. */
export const renderReport = (report: Report, seconds?: number): string => {
  const timing = seconds === undefined ? "" : ` in ${seconds.toFixed(2)} s (${Math.round(report.records / Math.max(seconds, 0.001))}/s)`
  const repeated = report.repeatedScans ?? 0
  const rows =
    repeated === 0
      ? ""
      : ` (${report.scans - repeated} rows: ${repeated} scan(s) were written over a row of the same scan written earlier in this run, as several records were one scan)`
  return [
    `${report.records} records${timing}: ${report.migrated} migrated to ${report.target} as ${report.scans} scans${rows}, ${report.rejected} rejected`,
    ...(report.warnings ?? []).map((w) => `warning: ${w}`),
    table(
      ["", "", "count"],
      [
        ...counts("format", report.byFormat),
        ...counts("status", report.byStatus),
        ...counts("notes", report.byNoteKind),
        ...counts("rejected", report.byRejectReason)
      ]
    )
  ].join("\n")
}
