/**
 * `pnpm simulate [--port N] [--seed N] [--fault-rate R] [--session-complete-after MS] [--staging]`: the
 * simulator as a program, for developing offline. Prints where it listens and the demo
 * credentials. Sessions complete by themselves (default 3 s after creation), since no widget
 * plays the user here; `--session-complete-after -1` leaves that to the control endpoint.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Effect, Layer } from "effect"
import { DEMO_ORG } from "./platform.js"
import { DEMO_ESTIMATION_CLIENT_ID } from "./estimation.js"
import { DEMO_SESSION_CLIENT_ID } from "./session.js"
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
const completeAfter = number("session-complete-after", 3000)
const staging = process.argv.includes("--staging")

const announce = Effect.gen(function* () {
  const sim = yield* Simulator
  yield* Console.log(`scanbridge simulator listening on ${sim.url}`)
  yield* Console.log(`  platform: ${sim.url}/api/orgs/${DEMO_ORG.id}/scans   Authorization: ${DEMO_ORG.apiKeys[0]}`)
  yield* Console.log(`  session:  ${sim.url}/scanning/v0/create-session   clientId: ${DEMO_SESSION_CLIENT_ID}`)
  yield* Console.log(
    completeAfter >= 0
      ? `            sessions complete ${completeAfter} ms after creation`
      : `            complete a session: POST ${sim.url}/_simulator/session/sessions/<SSID>/submit`
  )
  yield* Console.log(`  estimation: ${sim.url}/tokens/anonymous?client_id=${DEMO_ESTIMATION_CLIENT_ID}   ${sim.url}/estimation   (${staging ? "staging: jobs take minutes" : "jobs take 2 s"})`)
  if (rate > 0) yield* Console.log(`  faults: ${rate * 100}% 503, seed ${number("seed", 1)}`)
})

Layer.launch(
  Layer.effectDiscard(announce).pipe(
    Layer.provideMerge(
      Simulator.layer({
        port,
        platform: { orgs: [{ ...DEMO_ORG, quota: 1000 }] },
        session: completeAfter >= 0 ? { completeAfterMs: completeAfter } : {},
        estimation: { mode: staging ? "staging" : "production" },
        faults: { seed: number("seed", 1), serverErrorRate: rate }
      })
    )
  )
).pipe(NodeRuntime.runMain)
