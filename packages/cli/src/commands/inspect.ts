/** `scanbridge inspect`: a scan as a table, or as canonical JSON. The run is inspect-run.ts. */
import { Args, Command } from "@effect/cli"
import { adapterOption, decodeFlags, flag, recordOption } from "./flags.js"
import { lazy } from "./lazy.js"

// One paragraph: @effect/cli lists a command with its description only when it is one.
const description =
  "Show a scan as a table: measurements in cm and inches, with its notes. With --json, the canonical scans instead, one JSON object per line (NDJSON, as migrate writes them)."

export const inspectCommand = Command.make(
  "inspect",
  {
    file: Args.text({ name: "file" }).pipe(Args.withDescription("a record of any supported format: one JSON document, a JSON array of records, or NDJSON")),
    record: recordOption("record", "the file", "every record"),
    ...decodeFlags,
    json: flag("json", "print the canonical scans as NDJSON, one per line (default: off, tables)"),
    adapter: adapterOption
  },
  lazy(() => import("./inspect-run.js").then((m) => m.runInspect))
).pipe(Command.withDescription(description))
