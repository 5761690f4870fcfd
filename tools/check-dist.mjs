// After `pnpm build`: loads every entry point a package publishes (its exports' import and
// require targets), with require() and with import(), and checks that its .d.ts files exist; runs
// every executable (bin) with --version and --help, from inside the repository and as installed.
// Every JavaScript file of every dist is parsed too (`node --check`): a chunk loaded only lazily
// (the plain package's PostgreSQL code) would otherwise ship a syntax error unseen.
// Catches a build that passes but ships something consumers cannot load or run.
//
// In the workspace, packages resolve each other to their sources (the @scanbridge/source export
// condition, which tools and tests set). Node without it, as a consumer runs it, gets the built
// form; so the packages are laid out here as npm would install them: each one's package.json and
// dist in a temporary node_modules, its third-party dependencies linked from the workspace.
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const repo = join(dirname(fileURLToPath(import.meta.url)), "..")
const root = join(repo, "packages")
const store = mkdtempSync(join(tmpdir(), "scanbridge-dist-"))
const modules = join(store, "node_modules")

const packages = readdirSync(root).map((name) => {
  const dir = join(root, name)
  return { dir, pkg: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }
})

for (const { dir, pkg } of packages) {
  const target = join(modules, pkg.name)
  mkdirSync(target, { recursive: true })
  writeFileSync(join(target, "package.json"), JSON.stringify(pkg))
  cpSync(join(dir, "dist"), join(target, "dist"), { recursive: true })
  const deps = { ...pkg.dependencies, ...pkg.peerDependencies }
  for (const dep of Object.keys(deps).filter((d) => !d.startsWith("@scanbridge/"))) {
    const link = join(target, "node_modules", dep)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(realpathSync(join(dir, "node_modules", dep)), link, "dir")
  }
}

/** Runs an executable with --version and --help; fails unless both exit 0 and print. */
const runs = (name, bin, cwd) => {
  for (const flag of ["--version", "--help"]) {
    const out = execFileSync(process.execPath, [bin, flag], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
    if (out.trim() === "") throw new Error(`${name} ${flag} (in ${cwd}): printed nothing`)
  }
}

/** Parses every .js and .cjs file under `dir`; fails on the first that is not valid JavaScript. */
const parses = (dir) => {
  let files = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.c?js$/.test(entry.name)) continue
    const file = join(entry.parentPath, entry.name)
    try {
      execFileSync(process.execPath, ["--check", file], { stdio: ["ignore", "ignore", "pipe"] })
    } catch (e) {
      throw new Error(`${file} is not valid JavaScript: ${String(e.stderr).split("\n").slice(0, 5).join("\n")}`)
    }
    files++
  }
  return files
}

let checked = 0
let executables = 0
let parsed = 0
try {
  for (const { dir: source, pkg } of packages) {
    const dir = join(modules, pkg.name)
    const require = createRequire(join(dir, "package.json"))
    parsed += parses(join(source, "dist"))
    for (const [name, bin] of Object.entries(pkg.bin ?? {})) {
      runs(name, join(source, bin), repo)
      runs(name, join(dir, bin), store)
      executables++
    }
    for (const [entry, target] of Object.entries(pkg.exports ?? {})) {
      for (const file of [target.import.types, target.require.types]) {
        if (!existsSync(join(dir, file))) throw new Error(`${pkg.name} ${entry}: missing ${file}`)
      }
      const cjs = require(join(dir, target.require.default))
      const esm = await import(pathToFileURL(join(dir, target.import.default)).href)
      const names = Object.keys(esm).sort().join()
      if (names === "" || names !== Object.keys(cjs).sort().join()) {
        throw new Error(`${pkg.name} ${entry}: ESM and CJS builds export different names`)
      }
      checked++
    }
  }
} finally {
  rmSync(store, { recursive: true, force: true })
}
console.log(`dist: ${parsed} files parse; ${checked} entry points load as ESM and CJS; ${executables} executable(s) run from the repository and as installed`)
