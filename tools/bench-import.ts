/**
 * The part of `pnpm bench` for code that only normalizes (issue 31): what importing the plain API
 * and the Effect API's normalizer costs above bare Node (`node -e 0`, interleaved in the same
 * rounds), and what `npm i scanbridge` from its packed tarball puts in node_modules. Both APIs are
 * measured as built (the plain package's bundle, @scanbridge/migrate's dist), as users load them.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import type { BenchContext } from "./bench-tables.js"
import { repoRoot } from "./docs/generated.js"

/** Issue 31's targets: above bare Node, and the install. */
export const IMPORT_TARGET = { seconds: 0.15, mb: 25, installMb: 25 }

const RECORD = JSON.stringify({ format: "scanbridge.scan/v1" })

const bytesUnder = (path: string): number => {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (stat === undefined || stat.isSymbolicLink()) return 0
  if (!stat.isDirectory()) return stat.size
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0)
}

type Judge = (target: string, measured: string, pass: boolean) => string

/**
 * Interleaved runs of bare Node and of an import of each API's normalize (called once, so the
 * import is not left half done), then `npm i` of the packed plain package, offline: it has no
 * dependencies to fetch (pg is an optional peer, which npm does not install).
 */
export const importFigures = (ctx: BenchContext, runs: number, judge: Judge, pnpm: ReadonlyArray<string>, build: boolean) => {
  const run = (command: string, args: ReadonlyArray<string>) => {
    const child = spawnSync(command, args as Array<string>, { cwd: repoRoot, encoding: "utf8" })
    if (child.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${child.status ?? child.signal}:\n${child.stdout}\n${child.stderr}`)
  }
  if (build) {
    ctx.note("import: building the plain package and @scanbridge/migrate with what it imports")
    run(pnpm[0]!, [...pnpm.slice(1), "--filter", "scanbridge", "--filter", "@scanbridge/migrate...", "build"])
  }
  const plain = pathToFileURL(join(repoRoot, "packages", "scanbridge", "dist", "index.js")).href
  const effect = pathToFileURL(join(repoRoot, "packages", "migrate", "dist", "normalizer-entry.js")).href
  const programs = [
    ["`node -e 0`", ["-e", "0"]],
    [
      'plain API: `import { normalize } from "scanbridge"`',
      ["--input-type=module", "-e", `const { normalize } = await import(${JSON.stringify(plain)}); try { normalize(${RECORD}) } catch {}`]
    ],
    [
      'Effect API: `import { normalizeEither } from "@scanbridge/migrate/normalizer"`',
      ["--input-type=module", "-e", `const { normalizeEither } = await import(${JSON.stringify(effect)}); normalizeEither(${RECORD})`]
    ]
  ] as const
  const measured = programs.map(() => [] as Array<{ seconds: number; rssMb: number }>)
  for (let r = 0; r < runs; r++) {
    ctx.note(`import: run ${r + 1}/${runs}`)
    const order = programs.map((_, i) => (i + r) % programs.length)
    for (const i of order) measured[i]!.push(ctx.measure(process.execPath, programs[i]![1]))
  }
  const seconds = measured.map((m) => ctx.median(m.map((x) => x.seconds)))
  const rss = measured.map((m) => ctx.median(m.map((x) => x.rssMb)))

  ctx.note("import: packing and installing the plain package")
  const packs = join(ctx.dir, "plain-pack")
  mkdirSync(packs)
  run(pnpm[0]!, [...pnpm.slice(1), "--filter", "scanbridge", "pack", "--pack-destination", packs])
  const tarball = join(packs, readdirSync(packs).find((f) => f.endsWith(".tgz"))!)
  const prefix = join(ctx.dir, "plain-prefix")
  mkdirSync(prefix)
  run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--prefix", prefix, tarball])
  const modules = join(prefix, "node_modules")
  const installedMb = bytesUnder(modules) / 1e6
  const installed = readdirSync(modules).filter((name) => !name.startsWith("."))

  ctx.log(`\n## Importing to normalize (median of ${runs} runs, interleaved), and installing\n`)
  ctx.log("Each import calls `normalize` once. Above bare Node: the program's median less `node -e 0`'s, of the same runs.\n")
  ctx.log("| program | seconds | peak RSS MB | above bare Node | target |")
  ctx.log("|---|---|---|---|---|")
  ctx.log(`| ${programs[0][0]} | ${seconds[0]!.toFixed(3)} | ${rss[0]!.toFixed(0)} | | |`)
  for (const i of [1, 2]) {
    const s = seconds[i]! - seconds[0]!
    const mb = rss[i]! - rss[0]!
    const name = i === 1 ? "plain API" : "Effect API normalizer"
    const verdict = judge(
      `6. ${name}: import to normalize ≤ ${IMPORT_TARGET.seconds} s and ≤ ${IMPORT_TARGET.mb} MB above bare Node`,
      `${s.toFixed(2)} s, ${mb.toFixed(0)} MB`,
      s <= IMPORT_TARGET.seconds && mb <= IMPORT_TARGET.mb
    )
    ctx.log(
      `| ${programs[i]![0]} | ${seconds[i]!.toFixed(3)} | ${rss[i]!.toFixed(0)} | ${s.toFixed(3)} s, ${mb.toFixed(0)} MB | ≤ ${IMPORT_TARGET.seconds} s, ≤ ${IMPORT_TARGET.mb} MB: ${verdict} |`
    )
  }
  const verdict = judge(
    `6. npm i scanbridge ≤ ${IMPORT_TARGET.installMb} MB of node_modules`,
    `${installedMb.toFixed(1)} MB`,
    installedMb <= IMPORT_TARGET.installMb
  )
  ctx.log(
    `\n\`npm i scanbridge\` from its packed tarball (${(statSync(tarball).size / 1e6).toFixed(1)} MB), offline: ${installedMb.toFixed(1)} MB of node_modules (${installed.join(", ")}); target ≤ ${IMPORT_TARGET.installMb} MB: ${verdict}.`
  )
}
