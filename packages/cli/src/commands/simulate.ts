/** `scanbridge simulate`: the simulator of all four APIs, for working offline. */
import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { DEMO_ORG, Simulator } from "@scanbridge/simulator"
import { CliError } from "./errors.js"

export const simulateCommand = Command.make(
  "simulate",
  { port: Options.integer("port").pipe(Options.withDefault(8787), Options.withDescription("0 picks a free port")) },
  ({ port }) =>
    Effect.gen(function* () {
      const sim = yield* Simulator
      yield* Console.log(`scanbridge simulator listening on ${sim.url} (platform org ${DEMO_ORG.id}, key ${DEMO_ORG.apiKeys[0]})`)
      return yield* Effect.never
    }).pipe(
      Effect.provide(Simulator.layer({ port, platform: { orgs: [{ ...DEMO_ORG, quota: 1000 }] }, session: { completeAfterMs: 3000 } })),
      Effect.mapError((e) => new CliError({ message: `simulate: cannot listen on port ${port} (${e._tag})` }))
    )
).pipe(Command.withDescription("Run the simulator of all four APIs on 127.0.0.1"))
