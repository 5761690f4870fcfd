/**
 * `pnpm run docs`: rewrites the generated parts of docs/ from the catalogue and the schema.
 * `pnpm run docs --check` writes nothing and exits 1 when a committed file is out of date.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { GENERATED, readCurrent, repoRoot } from "./docs/generated.js"

const check = process.argv.includes("--check")
let stale = 0
for (const file of GENERATED) {
  const current = readCurrent(file)
  const next = file.render(current)
  if (next === current) continue
  stale++
  if (check) console.error(`out of date: ${file.path} (run pnpm run docs)`)
  else {
    mkdirSync(dirname(join(repoRoot, file.path)), { recursive: true })
    writeFileSync(join(repoRoot, file.path), next)
    console.log(`wrote ${file.path}`)
  }
}
if (check && stale > 0) process.exitCode = 1
