import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Either, Exit, Option, Stream } from "effect"
import { Agent, request as httpRequest } from "node:http"
import { PassThrough, Writable } from "node:stream"
import {
  DEMO_ESTIMATION_CLIENT_ID,
  DEMO_FIT_CLIENT_KEY,
  DEMO_PRODUCTS,
  DEMO_SESSION_CLIENT_ID,
  Simulator,
  type SimulatorOptions,
  onTestClock
} from "../src/index.js"
import { collectBytes } from "../src/internal/bytes.js"
import { BodyRefused, discardRest, limitedBody, nestedDeeperThan } from "../src/limits.js"
import { MAX_MULTIPART_PARTS, boundaryOf, formOf } from "../src/multipart.js"

const ORG = "org_limits"
const KEY = "sk_limits"
const STATS = { statsEstimations: { age: 30, gender: "male", height: 1800, weight: 80_000 } }

const withSim = <A, E>(f: (url: string) => Effect.Effect<A, E, Simulator>, options: SimulatorOptions = {}) =>
  Effect.flatMap(Simulator, (sim) => f(sim.url)).pipe(
    Effect.provide(Simulator.layer({ platform: { orgs: [{ id: ORG, apiKeys: [KEY], quota: 100 }] }, ...options })),
    onTestClock()
  )

interface Reply {
  readonly status: number
  readonly body: string
}

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  Effect.promise(() => fetch(url, { method: "POST", body, headers }).then(async (r): Promise<Reply> => ({ status: r.status, body: await r.text() })))

/** A POST over a raw socket: the body in chunks, each sent when `gate` lets it, no Content-Length. */
const chunkedPost = (url: string, headers: Record<string, string>, chunks: ReadonlyArray<string | Uint8Array>, gate: Promise<void> = Promise.resolve()) =>
  new Promise<Reply>((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } }, (res) => {
      let body = ""
      res.on("data", (c: Buffer) => (body += c.toString("utf8")))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.flushHeaders()
    const [first, ...rest] = chunks
    if (first !== undefined) req.write(first)
    void gate.then(() => {
      for (const c of rest) req.write(c)
      req.end()
    })
  })

/**
 * A chunked POST of `head` and, when given, of `afterAnswer` only once the answer has arrived:
 * a client still sending when it is answered, as one uploading a large body is.
 */
const sendChunked = (
  url: string,
  headers: Record<string, string>,
  head: Uint8Array,
  options: { readonly afterAnswer?: Uint8Array; readonly agent?: Agent } = {}
) =>
  new Promise<Reply & { readonly reusedSocket: boolean }>((resolve, reject) => {
    const agent = options.agent === undefined ? {} : { agent: options.agent }
    const req = httpRequest(url, { method: "POST", headers: { ...headers, "transfer-encoding": "chunked" }, ...agent }, (res) => {
      if (options.afterAnswer !== undefined) req.end(options.afterAnswer)
      let body = ""
      res.on("data", (c: Buffer) => (body += c.toString("utf8")))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, reusedSocket: req.reusedSocket }))
    })
    req.on("error", reject)
    req.write(head)
    if (options.afterAnswer === undefined) req.end()
  })

const BOUNDARY = "sb-boundary-7f3a"

/** A multipart/form-data body of text fields and one file part. */
const multipart = (fields: Record<string, string>, file: { readonly key: string; readonly bytes: Uint8Array }) =>
  Buffer.concat([
    ...Object.entries(fields).map(([key, value]) => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`)),
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.key}"; filename="front.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
    file.bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`)
  ])

/** An estimation of the demo client, and the access token that reaches it. */
const estimationOf = (url: string) =>
  Effect.promise(async () => {
    const { access_token } = (await fetch(`${url}/tokens/anonymous?client_id=${DEMO_ESTIMATION_CLIENT_ID}`).then((r) => r.json())) as { access_token: string }
    const form = `client_id=${DEMO_ESTIMATION_CLIENT_ID}&measurement_id=m1&age=30&gender=male&height=1800&weight=80000`
    const created = await fetch(`${url}/estimation`, {
      method: "POST",
      body: form,
      headers: { "access-token": access_token, "content-type": "application/x-www-form-urlencoded" }
    })
    const { estimation_id } = (await created.json()) as { estimation_id: string }
    return { token: access_token, upload: `${url}/estimation/${estimation_id}/image` }
  })

const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

