/**
 * `pnpm bench`: throughput ratios measured in one run, so a noisy shared machine slows both
 * sides alike. Each figure is the best of several rounds.
 */
import { Either } from "effect"
import { MEASUREMENT_NAMES, decodeScanEither, makeScan, stringifyScan } from "@scanbridge/model"

const ROUNDS = 7
const RECORDS = 20_000

const sample = Either.getOrThrow(
  makeScan({
    source: { api: "platform", id: "scan_1" },
    status: "success",
    createdAt: "2026-01-02T03:04:05.000Z",
    method: "photo",
    subject: { age: 29, gender: "female", heightMm: 1640, weightG: 54000 },
    // Every measurement, as on a platform photo scan; plausible values, the decoder checks no ranges.
    measurementsMm: Object.fromEntries(MEASUREMENT_NAMES.map((name, i) => [name, 150 + ((i * 97) % 1300)]))
  })
)
const lines = Array.from({ length: RECORDS }, (_, i) => stringifyScan(sample).replace("scan_1", `scan_${i}`))

const best = (run: () => void): number => {
  let fastest = Infinity
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint()
    run()
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e6)
  }
  return fastest
}

const parseOnly = best(() => {
  for (const line of lines) JSON.parse(line)
})
const parseAndValidate = best(() => {
  for (const line of lines) decodeScanEither(JSON.parse(line))
})

const perSecond = (ms: number) => Math.round((RECORDS / ms) * 1000)
console.log(
  `canonical decode (JSON text -> validated Scan, ${MEASUREMENT_NAMES.length} measurements), ${RECORDS} records, best of ${ROUNDS}:`
)
console.log(`  JSON.parse alone        ${perSecond(parseOnly).toLocaleString("en")} records/s`)
console.log(`  JSON.parse + decodeScan ${perSecond(parseAndValidate).toLocaleString("en")} records/s`)
console.log(`  ratio                   ${(parseOnly / parseAndValidate).toFixed(2)} x JSON.parse`)
