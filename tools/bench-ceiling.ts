/**
 * Part of `pnpm bench` (tools/bench.ts bundles this file and runs it with `node --expose-gc`,
 * `--parts ceiling`): how far a one-pass reader (issue 34, part 1) could take the format furthest
 * below its target. The bench's estimation read items go through normalize and through a reader
 * of that format fused by hand (tools/ceiling/), each against JSON.parse alone on the same lines
 * in paired rounds (tools/bench-pairs.ts), with no forced GC and with a GC inside each timed round.
 * Prints its Markdown section on stdout.
 *
 * The fused reader's side detects the format as normalize does (the normalizer's `detect`), then
 * reads: a generated reader replaces the decoder, not the detection. `--pairs N`: paired rounds
 * per measurement (default 15).
 */
import { defaultNormalizer } from "@scanbridge/migrate"
import { FORMATS, templates } from "./bench-inputs.js"
import { againstParse, meanBytes, measure, middleHalf, normalizeOrThrow, readEach, recordsOf } from "./bench-pairs.js"
import { readEstimationItem } from "./ceiling/estimation-read-item.js"

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error("bench-ceiling needs node --expose-gc")
const pairsAt = process.argv.indexOf("--pairs")
const PAIRS = pairsAt >= 0 ? Number(process.argv[pairsAt + 1]) : 15
const TARGET = 0.8

const x = (ratio: number) => `${ratio.toFixed(2)} x`
const format = FORMATS.estimationItem

/** Detection as normalize's, then the fused reader; throws where it would leave the record to normalize (the bench's records never are). */
const fused = (json: unknown): unknown => {
  const detected = defaultNormalizer.detect(json)
  if (detected._tag === "Left" || detected.right.format.name !== format) throw new Error(`${format}: not detected as one`)
  const scans = readEstimationItem(json)
  if (scans === undefined) throw new Error(`${format}: a bench record the fused reader leaves to normalize`)
  return scans
}

console.log(`## One-pass ceiling: ${format} (median of ${PAIRS} paired rounds)\n`)
console.log(
  `The format furthest below its target, read two ways, each timed as JSON.parse of each line then the reader, in pairs against JSON.parse alone: normalize, and a reader of this one format fused by hand (tools/ceiling/estimation-read-item.ts). The fused reader does in one pass what any reader must still do on these records: check every value as the wire schema does and count the keys, weigh the lengths in millimetres and centimetres, write the same notes and build the same scan (tools/test/ceiling.test.ts holds its output to normalize's, byte for byte, and its answers to changed records to normalize's). It leaves out what a generated one-pass reader would leave out: an Either per step, the decode walk, the guard's pass before the reading pass, the copy of a scan being built. Its ratio is what generating such a reader could reach at most on this format; "normalize against it" is the fused reader's time over normalize's, in pairs of the two.\n`
)
console.log("| timing | records | mean record bytes | JSON.parse records/s | normalize | one-pass ceiling | normalize against it |")
console.log("|---|---|---|---|---|---|---|")
// The last rows' ratios: the GC-inside ones, the target's timing.
let normalizeGc = 0
let ceilingGc = 0
for (const [mode, lines, collect] of [
  ["no forced GC", recordsOf(templates(process.cwd()).estimationItem, 2_000), () => {}],
  ["GC inside each timed round", recordsOf(templates(process.cwd()).estimationItem, 10_000), gc]
] as const) {
  const options = { pairs: PAIRS, collect }
  const normalize = againstParse(lines, normalizeOrThrow(format), options)
  const ceiling = againstParse(lines, fused, options)
  const head = measure(readEach(lines, fused), readEach(lines, normalizeOrThrow(format)), options)
  normalizeGc = normalize.ratio
  ceilingGc = ceiling.ratio
  console.log(
    `| ${mode} | ${lines.length.toLocaleString("en")} | ${meanBytes(lines)} | ${Math.round((lines.length / normalize.base) * 1000).toLocaleString("en")} | ${x(normalize.ratio)} (${middleHalf(normalize)}) | ${x(ceiling.ratio)} (${middleHalf(ceiling)}) | ${x(head.ratio)} (${middleHalf(head)}) |`
  )
}
console.log(
  `\nWith a GC inside each timed round, the target's timing: normalize ${x(normalizeGc)}, the ceiling ${x(ceilingGc)} against the target's ${x(TARGET)}. ${
    ceilingGc >= TARGET
      ? "A one-pass reader can meet the target on this format, with the notes as they are."
      : `Even a reader that does nothing else misses it by ${(TARGET - ceilingGc).toFixed(2)}: what is left is JSON.parse, the checks, the notes' texts (four a record, some 600 characters with their numbers) and the scan, and meeting the target on this format would take fewer or shorter notes, not only a faster reader.`
  }`
)
