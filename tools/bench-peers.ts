/**
 * Part of `pnpm bench` (tools/bench.ts bundles this file and runs it with node, `--parts peers`):
 * the bench's platform entry, platform envelope and session records through zod 4, valibot and
 * protobuf-es (tools/peers/), each against JSON.parse alone on the same lines in paired rounds
 * (tools/bench-pairs.ts), and normalize beside them on the same lines, measured the same way.
 * Prints its Markdown section on stdout.
 *
 * `--gc` (run with `--expose-gc`): a gc() before and after each timed round, inside the timing,
 * as the figure of record of normalize's table. `--pairs N`: paired rounds per reader (default 15).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { FORMATS, templates } from "./bench-inputs.js"
import { againstParse, meanBytes, measure, middleHalf, normalizeOrThrow, readEach, recordsOf } from "./bench-pairs.js"
import { NOT_DONE, PEERS, type PeerFormat } from "./peers/readers.js"

const GC = process.argv.includes("--gc")
const gc = (globalThis as { gc?: () => void }).gc
if (GC && gc === undefined) throw new Error("bench-peers --gc needs node --expose-gc")
const pairsAt = process.argv.indexOf("--pairs")
const PAIRS = pairsAt >= 0 ? Number(process.argv[pairsAt + 1]) : 15
// As in bench-normalize: with a GC in each round, rounds long enough that the gc() calls' fixed
// cost is a small part of either side's time.
const LINES = GC ? 10_000 : 2_000
const options = { pairs: PAIRS, collect: GC ? gc! : () => {} }

const root = process.cwd()
const all = templates(root)
const versionOf = (name: string) => (JSON.parse(readFileSync(join(root, "tools", "node_modules", name, "package.json"), "utf8")) as { version: string }).version

const x = (ratio: number) => `${ratio.toFixed(2)} x`
const perSecond = (ms: number) => Math.round((LINES / ms) * 1000).toLocaleString("en")

const mode = GC ? "GC inside each timed round" : "no forced GC"
console.log(
  `## Peers: zod, valibot and protobuf-es against JSON.parse, beside normalize (${mode}, median of ${PAIRS} paired rounds, ${LINES.toLocaleString("en")} records each)\n`
)
console.log(
  `zod ${versionOf("zod")}, valibot ${versionOf("valibot")}, @bufbuild/protobuf ${versionOf("@bufbuild/protobuf")}. Each reader, normalize too, is timed as JSON.parse of each line then the reader, in pairs against JSON.parse alone in the same process (tools/bench-peers.ts); "normalize against it" is the peer's time over normalize's (above 1, normalize is faster), measured in paired rounds of the two, with the middle half of the pairs. The schemas are tools/peers/: zod and valibot mirror the platform wire schema (packages/platform/src/wire.ts), the protobuf-es descriptor the session one (packages/session/src/wire.ts); tools/test/peers.test.ts holds each to accepting every record timed here and refusing broken ones.\n`
)
console.log(
  "| format | reader | mean record bytes | JSON.parse records/s | reader records/s | ratio to JSON.parse | middle half of the pairs | normalize against it |"
)
console.log("|---|---|---|---|---|---|---|---|")
const standings: Array<string> = []
for (const key of Object.keys(PEERS) as Array<PeerFormat>) {
  const lines = recordsOf(all[key], LINES)
  const read = normalizeOrThrow(FORMATS[key])
  const normalize = againstParse(lines, read, options)
  const row = (reader: string, m: typeof normalize, against: string) =>
    console.log(
      `| ${FORMATS[key]} | ${reader} | ${meanBytes(lines)} | ${perSecond(m.base)} | ${perSecond(m.other)} | ${x(m.ratio)} | ${middleHalf(m)} | ${against} |`
    )
  row("Scanbridge `normalize`", normalize, "-")
  const against = PEERS[key].map((peer) => {
    const m = againstParse(lines, peer.read, options)
    // In pairs of their own: a ratio of the two ratios above would add up both sides' noise.
    const head = measure(readEach(lines, peer.read), readEach(lines, read), options)
    row(peer.name, m, `${x(head.ratio)} (${middleHalf(head)})`)
    return `${x(head.ratio)} ${peer.name.split(" `")[0]!}'s`
  })
  standings.push(`${against.join(" and ")} speed on ${FORMATS[key]} records`)
}
console.log(`\nWhere Scanbridge stands: normalize runs at ${standings.join("; ")}, while doing what none of them does:\n`)
for (const line of NOT_DONE) console.log(`- ${line}.`)
