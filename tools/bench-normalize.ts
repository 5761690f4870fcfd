/**
 * Part 1 of `pnpm bench` (tools/bench.ts bundles this file and runs it with node): normalize,
 * JSON text -> validated canonical scans, against JSON.parse alone on the same lines, per source
 * format, on the example export's records. Prints its Markdown table on stdout. Target 0.6 x.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Either } from "effect"
import { defaultNormalizer } from "@scanbridge/migrate"

const ROUNDS = 7
const LINES = 5_000

const example = (file: string) => readFileSync(join("examples", "export", file), "utf8").trim().split("\n")
const SAMPLES: ReadonlyArray<[string, string]> = [
  ["scanbridge.scan/v1", JSON.stringify(JSON.parse(readFileSync(join("examples", "canonical", "photo-scan.json"), "utf8")))],
  ["platform entry", JSON.stringify((JSON.parse(example("platform/entries.ndjson")[2]!) as { entry: unknown }).entry)],
  ["session ScanningResults", JSON.stringify((JSON.parse(readFileSync(join("examples", "export", "session", "results.json"), "utf8")) as Array<unknown>)[0])],
  ["estimation read response", example("estimation/read-responses.ndjson")[0]!],
  ["fit estimation result", example("fit/estimations.ndjson")[0]!]
]

// The fastest of a few rounds: the one least disturbed by the rest of a shared machine.
const best = (run: () => void): number => {
  let fastest = Infinity
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now()
    run()
    fastest = Math.min(fastest, performance.now() - start)
  }
  return fastest
}

console.log(`## normalize against JSON.parse (best of ${ROUNDS}, ${LINES} records each)\n`)
console.log("| format | record bytes | JSON.parse records/s | normalize records/s | ratio | target |")
console.log("|---|---|---|---|---|---|")
for (const [name, line] of SAMPLES) {
  const lines = Array.from({ length: LINES }, () => line)
  const parse = best(() => {
    for (const l of lines) JSON.parse(l)
  })
  const normalize = best(() => {
    for (const l of lines) {
      const result = defaultNormalizer.normalize(JSON.parse(l))
      if (Either.isLeft(result)) throw new Error(`${name}: ${result.left.message}`)
    }
  })
  const perSecond = (ms: number) => Math.round((LINES / ms) * 1000).toLocaleString("en")
  console.log(`| ${name} | ${line.length} | ${perSecond(parse)} | ${perSecond(normalize)} | ${(parse / normalize).toFixed(2)} x | 0.6 x |`)
}
