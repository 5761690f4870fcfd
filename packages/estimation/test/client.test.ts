import { FetchHttpClient, type HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import { DEMO_ESTIMATION_CLIENT_ID, FAIL_MARKER, Simulator, type SimulatorOptions, type SimulatorService, onTestClock } from "@scanbridge/simulator"
import { EstimationClient, type EstimationClientOptions, type EstimationClientService, makeJpeg } from "../src/index.js"

const STATS = { age: 29, gender: "female", heightMm: 1640, weightG: 54_000 } as const
const PHOTO = makeJpeg(1080, 1920)
const PHOTOS = { front: PHOTO, right: PHOTO }

/**
 * A fresh simulator on a free loopback port and a client of it; both stop with the test. Time
 * runs on the TestClock: polls, backoffs and token lifetimes take no time and do not depend on
 * the machine's speed.
 */
const withEstimation = <A, E>(
  f: (client: EstimationClientService, sim: SimulatorService) => Effect.Effect<A, E, HttpClient.HttpClient>,
  options: SimulatorOptions = { estimation: { processingPolls: 2 } },
  client: Partial<EstimationClientOptions> = {}
) =>
  Effect.gen(function* () {
    const sim = yield* Simulator
    const estimation = yield* EstimationClient.make({
      authUrl: sim.url,
      estimationUrl: sim.url,
      clientId: DEMO_ESTIMATION_CLIENT_ID,
      measurementId: "ms_demo",
      pollInterval: "20 millis",
      retry: { base: "5 millis", times: 3 },
      ...client
    })
    return yield* f(estimation, sim)
  }).pipe(Effect.provide(Layer.merge(Simulator.layer(options), FetchHttpClient.layer)), onTestClock())

const requestsTo = (sim: SimulatorService, method: string, prefix: string) =>
  Effect.map(sim.requests, (log) => log.filter((r) => r.method === method && r.path.startsWith(prefix)))

describe("EstimationClient against the simulator", () => {
  it.effect("estimates: token, create, two uploads, polls, and a canonical scan with its inferred units", () =>
    withEstimation((client, sim) =>
      Effect.gen(function* () {
        const scan = yield* client.estimate(STATS, PHOTOS)
        expect(scan.status).toBe("success")
        expect(scan.source.api).toBe("estimation")
        expect(scan.method).toBe("photo")
        expect(scan.subject).toEqual({ age: 29, gender: "female", heightMm: 1640, weightG: 54_000 })
        expect(Object.keys(scan.measurementsMm)).toHaveLength(33)
        expect(scan.measurementsMm.backNeckPointToWristLengthR).toBeGreaterThan(600)
        expect(scan.composition?.bodyFatPercent).toBeGreaterThan(10)
        expect(scan.composition?.skeletalMuscleMassG).toBeGreaterThan(10_000)
        const assumed = scan.notes.filter((n) => n.kind === "assumed")
        expect(assumed.map((n) => n.path)).toEqual([
          "estimation.result.measurement",
          "estimation.result.body_composition.body_fat_percentage",
          "estimation.result.body_composition.skeletal_muscle_mass"
        ])
        expect(assumed[0]!.detail).toContain("read as millimetres")
        expect((yield* requestsTo(sim, "GET", "/tokens/anonymous")).length).toBe(1)
        expect((yield* requestsTo(sim, "POST", "/estimation")).length).toBe(3)
        // Two reads in progress, then the completed one.
        expect((yield* requestsTo(sim, "GET", "/estimation/")).length).toBe(3)
      })
    )
  )

  it.effect("raises EstimationStatusError NotFound, status 404, for an estimation the server does not know", () =>
    withEstimation((client) =>
      Effect.gen(function* () {
        const token = yield* client.authenticate()
        const error = yield* Effect.flip(client.readEstimation(token, "est_nope"))
        expect(error).toMatchObject({ _tag: "EstimationStatusError", reason: "NotFound", status: 404, api: "estimation", method: "GET" })
        expect(error.message).toContain("est_nope")
      })
    )
  )

  it.effect("runs the steps one by one: send_input_queue turns true with the second photo", () =>
    withEstimation((client) =>
      Effect.gen(function* () {
        const token = yield* client.authenticate()
        expect(token.uid).toMatch(/^uid_/)
        const { estimationId, createdAt } = yield* client.createEstimation(token, STATS)
        expect(new Date(createdAt).getTime()).toBeGreaterThan(0)
        expect((yield* client.readEstimation(token, estimationId)).status).toBe("pending")
        expect((yield* client.uploadPhoto(token, estimationId, "front", PHOTO)).sendInputQueue).toBe(false)
        expect((yield* client.uploadPhoto(token, estimationId, "right", PHOTO)).sendInputQueue).toBe(true)
        const scan = yield* client.awaitEstimation(token, estimationId)
        expect(scan.status).toBe("success")
        expect(scan.source.id).toBe(estimationId)
      })
    )
  )

  it.effect("reads a server that writes centimetres, percent x 10^4 and kilograms as the same body", () =>
    Effect.gen(function* () {
      const mm = yield* withEstimation((client) => client.estimate(STATS, PHOTOS))
      const cm = yield* withEstimation((client) => client.estimate(STATS, PHOTOS), {
        estimation: { processingPolls: 0, lengthUnit: "cm", bodyFatScale: "e4", muscleMassUnit: "kg" }
      })
      for (const [name, value] of Object.entries(mm.measurementsMm)) {
        expect(Math.abs(cm.measurementsMm[name as keyof typeof cm.measurementsMm]! - value)).toBeLessThanOrEqual(5)
      }
      expect(cm.notes.find((n) => n.path === "estimation.result.measurement")?.detail).toContain("read as centimetres")
      expect(Math.abs(cm.composition!.bodyFatPercent! - mm.composition!.bodyFatPercent!)).toBeLessThanOrEqual(0.5)
      expect(Math.abs(cm.composition!.skeletalMuscleMassG! - mm.composition!.skeletalMuscleMassG!)).toBeLessThanOrEqual(500)
    })
  )

  it.effect("states the units with options instead of inferring them", () =>
    withEstimation(
      (client) =>
        Effect.gen(function* () {
          const scan = yield* client.estimate(STATS, PHOTOS)
          expect(scan.notes.find((n) => n.path === "estimation.result.measurement")?.detail).toBe(
            "result.measurement read as centimetres: given by the caller (lengthUnit)"
          )
        }),
      { estimation: { processingPolls: 0, lengthUnit: "cm" } },
      { units: { lengthUnit: "cm" } }
    )
  )

  it.effect("returns a failed scan with the job's code when a photo asks for it", () =>
    withEstimation((client) =>
      Effect.gen(function* () {
        const posed = makeJpeg(1080, 1920, { comment: `${FAIL_MARKER}306` })
        const scan = yield* client.estimate(STATS, { front: PHOTO, right: posed })
        expect(scan.status).toBe("failure")
        expect(scan.failure).toEqual({ code: "306", category: "estimation", message: "the estimation failed with code 306" })
        expect(scan.subject.heightMm).toBe(1640)
        expect(scan.measurementsMm).toEqual({})
      })
    )
  )

  it.effect("refuses photos and stats that break the limits before any request", () =>
    withEstimation((client, sim) =>
      Effect.gen(function* () {
        const wide = yield* Effect.flip(client.estimate(STATS, { front: makeJpeg(1080, 1440), right: PHOTO }))
        expect(wide).toMatchObject({ _tag: "EstimationPhotoError", pattern: "front", rule: "aspect" })
        expect(wide.message).toContain("3:4")
        const small = yield* Effect.flip(client.estimate(STATS, { front: PHOTO, right: makeJpeg(540, 960) }))
        expect(small).toMatchObject({ _tag: "EstimationPhotoError", pattern: "right", rule: "resolution" })
        const notJpeg = yield* Effect.flip(client.estimate(STATS, { front: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), right: PHOTO }))
        expect(notJpeg).toMatchObject({ _tag: "EstimationPhotoError", rule: "jpeg" })
        const big = yield* Effect.flip(client.estimate(STATS, { front: makeJpeg(1080, 1920, { padTo: 3 * 1024 * 1024 + 1 }), right: PHOTO }))
        expect(big).toMatchObject({ _tag: "EstimationPhotoError", rule: "size" })
        const cm = yield* Effect.flip(client.estimate({ ...STATS, heightMm: 164 }, PHOTOS))
        expect(cm).toMatchObject({ _tag: "EstimationInputError", path: ["heightMm"], value: 164 })
        expect(cm.message).toContain("looks like centimetres (send 1640)")
        expect(yield* sim.requests).toEqual([])
      })
    )
  )

  it.effect("renews an expired access token as often as it expires, within one step", () =>
    withEstimation(
      (client, sim) =>
        Effect.gen(function* () {
          const scan = yield* client.estimate(STATS, PHOTOS, { interval: "120 millis" })
          expect(scan.status).toBe("success")
          const log = (yield* sim.requests).filter((r) => r.method === "GET").map((r) => `${r.path.startsWith("/tokens") ? "token" : "read"} ${r.status}`)
          // On the TestClock, tokens live 200 ms and reads come every 120 ms: the polling step
          // outlives several tokens; each refused read is followed by a new token and the read again.
          expect(log.filter((l) => l === "token 200").length).toBeGreaterThanOrEqual(3)
          log.forEach((l, i) => {
            if (l === "read 401") expect(log.slice(i + 1, i + 3)).toEqual(["token 200", "read 200"])
          })
          expect(log.at(-1)).toBe("read 200")
          // Each poll sends the newest token: the poll after a renewed read (120 ms on, well
          // within the new token's 200 ms) is not refused.
          log.forEach((l, i) => {
            if (l === "token 200" && log[i + 1] === "read 200" && i + 2 < log.length) expect(log[i + 2]).toBe("read 200")
          })
        }),
      { estimation: { processingPolls: 6, tokenLifetimeMs: 200 } }
    )
  )

  it.effect("stops renewing when fresh tokens are refused three times in a row", () =>
    withEstimation(
      (client, sim) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(client.estimate(STATS, PHOTOS))
          expect(error).toMatchObject({ _tag: "EstimationStatusError", reason: "Unauthorized", status: 401 })
          // The first token and three renewals, each refused at once by a server whose tokens never live.
          expect(yield* requestsTo(sim, "GET", "/tokens/anonymous")).toHaveLength(4)
          expect(yield* requestsTo(sim, "POST", "/estimation")).toHaveLength(4)
        }),
      { estimation: { tokenLifetimeMs: 0 } }
    )
  )

  it.effect("raises EstimationStatusError Unauthorized for an unknown client id", () =>
    withEstimation(
      (client) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(client.authenticate())
          expect(error).toMatchObject({ _tag: "EstimationStatusError", reason: "Unauthorized", status: 401 })
          expect(error.message).toContain("invalid client_id")
          // The client id travels in the query; it never appears in an error.
          expect(JSON.stringify(error)).not.toContain("cl_wrong")
        }),
      {},
      { clientId: "cl_wrong" }
    )
  )

  it.effect("gives up with EstimationTimeoutError when the job runs too long", () =>
    withEstimation(
      (client) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(client.estimate(STATS, PHOTOS, { timeout: "200 millis" }))
          expect(error._tag).toBe("EstimationTimeoutError")
          expect(error.message).toContain("still in progress after 200ms")
        }),
      { estimation: { processingPolls: 1_000 } }
    )
  )

  it.effect("retries reads on 503, never a POST", () =>
    withEstimation((client, sim) =>
      Effect.gen(function* () {
        const token = yield* client.authenticate()
        const { estimationId } = yield* client.createEstimation(token, STATS)
        yield* sim.injectFaults([503, 503])
        expect((yield* client.readEstimation(token, estimationId)).status).toBe("pending")
        yield* sim.injectFaults([503])
        const error = yield* Effect.flip(client.uploadPhoto(token, estimationId, "front", PHOTO))
        expect(error).toMatchObject({ _tag: "ApiStatusError", api: "estimation", status: 503 })
        expect((yield* requestsTo(sim, "POST", `/estimation/${estimationId}/image`)).length).toBe(1)
      })
    )
  )

  it.effect("reads no response body beyond maxResponseBytes", () =>
    withEstimation(
      (client) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(client.authenticate())
          expect(error).toMatchObject({ _tag: "ApiResponseTooLargeError", api: "estimation", method: "GET", maxBytes: 16 })
          expect(JSON.stringify(error) + error.message).not.toContain(DEMO_ESTIMATION_CLIENT_ID)
        }),
      undefined,
      { maxResponseBytes: 16 }
    )
  )

  it.live("reads its settings from config with layerConfig", () =>
    Effect.gen(function* () {
      const sim = yield* Simulator
      const config = ConfigProvider.fromMap(
        new Map([
          ["SCANBRIDGE_ESTIMATION_AUTH_URL", sim.url],
          ["SCANBRIDGE_ESTIMATION_URL", sim.url],
          ["SCANBRIDGE_ESTIMATION_CLIENT_ID", DEMO_ESTIMATION_CLIENT_ID],
          ["SCANBRIDGE_ESTIMATION_MEASUREMENT_ID", "ms_demo"]
        ])
      )
      const token = yield* Effect.flatMap(EstimationClient, (c) => c.authenticate()).pipe(
        Effect.provide(EstimationClient.layerConfig().pipe(Layer.provide(Layer.setConfigProvider(config))))
      )
      expect(token.uid).toMatch(/^uid_/)
      const missing = yield* Effect.either(
        Effect.flatMap(EstimationClient, (c) => c.authenticate()).pipe(
          Effect.provide(EstimationClient.layerConfig().pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))))
        )
      )
      expect(Either.isLeft(missing) && missing.left._tag).toBe("ConfigError")
    }).pipe(Effect.provide(Layer.merge(Simulator.layer(), FetchHttpClient.layer)))
  )
})

