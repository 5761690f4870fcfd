/**
 * Moving an estimation API integration to the platform with Scanbridge, against the simulator:
 * read stored read responses (whose units the API never stated), run a live estimation, then
 * serve an old consumer the read response of a platform scan.
 * Run it: `node --conditions=@scanbridge/source --import tsx tools/examples/estimation-migration.ts`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect, Either, Layer } from "effect"
import { EstimationClient, decodeReadResponseEither, encodeReadResponseEither, makeJpeg } from "@scanbridge/estimation"
import { PlatformClient } from "@scanbridge/platform"
import { DEMO_ESTIMATION_CLIENT_ID, DEMO_ORG, Simulator } from "@scanbridge/simulator"

const STATS = { age: 35, gender: "female", heightMm: 1650, weightG: 58_000 } as const

// 1. A result stored in 2020. Its measurements are centimetres, which nothing in it says.
const stored = (measurement: Record<string, number>) => ({
  measurements: [
    {
      created_at: "2020-03-14 09:26:53",
      status: "completed",
      estimation_id: "est_2020_0314",
      estimation: {
        code: 101,
        input: { age: 35, gender: "female", height: 1650, weight: 58_000 },
        result: { body_composition: { body_fat_percentage: 27, skeletal_muscle_mass: 21_400 }, measurement, status: "success" },
        status: "success"
      }
    }
  ],
  message: "success",
  result: true
})

const program = Effect.gen(function* () {
  const [old] = yield* decodeReadResponseEither(stored({ back_neck_height: 139, hip_girth: 96, waist_girth: 71 }))
  console.log(`stored: ${old!.status} ${old!.source.id}, hip ${old!.measurementsMm.hipGirth} mm, created ${old!.createdAt}`)
  for (const note of old!.notes.filter((n) => n.kind === "assumed")) console.log(`  ${note.kind} ${note.path}: ${note.detail}`)

  // A record whose values cannot all be one unit is refused, never guessed.
  const mixed = decodeReadResponseEither(stored({ back_neck_height: 1394, hip_girth: 96 }))
  if (Either.isLeft(mixed)) console.log(`mixed: ${mixed.left.message}`)

  // 2. The live flow: token, create, two photos, polling; one call.
  const sim = yield* Simulator
  const estimation = yield* EstimationClient.make({
    authUrl: sim.url,
    estimationUrl: sim.url,
    clientId: DEMO_ESTIMATION_CLIENT_ID,
    measurementId: "ms_demo",
    pollInterval: "200 millis"
  })
  const photo = makeJpeg(1080, 1920)
  const live = yield* estimation.estimate(STATS, { front: photo, right: photo })
  console.log(`estimation: ${live.status} ${live.source.id}, ${Object.keys(live.measurementsMm).length} measurements, hip ${live.measurementsMm.hipGirth} mm`)

  // 3. The same person on the platform, and the read response an old consumer still reads.
  const platform = yield* PlatformClient.make({ baseUrl: sim.url, orgId: DEMO_ORG.id, apiKey: DEMO_ORG.apiKeys[0]! })
  const base64 = Buffer.from(photo).toString("base64")
  const scan = yield* platform.createScan({ ...STATS, photos: { front: base64, right: base64 } })
  const legacy = yield* encodeReadResponseEither(scan)
  const item = legacy.value.measurements[0]!
  console.log(`platform: ${scan.status} ${scan.source.id}, as a read response: ${item.status}, estimation.status ${item.estimation.status}`)
  console.log(`  hip_girth ${item.estimation.result?.measurement["hip_girth"]}, body_composition ${JSON.stringify(item.estimation.result?.body_composition)}`)
  for (const note of legacy.notes) console.log(`  ${note.kind} ${note.path}: ${note.detail}`)
})

program.pipe(Effect.provide(Layer.merge(Simulator.layer({ estimation: { processingMs: 500 } }), FetchHttpClient.layer)), Effect.runPromise)
