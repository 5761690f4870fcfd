/**
 * The platform failing at each call the gateway makes (issue a scan token, list scans, get a
 * scan, create a scan), in each way it fails: 500, 503, 429 with a Retry-After, and an answer
 * that never comes (the platform did the work, the client's timeout ends the wait). Each time the
 * legacy client reads its API's error form with the gateway's documented status (503, the
 * Retry-After passed on), and the flow then completes with exactly one platform scan spent: the
 * platform's scans with the flow's customScanId and the organisation's quota are counted.
 *
 * The fault is aimed at one call: the gateway's platform client is wrapped so that the first
 * request matching the target asks the simulator (Simulator.injectFaults) to fail it, or holds its
 * answer once the platform has it. The client retries nothing here, so that one scripted fault is
 * one failed call; the retries themselves are the platform client's tests'. Time is the
 * TestClock's, set before the gateway starts and moved by the test alone (the timeout, the settle
 * time of a create that may have created).
 */
import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Option, TestClock } from "effect"
import type { Fault, SimulatorService } from "@scanbridge/simulator"
import { TEST_EPOCH_MS } from "@scanbridge/simulator"
import { SETTLE } from "../src/internal/scan-creation.js"
import { CLIENT_ID, type Reply, call, estimationOf, platformScans, read, tokenOf, upload } from "./support/estimation.js"
import { GatewayHarness, HARNESS_ORG, harnessLayer, scanAsUser } from "./support/harness.js"

/** The gateway's platform client's timeout in these tests. */
const TIMEOUT = Duration.seconds(20)

const USER = { age: 41, gender: "male", heightMm: 1790, weightG: 80_000 } as const

type Target = "token" | "list" | "get" | "create"

/** A fault as the simulator scripts it, or "hang": the platform's answer never reaches the gateway. */
type Failing = ReadonlyArray<number | Fault> | "hang"

interface Plan {
  target: Target | undefined
  failing: Failing
  inject: SimulatorService["injectFaults"] | undefined
  /** Completed when a held answer reached the client: the platform has done the work. */
  readonly held: Deferred.Deferred<void>
}

const targetOf = (method: string, url: string): Target | undefined => {
  const path = new URL(url).pathname
  if (method === "POST" && path.endsWith("/scan-tokens")) return "token"
  if (method === "POST" && path.endsWith("/scans")) return "create"
  if (method === "GET" && path.endsWith("/scans")) return "list"
  if (method === "GET" && /\/scans\/[^/]+$/.test(path)) return "get"
  return undefined
}

/** The gateway's platform client, failing the first call of the plan's target as the plan says. */
const failingClient =
  (plan: Plan) =>
  (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    HttpClient.transform(client, (response, request) => {
      if (plan.target === undefined || targetOf(request.method, request.url) !== plan.target) return response
      plan.target = undefined
      const failing = plan.failing
      if (failing === "hang") return Effect.flatMap(response, () => Effect.zipRight(Deferred.succeed(plan.held, undefined), Effect.never))
      return Effect.zipRight(plan.inject!(failing), response)
    })

interface Case {
  readonly name: string
  readonly failing: Failing
  readonly retryAfter: string | null
}

const CASES: ReadonlyArray<Case> = [
  { name: "500", failing: [500], retryAfter: null },
  { name: "503", failing: [503], retryAfter: null },
  { name: "429 with Retry-After", failing: [{ status: 429, retryAfter: "120" }], retryAfter: "120" },
  { name: "no answer within the timeout", failing: "hang", retryAfter: null }
]

/** Runs `test` with a gateway whose platform client fails as `plan` says, on the TestClock. */
const run = <A, E>(test: (plan: Plan) => Effect.Effect<A, E, GatewayHarness>, failing: Failing) =>
  Effect.gen(function* () {
    const plan: Plan = { target: undefined, failing, inject: undefined, held: yield* Deferred.make<void>() }
    // The clock is set before the gateway starts: its sweeper would otherwise step from 1970.
    yield* TestClock.setTime(TEST_EPOCH_MS)
    const harness = harnessLayer({ platform: { retry: { times: 0 }, timeout: TIMEOUT, transformClient: failingClient(plan) } })
    return yield* Effect.provide(
      Effect.flatMap(GatewayHarness, ({ simulator }) => {
        plan.inject = simulator.injectFaults
        return test(plan)
      }),
      harness
    )
  })

/**
 * A request to the gateway that meets the plan's fault: when it is a held answer, the clock is
 * moved past the platform client's timeout once the platform has done the work.
 */
const meeting = <A, E, R>(plan: Plan, target: Target, request: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    plan.target = target
    const fiber = yield* Effect.fork(request)
    if (plan.failing === "hang") {
      yield* Deferred.await(plan.held)
      yield* TestClock.adjust(Duration.sum(TIMEOUT, Duration.seconds(1)))
    }
    const answer = yield* Fiber.join(fiber)
    expect(plan.target, "the fault met its call").toBeUndefined()
    return answer
  })