describe("the simulator's estimation API on the wire", () => {
  const post = (url: string, init: RequestInit) =>
    Effect.promise(() => fetch(url, init).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> })))

  it.live("refuses bad tokens, forms and ids with a status and {message}; fails a job on a photo that breaks the limits", () =>
    Effect.gen(function* () {
      const sim = yield* Simulator
      const token = (yield* post(`${sim.url}/tokens/anonymous?client_id=${DEMO_ESTIMATION_CLIENT_ID}`, {})).body["access_token"] as string
      const headers = { "access-token": token }
      const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
      const good = { client_id: DEMO_ESTIMATION_CLIENT_ID, measurement_id: "ms_demo", height: "1640", weight: "54000", age: "29", gender: "female" }

      expect(
        (yield* post(`${sim.url}/estimation`, { method: "POST", body: form(good), headers: { "content-type": "application/x-www-form-urlencoded" } })).status
      ).toBe(401)
      const bad = yield* post(`${sim.url}/estimation`, {
        method: "POST",
        body: form({ ...good, gender: "m" }),
        headers: { ...headers, "content-type": "application/x-www-form-urlencoded" }
      })
      expect(bad.status).toBe(400)
      expect(bad.body["message"]).toContain("gender")
      const created = yield* post(`${sim.url}/estimation`, {
        method: "POST",
        body: form(good),
        headers: { ...headers, "content-type": "application/x-www-form-urlencoded" }
      })
      const id = created.body["estimation_id"] as string
      expect((yield* post(`${sim.url}/estimation/est_nope/image`, { method: "POST", headers, body: new FormData() })).status).toBe(404)

      // A PNG and an undersized JPEG are accepted on upload; the job then fails with a code.
      for (const [pattern, bytes] of [
        ["front", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a])],
        ["right", makeJpeg(720, 1000)]
      ] as const) {
        const body = new FormData()
        body.append("client_id", DEMO_ESTIMATION_CLIENT_ID)
        body.append("pattern", pattern)
        body.append("image", new Blob([bytes], { type: "image/jpeg" }), `${pattern}.jpg`)
        expect((yield* post(`${sim.url}/estimation/${id}/image`, { method: "POST", headers, body })).status).toBe(200)
      }
      const read = yield* Effect.promise(() =>
        fetch(`${sim.url}/estimation/${id}?client_id=${DEMO_ESTIMATION_CLIENT_ID}`, { headers }).then(
          (r) => r.json() as Promise<{ measurements: Array<{ status: string; estimation: { code?: number; status?: string; result?: unknown } }> }>
        )
      )
      expect(read.measurements[0]!.status).toBe("completed")
      expect(read.measurements[0]!.estimation).toMatchObject({ code: 301, status: "fail" })
      expect(read.measurements[0]!.estimation.result).toBeUndefined()
    }).pipe(Effect.provide(Simulator.layer({ estimation: { processingPolls: 0 } })))
  )

  it.effect("runs jobs for seconds in production and for minutes in staging", () =>
    Effect.gen(function* () {
      const run = (mode: "production" | "staging") =>
        withEstimation(
          (client) =>
            Effect.gen(function* () {
              const token = yield* client.authenticate()
              const { estimationId } = yield* client.createEstimation(token, STATS)
              yield* client.uploadPhoto(token, estimationId, "front", PHOTO)
              yield* client.uploadPhoto(token, estimationId, "right", PHOTO)
              yield* Effect.sleep("2100 millis")
              return (yield* client.readEstimation(token, estimationId)).status
            }),
          { estimation: { mode } }
        )
      const production = yield* run("production")
      const staging = yield* run("staging")
      expect(production).toBe("success")
      expect(staging).toBe("pending")
    })
  )
})