// One JSON endpoint of each API, with a body it accepts.
const endpoints = (url: string) => [
  { name: "platform create", url: `${url}/api/orgs/${ORG}/scans`, headers: { authorization: KEY }, body: STATS },
  { name: "session create-session", url: `${url}/scanning/v0/create-session`, headers: {}, body: { clientId: DEMO_SESSION_CLIENT_ID } },
  {
    name: "fit CreateSession",
    url: `${url}/fit/v2/CreateSession`,
    headers: {},
    body: {
      clientKey: DEMO_FIT_CLIENT_KEY,
      clientSessionId: "cs",
      productInfo: { productId: { brandId: DEMO_PRODUCTS[0]!.brandId, garmentSku: DEMO_PRODUCTS[0]!.garmentSku } }
    }
  }
]

describe("the simulator's limits", () => {
  it.effect("answers 413 to a body beyond maxBodyBytes, by its Content-Length or as it streams", () =>
    withSim(
      (url) =>
        Effect.gen(function* () {
          for (const e of endpoints(url)) {
            const big = JSON.stringify({ ...e.body, padding: "x".repeat(2_000) })
            const declared = yield* post(e.url, big, { ...e.headers, "content-type": "application/json" })
            expect(declared.status, e.name).toBe(413)
            expect(JSON.parse(declared.body).message).toContain("1000 bytes")
            const streamed = yield* Effect.promise(() =>
              chunkedPost(e.url, { ...e.headers, "content-type": "application/json" }, [big.slice(0, 900), big.slice(900)])
            )
            expect(streamed.status, e.name).toBe(413)
            const fits = yield* post(e.url, JSON.stringify(e.body), { ...e.headers, "content-type": "application/json" })
            expect(fits.status, e.name).toBe(200)
          }
          // A form body is held to the limit as it streams too (the estimation API's creation).
          const fields = `client_id=${DEMO_ESTIMATION_CLIENT_ID}&padding=${"x".repeat(2_000)}`
          const { access_token } = yield* Effect.promise(() =>
            fetch(`${url}/tokens/anonymous?client_id=${DEMO_ESTIMATION_CLIENT_ID}`).then((r) => r.json() as Promise<{ access_token: string }>)
          )
          const streamedForm = yield* Effect.promise(() =>
            chunkedPost(`${url}/estimation`, { "content-type": "application/x-www-form-urlencoded", "access-token": access_token }, [
              fields.slice(0, 900),
              fields.slice(900)
            ])
          )
          expect(streamedForm.status).toBe(413)
          const form = new FormData()
          form.append("client_id", DEMO_ESTIMATION_CLIENT_ID)
          form.append("image", new File([new Uint8Array(5_000)], "front.jpg", { type: "image/jpeg" }))
          const upload = yield* Effect.promise(() => fetch(`${url}/estimation/est_1/image`, { method: "POST", body: form }))
          expect(upload.status).toBe(413)
        }),
      { maxBodyBytes: 1000 }
    )
  )

  it.effect("holds a chunked multipart upload to maxBodyBytes: 413, answered while the client is still sending", () =>
    withSim(
      (url) =>
        Effect.gen(function* () {
          const { token, upload } = yield* estimationOf(url)
          const headers = { "access-token": token, "content-type": `multipart/form-data; boundary=${BOUNDARY}` }
          const body = multipart({ client_id: DEMO_ESTIMATION_CLIENT_ID, pattern: "front" }, { key: "image", bytes: new Uint8Array(256 * 1024).fill(0xd8) })
          const pieces = Array.from({ length: Math.ceil(body.length / 4096) }, (_, i) => body.subarray(i * 4096, (i + 1) * 4096))
          const whole = yield* Effect.promise(() => chunkedPost(upload, headers, pieces))
          expect(whole.status).toBe(413)
          expect(JSON.parse(whole.body).message).toContain("65536 bytes")
          // The rest of the body is sent only once the answer is in: it is answered at the limit,
          // not at the end of the body.
          const early = yield* Effect.promise(() => sendChunked(upload, headers, body.subarray(0, 80 * 1024), { afterAnswer: body.subarray(80 * 1024) }))
          expect(early.status).toBe(413)
          const small = multipart({ client_id: DEMO_ESTIMATION_CLIENT_ID, pattern: "front" }, { key: "image", bytes: new Uint8Array(1024).fill(0xd8) })
          const fits = yield* Effect.promise(() => chunkedPost(upload, headers, [small.subarray(0, 100), small.subarray(100)]))
          expect(fits.status, fits.body).toBe(200)
        }),
      { maxBodyBytes: 64 * 1024 }
    )
  )

  it.effect("answers 400 with a message, not an empty 500, to multipart without a boundary", () =>
    withSim((url) =>
      Effect.gen(function* () {
        const { token, upload } = yield* estimationOf(url)
        const body = multipart({ client_id: DEMO_ESTIMATION_CLIENT_ID, pattern: "front" }, { key: "image", bytes: new Uint8Array(16) })
        for (const type of ["multipart/form-data", "multipart/form-data; charset=utf-8"]) {
          const reply = yield* post(upload, body.toString("latin1"), { "access-token": token, "content-type": type })
          expect(reply.status, type).toBe(400)
          expect(JSON.parse(reply.body), type).toEqual({ message: "Content-Type multipart/form-data needs a boundary parameter" })
        }
      })
    )
  )

  it.effect("lets a client still sending read the 413, then serves the next request on the same connection", () =>
    withSim(
      (url) =>
        Effect.gen(function* () {
          const agent = new Agent({ keepAlive: true, maxSockets: 1 })
          yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
          const e = endpoints(url)[0]!
          const headers = { ...e.headers, "content-type": "application/json" }
          const big = Buffer.from(JSON.stringify({ ...e.body, padding: "x".repeat(1024 * 1024) }))
          const refused = yield* Effect.promise(() =>
            sendChunked(e.url, headers, big.subarray(0, 100 * 1024), { afterAnswer: big.subarray(100 * 1024), agent })
          )
          expect(refused.status).toBe(413)
          expect(JSON.parse(refused.body).message).toContain("65536 bytes")
          const next = yield* Effect.promise(() => sendChunked(e.url, headers, Buffer.from(JSON.stringify(e.body)), { agent }))
          expect(next).toMatchObject({ status: 200, reusedSocket: true })
        }).pipe(Effect.scoped),
      { maxBodyBytes: 64 * 1024 }
    )
  )

  it.effect("answers 400 with a message, not an empty 500, to JSON nested beyond the depth limit", () =>
    withSim((url) =>
      Effect.gen(function* () {
        for (const e of endpoints(url)) {
          for (const body of [deep(100_000), JSON.stringify({ ...e.body, extra: JSON.parse(deep(65)) })]) {
            const reply = yield* post(e.url, body, { ...e.headers, "content-type": "application/json" })
            expect(reply.status, e.name).toBe(400)
            expect(JSON.parse(reply.body).message).toBe("the JSON body nests deeper than 64 levels")
          }
        }
      })
    )
  )

  it("measures depth without recursion, arrays and objects alike", () => {
    expect(nestedDeeperThan(JSON.parse(deep(64)), 64)).toBe(false)
    expect(nestedDeeperThan(JSON.parse(deep(65)), 64)).toBe(true)
    expect(nestedDeeperThan({ a: { b: [1, { c: null }] } }, 4)).toBe(false)
    expect(nestedDeeperThan({ a: { b: [1, { c: {} }] } }, 4)).toBe(true)
    expect(nestedDeeperThan(JSON.parse(deep(1_000_000)), 64)).toBe(true)
    expect(nestedDeeperThan("[[[", 0)).toBe(false)
  })

  it.effect("takes Content-Type text/plain as well as application/json on every JSON endpoint", () =>
    withSim((url) =>
      Effect.gen(function* () {
        for (const e of endpoints(url)) {
          for (const type of ["text/plain", "text/plain;charset=UTF-8", "application/json"]) {
            const reply = yield* post(e.url, JSON.stringify(e.body), { ...e.headers, "content-type": type })
            expect(reply.status, `${e.name} as ${type}`).toBe(200)
            expect(JSON.parse(reply.body), `${e.name} as ${type}`).not.toHaveProperty("error")
          }
        }
      })
    )
  )

  it.effect("spends a scan token before reading the body: 20 slow bodies racing one token create one scan", () =>
    withSim((url) =>
      Effect.gen(function* () {
        const sim = yield* Simulator
        const issued = yield* post(`${url}/api/orgs/${ORG}/scan-tokens`, JSON.stringify({ scope: ["api.platform.vendor.com/scans:create"] }), {
          authorization: KEY
        })
        const token = JSON.parse(issued.body).token as string
        const body = JSON.stringify(STATS)
        let release!: () => void
        const gate = new Promise<void>((resolve) => (release = resolve))
        const replies = Array.from({ length: 20 }, () =>
          chunkedPost(
            `${url}/api/orgs/${ORG}/scans`,
            { authorization: `Bearer ${token}`, "content-type": "application/json" },
            [body.slice(0, 5), body.slice(5)],
            gate
          )
        )
        // Every request has reached the endpoint (and been answered or be waiting for its body)
        // before any body is complete.
        for (;;) {
          const log = yield* sim.requests
          const answered = log.filter((r) => r.method === "POST" && r.path.endsWith("/scans")).length
          if (answered >= 19) break
          yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
        }
        release()
        const statuses = (yield* Effect.promise(() => Promise.all(replies))).map((r) => r.status)
        expect(statuses.filter((s) => s === 200)).toHaveLength(1)
        expect(statuses.filter((s) => s === 403)).toHaveLength(19)
        expect(yield* sim.platform.quota(ORG)).toBe(99)
      })
    )
  )

  it.effect("gives a scan token back when its request created nothing", () =>
    withSim((url) =>
      Effect.gen(function* () {
        const issued = yield* post(`${url}/api/orgs/${ORG}/scan-tokens`, JSON.stringify({ scope: ["api.platform.vendor.com/scans:create"] }), {
          authorization: KEY
        })
        const auth = { authorization: `Bearer ${JSON.parse(issued.body).token as string}` }
        expect((yield* post(`${url}/api/orgs/${ORG}/scans`, "{not json", auth)).status).toBe(400)
        expect((yield* post(`${url}/api/orgs/${ORG}/scans`, JSON.stringify(STATS), auth)).status).toBe(200)
        const again = yield* post(`${url}/api/orgs/${ORG}/scans`, JSON.stringify(STATS), auth)
        expect(again.status).toBe(403)
        expect(again.body).toContain("already used")
      })
    )
  )

  it.effect("keeps the most recent requestLogLimit requests in its log", () =>
    withSim(
      (url) =>
        Effect.gen(function* () {
          const sim = yield* Simulator
          const get = (i: number) => Effect.promise(() => fetch(`${url}/scanning/v0/results/ss_${i}`).then((r) => r.text()))
          for (let i = 0; i < 8; i++) yield* get(i)
          expect((yield* sim.requests).map((r) => r.path)).toEqual([3, 4, 5, 6, 7].map((i) => `/scanning/v0/results/ss_${i}`))
          // Past twice the limit, where the log is trimmed: still the most recent five.
          for (let i = 8; i < 13; i++) yield* get(i)
          expect((yield* sim.requests).map((r) => r.path)).toEqual([8, 9, 10, 11, 12].map((i) => `/scanning/v0/results/ss_${i}`))
        }),
      { requestLogLimit: 5 }
    )
  )
})

