/**
 * Moving a session API integration to the platform with Scanbridge, against the simulator:
 * read a stored ScanningResults, run a live session, then serve an old consumer the
 * ScanningResults of a platform scan. Run it: `node --conditions=@scanbridge/source --import tsx tools/examples/session-migration.ts`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect, Layer } from "effect"
import { PlatformClient } from "@scanbridge/platform"
import { SessionClient, decodeResultsEither, encodeResultsEither } from "@scanbridge/session"
import { DEMO_ORG, DEMO_SESSION_CLIENT_ID, Simulator } from "@scanbridge/simulator"

// 1. A result stored years ago, as an old protobuf library printed it: proto field names, an
//    enum number, an int64 as a number, posture in radians.
const stored = {
  scanning_session_id: "ss_2019_0042",
  client_scanning_id: "order-1187",
  results: {
    measurements: [
      { measurement_type: "HEIGHT", value: "1650", unit: "MILLIMETERS" },
      { measurement_type: 10, value: 880, unit: "MILLIMETERS" },
      { measurement_type: "BODY_FAT_PERCENTAGE", value: "241000", unit: "PERCENTAGE_E4" }
    ],
    posture: { front: { angles: [{ name: "SHOULDER", value: 0.0123, unit: "ANGLE_UNIT_TYPE_RADIANS" }] } }
  }
}

const program = Effect.gen(function* () {
  const old = yield* decodeResultsEither(stored)
  console.log(
    `stored: ${old.status} ${old.source.id} (${old.externalId}), bust ${old.measurementsMm.bustGirth} mm, body fat ${old.composition?.bodyFatPercent} %`
  )
  for (const note of old.notes) console.log(`  ${note.kind} ${note.path}: ${note.detail}`)

  // 2. The live flow, unchanged while you move: create a session, the user scans, read results.
  const sim = yield* Simulator
  const session = yield* SessionClient.make({ baseUrl: sim.url, clientId: DEMO_SESSION_CLIENT_ID, pollInterval: "100 millis" })
  const { scanningSessionId } = yield* session.createSession({ clientScanningId: "order-2201" })
  yield* sim.session.submit(scanningSessionId, { age: 35, gender: "female", heightMm: 1650, weightG: 58_000 })
  const live = yield* session.awaitResults(scanningSessionId)
  console.log(`session: ${live.status} ${live.source.id}, ${Object.keys(live.measurementsMm).length} measurements, waist ${live.measurementsMm.waistGirth} mm`)

  // 3. The same person on the platform, and the ScanningResults an old consumer still reads.
  const platform = yield* PlatformClient.make({ baseUrl: sim.url, orgId: DEMO_ORG.id, apiKey: DEMO_ORG.apiKeys[0]! })
  const scan = yield* platform.createScan({ age: 35, gender: "female", heightMm: 1650, weightG: 58_000 })
  const legacy = yield* encodeResultsEither(scan)
  const items = legacy.value.results?.measurements ?? []
  console.log(`platform: ${scan.status} ${scan.source.id}, as ScanningResults: ${items.length} items, e.g.`)
  console.log(`  ${JSON.stringify(items.find((m) => m.measurementType === "WAIST_GIRTH"))}`)
  for (const note of legacy.notes) console.log(`  ${note.kind} ${note.path}: ${note.detail}`)
})

program.pipe(Effect.provide(Layer.merge(Simulator.layer(), FetchHttpClient.layer)), Effect.runPromise)
