/** `scanbridge diff`: two scans of one person, measurement by measurement. The run is diff-run.ts. */
import { Args, Command } from "@effect/cli"
import { ExitCode } from "../exit.js"
import { adapterOption, decodeFlags, flag, number, recordOption } from "./flags.js"
import { lazy } from "./lazy.js"

// One paragraph: @effect/cli lists a command with its description only when it is one.
const description = `Compare two scans of one person, measurement by measurement, largest difference first. Each side is the first scan of its file, or of the record --record-a/--record-b picks. Exit codes: ${ExitCode.ok} no shared measurement differs by more than --tolerance-mm, ${ExitCode.differs} some do, ${ExitCode.failure} a file cannot be read as a scan, ${ExitCode.usage} bad command line.`

export const diffCommand = Command.make(
  "diff",
  {
    a: Args.text({ name: "a" }),
    b: Args.text({ name: "b" }),
    recordA: recordOption("record-a", "a", "the first record with a scan"),
    recordB: recordOption("record-b", "b", "the first record with a scan"),
    toleranceMm: number(
      "tolerance-mm",
      0,
      Number.MAX_SAFE_INTEGER,
      0,
      `exit with code ${ExitCode.differs} when a shared measurement differs by more than this many mm`
    ),
    ...decodeFlags,
    json: flag("json", "print {a, b, toleranceMm, differences: [{name, a, b, delta, percent}], onlyInA, onlyInB, beyondTolerance} (default: off, a table)"),
    adapter: adapterOption
  },
  lazy(() => import("./diff-run.js").then((m) => m.runDiff))
).pipe(Command.withDescription(description))
