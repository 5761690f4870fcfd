/**
 * What normalizing loads, in the form users load it. The plain package is built as it ships (its
 * own tsup config, ESM, into a temporary folder, with esbuild's metafile telling which sources
 * each output file holds), imported by a child process with a loader hook that records every
 * module (tools/record-loads.mjs), and `normalize` and `detectFormat` called; the sources in the
 * files it loaded must hold no HTTP client, database driver, Parquet code, worker machinery,
 * @effect/platform-node or fast-check. The Effect API's light entry, @scanbridge/migrate/normalizer,
 * is checked the same way from its sources (its dist imports the same modules).
 *
 * After a mark in the log, each child then does what does need the heavy code (a client, the
 * migration engine), and the test sees it load: the checks cannot pass by recording nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { promisify } from "node:util"
import type { Options } from "tsup"

const run = promisify(execFile)
const packageDir = fileURLToPath(new URL("..", import.meta.url))
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))
const MARK = "scanbridge:heavy"

/** What code that only normalizes must not load, as source paths (from the repository's root) or module URLs. */
const HEAVY = [
  ["an HTTP client", /\/packages\/http\/|\/packages\/[a-z]+\/src\/client\.ts$|\/@effect\/platform\/dist\/esm\/(HttpClient|FetchHttpClient)\.js$/],
  ["pg", /\/node_modules\/(pg|pg-cursor|pg-copy-streams|pg-protocol)\//],
  ["Parquet", /\/node_modules\/hyparquet(-writer)?\//],
  ["worker machinery", /^node:worker_threads$|\/@effect\/platform\/dist\/esm\/Worker(Runner)?\.js$|\/packages\/migrate\/src\/(workers\.ts|node\/)/],
  ["@effect/platform-node", /\/@effect\/platform-node(-shared)?\//],
  ["fast-check", /\/node_modules\/(fast-check|pure-rand)\//]
] as const

const heavyIn = (loaded: ReadonlyArray<string>, kinds: ReadonlyArray<string>) =>
  Object.fromEntries(HEAVY.filter(([name]) => kinds.includes(name)).map(([name, pattern]) => [name, loaded.filter((m) => pattern.test(m))]))

const ALL = HEAVY.map(([name]) => name)

/** The modules `script` loads before and after it writes the mark, as paths from the repository's root or URLs. */
const loadsOf = async (args: ReadonlyArray<string>, script: string, cwd: string, dir: string) => {
  const log = join(dir, "loaded.txt")
  const child = await run(process.execPath, [...args, "--import", join(repoRoot, "tools/record-loads.mjs"), "--input-type=module", "-e", script], {
    cwd,
    env: { ...process.env, SCANBRIDGE_LOADED_LOG: log }
  })
  const lines = (await readFile(log, "utf8")).split("\n").filter((l) => l !== "")
  const mark = lines.indexOf(MARK)
  return { stdout: child.stdout, before: lines.slice(0, mark), after: lines.slice(mark + 1), mark }
}

const markLine = `;(await import("node:fs")).appendFileSync(process.env.SCANBRIDGE_LOADED_LOG, "${MARK}\\n")`
const RECORD = { format: "scanbridge.scan/v1" }

describe("what normalizing loads", () => {
  it("the built plain package: import { normalize } from scanbridge loads no HTTP client, pg, Parquet, worker machinery, @effect/platform-node or fast-check", async () => {
    const dir = await mkdtemp(join(tmpdir(), "scanbridge-loads-"))
    try {
      const { build } = await import("tsup")
      // A computed specifier: the config is the build's, not a module of the package's types.
      const configs = (await import(pathToFileURL(join(packageDir, "tsup.config.ts")).href)).default as ReadonlyArray<Options>
      const out = join(dir, "dist")
      const library = {
        ...configs[0]!,
        entry: [join(packageDir, "src/index.ts")],
        format: ["esm"],
        dts: false,
        metafile: true,
        outDir: out,
        silent: true,
        clean: false
      } satisfies Options
      await build(library)
      const meta = JSON.parse(await readFile(join(out, "metafile-esm.json"), "utf8")) as { outputs: Record<string, { inputs: Record<string, unknown> }> }
      // Each output file (by URL) and the sources it holds, as absolute paths (esbuild writes both from its working folder).
      const sourcesOf = new Map(
        Object.entries(meta.outputs).map(([file, { inputs }]) => [pathToFileURL(resolve(file)).href, Object.keys(inputs).map((i) => resolve(i))])
      )
      const script = `
const { normalize, detectFormat, platformClient } = await import(${JSON.stringify(pathToFileURL(join(out, "index.js")).href)})
const record = ${JSON.stringify(RECORD)}
let refused = false
try { normalize(record) } catch (e) { refused = e.code === "DecodeError" }
console.log(JSON.stringify({ refused, format: detectFormat(record).format }))
${markLine}
const client = await platformClient({ baseUrl: "http://127.0.0.1:9", orgId: "org", apiKey: "key" })
await client.close()
`
      const { stdout, before, after, mark } = await loadsOf([], script, dir, dir)
      expect(JSON.parse(stdout)).toEqual({ refused: true, format: "scanbridge.scan/v1" })
      expect(mark).toBeGreaterThan(0)
      const expand = (urls: ReadonlyArray<string>) => urls.flatMap((url) => [url, ...(sourcesOf.get(url) ?? [])])
      // The hook saw the bundle, and the metafile maps it to the sources inside.
      expect(before).toContain(pathToFileURL(join(out, "index.js")).href)
      expect(expand(before).some((s) => s.endsWith("/packages/model/src/scan.ts"))).toBe(true)
      for (const [name, found] of Object.entries(heavyIn(expand(before), ALL))) expect(found, name).toEqual([])
      // A client loads what normalizing did not: an HTTP client, with the platform's own.
      expect(heavyIn(expand(after), ["an HTTP client"])["an HTTP client"]).not.toEqual([])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 300_000)

  it("the Effect API's @scanbridge/migrate/normalizer loads no HTTP client, pg, Parquet, worker machinery or @effect/platform-node", async () => {
    const dir = await mkdtemp(join(tmpdir(), "scanbridge-loads-"))
    try {
      const script = `
const { normalizeEither, detectFormat } = await import("@scanbridge/migrate/normalizer")
const record = ${JSON.stringify(RECORD)}
console.log(JSON.stringify({ refused: normalizeEither(record)._tag === "Left", format: detectFormat(record).right?.format.name }))
${markLine}
await import("@scanbridge/migrate")
`
      const { stdout, before, after } = await loadsOf(["--conditions=@scanbridge/source", "--import", "tsx"], script, packageDir, dir)
      expect(JSON.parse(stdout)).toEqual({ refused: true, format: "scanbridge.scan/v1" })
      expect(before.some((url) => url.endsWith("/packages/migrate/src/normalizer-entry.ts"))).toBe(true)
      expect(before.some((url) => url.endsWith("/packages/platform/src/adapter.ts"))).toBe(true)
      // effect/Schema imports fast-check itself (for Schema's arbitraries), so an Effect user who
      // decodes loads it whatever Scanbridge does: not among what this entry must not load.
      for (const [name, found] of Object.entries(
        heavyIn(
          before,
          ALL.filter((n) => n !== "fast-check")
        )
      ))
        expect(found, name).toEqual([])
      // The package's main entry does load the engine's worker side.
      expect(heavyIn(after, ["worker machinery"])["worker machinery"]).not.toEqual([])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
