/** `scanbridge inspect`: a scan as a table. */
import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { renderScan } from "../render.js"
import { normalizerLayer } from "./migrate.js"
import { scansOf } from "./scans.js"

export const inspectCommand = Command.make("inspect", { file: Args.text({ name: "file" }).pipe(Args.withDescription("a record of any supported format")) }, ({ file }) =>
  Effect.gen(function* () {
    const scans = yield* scansOf(file)
    yield* Console.log(scans.map(renderScan).join("\n\n"))
  }).pipe(Effect.provide(normalizerLayer))
).pipe(Command.withDescription("Show a scan as a table: measurements in cm and inches, with its notes"))
