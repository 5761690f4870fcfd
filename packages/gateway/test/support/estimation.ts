/**
 * The estimation tests' side of the harness: the gateway accepting two client ids, raw HTTP
 * calls of the legacy estimation API, and photos.
 */
import { HttpClient, HttpClientError } from "@effect/platform"
import { Effect, TestClock } from "effect"
import { makeJpeg } from "@scanbridge/estimation"
import type { PlatformClientOptions } from "@scanbridge/platform"
import { FAIL_MARKER, TEST_EPOCH_MS, onTestClock } from "@scanbridge/simulator"
import { GatewayHarness, HARNESS_CLIENT_ID, type HarnessOptions, harnessLayer } from "./harness.js"

export const CLIENT_ID = HARNESS_CLIENT_ID
/** A second client id the gateway accepts: its tokens must not reach the first one's estimations. */
export const OTHER_CLIENT_ID = "cl_gateway_other_client_0042"

export const STATS = { age: 29, gender: "female", heightMm: 1640, weightG: 54_000 } as const
export const PHOTO = makeJpeg(1080, 1920)
/** A photo the platform simulator fails with `code` (its fail marker, in a JPEG comment). */
export const failingPhoto = (code: string) => makeJpeg(1080, 1920, { comment: `${FAIL_MARKER}${code}` })

const harnessed = (options: HarnessOptions) =>
  harnessLayer({
    ...options,
    gateway: { clientIds: [CLIENT_ID, OTHER_CLIENT_ID], ...options.gateway },
    platform: { retry: { times: 1, base: "10 millis" }, ...options.platform }
  })

/**
 * Runs `effect` against a gateway of its own that accepts both client ids, on the TestClock,
 * moved on to each sleep (a poll, a retry's backoff) by onTestClock. Its platform client retries
 * once, soon, so that a test scripts few faults.
 */
export const run = <A, E>(effect: Effect.Effect<A, E, GatewayHarness | HttpClient.HttpClient>, options: HarnessOptions = {}) =>
  effect.pipe(Effect.provide(harnessed(options)), onTestClock())

/**
 * `run` with the clock moved by the test alone (TestClock.adjust), for a test that waits out a
 * lifetime: two fibers moving the TestClock at once can leave it behind. Nothing in such a test
 * may wait on a sleep of its own (a poll, a retry).
 */
export const runAdjusting = <A, E>(effect: Effect.Effect<A, E, GatewayHarness | HttpClient.HttpClient>, options: HarnessOptions = {}) =>
  // The clock is set before the gateway starts: setting it after would wake its sweeper at every
  // turn of its schedule from 1970 on.
  Effect.zipRight(TestClock.setTime(TEST_EPOCH_MS), Effect.provide(effect, harnessed(options)))

/**
 * A platform client whose first create's response is lost after the platform stored the scan:
 * the request is answered, and the client sees a dropped connection instead.
 */
export const losingFirstCreate = (): NonNullable<PlatformClientOptions["transformClient"]> => {
  let lost = false
  return (client) =>
    HttpClient.transform(client, (response, request) =>
      request.method === "POST" && request.url.endsWith("/scans") && !lost
        ? Effect.flatMap(response, () => {
            lost = true
            return Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause: new Error("connection reset (test)") }))
          })
        : response
    )
}

// --- Raw HTTP -------------------------------------------------------------------------------

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: a test reads any JSON it is given
  readonly json: any
}

/** A raw request to the gateway, at `path`. */
export const call = (path: string, init: RequestInit = {}): Effect.Effect<Reply, never, GatewayHarness> =>
  Effect.flatMap(GatewayHarness, ({ gatewayUrl }) =>
    Effect.promise(async () => {
      const response = await fetch(`${gatewayUrl}${path}`, init)
      const text = await response.text()
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: response.status, headers: response.headers, text, json }
    })
  )

export const getToken = (clientId = CLIENT_ID) => call(`/tokens/anonymous?client_id=${encodeURIComponent(clientId)}`)

/** A token of `clientId`, or the test fails. */
export const tokenOf = (clientId = CLIENT_ID) =>
  Effect.map(getToken(clientId), (r) => {
    if (r.status !== 200) throw new Error(`token: ${r.status} ${r.text}`)
    return r.json.access_token as string
  })

export const createForm = (fields: Record<string, string | number> = {}) =>
  new URLSearchParams(
    Object.entries({
      client_id: CLIENT_ID,
      measurement_id: "ms_any",
      height: STATS.heightMm,
      weight: STATS.weightG,
      age: STATS.age,
      gender: STATS.gender,
      ...fields
    }).map(([k, v]): [string, string] => [k, String(v)])
  ).toString()

export const postCreate = (token: string | undefined, body: string = createForm()) =>
  call("/estimation", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(token === undefined ? {} : { "access-token": token }) },
    body
  })

/** A new estimation of the token's client, or the test fails. */
export const estimationOf = (token: string, form = createForm()) =>
  Effect.map(postCreate(token, form), (r) => {
    if (r.status !== 200) throw new Error(`create: ${r.status} ${r.text}`)
    return r.json.estimation_id as string
  })

/** The upload form as a browser's FormData sends it. */
export const uploadForm = (pattern: string, image: Uint8Array, clientId = CLIENT_ID): FormData => {
  const form = new FormData()
  form.set("client_id", clientId)
  form.set("pattern", pattern)
  form.set("image", new File([new Uint8Array(image)], `${pattern}.jpg`, { type: "image/jpeg" }))
  return form
}

export const postImage = (token: string, id: string, body: NonNullable<RequestInit["body"]>, headers: Record<string, string> = {}) =>
  call(`/estimation/${encodeURIComponent(id)}/image`, { method: "POST", headers: { "access-token": token, ...headers }, body })

export const upload = (token: string, id: string, pattern: string, image: Uint8Array = PHOTO, clientId = CLIENT_ID) =>
  postImage(token, id, uploadForm(pattern, image, clientId))

export const read = (token: string, id: string, query = `client_id=${CLIENT_ID}`) =>
  call(`/estimation/${encodeURIComponent(id)}?${query}`, { headers: { "access-token": token } })

/** The platform's scans with this customScanId, as the organisation's API key lists them. */
export const platformScans = (customScanId: string) =>
  Effect.flatMap(GatewayHarness, ({ platform }) => Effect.map(Effect.orDie(platform.listScans({ customScanId })), (page) => page.results))
