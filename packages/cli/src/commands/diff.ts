/** `scanbridge diff`: two scans of one person, measurement by measurement. */
import { Args, Command } from "@effect/cli"
import { Console, Effect, type Option } from "effect"
import type { Scan } from "@scanbridge/model"
import { ExitCode, exitWith } from "../exit.js"
import { differences, onlyIn, renderDiff } from "../render.js"
import { adapterOption, withAdapters } from "../adapters.js"
import { flag, number } from "./flags.js"
import { recordOption, recordsOf } from "./scans.js"

// One paragraph: @effect/cli lists a command with its description only when it is one.
const description = `Compare two scans of one person, measurement by measurement, largest difference first. Each side is the first scan of its file, or of the record --record-a/--record-b picks. Exit codes: ${ExitCode.ok} no shared measurement differs by more than --tolerance-mm, ${ExitCode.differs} some do, ${ExitCode.failure} a file cannot be read as a scan, ${ExitCode.usage} bad command line.`

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

export const diffCommand = Command.make(
  "diff",
  {
    a: Args.text({ name: "a" }),
    b: Args.text({ name: "b" }),
    recordA: recordOption("record-a", "a", "the first record with a scan"),
    recordB: recordOption("record-b", "b", "the first record with a scan"),
    toleranceMm: number("tolerance-mm", 0, Number.MAX_SAFE_INTEGER, 0, `exit with code ${ExitCode.differs} when a shared measurement differs by more than this many mm`),
    json: flag("json", "print {a, b, toleranceMm, differences: [{name, a, b, delta, percent}], onlyInA, onlyInB, beyondTolerance} (default: off, a table)"),
    adapter: adapterOption
  },
  (args) =>
    withAdapters(args.adapter, () =>
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
      })
    )
).pipe(Command.withDescription(description))
