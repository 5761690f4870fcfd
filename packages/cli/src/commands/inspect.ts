/** `scanbridge inspect`: a scan as a table, or as canonical JSON. */
import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { renderScan } from "../render.js"
import { adapterOption, withAdapters } from "../adapters.js"
import { flag } from "./flags.js"
import { recordOption, scansOf } from "./scans.js"

// One paragraph: @effect/cli lists a command with its description only when it is one.
const description =
  "Show a scan as a table: measurements in cm and inches, with its notes. With --json, the canonical scans instead, one JSON object per line (NDJSON, as migrate writes them)."

export const inspectCommand = Command.make(
  "inspect",
  {
    file: Args.text({ name: "file" }).pipe(Args.withDescription("a record of any supported format: one JSON document, a JSON array of records, or NDJSON")),
    record: recordOption("record", "the file", "every record"),
    json: flag("json", "print the canonical scans as NDJSON, one per line (default: off, tables)"),
    adapter: adapterOption
  },
  ({ adapter, file, json, record }) =>
    withAdapters(adapter, () =>
      Effect.gen(function* () {
        const scans = yield* scansOf(file, { flag: "--record", record })
        yield* Console.log(json ? scans.map((scan) => JSON.stringify(scan)).join("\n") : scans.map(renderScan).join("\n\n"))
      })
    )
).pipe(Command.withDescription(description))
