/**
 * `scanbridge migrate`: stored records of any API to canonical scans or another API's shape.
 * Outputs appear whole or not at all (written beside their destination, renamed into place at the
 * end); an interrupted or failed run leaves every destination as it was. Records go to stdout when
 * no `--out` is given, so the command composes in a pipe; progress and the summary go to stderr.
 *
 * The command's flags and help; the run itself is migrate-run.ts, loaded when the command runs.
 */
import { Args, Command } from "@effect/cli"
import { ExitCode } from "../exit.js"
import { WORKERS_FROM_BYTES } from "../workers.js"
import { BUILT_IN_TARGETS, adapterOption, choice, count, databaseUrl, decodeFlags, file, flag, optionalChoice, optionalText, text } from "./flags.js"
import { lazy } from "./lazy.js"

export { STDIN_ARGUMENT } from "./flags.js"

/** What `scanbridge migrate --help` shows after the flags (see help.ts). */
export const migrateHelp = {
  usage:
    "scanbridge migrate <inputs>... | --from URL --query SQL [--to TARGET] [--units mm|cm|in] [--fhir-patient-system URI] [--length-unit auto|mm|cm|in] [--body-fat-scale auto|percent|e4] [--muscle-mass-unit auto|g|kg] [--into URL [--table NAME]] [--resumable] [--resume [--verify]] [--adapter MODULE]... [--out FILE] [--rejects FILE] [--report FILE] [--strict] [--workers N] [--progress WHEN] [--quiet]",
  exitCodes: [
    [ExitCode.ok, "every record was migrated or rejected, and the outputs are in place"],
    [ExitCode.failure, "the run failed (an unreadable input, an output that cannot be written); every destination is as it was"],
    [ExitCode.usage, "a bad command line (an unknown flag, a bad or missing value, an output that would overwrite or feed an input); nothing was written"],
    [ExitCode.rejected, "--strict, and some records were rejected (the outputs are in place)"],
    [ExitCode.sigint, "interrupted by SIGINT (Ctrl-C); every destination is as it was"],
    [ExitCode.sigterm, "stopped by SIGTERM; every destination is as it was"],
    [ExitCode.brokenPipe, "standard output was closed by its reader (| head); nothing more is written"]
  ],
  examples: [
    "scanbridge migrate export/ --out scans.ndjson --rejects rejects.ndjson --report report.json",
    "gunzip -c results.ndjson.gz | scanbridge migrate - --to platform --strict --quiet > entries.ndjson",
    "scanbridge migrate acme-export/ --adapter ./acme-adapter.js --out scans.ndjson",
    "scanbridge migrate export/ --to csv --units cm --out scans.csv",
    "scanbridge migrate export/ --to fhir --fhir-patient-system https://hospital.example/patients --out bundles.ndjson --resumable",
    "scanbridge migrate old-export/ --length-unit in --out scans.ndjson",
    "PGPASSWORD=... scanbridge migrate --from postgres://app@db/legacy --query 'select id, payload from legacy_scans' --into postgres://app@db/analytics --table scans"
  ]
} as const

export const migrateCommand = Command.make(
  "migrate",
  {
    inputs: Args.text({ name: "inputs" }).pipe(
      Args.withDescription("NDJSON files, JSON files (an object or an array), .gz of either, or folders of them; - reads standard input; none with --from"),
      Args.repeated
    ),
    from: databaseUrl(
      "from",
      "read the records from this PostgreSQL database (postgres://user@host:port/db; a password in PGPASSWORD rather than the URL), with --query"
    ),
    query: optionalText(
      "query",
      "SQL",
      "with --from, the query whose rows are the records: two columns, a key that orders and names the rows, then the record (JSON, JSONB or text)",
      "none"
    ),
    into: databaseUrl(
      "into",
      "write the scans into this PostgreSQL database, into --table and its rejects into the table of that name with _rejects after it, upserted a chunk at a time"
    ),
    table: text("table", "NAME", "scans", "with --into, the table of scans (created when missing; NAME or SCHEMA.NAME)"),
    resumable: flag(
      "resumable",
      "keep a checkpoint beside --out, and keep the outputs written so far if the run stops, so that --resume can go on from there (default: off; a run --into a database always keeps one)"
    ),
    resume: flag(
      "resume",
      "go on from where the last run of the same inputs stopped (its checkpoint beside --out, or the database's), writing what a run that never stopped writes (default: off)"
    ),
    verify: flag(
      "verify",
      "with --resume, read again the bytes of the inputs the run being resumed had read and refuse to resume if they are not those its checkpoint hashed (an input edited to the same size and time) (default: off)"
    ),
    to: text(
      "to",
      BUILT_IN_TARGETS.join("|"),
      "canonical",
      "the shape to write (fhir: a FHIR R4 transaction Bundle per scan; csv, parquet: one row per scan, for a spreadsheet or an analyst's table), or an --adapter's target"
    ),
    units: optionalChoice(
      "units",
      ["mm", "cm", "in"] as const,
      "the unit of the lengths (height and measurements): with --to csv or parquet, of the length columns, mm, cm or in; with --to fhir, cm or in (masses then in pounds)",
      "mm for csv and parquet, cm for fhir"
    ),
    fhirPatientSystem: optionalText(
      "fhir-patient-system",
      "URI",
      "with --to fhir, the identifier system of your patients (an absolute URI), when each scan's externalId is its patient's identifier there: every Observation's subject is then that Patient",
      "none: no patient is named"
    ),
    ...decodeFlags,
    adapter: adapterOption,
    out: file("out", "where to write the records; - for standard output", "standard output"),
    rejects: file("rejects", "where to write {file, line, error, raw} per rejected record", "counted, not kept"),
    report: file("report", "where to write the report as JSON", "none; the summary goes to standard error"),
    strict: flag("strict", `exit with code ${ExitCode.rejected} when any record was rejected (default: off)`),
    workers: count(
      "workers",
      0,
      "worker threads to migrate on besides the main thread, 0 for none; the output is the same either way",
      `one per core when the inputs hold ${WORKERS_FROM_BYTES / 1024 / 1024} MiB or more or come --from a database, else 0`
    ),
    progress: choice("progress", ["auto", "always", "never"] as const, "auto", "a progress line on standard error; auto shows it on a terminal"),
    quiet: flag("quiet", "nothing on standard error but errors: no progress line, no summary (default: off)")
  },
  lazy(() => import("./migrate-run.js").then((m) => m.runMigrate))
).pipe(
  Command.withDescription(
    "Migrate stored records of any API to canonical scans or another API's shape. Outputs are written beside their destination and renamed into place when the run succeeds; a failed or interrupted run leaves them as they were."
  )
)
