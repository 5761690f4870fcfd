/**
 * The parts of `pnpm bench` for where users keep their data and whom they send it to (issues 18
 * and 33): CSV, Parquet and FHIR output against canonical NDJSON output of the same input, and a
 * PostgreSQL-to-PostgreSQL migration against a bare COPY of the same rows, each in interleaved
 * rounds in one run.
 */
import { to as copyTo, from as copyFrom } from "pg-copy-streams"
import { createReadStream, createWriteStream, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"
import { startPostgres } from "../packages/migrate/test/postgres.js"
import { type InputKind, writeInput } from "./bench-inputs.js"
import { canonicalScans, csvRecords, fhirBundles } from "./bench-outputs.js"
import { repoRoot } from "./docs/generated.js"

export interface BenchContext {
  readonly dir: string
  readonly rounds: number
  readonly log: (line?: string) => void
  readonly note: (line: string) => void
  readonly measure: (command: string, args: ReadonlyArray<string>) => { readonly seconds: number; readonly cpuSeconds: number; readonly rssMb: number }
  readonly median: (xs: ReadonlyArray<number>) => number
  readonly count: (n: number) => string
}

const ratio = (r: number) => `${r.toFixed(2)} x`
const perSecond = (records: number, seconds: number) => `${Math.round(records / seconds).toLocaleString("en-US")}/s`

interface Output {
  readonly name: string
  readonly flags: ReadonlyArray<string>
  /** The records the output holds, each checked; undefined where the bench has no reader for it. */
  readonly records: ((file: string, what: string) => number) | undefined
  /**
   * Whether it runs on every input, or only on those not marked large: FHIR's output is some 15 times
   * the canonical one (30 GB a round at 1M records, written and read back), and memory at a million
   * scans is the same pipeline's as at 200k.
   */
  readonly large: boolean
}

/** The first is the one the others are measured and counted against. */
const OUTPUTS: ReadonlyArray<Output> = [
  { name: "canonical NDJSON", flags: [], records: canonicalScans, large: true },
  { name: "csv", flags: ["--to", "csv"], records: csvRecords, large: true },
  // The tools have no Parquet reader (hyparquet is the migrate package's test dependency).
  { name: "parquet", flags: ["--to", "parquet"], records: undefined, large: true },
  { name: "fhir", flags: ["--to", "fhir"], records: fhirBundles, large: false }
]

/** CSV, Parquet and FHIR against canonical NDJSON, the same input, the same rounds. */
export const tableOutputs = (
  ctx: BenchContext,
  bin: string,
  inputs: ReadonlyArray<readonly [label: string, kind: InputKind, records: number, large?: "large"]>
) => {
  ctx.log(`\n## CSV, Parquet and FHIR outputs against canonical NDJSON (${ctx.rounds} interleaved round${ctx.rounds === 1 ? "" : "s"})\n`)
  ctx.log(
    "Each output of the same input by the installed bin with default settings (FHIR: lengths in cm, no patient system); times and ratios are medians of the rounds (each against the NDJSON run of its round), peak RSS the highest. Every run's output was read back: the canonical NDJSON holds one canonical scan a line, the CSV as many records after its header, and the FHIR output as many lines, each a transaction Bundle whose entries have a urn:uuid full URL and a request (its shape; the FHIR package's tests validate what it holds). The Parquet file's rows are not counted: the tools have no Parquet reader.\n"
  )
  const large = OUTPUTS.filter((o) => !o.large).map((o) => o.name)
  if (inputs.some((i) => i[3] === "large"))
    ctx.log(
      `Not run on the large input: ${large.join(", ")} (${large.length === 1 ? "its" : "their"} output at the smaller inputs shows its cost; memory at a million scans is the pipeline's).\n`
    )
  ctx.log("| input | output | time | ratio | CPU time | peak RSS | output size |")
  ctx.log("|---|---|---|---|---|---|---|")
  for (const [label, kind, records, size] of inputs) {
    const outputs = OUTPUTS.filter((o) => size !== "large" || o.large)
    const input = join(ctx.dir, "tables-input.ndjson")
    ctx.note(`${label}: writing ${ctx.count(records)} records`)
    writeInput(repoRoot, input, kind, records)
    const runs = outputs.map(() => ({ seconds: [] as Array<number>, cpu: [] as Array<number>, rss: 0, ratios: [] as Array<number>, size: 0 }))
    for (let r = 0; r < ctx.rounds; r++) {
      const seconds: Array<number> = []
      const counted: Array<number | undefined> = []
      for (let k = 0; k < outputs.length; k++) {
        const t = (k + r) % outputs.length
        const { name, flags, records: recordsOf } = outputs[t]!
        ctx.note(`${label}: round ${r + 1}/${ctx.rounds}, ${name}`)
        const output = join(ctx.dir, `tables-output-${t}`)
        const m = ctx.measure(bin, ["migrate", input, ...flags, "--out", output, "--quiet"])
        seconds[t] = m.seconds
        runs[t]!.seconds.push(m.seconds)
        runs[t]!.cpu.push(m.cpuSeconds)
        runs[t]!.rss = Math.max(runs[t]!.rss, m.rssMb)
        runs[t]!.size = statSync(output).size
        counted[t] = recordsOf?.(output, `${label}, ${ctx.count(records)}, round ${r + 1}, ${name}`)
        // FHIR output runs to gigabytes: one output on disk at a time.
        rmSync(output)
      }
      outputs.forEach(({ name }, t) => {
        runs[t]!.ratios.push(seconds[t]! / seconds[0]!)
        if (counted[t] !== undefined && counted[t] !== counted[0])
          throw new Error(`${label}, ${ctx.count(records)}, round ${r + 1}: ${name} holds ${counted[t]} records, ${outputs[0]!.name} ${counted[0]}`)
      })
    }
    outputs.forEach(({ name }, t) => {
      const run = runs[t]!
      ctx.log(
        `| ${label}, ${ctx.count(records)} | ${name} | ${ctx.median(run.seconds).toFixed(2)} s | ${t === 0 ? "1" : ratio(ctx.median(run.ratios))} | ${ctx.median(run.cpu).toFixed(2)} s | ${run.rss.toFixed(0)} MB | ${(run.size / 1024 / 1024).toFixed(0)} MiB |`
      )
    })
  }
}

/**
 * `scanbridge migrate --from postgres://... --into postgres://...` of `records` stored platform
 * entries, against a bare COPY of the rows it wrote (tools/bench-copy.mjs), on a PostgreSQL the
 * bench starts itself. Each migration writes a fresh table.
 */
export const postgresToPostgres = async (ctx: BenchContext, bin: string, records: number) => {
  const running = await startPostgres()
  const { url, admin: client } = running
  try {
    const input = join(ctx.dir, "pg-input.ndjson")
    ctx.note(`postgres: writing and loading ${ctx.count(records)} records`)
    writeInput(repoRoot, input, "platformEnvelope", records)
    await client.query("create table legacy (id bigint generated always as identity primary key, payload jsonb not null)")
    // One field per line: a quote and a delimiter that JSON text never holds unescaped.
    await pipeline(createReadStream(input), client.query(copyFrom("copy legacy (payload) from stdin with (format csv, quote e'\\x01', delimiter e'\\x02')")))
    await client.query("vacuum analyze legacy")
    const rows = join(ctx.dir, "pg-rows.copy")
    const migrate = { seconds: [] as Array<number>, cpu: [] as Array<number>, rss: 0 }
    const copy = { seconds: [] as Array<number>, cpu: [] as Array<number>, rss: 0 }
    const ratios: Array<number> = []
    for (let r = 0; r < ctx.rounds; r++) {
      const round: Record<string, number> = {}
      for (const which of r % 2 === 0 ? ["migrate", "copy"] : ["copy", "migrate"]) {
        ctx.note(`postgres: round ${r + 1}/${ctx.rounds}, ${which}`)
        if (which === "migrate" || r === 0) {
          await client.query("drop table if exists scans, scans_rejects, scanbridge_checkpoints")
          const m = ctx.measure(bin, ["migrate", "--from", url, "--query", "select id, payload from legacy", "--into", url, "--table", "scans", "--quiet"])
          if (which === "migrate") {
            round["migrate"] = m.seconds
            migrate.seconds.push(m.seconds)
            migrate.cpu.push(m.cpuSeconds)
            migrate.rss = Math.max(migrate.rss, m.rssMb)
          }
          const written = await client.query("select count(*)::int as n from scans")
          if (written.rows[0].n !== records) throw new Error(`the migration wrote ${written.rows[0].n} rows of ${records}`)
          // The rows the migration wrote, as COPY writes them: what the floor copies in.
          await pipeline(client.query(copyTo("copy scans to stdout")), createWriteStream(rows))
        }
        if (which === "copy") {
          const m = ctx.measure(process.execPath, [join(repoRoot, "tools", "bench-copy.mjs"), url, "copied", "scans", rows])
          round["copy"] = m.seconds
          copy.seconds.push(m.seconds)
          copy.cpu.push(m.cpuSeconds)
          copy.rss = Math.max(copy.rss, m.rssMb)
        }
      }
      ratios.push(round["migrate"]! / round["copy"]!)
    }
    ctx.log(
      `\n## PostgreSQL in, PostgreSQL out, against a bare COPY of the same rows (${ctx.rounds} round${ctx.rounds === 1 ? "" : "s"}, the order alternated)\n`
    )
    ctx.log(
      `${ctx.count(records)} platform entries stored as JSONB in a table, on the embedded PostgreSQL of the tests (fsync off), on this machine. The migration reads them through a cursor and upserts canonical scans a chunk at a time (COPY into a staging table, then insert on conflict); the floor (tools/bench-copy.mjs) COPYs the rows the migration wrote, already in COPY's text format, into an empty table in one transaction: the server's and the driver's share alone.\n`
    )
    ctx.log("| program | time | records/s | ratio to the COPY | CPU time (client) | peak RSS (client) |")
    ctx.log("|---|---|---|---|---|---|")
    const m = ctx.median(migrate.seconds)
    const c = ctx.median(copy.seconds)
    ctx.log(
      `| scanbridge migrate --from ... --into ... | ${m.toFixed(2)} s | ${perSecond(records, m)} | ${ratio(ctx.median(ratios))} | ${ctx.median(migrate.cpu).toFixed(2)} s | ${migrate.rss.toFixed(0)} MB |`
    )
    ctx.log(`| bare COPY (floor) | ${c.toFixed(2)} s | ${perSecond(records, c)} | 1 | ${ctx.median(copy.cpu).toFixed(2)} s | ${copy.rss.toFixed(0)} MB |`)
  } finally {
    await running.stop()
  }
}
