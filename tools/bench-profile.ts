/**
 * Part of `pnpm bench` (`--parts profile`): where a migration's time goes, from a CPU profile of
 * the mixed input migrated with `--workers 0`, every record's work on the one thread V8's
 * `--cpu-prof` samples. The command is the CLI's sources bundled by esbuild (tools/bundle.ts),
 * the code the installed bin runs; esbuild heads each module of the bundle with its path, so each
 * sample's line names its source file, and the files add up by package.
 *
 * V8 counts a builtin's time (JSON.parse, JSON.stringify, a regular expression) as its caller's
 * own: the migration's record loop (packages/migrate, internal/pipeline.ts) holds JSON.parse, the
 * canonical target (internal/targets.ts) JSON.stringify. So it does with a function it inlined.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { writeInput } from "./bench-inputs.js"
import type { BenchContext } from "./bench-tables.js"
import { bundle } from "./bundle.js"
import { repoRoot } from "./docs/generated.js"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

// esbuild's module headers in an unminified bundle: `// packages/model/src/internal/walk.ts`.
const MODULE_HEADER = /^\/\/ ((?:packages|node_modules|tools)\/\S+\.[cm]?[jt]s)$/

/** For each line of the bundle (0-based), the source file it comes from. */
const modulesByLine = (text: string): ReadonlyArray<string> => {
  let current = "(bundle)"
  return text.split("\n").map((line) => {
    const m = MODULE_HEADER.exec(line)
    if (m !== null) current = m[1]!
    return current
  })
}

/** A source file's group: a workspace package, a dependency, or V8's own entries. */
const groupOf = (file: string): string => {
  const pkg = /^packages\/([^/]+)\//.exec(file)
  if (pkg !== null) return `@scanbridge/${pkg[1]}`
  const dep = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(file)
  return dep !== null ? dep[1]! : file
}

// Code Scanbridge generates names itself `scanbridge-<kind>/<name>.js` (@scanbridge/model's Codegen).
const GENERATED = /^scanbridge-([^/]+)\//

/** Where a sampled frame's code lives: its source file (for the bundle's and generated code) and its group. */
const placeOf = (frame: CallFrame, lines: ReadonlyArray<string>, bundleFile: string): { readonly file?: string; readonly group: string } => {
  if (frame.url.endsWith(bundleFile)) {
    const file = lines[frame.lineNumber] ?? "(bundle)"
    return { file, group: groupOf(file) }
  }
  const generated = GENERATED.exec(frame.url)
  if (generated !== null) return { file: `generated ${generated[1]}`, group: "@scanbridge/model, generated code" }
  // V8's entries ((garbage collector), (program), (idle)) and natives have no URL.
  if (frame.url === "") return { group: frame.functionName }
  return { group: "node's own modules" }
}

interface Share {
  readonly name: string
  readonly micros: number
}

const top = (m: Map<string, number>, n: number): ReadonlyArray<Share> =>
  [...m]
    .map(([name, micros]) => ({ name, micros }))
    .sort((a, b) => b.micros - a.micros)
    .slice(0, n)

/** Self time by package, by source file and by function, from a profile of `bundleFile`. */
export const summarize = (profile: Profile, bundleText: string, bundleFile: string) => {
  const lines = modulesByLine(bundleText)
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  const byGroup = new Map<string, number>()
  const byFile = new Map<string, number>()
  const byFunction = new Map<string, number>()
  let total = 0
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v)
  for (let i = 0; i < profile.samples.length; i++) {
    const frame = nodes.get(profile.samples[i]!)!.callFrame
    const dt = profile.timeDeltas[i] ?? 0
    total += dt
    const { file, group } = placeOf(frame, lines, bundleFile)
    add(byGroup, group, dt)
    if (file !== undefined) add(byFile, file, dt)
    add(byFunction, `${frame.functionName || "(anonymous)"} (${file ?? group})`, dt)
  }
  return { total, byGroup: top(byGroup, 12), byFile: top(byFile, 15), byFunction: top(byFunction, 20) }
}

/** The section: a profile of `records` mixed records migrated with `--workers 0`. */
export const profileSection = async (ctx: BenchContext, records: number) => {
  const work = join(ctx.dir, "profile")
  mkdirSync(work, { recursive: true })
  const cli = join(work, "scanbridge.mjs")
  await bundle("packages/cli/src/main.ts", cli)
  const input = join(work, "mixed.ndjson")
  ctx.note(`profile: writing ${ctx.count(records)} mixed records`)
  writeInput(repoRoot, input, "mixed", records)
  const profiles = join(work, "profiles")
  ctx.note("profile: migrating with --workers 0 under --cpu-prof")
  const run = spawnSync(
    process.execPath,
    [
      "--cpu-prof",
      "--cpu-prof-dir",
      profiles,
      cli,
      "migrate",
      input,
      "--out",
      join(work, "out.ndjson"),
      "--rejects",
      join(work, "rejects.ndjson"),
      "--workers",
      "0"
    ],
    { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" }
  )
  if (run.status !== 0) throw new Error(`the profiled migration failed (${run.status}): ${run.stderr.slice(-2000)}`)
  const file = readdirSync(profiles).find((f) => f.endsWith(".cpuprofile"))
  if (file === undefined) throw new Error("the profiled migration wrote no profile")
  const profile = JSON.parse(readFileSync(join(profiles, file), "utf8")) as Profile
  const { total, byGroup, byFile, byFunction } = summarize(profile, readFileSync(cli, "utf8"), "scanbridge.mjs")
  rmSync(work, { recursive: true })
  const pct = (micros: number) => `${((100 * micros) / total).toFixed(1)} %`
  const table = (heading: string, shares: ReadonlyArray<Share>) => [
    `| ${heading} | self time |`,
    "|---|---|",
    ...shares.map((s) => `| ${s.name} | ${pct(s.micros)} |`),
    ""
  ]
  ctx.log(`\n## Where the time goes: a CPU profile of the mixed input (${ctx.count(records)} records, \`--workers 0\`)\n`)
  ctx.log(
    `Self time of ${(total / 1e6).toFixed(1)} s sampled by V8 (\`--cpu-prof\`) on the one thread that does all the work with \`--workers 0\`, the CLI's sources bundled by esbuild (tools/bench-profile.ts). A builtin's time is its caller's: JSON.parse is in @scanbridge/migrate's record loop (internal/pipeline.ts), JSON.stringify in its targets (internal/targets.ts); so is the time of whatever V8 inlined into a function (the record loop's short callees among them); "(garbage collector)" is V8's collection of every side's garbage.\n`
  )
  for (const line of [...table("package or V8 entry", byGroup), ...table("source file", byFile), ...table("function (source file)", byFunction)]) ctx.log(line)
}
