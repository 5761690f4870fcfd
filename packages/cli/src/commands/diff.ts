/** `scanbridge diff`: two scans of one person, measurement by measurement. */
import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { renderDiff } from "../render.js"
import { normalizerLayer } from "./migrate.js"
import { scansOf } from "./scans.js"

export const diffCommand = Command.make(
  "diff",
  { a: Args.text({ name: "a" }), b: Args.text({ name: "b" }) },
  ({ a, b }) =>
    Effect.gen(function* () {
      const [x] = yield* scansOf(a)
      const [y] = yield* scansOf(b)
      yield* Console.log(renderDiff(x!, y!, [a, b]))
    }).pipe(Effect.provide(normalizerLayer))
).pipe(Command.withDescription("Compare two scans of one person, measurement by measurement, largest difference first"))
