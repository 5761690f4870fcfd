/** The run of `scanbridge inspect` (see inspect.ts for its flags), loaded when the command runs. */
import { Console, Effect, type Option } from "effect"
import { renderScan } from "../render.js"
import { withAdapters } from "../adapters.js"
import { scansOf } from "./scans.js"

export interface InspectArgs {
  readonly file: string
  readonly record: Option.Option<number>
  readonly json: boolean
  readonly adapter: ReadonlyArray<string>
}

export const runInspect = ({ adapter, file, json, record }: InspectArgs) =>
  withAdapters(adapter, () =>
    Effect.gen(function* () {
      const scans = yield* scansOf(file, { flag: "--record", record })
      yield* Console.log(json ? scans.map((scan) => JSON.stringify(scan)).join("\n") : scans.map(renderScan).join("\n\n"))
    })
  )
