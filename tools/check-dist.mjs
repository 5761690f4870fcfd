// After `pnpm build`: loads every entry point a package publishes (its publishConfig.exports),
// with require() and with import(), and checks that its .d.ts files exist. Catches a build
// that passes but ships something consumers cannot load.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "packages")
let checked = 0
for (const name of readdirSync(root)) {
  const dir = join(root, name)
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  const require = createRequire(join(dir, "package.json"))
  for (const [entry, target] of Object.entries(pkg.publishConfig?.exports ?? {})) {
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
console.log(`dist: ${checked} entry points load as ESM and CJS`)
