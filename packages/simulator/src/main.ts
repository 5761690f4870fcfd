/**
 * `pnpm simulate [--port N] [--seed N] [--fault-rate R]`: the simulator as a program, for
 * developing offline. Prints where it listens and the demo organization's credentials.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Effect, Layer } from "effect"
import { DEMO_ORG } from "./platform.js"
import { Simulator } from "./simulator.js"

const flag = (name: string): string | undefined => {
  const args = process.argv.slice(2)
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
}

const number = (name: string, fallback: number): number => {
  const raw = flag(name)
  const value = raw === undefined ? fallback : Number(raw)
  if (!Number.isFinite(value)) {
    console.error(`simulate: --${name} expects a number, got ${JSON.stringify(raw)}`)
    process.exit(2)
  }
  return value
}

const port = number("port", 8787)
const rate = number("fault-rate", 0)

const announce = Effect.gen(function* () {
  const sim = yield* Simulator
  yield* Console.log(`scanbridge simulator listening on ${sim.url}`)
  yield* Console.log(`  platform: ${sim.url}/api/orgs/${DEMO_ORG.id}/scans   Authorization: ${DEMO_ORG.apiKeys[0]}`)
  if (rate > 0) yield* Console.log(`  faults: ${rate * 100}% 503, seed ${number("seed", 1)}`)
})

Layer.launch(
  Layer.effectDiscard(announce).pipe(
    Layer.provideMerge(
      Simulator.layer({ port, platform: { orgs: [{ ...DEMO_ORG, quota: 1000 }] }, faults: { seed: number("seed", 1), serverErrorRate: rate } })
    )
  )
).pipe(NodeRuntime.runMain)
