/** The run of `scanbridge inspect` (see inspect.ts for its flags), loaded when the command runs. */
import { Console, Effect, type Option } from "effect"
import { renderScan } from "../render.js"
import { normalizerLayer, scansOf } from "./scans.js"

export interface InspectArgs {
  readonly file: string
  readonly record: Option.Option<number>
  readonly json: boolean
}

export const runInspect = ({ file, json, record }: InspectArgs) =>
  Effect.gen(function* () {
    const scans = yield* scansOf(file, { flag: "--record", record })
    yield* Console.log(json ? scans.map((scan) => JSON.stringify(scan)).join("\n") : scans.map(renderScan).join("\n\n"))
  }).pipe(Effect.provide(normalizerLayer))
