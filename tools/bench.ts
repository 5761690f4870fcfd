/**
 * `pnpm bench`: the migration's speed and memory, as ratios measured in one run, so that a
 * noisy shared machine slows both sides alike. Writes `bench/results.md`.
 *
 * 1. normalize (JSON text -> validated canonical scans) against JSON.parse alone, per source
 *    format, on the example export's records; target 0.6 x (tools/bench-normalize.ts). Twice:
 *    with generated guards (the default), and jitless (`Codegen.configure({ jitless: true })`).
 * 2. `scanbridge migrate` of a generated NDJSON file to canonical NDJSON against a bare Node
 *    script that reads the lines, JSON.parses and JSON.stringifies each; target 0.5 x. The
 *    command as a user runs it (its default picks worker threads for a large input), and with
 *    `--workers 0` (the main thread alone), to show what the workers buy.
 * 3. Peak RSS of `scanbridge migrate` over a larger generated file, both ways; target under
 *    300 MB. Worker threads are in the same process, so the RSS counts them.
 *
 * `--records N` (default 200000) and `--rss-records N` (default 1000000) size the files.
 */
import { spawnSync } from "node:child_process"
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { bundle } from "./bundle.js"
import { repoRoot } from "./docs/generated.js"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const RECORDS = arg("records", 200_000)
const RSS_RECORDS = arg("rss-records", 1_000_000)
const rows: Array<string> = []
const log = (line: string) => {
  console.log(line)
  rows.push(line)
}

// Each part runs the code as it ships: bundled, and run by node itself. Through tsx, every closure would be
// wrapped to keep its name (esbuild's keepNames), a cost no built package pays.

// --- 2 and 3. the command against a bare script, and its memory ------------------------------

const dir = mkdtempSync(join(tmpdir(), "scanbridge-bench-"))
const entry = JSON.parse(readFileSync(join(repoRoot, "examples", "export", "platform", "entries.ndjson"), "utf8").split("\n")[0]!) as { entry: { id: string } }

const generate = async (file: string, records: number) => {
  const out = createWriteStream(file)
  for (let i = 0; i < records; i++) {
    entry.entry.id = `scan_${i.toString(36).padStart(8, "0")}`
    if (!out.write(`${JSON.stringify(entry)}\n`)) await new Promise((resolve) => out.once("drain", () => resolve(undefined)))
  }
  await new Promise((resolve) => out.end(resolve))
}

const bare = join(dir, "bare.mjs")
writeFileSync(
  bare,
  `import { createReadStream, createWriteStream } from "node:fs"
import { createInterface } from "node:readline"
const out = createWriteStream(process.argv[3])
for await (const line of createInterface({ input: createReadStream(process.argv[2]) })) {
  if (line === "") continue
  if (!out.write(JSON.stringify(JSON.parse(line)) + "\\n")) await new Promise((r) => out.once("drain", r))
}
out.end()
`
)

// The command as it ships: one bundle, run by node itself (through tsx, compiling the sources
// at run time would add its own start-up and some 150 MB to what is measured).
const cli = [join(dir, "scanbridge.mjs")]

const timed = (args: ReadonlyArray<string>): { seconds: number; maxRssMb: number } => {
  const start = performance.now()
  const child = spawnSync(process.execPath, args as Array<string>, { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, SCANBRIDGE_BENCH_RSS: "1" } })
  const seconds = (performance.now() - start) / 1000
  if (child.status !== 0) throw new Error(`${args.join(" ")} exited with ${child.status}: ${child.stderr.toString()}`)
  const rss = /maxRSS (\d+)/.exec(child.stderr.toString())
  return { seconds, maxRssMb: rss ? Math.round(Number(rss[1]) / 1024) : NaN }
}

const withRss = (program: ReadonlyArray<string>, rest: ReadonlyArray<string>) => [
  "--import",
  join(repoRoot, "tools", "bench-rss.mjs"),
  ...program,
  ...rest
]

const run = async () => {
  // --- 1. normalize against JSON.parse (tools/bench-normalize.ts prints its table) ----------
  const normalizeBench = join(dir, "bench-normalize.mjs")
  await bundle("tools/bench-normalize.ts", normalizeBench)
  // Each in its own process: guards are compiled once per process, as configured then.
  for (const args of [[], ["--jitless"]]) {
    const table = spawnSync(process.execPath, [normalizeBench, ...args], { cwd: repoRoot, encoding: "utf8" })
    if (table.status !== 0) throw new Error(`bench-normalize exited with ${table.status}: ${table.stderr}`)
    if (args.length > 0) log("")
    for (const line of table.stdout.trimEnd().split("\n")) log(line)
  }

  await bundle("packages/cli/src/main.ts", cli[0]!)
  const input = join(dir, "input.ndjson")
  await generate(input, RECORDS)
  const bareRun = timed(withRss([bare], [input, join(dir, "bare-out.ndjson")]))
  const migrateRun = timed(withRss(cli, ["migrate", input, "--out", join(dir, "out.ndjson")]))
  const inThreadRun = timed(withRss(cli, ["migrate", input, "--workers", "0", "--out", join(dir, "out-0.ndjson")]))
  const inputMiB = statSync(input).size / 1024 / 1024
  log(`\n## scanbridge migrate against a bare Node script (${RECORDS.toLocaleString("en")} platform entries, ${inputMiB.toFixed(0)} MiB, to canonical NDJSON)\n`)
  log("| program | seconds | records/s | peak RSS MB |")
  log("|---|---|---|---|")
  const row = (program: string, r: { seconds: number; maxRssMb: number }) =>
    log(`| ${program} | ${r.seconds.toFixed(2)} | ${Math.round(RECORDS / r.seconds).toLocaleString("en")} | ${r.maxRssMb} |`)
  row("bare script (read, JSON.parse, JSON.stringify, write)", bareRun)
  row("scanbridge migrate (default --workers)", migrateRun)
  row("scanbridge migrate --workers 0", inThreadRun)
  log(`\nratio: ${(bareRun.seconds / migrateRun.seconds).toFixed(2)} x the bare script (target 0.5 x); ${(bareRun.seconds / inThreadRun.seconds).toFixed(2)} x with --workers 0`)

  const big = join(dir, "big.ndjson")
  await generate(big, RSS_RECORDS)
  rmSync(input)
  const bigRun = timed(withRss(cli, ["migrate", big, "--out", "/dev/null"]))
  const bigInThreadRun = timed(withRss(cli, ["migrate", big, "--workers", "0", "--out", "/dev/null"]))
  log(`\n## peak RSS over ${RSS_RECORDS.toLocaleString("en")} records (${(statSync(big).size / 1024 / 1024).toFixed(0)} MiB)\n`)
  log(`scanbridge migrate (default --workers): ${bigRun.maxRssMb} MB in ${bigRun.seconds.toFixed(1)} s (target under 300 MB)`)
  log(`scanbridge migrate --workers 0: ${bigInThreadRun.maxRssMb} MB in ${bigInThreadRun.seconds.toFixed(1)} s`)
  rmSync(dir, { recursive: true })

  mkdirSync(join(repoRoot, "bench"), { recursive: true })
  writeFileSync(
    join(repoRoot, "bench", "results.md"),
    `# Benchmark results\n\nWritten by \`pnpm bench\` (tools/bench.ts) on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores. Ratios are measured in one run, so a noisy machine slows both sides alike.\n\n${rows.join("\n")}\n`
  )
}

run()
