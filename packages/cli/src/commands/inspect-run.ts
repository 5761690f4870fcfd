/** The run of `scanbridge inspect` (see inspect.ts for its flags), loaded when the command runs. */
import { Console, Effect, type Option } from "effect"
import { renderScan } from "../render.js"
import { withAdapters } from "../adapters.js"
import { type DecodeFlags, decodeOptionsOf } from "./flags.js"
import { scansOf } from "./scans.js"

export interface InspectArgs extends DecodeFlags {
  readonly file: string
  readonly record: Option.Option<number>
  readonly json: boolean
  readonly adapter: ReadonlyArray<string>
}

export const runInspect = (args: InspectArgs) =>
  withAdapters(
    args.adapter,
    () =>
      Effect.gen(function* () {
        const scans = yield* scansOf(args.file, { flag: "--record", record: args.record })
        yield* Console.log(args.json ? scans.map((scan) => JSON.stringify(scan)).join("\n") : scans.map(renderScan).join("\n\n"))
      }),
    decodeOptionsOf(args)
  )
