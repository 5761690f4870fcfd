/**
 * Part 1 of `pnpm bench` (tools/bench.ts bundles this file and runs it with node): normalize,
 * JSON text -> validated canonical scans, against JSON.parse alone on the same lines, per source
 * format, on the example export's records. Prints its Markdown table on stdout. Target 0.6 x.
 * `--jitless`: the same with `Codegen.configure({ jitless: true })`, every guard made of closures.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Either } from "effect"
import { defaultNormalizer } from "@scanbridge/migrate"
import { Codegen } from "@scanbridge/model"

// Before the first record: importing compiled nothing, so every guard is made as configured here.
const JITLESS = process.argv.includes("--jitless")
Codegen.configure({ jitless: JITLESS })

const PAIRS = 31
const LINES = 2_000

const example = (file: string) => readFileSync(join("examples", "export", file), "utf8").trim().split("\n")
const SAMPLES: ReadonlyArray<[string, string]> = [
  ["scanbridge.scan/v1", JSON.stringify(JSON.parse(readFileSync(join("examples", "canonical", "photo-scan.json"), "utf8")))],
  ["platform entry", JSON.stringify((JSON.parse(example("platform/entries.ndjson")[2]!) as { entry: unknown }).entry)],
  ["session ScanningResults", JSON.stringify((JSON.parse(readFileSync(join("examples", "export", "session", "results.json"), "utf8")) as Array<unknown>)[0])],
  ["estimation read response", example("estimation/read-responses.ndjson")[0]!],
  ["fit estimation result", example("fit/estimations.ndjson")[0]!]
]

const time = (run: () => void): number => {
  const start = performance.now()
  run()
  return performance.now() - start
}

const quantile = (xs: ReadonlyArray<number>, q: number): number => [...xs].sort((a, b) => a - b)[Math.round((xs.length - 1) * q)]!

/**
 * JSON.parse rounds and normalize rounds in pairs, back to back, in alternating order, so that
 * both halves of a pair run on the same machine weather; the ratio is the median of the pairs'
 * ratios, with the middle half of them beside it. A neighbour's burst of load spoils a pair or
 * two, where "best of n" of each side apart let one burst move the ratio by a third.
 */
const measure = (parse: () => void, normalize: () => void) => {
  for (let r = 0; r < 3; r++) parse(), normalize()
  const parseMs: Array<number> = []
  const normalizeMs: Array<number> = []
  const ratios: Array<number> = []
  for (let r = 0; r < PAIRS; r++) {
    // Each side goes first in half the pairs.
    let p: number
    let n: number
    if (r % 2 === 0) {
      p = time(parse)
      n = time(normalize)
    } else {
      n = time(normalize)
      p = time(parse)
    }
    parseMs.push(p)
    normalizeMs.push(n)
    ratios.push(p / n)
  }
  return { parse: quantile(parseMs, 0.5), normalize: quantile(normalizeMs, 0.5), ratio: quantile(ratios, 0.5), low: quantile(ratios, 0.25), high: quantile(ratios, 0.75) }
}

console.log(`## normalize against JSON.parse, ${JITLESS ? "jitless (closures only)" : "generated code"} (median of ${PAIRS} paired rounds, ${LINES} records each)\n`)
console.log("| format | record bytes | JSON.parse records/s | normalize records/s | ratio | middle half of the pairs | target |")
console.log("|---|---|---|---|---|---|---|")
for (const [name, line] of SAMPLES) {
  const lines = Array.from({ length: LINES }, () => line)
  const m = measure(
    () => {
      for (const l of lines) JSON.parse(l)
    },
    () => {
      for (const l of lines) {
        const result = defaultNormalizer.normalize(JSON.parse(l))
        if (Either.isLeft(result)) throw new Error(`${name}: ${result.left.message}`)
      }
    }
  )
  const perSecond = (ms: number) => Math.round((LINES / ms) * 1000).toLocaleString("en")
  console.log(`| ${name} | ${line.length} | ${perSecond(m.parse)} | ${perSecond(m.normalize)} | ${m.ratio.toFixed(2)} x | ${m.low.toFixed(2)}-${m.high.toFixed(2)} x | 0.6 x |`)
}