/** `pieces` as a stream of one piece a pull, and how many bytes have been pulled from it. */
const counted = (pieces: Iterable<Uint8Array>) => {
  const pulled = { bytes: 0 }
  const iterator = pieces[Symbol.iterator]()
  const stream = Stream.repeatEffectOption(
    Effect.suspend(() => {
      const next = iterator.next()
      if (next.done === true) return Effect.fail(Option.none())
      pulled.bytes += next.value.length
      return Effect.succeed(next.value)
    })
  )
  return { pulled, stream }
}

function* forever(piece: Uint8Array) {
  for (;;) yield piece
}

/** `bytes` cut into pieces of `size`. */
function* cut(bytes: Uint8Array, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size)
}

const TYPE = `multipart/form-data; boundary=${BOUNDARY}`

const refusalOf = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? Option.getOrUndefined(Option.orElse(Cause.failureOption(exit.cause), () => Cause.dieOption(exit.cause))) : undefined

describe("reading a body", () => {
  it.effect("pulls no more than the limit and one piece of an endless body, then refuses it with 413", () =>
    Effect.gen(function* () {
      // Boundary-like runs: what a parser reading on would have to search through.
      const piece = Buffer.from(`\r\n--${BOUNDARY.slice(0, -1)}\r\n--`.repeat(8))
      const { pulled, stream } = counted(forever(piece))
      const refusal = refusalOf(yield* Effect.exit(collectBytes(limitedBody(stream, 64 * 1024))))
      expect(refusal).toBeInstanceOf(BodyRefused)
      expect(refusal).toMatchObject({ status: 413, message: "request body exceeds the simulator's limit of 65536 bytes" })
      expect(pulled.bytes).toBeGreaterThan(64 * 1024)
      expect(pulled.bytes).toBeLessThanOrEqual(64 * 1024 + piece.length)
    })
  )

  it.effect("reads a multipart body a byte at a time, its file full of near-boundaries, in one pass", () =>
    Effect.gen(function* () {
      // Each a prefix of the delimiter, "\r\n--" and the boundary, cut short.
      const image = Buffer.from(`\r\n--${BOUNDARY.slice(0, -1)}x\r\n-\r\n--${BOUNDARY.slice(0, 5)}\r`.repeat(300))
      const body = multipart({ client_id: DEMO_ESTIMATION_CLIENT_ID, pattern: "front" }, { key: "image", bytes: image })
      const { pulled, stream } = counted(cut(body, 1))
      const read = yield* collectBytes(limitedBody(stream, 64 * 1024))
      expect(pulled.bytes).toBe(body.length)
      const form = yield* formOf(read, TYPE)
      expect(form.get("client_id")).toBe(DEMO_ESTIMATION_CLIENT_ID)
      expect(Buffer.from(form.get("image") as Uint8Array).equals(image)).toBe(true)
    })
  )

  it.effect("refuses a multipart body of more parts than any API takes", () =>
    Effect.gen(function* () {
      const fields = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, "v"]))
      const refused = yield* Effect.flip(formOf(multipart(fields, { key: "image", bytes: new Uint8Array(8) }), TYPE))
      expect(refused.message).toBe(`the multipart body has more than ${MAX_MULTIPART_PARTS} parts`)
    })
  )

  it.effect("refuses a multipart body that ends before its closing boundary, wherever it is cut, or is malformed, and ignores what follows the close", () =>
    Effect.gen(function* () {
      const body = multipart({ client_id: DEMO_ESTIMATION_CLIENT_ID }, { key: "image", bytes: Buffer.from("jpeg bytes") })
      const close = body.lastIndexOf(`--${BOUNDARY}--`)
      for (let end = 0; end < close + BOUNDARY.length + 4; end += 7) {
        const refused = yield* Effect.flip(formOf(body.subarray(0, end), TYPE))
        expect(refused.message, `cut at ${end}`).toBe("the multipart body ends before its closing boundary")
      }
      const opened = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="late"; filename="x"\r\n\r\nno end`)
      const form = yield* formOf(Buffer.concat([body, opened]), TYPE)
      expect([...form.keys()]).toEqual(["client_id", "image"])
      expect(yield* formOf(Buffer.from(`--${BOUNDARY}--\r\n`), TYPE)).toEqual(new Map())
      // The parser throws on a part whose headers do not end: a 400 as well, not an empty 500.
      const headless = yield* Effect.flip(formOf(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n--${BOUNDARY}--\r\n`), TYPE))
      expect(headless.message).toBe("the multipart/form-data body is malformed")
    })
  )

  it("finds the boundary as RFC 2046 spells it, or says why there is none", () => {
    expect(boundaryOf(`multipart/form-data; boundary=${BOUNDARY}`)).toEqual(Either.right(BOUNDARY))
    expect(boundaryOf('Multipart/Form-Data; charset=utf-8; BOUNDARY="a b:c"')).toEqual(Either.right("a b:c"))
    const message = (contentType: string) =>
      Either.getLeft(boundaryOf(contentType)).pipe(
        Option.map((e) => e.message),
        Option.getOrUndefined
      )
    expect(message("multipart/form-data")).toBe("Content-Type multipart/form-data needs a boundary parameter")
    expect(message("multipart/form-data; charset=utf-8")).toBe("Content-Type multipart/form-data needs a boundary parameter")
    expect(message("application/json; boundary=x")).toBe("the body is not multipart/form-data")
    expect(message(`multipart/form-data; boundary=${"x".repeat(71)}`)).toMatch(/^the boundary parameter of Content-Type is not a multipart boundary/)
    expect(message('multipart/form-data; boundary=""')).toMatch(/^the boundary parameter of Content-Type is not a multipart boundary/)
  })

  it("throws away the rest of an unread body up to a bound, then closes the connection once the answer is out", async () => {
    const turn = () => new Promise((resolve) => setImmediate(resolve))
    const answer = () => new Writable({ write: (_chunk, _encoding, done) => done() })
    // Destroyed by discardRest alone: a PassThrough would destroy itself once ended.
    const within = Object.assign(new PassThrough({ autoDestroy: false }), { complete: false })
    discardRest(within, answer(), 1024)
    within.end(Buffer.alloc(1000))
    await turn()
    expect(within.readableEnded).toBe(true)
    expect(within.destroyed).toBe(false)

    const beyond = Object.assign(new PassThrough({ autoDestroy: false }), { complete: false })
    const response = answer()
    discardRest(beyond, response, 1024)
    beyond.write(Buffer.alloc(2048))
    await turn()
    // Not while the answer is still being written.
    expect(beyond.destroyed).toBe(false)
    response.end()
    await turn()
    expect(beyond.destroyed).toBe(true)
  })
})
