/** The run of `scanbridge diff` (see diff.ts for its flags), loaded when the command runs. */
import { Console, Effect, type Option } from "effect"
import type { Scan } from "@scanbridge/model"
import { ExitCode, exitWith } from "../exit.js"
import { differences, onlyIn, renderDiff } from "../render.js"
import { withAdapters } from "../adapters.js"
import { type DecodeFlags, decodeOptionsOf } from "./flags.js"
import { recordsOf } from "./scans.js"

export interface DiffArgs extends DecodeFlags {
  readonly a: string
  readonly b: string
  readonly recordA: Option.Option<number>
  readonly recordB: Option.Option<number>
  readonly toleranceMm: number
  readonly json: boolean
  readonly adapter: ReadonlyArray<string>
}

/** The first scan of a file, or of its picked record, and the record it is in. */
const sideOf = (file: string, flagName: string, record: Option.Option<number>) =>
  Effect.map(recordsOf(file, { flag: flagName, record }), (records) => {
    const found = records.find((r) => r.scans.length > 0)!
    return { file, record: found.record, scan: found.scans[0]! }
  })

const describeSide = (side: { readonly file: string; readonly record: number; readonly scan: Scan }) => ({
  file: side.file,
  record: side.record,
  api: side.scan.source.api,
  id: side.scan.source.id
})

export const runDiff = (args: DiffArgs) =>
  withAdapters(
    args.adapter,
    () =>
      Effect.gen(function* () {
        const a = yield* sideOf(args.a, "--record-a", args.recordA)
        const b = yield* sideOf(args.b, "--record-b", args.recordB)
        const diffs = differences(a.scan, b.scan)
        const beyond = diffs.filter((d) => Math.abs(d.delta) > args.toleranceMm).map((d) => d.name)
        if (args.json) {
          yield* Console.log(
            JSON.stringify({
              a: describeSide(a),
              b: describeSide(b),
              toleranceMm: args.toleranceMm,
              differences: diffs,
              onlyInA: onlyIn(a.scan, b.scan),
              onlyInB: onlyIn(b.scan, a.scan),
              beyondTolerance: beyond
            })
          )
        } else {
          yield* Console.log(renderDiff(a.scan, b.scan, [args.a, args.b]))
          yield* Console.log(`\n${beyond.length} of ${diffs.length} shared measurements differ by more than ${args.toleranceMm} mm`)
        }
        if (beyond.length > 0) yield* exitWith(ExitCode.differs)
      }),
    decodeOptionsOf(args)
  )