const quota = Effect.flatMap(GatewayHarness, ({ simulator }) => Effect.map(simulator.platform.quota(HARNESS_ORG), (q) => q!))

/** The message a legacy client reads for the case. */
const unavailable = (c: Case) => (c.failing === "hang" ? "the platform did not answer in time" : `the platform is unavailable (HTTP ${statusOf(c)})`)
const statusOf = (c: Case) => (c.failing === "hang" ? 0 : c.failing.map((f) => (typeof f === "number" ? f : f.status)).at(-1)!)

// --- The session API --------------------------------------------------------------------------

const createSession = (clientScanningId: string) =>
  call("/scanning/v0/create-session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ clientId: CLIENT_ID, clientScanningId })
  })
const results = (ssid: string) => call(`/scanning/v0/results/${encodeURIComponent(ssid)}`)

const ssidOf = (clientScanningId: string) =>
  Effect.map(createSession(clientScanningId), (r) => {
    expect(r.status, r.text).toBe(200)
    return r.json.scanningSession.scanningSessionId as string
  })

const expectInternalError = (r: { status: number; headers: Headers; json: { error?: { errorType?: string } } }, c: Case) => {
  expect(r.status).toBe(503)
  expect(r.json.error?.errorType).toBe("INTERNAL_ERROR")
  expect(r.headers.get("retry-after")).toBe(c.retryAfter)
}

/** The session's results are in, and the platform holds one scan of the user's, one quota spent. */
const expectOneSessionScan = (ssid: string, clientScanningId: string, quotaBefore: number) =>
  Effect.gen(function* () {
    const done = yield* results(ssid)
    expect(done.status, done.text).toBe(200)
    expect(done.json.results.measurements.length).toBeGreaterThan(0)
    expect(yield* platformScans(clientScanningId)).toHaveLength(1)
    expect(yield* quota).toBe(quotaBefore - 1)
  })

describe.each(CASES)("the platform failing with $name", (c) => {
  it.effect("at create-session's scan token: INTERNAL_ERROR 503, and the next create-session completes the flow", () =>
    run(
      (plan) =>
        Effect.gen(function* () {
          const before = yield* quota
          const failed = yield* meeting(plan, "token", createSession("user-token"))
          expectInternalError(failed, c)
          const ssid = yield* ssidOf("user-token")
          yield* scanAsUser(ssid, USER)
          yield* expectOneSessionScan(ssid, "user-token", before)
        }),
      c.failing
    )
  )

  for (const target of ["list", "get"] as const) {
    it.effect(`at results' ${target === "list" ? "list of scans" : "read of the scan"}: INTERNAL_ERROR 503, and the next read gives the results`, () =>
      run(
        (plan) =>
          Effect.gen(function* () {
            const before = yield* quota
            const ssid = yield* ssidOf(`user-${target}`)
            yield* scanAsUser(ssid, USER)
            const failed = yield* meeting(plan, target, results(ssid))
            expectInternalError(failed, c)
            expect(failed.json.scanningSessionId).toBe(ssid)
            yield* expectOneSessionScan(ssid, `user-${target}`, before)
          }),
        c.failing
      )
    )
  }
})

