/**
 * The sink's tables, made from the one column list (table.ts): the scans, one row per scan,
 * keyed by its source API and `scan_key`; the rejects, one row per rejected record, keyed by its
 * input and its place there; and the checkpoints a resumed run starts from. Created when missing;
 * a table that exists with other columns is refused, not altered.
 */
import { type Column, type ColumnType, SCAN_COLUMNS } from "../table.js"
import { EXTRA_COLUMNS } from "./rows.js"

const SQL_TYPES: Readonly<Record<ColumnType, string>> = { text: "text", integer: "integer", double: "double precision", timestamp: "timestamptz" }

/** A table named by the user: `name` or `schema.name`, each an unquoted SQL identifier. */
export interface TableName {
  readonly schema: string | undefined
  readonly name: string
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/
/** PostgreSQL's longest identifier: a longer one is cut to it, without a word. */
const MAX_IDENTIFIER = 63

/** What a companion table of the sink is called. */
export const REJECTS_SUFFIX = "_rejects"
export const CHECKPOINTS = "scanbridge_checkpoints"

/**
 * The table `text` names, or why it names none. Its name leaves room for the companion's suffix:
 * a longer one would be cut by the server to the scans table's own name.
 */
export const tableName = (text: string): TableName | string => {
  const parts = text.split(".")
  const longest = [MAX_IDENTIFIER, MAX_IDENTIFIER - REJECTS_SUFFIX.length]
  if (parts.length > 2 || !parts.every((p, i) => IDENTIFIER.test(p) && p.length <= longest[i + 2 - parts.length]!)) {
    return `${JSON.stringify(text.slice(0, 80))} is not a table name: letters, digits and _ (not first), at most ${longest[1]} (so that ${REJECTS_SUFFIX} fits in PostgreSQL's ${MAX_IDENTIFIER}), optionally after a schema of at most ${MAX_IDENTIFIER} and a dot`
  }
  return parts.length === 2 ? { schema: parts[0]!, name: parts[1]! } : { schema: undefined, name: parts[0]! }
}

export const quote = (identifier: string): string => `"${identifier}"`

/** The table's name quoted, with its schema; `suffix` names a companion table (`_rejects`). */
export const qualified = (table: TableName, suffix = ""): string =>
  `${table.schema === undefined ? "" : `${quote(table.schema)}.`}${quote(table.name + suffix)}`

interface SqlColumn {
  readonly name: string
  readonly type: string
  readonly notNull: boolean
}

const scanColumn = (c: Column): SqlColumn => ({
  name: c.name,
  type: SQL_TYPES[c.type],
  notNull: c.name === "source_api" || c.name === "status" || c.name === "note_count"
})

/** The scans table's columns, in the rows' order (rows.ts). */
export const SCANS_TABLE: ReadonlyArray<SqlColumn> = [
  ...SCAN_COLUMNS.map(scanColumn),
  ...EXTRA_COLUMNS.map((name) => ({ name, type: name === "scan" || name === "notes" ? "jsonb" : "text", notNull: true }))
]
export const SCANS_KEY = ["source_api", "scan_key"] as const

/** The rejects table's columns, in the rows' order. */
export const REJECTS_TABLE: ReadonlyArray<SqlColumn> = [
  { name: "input", type: "text", notNull: true },
  { name: "record", type: "text", notNull: true },
  { name: "line", type: "bigint", notNull: true },
  { name: "key", type: "text", notNull: false },
  { name: "error_tag", type: "text", notNull: true },
  { name: "message", type: "text", notNull: true },
  { name: "path", type: "jsonb", notNull: false },
  { name: "raw", type: "text", notNull: false },
  { name: "raw_base64", type: "text", notNull: false }
]
export const REJECTS_KEY = ["input", "record"] as const

export const createTable = (name: string, columns: ReadonlyArray<SqlColumn>, key: ReadonlyArray<string>): string =>
  `create table if not exists ${name} (${columns.map((c) => `${quote(c.name)} ${c.type}${c.notNull ? " not null" : ""}`).join(", ")}, primary key (${key.map(quote).join(", ")}))`

export const createCheckpoints = (table: TableName): string =>
  `create table if not exists ${qualified({ schema: table.schema, name: CHECKPOINTS })} (` +
  `"table_name" text not null, "input" text not null, "identity" text not null, "position" jsonb not null, "report" jsonb not null, ` +
  `"updated_at" timestamptz not null default now(), primary key ("table_name", "input"))`

export const RUN_KEYS = "scanbridge_run_keys"

/**
 * The scans a run with a checkpoint has written, by key, for the report's `repeatedScans`: kept
 * beside the checkpoint (and written in the same transactions), so that a resumed run counts a
 * scan it repeats from before the stop as the run that never stopped would. `temporary`: for a
 * run with no checkpoint, whose keys live as long as its connection.
 */
export const createRunKeys = (table: TableName, temporary: boolean): string =>
  `create ${temporary ? "temporary table" : `table if not exists ${qualified({ schema: table.schema, name: RUN_KEYS })}`}${temporary ? ` ${quote(RUN_KEYS)}` : ""} (` +
  `"table_name" text not null, "input" text not null, "source_api" text not null, "scan_key" text not null, primary key ("table_name", "input", "source_api", "scan_key"))`

/** The SQL type names `format_type` gives for ours. */
export const FORMAT_TYPES: Readonly<Record<string, string>> = { timestamptz: "timestamp with time zone" }

/**
 * How the columns a table has differ from `expected` (names, order and types), or undefined when
 * they do not. `actual` is `[name, format_type]` in column order.
 */
export const columnsDiffer = (expected: ReadonlyArray<SqlColumn>, actual: ReadonlyArray<readonly [string, string]>): string | undefined => {
  const want = expected.map((c) => `${c.name} ${FORMAT_TYPES[c.type] ?? c.type}`)
  const have = actual.map(([name, type]) => `${name} ${type}`)
  const missing = want.filter((w) => !have.includes(w))
  const extra = have.filter((h) => !want.includes(h))
  if (missing.length === 0 && extra.length === 0) return undefined
  return [missing.length > 0 ? `lacks ${missing.slice(0, 5).join(", ")}` : "", extra.length > 0 ? `has ${extra.slice(0, 5).join(", ")}` : ""]
    .filter(Boolean)
    .join("; ")
}
