/**
 * A process of its own for the differential test: `--jitless` configures Codegen before anything
 * is imported (guards compiled before stay compiled, so jitless needs a fresh process), then it
 * compares the two sides on batches `from` to `from + count - 1` of the corpus and prints the
 * summary as JSON, with how many times code was generated (none, when jitless), and a line of
 * progress on standard error now and then.
 *
 *   node --conditions=@scanbridge/source --import tsx differential-child.ts SEED FROM COUNT SIZE [--jitless] [--options-every N]
 */
import { generatedCode } from "./count-generated-code.js"

if (process.argv.includes("--jitless")) {
  const { Codegen } = await import("@scanbridge/model")
  Codegen.configure({ jitless: true })
}
const { compareCorpus } = await import("./differential-sides.js")
const [seed, from, count, size] = process.argv.slice(2, 6).map(Number) as [number, number, number, number]
const optionsEveryAt = process.argv.indexOf("--options-every")
const optionsEvery = optionsEveryAt < 0 ? 1 : Number(process.argv[optionsEveryAt + 1])
// A line on standard error every 50 batches: the sweep runs for many minutes.
const summary = compareCorpus(
  seed,
  from,
  count,
  size,
  (s, batch) => {
    if ((batch - from + 1) % 50 === 0) process.stderr.write(`differential: ${s.records} of ${count * size} records, ${s.mismatches} mismatches\n`)
  },
  optionsEvery
)
process.stdout.write(JSON.stringify({ ...summary, generatedCode: generatedCode() }))