// --- The estimation API -----------------------------------------------------------------------

/** The estimation completed, from one platform scan, one quota spent, its photos gone. */
const expectOneEstimationScan = (token: string, id: string, quotaBefore: number) =>
  Effect.gen(function* () {
    const done = yield* read(token, id)
    expect(done.status, done.text).toBe(200)
    expect(done.json.measurements[0].estimation.status).toBe("success")
    expect(yield* platformScans(id)).toHaveLength(1)
    expect(yield* quota).toBe(quotaBefore - 1)
    const { store } = yield* GatewayHarness
    expect(Option.isNone(yield* store.photos(id))).toBe(true)
  })

/** A create that may have created (a 5xx, no answer) is looked for again only after SETTLE. */
const mayHaveCreated = (c: Case) => c.failing === "hang" || statusOf(c) >= 500

/** A create that may have created: the estimation reads in progress, no one looking again until it has settled. */
const waitOutSettle = (token: string, id: string) =>
  Effect.gen(function* () {
    const waiting = yield* read(token, id)
    expect(waiting.json.measurements[0].status).toBe("in-progress")
    yield* TestClock.adjust(Duration.sum(SETTLE, Duration.seconds(1)))
  })

/** A new token's estimation, its front photo taken. */
const estimationWithFront = Effect.gen(function* () {
  const token = yield* tokenOf()
  const id = yield* estimationOf(token)
  const front = yield* upload(token, id, "front")
  expect(front.status, front.text).toBe(200)
  return { token, id }
})

/** The estimation API's answer to the platform failing: 503 {message}, the platform's Retry-After passed on. */
const expectUnavailable = (r: Reply, c: Case) => {
  expect(r.status).toBe(503)
  expect(Object.keys(r.json)).toEqual(["message"])
  expect(r.json.message).toContain(unavailable(c))
  expect(r.headers.get("retry-after")).toBe(c.retryAfter)
}

describe.each(CASES)("the platform failing with $name", (c) => {
  for (const target of ["list", "create"] as const) {
    it.effect(`at the second upload's ${target === "list" ? "lookup" : "create"}: the upload is taken, a read completes it, one scan spent`, () =>
      run(
        (plan) =>
          Effect.gen(function* () {
            const before = yield* quota
            const { token, id } = yield* estimationWithFront
            const right = yield* meeting(plan, target, upload(token, id, "right"))
            expect(right.status, right.text).toBe(200)
            expect(right.json.send_input_queue).toBe(true)
            if (target === "create" && mayHaveCreated(c)) {
              yield* waitOutSettle(token, id)
            }
            yield* expectOneEstimationScan(token, id, before)
          }),
        c.failing
      )
    )
  }

  it.effect("at the read's get of the scan: 503 {message} with the Retry-After, and the next read completes", () =>
    run(
      (plan) =>
        Effect.gen(function* () {
          const before = yield* quota
          const { token, id } = yield* estimationWithFront
          yield* upload(token, id, "right")
          expectUnavailable(yield* meeting(plan, "get", read(token, id)), c)
          yield* expectOneEstimationScan(token, id, before)
        }),
      c.failing
    )
  )

  it.effect("at the read's create, the upload's having been refused: 503 {message}, and the next read completes", () =>
    run(
      (plan) =>
        Effect.gen(function* () {
          const { simulator } = yield* GatewayHarness
          const { token, id } = yield* estimationWithFront
          // The upload's create is refused for quota (it did not create): the read creates.
          yield* simulator.platform.setQuota(HARNESS_ORG, 0)
          yield* upload(token, id, "right")
          yield* simulator.platform.setQuota(HARNESS_ORG, 5)
          expectUnavailable(yield* meeting(plan, "create", read(token, id)), c)
          if (mayHaveCreated(c)) {
            yield* waitOutSettle(token, id)
          }
          yield* expectOneEstimationScan(token, id, 5)
        }),
      c.failing
    )
  )
})
