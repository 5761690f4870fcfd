/**
 * `pnpm demo`: the main job. Starts the simulator in-process; runs a session flow, an
 * estimation flow, a platform photo scan and a fit recommendation through the real clients;
 * then migrates the bundled mixed export (examples/export) to canonical scans and prints the
 * report. Everything it prints is deterministic, so the README can show it.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Console, Effect, Layer } from "effect"
import { EstimationClient, makeJpeg } from "@scanbridge/estimation"
import { FitClient } from "@scanbridge/fit"
import { Normalizer, migrate, renderReport, textOf } from "@scanbridge/migrate"
import type { Scan } from "@scanbridge/model"
import { PlatformClient } from "@scanbridge/platform"
import { SessionClient } from "@scanbridge/session"
import { DEMO_ESTIMATION_CLIENT_ID, DEMO_FIT_CLIENT_KEY, DEMO_ORG, DEMO_SESSION_CLIENT_ID, Simulator } from "@scanbridge/simulator"
import { join } from "node:path"
import { repoRoot } from "./docs/generated.js"

const PERSON = { age: 35, gender: "female", heightMm: 1650, weightG: 58_000 } as const
const photo = makeJpeg(1080, 1920)

const summary = (scan: Scan) =>
  `${scan.status}, ${scan.source.api} ${scan.source.id}, ${Object.keys(scan.measurementsMm).length} measurements, waist ${scan.measurementsMm.waistGirth ?? "?"} mm`

const program = Effect.gen(function* () {
  const sim = yield* Simulator
  yield* Console.log(`Scanbridge demo: the simulator of all four APIs is listening on 127.0.0.1\n`)

  // The deprecated session API: create a session, the user scans (the simulator plays them), read.
  const session = yield* SessionClient.make({ baseUrl: sim.url, clientId: DEMO_SESSION_CLIENT_ID, pollInterval: "100 millis" })
  const { scanningSessionId } = yield* session.createSession({ clientScanningId: "order-1" })
  yield* sim.session.submit(scanningSessionId, PERSON)
  yield* Console.log(`session     ${summary(yield* session.awaitResults(scanningSessionId))}`)

  // The deprecated estimation API: token, create, two photos, polling; its units inferred.
  const estimation = yield* EstimationClient.make({
    authUrl: sim.url,
    estimationUrl: sim.url,
    clientId: DEMO_ESTIMATION_CLIENT_ID,
    measurementId: "ms_demo",
    pollInterval: "100 millis"
  })
  yield* Console.log(`estimation  ${summary(yield* estimation.estimate(PERSON, { front: photo, right: photo }))}`)

  // The platform: one photo scan.
  const platform = yield* PlatformClient.make({ baseUrl: sim.url, orgId: DEMO_ORG.id, apiKey: DEMO_ORG.apiKeys[0]! })
  const base64 = Buffer.from(photo).toString("base64")
  yield* Console.log(`platform    ${summary(yield* platform.createScan({ ...PERSON, photos: { front: base64, right: base64 } }))}`)

  // The fit service: is the T-shirt sized, and which size for this body?
  const fit = yield* FitClient.make({ baseUrl: `${sim.url}/fit/v2`, clientKey: DEMO_FIT_CLIENT_KEY })
  const tee = { brandId: "acme", garmentSku: "TEE-001" }
  const support = yield* fit.isProductSupported(tee, "cs-demo")
  const token = (yield* sim.fit.estimate(PERSON)).estimations.estimationToken!.token!
  const size = yield* fit.recommendedSize(token, tee)
  yield* Console.log(`fit         ${tee.garmentSku} ${support.status}, recommended size ${size.recommendedSize}`)

  // The job users come for: a mixed export of every generation, migrated to canonical scans.
  const rejected: Array<string> = []
  const report = yield* migrate({
    inputs: [join(repoRoot, "examples", "export")],
    output: () => Effect.void,
    rejects: (text) =>
      Effect.sync(
        () =>
          void rejected.push(
            ...textOf(text)
              .trim()
              .split("\n")
              .filter((l) => l !== "")
          )
      )
  })
  yield* Console.log(`\nmigrate examples/export --to canonical\n${renderReport(report)}`)
  yield* Console.log(`\nrejects (each with its file, line, reason and raw text):`)
  for (const line of rejected) {
    const r = JSON.parse(line) as { file: string; line: number; error: { tag: string; message: string } }
    yield* Console.log(
      `  ${r.file.slice(repoRoot.length + 1)}:${r.line} ${r.error.tag}: ${r.error.message.slice(0, 110)}${r.error.message.length > 110 ? "…" : ""}`
    )
  }
})

program.pipe(
  Effect.provide(Layer.mergeAll(Simulator.layer({ estimation: { processingMs: 300 } }), FetchHttpClient.layer, NodeContext.layer, Normalizer.default)),
  Effect.runPromise
)
