/**
 * `pnpm demo`: the main job until the CLI exists. Reads the canonical example scans, shows a
 * valid one measurement by measurement in every dialect and unit, and shows what a rejected
 * one reports.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Console, Effect, Either } from "effect"
import {
  Catalogue,
  MEASUREMENTS,
  STATS,
  type Scan,
  formatPath,
  mmToCm,
  mmToInches,
  parseScanEither,
  previewValue,
  round
} from "@scanbridge/model"
import { repoRoot } from "./docs/generated.js"

const EXAMPLES = ["examples/canonical/photo-scan.json", "examples/canonical/broken-scan.json"]

const pad = (s: string | number, n: number) => String(s).padEnd(n)
const padLeft = (s: string | number, n: number) => String(s).padStart(n)

const describeScan = (file: string, scan: Scan) =>
  Effect.gen(function* () {
    const s = scan.subject
    yield* Console.log(`${file}: valid ${scan.format} (${scan.source.api} ${scan.source.id ?? "-"}, ${scan.status}, ${scan.method ?? "-"})`)
    yield* Console.log(
      `  subject: ${s.gender ?? "?"}, ${s.age ?? "?"} y, ${s.heightMm === null ? "?" : mmToCm(s.heightMm)} cm, ${s.weightG === null ? "?" : s.weightG / 1000} kg`
    )
    yield* Console.log(`  ${pad("measurement", 32)}${pad("session enum (no.)", 40)}${pad("estimation key", 36)}${padLeft("cm", 7)}${padLeft("in", 8)}`)
    for (const [name, mm] of Object.entries(scan.measurementsMm)) {
      const entry = Catalogue.byName(name)!
      const session = `${entry.session.name} (${entry.session.number})`
      const row = `${pad(name, 32)}${pad(session, 40)}${pad(entry.estimation ?? "(none)", 36)}`
      yield* Console.log(`  ${row}${padLeft(mmToCm(mm).toFixed(1), 7)}${padLeft(round(mmToInches(mm), 2).toFixed(2), 8)}`)
    }
    for (const note of scan.notes) yield* Console.log(`  note: ${note.kind} ${note.path}: ${note.detail}`)
  })

const program = Effect.gen(function* () {
  yield* Console.log("Scanbridge: the canonical model")
  yield* Console.log(
    `catalogue: ${MEASUREMENTS.length} measurements named in the platform, session, estimation and fit dialects, and ${STATS.length} stats\n`
  )
  for (const file of EXAMPLES) {
    const result = parseScanEither(readFileSync(join(repoRoot, file), "utf8"))
    if (Either.isRight(result)) {
      yield* describeScan(file, result.right)
    } else {
      yield* Console.log(`${file}: rejected, ${result.left._tag} with ${result.left.issues.length} problems`)
      for (const issue of result.left.issues) {
        yield* Console.log(`  at ${formatPath(issue.path)}: ${issue.message} (got ${previewValue(issue.value)})`)
      }
    }
    yield* Console.log("")
  }
})

Effect.runSync(program)
