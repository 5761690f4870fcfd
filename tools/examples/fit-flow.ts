/**
 * The garment-fit flow end to end, against the simulator: support check on the product page,
 * a size recommendation for the shopper's estimation, the order confirmation after payment,
 * and a stored size fitting result read as `scanbridge.size/v1`.
 * Run it: `node --conditions=@scanbridge/source --import tsx tools/examples/fit-flow.ts`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect, Layer } from "effect"
import { FitClient, decodeEstimationResultEither, decodeSizeFittingEither } from "@scanbridge/fit"
import { DEMO_FIT_CLIENT_KEY, Simulator } from "@scanbridge/simulator"

const TEE = { brandId: "acme", garmentSku: "TEE-001" }

const program = Effect.gen(function* () {
  const sim = yield* Simulator
  const fit = yield* FitClient.make({ baseUrl: `${sim.url}/fit/v2`, clientKey: DEMO_FIT_CLIENT_KEY })

  // 1. The product page: your server made a clientSessionId; is the garment sized?
  const support = yield* fit.isProductSupported(TEE, "cs-20261122-0001")
  console.log(`support: ${TEE.garmentSku} ${support.status}, session ${support.sessionId}`)

  // 2. The shopper's estimation (the client library's result; here the simulator's) and the size.
  const estimation = yield* sim.fit.estimate({ age: 34, gender: "male", heightMm: 1780, weightG: 76_000 })
  const scan = yield* decodeEstimationResultEither(estimation)
  console.log(`estimation: ${scan.method}, token ${scan.source.id}, chest ${scan.measurementsMm.bustGirth} mm`)
  const size = yield* fit.recommendedSize(scan.source.id!, TEE)
  console.log(`recommended: ${size.recommendedSize} (${size.format})`)

  // 3. After payment, from your server: never blocks the checkout, whatever happens.
  const recorded = yield* fit.recordPurchase({
    clientSessionId: "cs-20261122-0001",
    orderId: "order-9001",
    items: [{ sku: TEE.garmentSku, brand: "Acme", size: size.recommendedSize!, price: 19.9, quantity: 1 }],
    createdAt: new Date("2026-11-22T10:00:00.000Z"),
    currency: "EUR",
    countryCode: "DE",
    languageCode: "de"
  })
  console.log(`order recorded: ${recorded}`)

  // 4. A size fitting result stored from the client library, as a canonical fit document.
  const [fitting] = yield* decodeSizeFittingEither(
    [
      {
        result: {
          estimationToken: { token: "et_stored" },
          sizes: [
            {
              size: { index: 1, name: "M" },
              recommendationRank: 1,
              neutralRecommendationRank: 1,
              tightness: 0,
              fittingPoints: [{ fittingPoint: "CHEST", tightness: 0.2 }]
            },
            {
              size: { index: 2, name: "L" },
              recommendationRank: 2,
              neutralRecommendationRank: 2,
              tightness: 1,
              fittingPoints: [{ fittingPoint: "CHEST", tightness: 1.1 }]
            }
          ],
          sizeGroups: []
        }
      }
    ],
    { products: [TEE] }
  )
  console.log(`stored fitting: ${fitting!.recommendedSize} of ${fitting!.sizes.map((s) => `${s.name} (rank ${s.rank})`).join(", ")}`)
  for (const s of fitting!.sizes) for (const p of s.fittingPoints) console.log(`  ${s.name} ${p.displayName}: tightness ${p.tightness}`)
  for (const note of fitting!.notes) console.log(`  ${note.kind} ${note.path}: ${note.detail}`)
})

program.pipe(Effect.provide(Layer.merge(Simulator.layer(), FetchHttpClient.layer)), Effect.runPromise)
