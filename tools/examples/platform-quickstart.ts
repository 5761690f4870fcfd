import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Console, Effect, Layer, Stream } from "effect"
import { PlatformClient } from "@scanbridge/platform"
import { DEMO_ORG, Simulator } from "@scanbridge/simulator"

const program = Effect.gen(function* () {
  const platform = yield* PlatformClient

  // Your server issues a one-scan token; the device scans with it and reads the result.
  const { token } = yield* platform.issueScanToken({ customScanId: "order-1042" })
  const device = platform.withToken(token)
  const scan = yield* device.createScan({ age: 34, gender: "female", heightMm: 1680, weightG: 61_000 })
  yield* Console.log(`${scan.source.id} ${scan.status}: waist ${scan.measurementsMm.waistGirth} mm, hip ${scan.measurementsMm.hipGirth} mm`)

  // An adjusted scan is a new scan; the base one is untouched.
  const lighter = yield* platform.adjustScan(scan.source.id!, [{ name: "weight", percentage: -5 }])
  yield* Console.log(`${lighter.source.id} at ${lighter.adjustment?.outputWeightG} g: waist ${lighter.measurementsMm.waistGirth} mm`)

  // Every page, following nextOffsetId.
  const all = yield* Stream.runCollect(platform.listAllScans({ limit: 10 }))
  yield* Console.log(`${all.length} scans stored`)

  // Mistakes are refused before they spend quota.
  const refused = yield* Effect.flip(platform.createScan({ age: 34, gender: "female", heightMm: 168, weightG: 61_000 }))
  yield* Console.log(`${refused._tag}: ${refused.message}`)
})

// Against the real platform, use PlatformClient.layerConfig(), which reads
// SCANBRIDGE_PLATFORM_URL, SCANBRIDGE_ORG_ID and SCANBRIDGE_API_KEY.
const OnSimulator = Layer.unwrapEffect(
  Effect.map(Simulator, (sim) => PlatformClient.layer({ baseUrl: sim.url, orgId: DEMO_ORG.id, apiKey: DEMO_ORG.apiKeys[0]! }))
).pipe(Layer.provide(Simulator.layer()), Layer.provide(FetchHttpClient.layer))

Effect.runPromise(program.pipe(Effect.provide(OnSimulator)))
