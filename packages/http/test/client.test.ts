import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Clock, Effect, Either, Exit, Fiber, Option, Schema, TestClock } from "effect"
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { readFileSync } from "node:fs"
import { ApiClient, VERSION } from "../src/index.js"
import { redactUrl } from "../src/internal/redact.js"
import { parseRetryAfter } from "../src/retry.js"

interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

/** A server on a free loopback port, its URL; it stops, its connections cut, with the test. */
const listening = (handler: RequestListener) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; close: () => void }>((resume) => {
      const server = createServer(handler)
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, close: () => (server.closeAllConnections(), server.close()) }))
      })
    }),
    (s) => Effect.sync(s.close)
  )

/**
 * A server that answers the n-th request with `script[n]` (the last one again once the script
 * runs out), or never when that is "hang".
 */
const scriptedServer = (script: ReadonlyArray<{ status: number; headers?: Record<string, string>; body?: unknown } | "hang">) => {
  const received: Array<Received> = []
  return Effect.map(
    listening((req, res) => {
      let body = ""
      req.on("data", (c: Buffer) => (body += c.toString("utf8")))
      req.on("end", () => {
        received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body })
        const step = script[Math.min(received.length - 1, script.length - 1)]!
        if (step === "hang") return
        res.writeHead(step.status, { "content-type": "application/json", ...step.headers })
        res.end(JSON.stringify(step.body ?? {}))
      })
    }),
    ({ url }) => ({ url, received })
  )
}

/**
 * A server that streams a body of `total` bytes to every request, as fast as the client reads
 * it, with a Content-Length or chunked; `sent` counts the bytes the socket took, `closed` says
 * the connection was closed, and `finished` whether the whole body had gone by then.
 */
const streamingServer = (total: number, options: { readonly contentLength: boolean }) => {
  const state = { requests: 0, sent: 0, closed: false, finished: false }
  return Effect.map(
    listening((_req, res: ServerResponse) => {
      state.requests += 1
      res.writeHead(200, { "content-type": "application/json", ...(options.contentLength ? { "content-length": String(total) } : {}) })
      res.on("close", () => {
        state.closed = true
        state.finished = res.writableFinished
      })
      const chunk = Buffer.alloc(64 * 1024, " ")
      const pump = (): void => {
        while (state.sent < total) {
          const size = Math.min(chunk.length, total - state.sent)
          state.sent += size
          if (!res.write(chunk.subarray(0, size))) return void res.once("drain", pump)
        }
        res.end()
      }
      pump()
    }),
    ({ url }) => ({ url, state })
  )
}

// One turn of the event loop, for a request in flight over loopback: not a wait on the wall clock.
const nextTurn = Effect.async<void>((resume) => {
  const id = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(id))
})

/** Lets loopback I/O run until `done` holds, the TestClock standing still meanwhile. */
const until = (done: () => boolean) =>
  Effect.gen(function* () {
    while (!done()) yield* nextTurn
  })

/**
 * Until the TestClock has a sleep due sooner than `below` from now: that sleep's distance. The
 * TestClock keeps the sleeps of interrupted timeouts, so the tests that look for a backoff set a
 * timeout far beyond it.
 */
const nextSleep = (below = Number.POSITIVE_INFINITY) =>
  Effect.gen(function* () {
    for (;;) {
      const now = yield* Clock.currentTimeMillis
      const due = Chunk.filter(yield* TestClock.sleeps(), (at) => at >= now && at - now < below)
      if (Chunk.isNonEmpty(due)) return Math.min(...due) - now
      yield* nextTurn
    }
  })

const Echo = Schema.Struct({ ok: Schema.Boolean })
const decodeEcho = (body: unknown) => Either.mapLeft(Schema.decodeUnknownEither(Echo)(body), (e) => ({ _tag: "Decode" as const, message: e.message }))

const clientOf = (url: string, options: Partial<ApiClient.ApiClientOptions<"key", never>> = {}) =>
  ApiClient.make({ api: "test", baseUrl: url, retry: { base: "10 millis", times: 2 }, ...options }).pipe(Effect.provide(FetchHttpClient.layer))

describe("ApiClient", () => {
  it.scoped("gives up on a server that never answers with ApiTimeoutError after the timeout, on the TestClock", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer(["hang"])
      const client = yield* clientOf(server.url, { timeout: "30 seconds" })
      const fiber = yield* Effect.fork(
        client.execute({ method: "POST", path: "/things", idempotent: false, onTimeout: "the thing may exist", decode: decodeEcho })
      )
      yield* until(() => server.received.length === 1)
      expect(yield* nextSleep()).toBe(30_000)
      yield* TestClock.adjust("29 seconds")
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit)).toBe(true)
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "ApiTimeoutError", api: "test", method: "POST", timeoutMs: 30_000 })
      expect(error.message).toContain("the thing may exist")
      expect(server.received).toHaveLength(1)
    })
  )

  it.scoped("defaults to a 60 second timeout", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer(["hang"])
      const client = yield* clientOf(server.url)
      const fiber = yield* Effect.fork(client.execute({ method: "GET", path: "/", idempotent: false, decode: decodeEcho }))
      yield* until(() => server.received.length === 1)
      expect(yield* nextSleep()).toBe(60_000)
      yield* Fiber.interrupt(fiber)
    })
  )

  it.scoped("waits a 429's Retry-After in seconds, then retries a call that may be repeated", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer([
        { status: 429, headers: { "retry-after": "7" } },
        { status: 200, body: { ok: true } }
      ])
      const client = yield* clientOf(server.url, { timeout: "1 hour" })
      const fiber = yield* Effect.fork(client.execute({ method: "GET", path: "/", idempotent: true, decode: decodeEcho }))
      yield* until(() => server.received.length === 1)
      expect(yield* nextSleep(3_600_000)).toBe(7_000)
      yield* TestClock.adjust("6999 millis")
      expect(server.received).toHaveLength(1)
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toEqual({ ok: true })
      expect(server.received).toHaveLength(2)
    })
  )

  it.scoped("waits a 503's Retry-After given as an HTTP-date", () =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const date = new Date(Math.ceil(now / 1000) * 1000 + 5_000).toUTCString()
      const server = yield* scriptedServer([
        { status: 503, headers: { "retry-after": date } },
        { status: 200, body: { ok: true } }
      ])
      const client = yield* clientOf(server.url, { timeout: "1 hour" })
      const fiber = yield* Effect.fork(client.execute({ method: "GET", path: "/", idempotent: true, decode: decodeEcho }))
      yield* until(() => server.received.length === 1)
      const wait = yield* nextSleep(3_600_000)
      expect(wait).toBe(Math.ceil(now / 1000) * 1000 + 5_000 - now)
      yield* TestClock.adjust(wait)
      expect(yield* Fiber.join(fiber)).toEqual({ ok: true })
    })
  )

  it.scoped("never retries a call that may not be repeated: the 429 and its Retry-After come back at once", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer([
        { status: 429, headers: { "retry-after": "7" }, body: { message: "slow down" } },
        { status: 200, body: { ok: true } }
      ])
      const client = yield* clientOf(server.url)
      const error = yield* Effect.flip(client.execute({ method: "POST", path: "/scans", idempotent: false, decode: decodeEcho }))
      expect(error).toMatchObject({ _tag: "ApiStatusError", status: 429, retryAfterMs: 7_000 })
      expect(error.message).toContain("slow down")
      expect(server.received).toHaveLength(1)
    })
  )

  it.scoped("does not hold a call for a Retry-After beyond maxRetryAfter", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer([
        { status: 503, headers: { "retry-after": "3600" } },
        { status: 200, body: { ok: true } }
      ])
      const client = yield* clientOf(server.url, { retry: { times: 3, maxRetryAfter: "30 seconds" } })
      const error = yield* Effect.flip(client.execute({ method: "GET", path: "/", idempotent: true, decode: decodeEcho }))
      expect(error).toMatchObject({ _tag: "ApiStatusError", status: 503, retryAfterMs: 3_600_000 })
      expect(server.received).toHaveLength(1)
    })
  )

  it.scoped("sends a User-Agent naming Scanbridge, its version and the API", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer([{ status: 200, body: { ok: true } }])
      const client = yield* clientOf(server.url)
      yield* client.execute({ method: "GET", path: "/", idempotent: true, decode: decodeEcho })
      expect(server.received[0]!.headers["user-agent"]).toBe(`Scanbridge/${VERSION} (test)`)
    })
  )

  it.scoped("puts a parameter credential in the query of a GET and in the body of a POST, and shows it in neither error", () =>
    Effect.gen(function* () {
      const secret = "cl_secret_value"
      const server = yield* scriptedServer([
        { status: 200, body: { ok: true } },
        { status: 500, body: { message: "boom" } }
      ])
      const client = yield* clientOf(server.url, { auth: ApiClient.Auth.param("key", secret), retry: { times: 0 } })
      yield* client.execute({ method: "GET", path: "/a", query: { lang: "en" }, idempotent: true, decode: decodeEcho })
      expect(server.received[0]!.url).toBe(`/a?lang=en&key=${secret}`)
      const Form = Schema.Struct({ key: Schema.String, height: Schema.NumberFromString })
      const error = yield* Effect.flip(
        client.execute({ method: "POST", path: "/b", body: client.form(Form, { height: 1700 }), idempotent: false, decode: decodeEcho })
      )
      expect(Object.fromEntries(new URLSearchParams(server.received[1]!.body))).toEqual({ height: "1700", key: secret })
      expect(error).toMatchObject({ _tag: "ApiStatusError", url: `${server.url}/b` })
      expect(client.redactedUrl("/a", { key: "x", lang: "en" })).toBe(`${server.url}/a?key=<redacted>&lang=en`)
    })
  )

  it.scoped("cuts the credential out of an error page that echoes it", () =>
    Effect.gen(function* () {
      const secret = "cl_echoed_secret"
      const server = yield* scriptedServer([
        { status: 502, body: `bad gateway for /a?key=${secret}` },
        { status: 400, body: { message: `unknown key ${secret}` } }
      ])
      const client = yield* clientOf(server.url, { auth: ApiClient.Auth.param("key", secret), retry: { times: 0 } })
      const page = yield* Effect.flip(client.execute({ method: "GET", path: "/a", idempotent: true, decode: decodeEcho }))
      expect(page.message).toContain("bad gateway for /a?key=<redacted>")
      const json = yield* Effect.flip(client.execute({ method: "GET", path: "/a", idempotent: true, decode: decodeEcho }))
      expect(json.message).toContain("unknown key <redacted>")
    })
  )

  it.scoped("refuses a body its wire schema refuses before sending, without quoting the credential", () =>
    Effect.gen(function* () {
      const secret = "ck_secret_value"
      const server = yield* scriptedServer([{ status: 200, body: { ok: true } }])
      const client = yield* clientOf(server.url, { auth: ApiClient.Auth.bodyField("key", secret) })
      const Body = Schema.Struct({ key: Schema.String, id: Schema.String.pipe(Schema.maxLength(3)) })
      const error = yield* Effect.flip(
        client.execute({ method: "POST", path: "/", body: client.json(Body, { id: "toolong" }), idempotent: false, decode: decodeEcho })
      )
      expect(error._tag).toBe("ApiEncodeError")
      expect(error.message).toContain("toolong")
      expect(JSON.stringify(error) + error.message).not.toContain(secret)
      expect(server.received).toHaveLength(0)
    })
  )
})

describe("ApiClient's limit on response bodies", () => {
  const MiB = 1024 * 1024

  for (const contentLength of [false, true]) {
    it.scoped(`stops reading a ${contentLength ? "declared" : "chunked"} body past maxResponseBytes: ApiResponseTooLargeError, the connection closed`, () =>
      Effect.gen(function* () {
        const server = yield* streamingServer(64 * MiB, { contentLength })
        const client = yield* clientOf(server.url, { maxResponseBytes: MiB, auth: ApiClient.Auth.param("key", "cl_secret_value") })
        const error = yield* Effect.flip(client.execute({ method: "GET", path: "/big", query: { lang: "en" }, idempotent: true, decode: decodeEcho }))
        expect(error).toMatchObject({
          _tag: "ApiResponseTooLargeError",
          api: "test",
          method: "GET",
          status: 200,
          maxBytes: MiB,
          url: `${server.url}/big?lang=en&key=<redacted>`
        })
        expect(error.message).toContain(`GET ${server.url}/big?lang=en&key=<redacted>`)
        expect(error.message).toContain(`${MiB} bytes`)
        expect(JSON.stringify(error) + error.message).not.toContain("cl_secret_value")
        yield* until(() => server.state.closed)
        expect(server.state.finished).toBe(false)
        expect(server.state.sent).toBeLessThan(64 * MiB)
      })
    )
  }

  it.scoped("reads a body of exactly maxResponseBytes, and refuses one byte more", () =>
    Effect.gen(function* () {
      const body = { ok: true }
      const size = JSON.stringify(body).length
      const server = yield* scriptedServer([{ status: 200, body }])
      expect(
        yield* (yield* clientOf(server.url, { maxResponseBytes: size })).execute({ method: "GET", path: "/", idempotent: true, decode: decodeEcho })
      ).toEqual(body)
      const error = yield* Effect.flip(
        (yield* clientOf(server.url, { maxResponseBytes: size - 1 })).execute({ method: "GET", path: "/", idempotent: true, decode: decodeEcho })
      )
      expect(error).toMatchObject({ _tag: "ApiResponseTooLargeError", maxBytes: size - 1 })
    })
  )

  it.scoped("defaults to 16 MiB, and never retries a body beyond it", () =>
    Effect.gen(function* () {
      expect(ApiClient.DEFAULT_MAX_RESPONSE_BYTES).toBe(16 * MiB)
      const server = yield* streamingServer(16 * MiB + 1, { contentLength: false })
      const client = yield* clientOf(server.url)
      const error = yield* Effect.flip(client.execute({ method: "GET", path: "/", idempotent: true, decode: decodeEcho }))
      expect(error).toMatchObject({ _tag: "ApiResponseTooLargeError", maxBytes: 16 * MiB })
      expect(server.state.requests).toBe(1)
    })
  )
})

describe("ApiClient and redirects", () => {
  const secret = "sk_redirect_secret"

  it.scoped("never follows a POST's redirect, to another origin or its own: ApiRedirectError naming the status", () =>
    Effect.gen(function* () {
      const elsewhere = yield* scriptedServer([{ status: 200, body: { ok: true } }])
      const server = yield* scriptedServer([
        { status: 302, headers: { location: `${elsewhere.url}/scans` } },
        { status: 307, headers: { location: "/scans/again" } }
      ])
      const client = yield* clientOf(server.url, { auth: ApiClient.Auth.header("Authorization", secret) })
      const Body = Schema.Struct({ id: Schema.String })
      const create = client.execute({ method: "POST", path: "/scans", body: client.json(Body, { id: "a" }), idempotent: false, decode: decodeEcho })
      const away = yield* Effect.flip(create)
      expect(away).toMatchObject({
        _tag: "ApiRedirectError",
        api: "test",
        method: "POST",
        url: `${server.url}/scans`,
        status: 302,
        location: `${elsewhere.url}/scans`
      })
      expect(away.message).toContain(`POST ${server.url}/scans -> 302`)
      const here = yield* Effect.flip(create)
      expect(here).toMatchObject({ _tag: "ApiRedirectError", status: 307, location: `${server.url}/scans/again` })
      expect(elsewhere.received).toHaveLength(0)
      expect(server.received.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /scans", "POST /scans"])
      expect(JSON.stringify([away, here]) + away.message + here.message).not.toContain(secret)
    })
  )

  it.scoped("never follows a GET's redirect to another origin, nor retries it; the credential goes nowhere else", () =>
    Effect.gen(function* () {
      const elsewhere = yield* scriptedServer([{ status: 200, body: { ok: true } }])
      const server = yield* scriptedServer([{ status: 301, headers: { location: `${elsewhere.url}/a?key=${secret}&lang=en` } }])
      const client = yield* clientOf(server.url, { auth: ApiClient.Auth.param("key", secret) })
      const error = yield* Effect.flip(client.execute({ method: "GET", path: "/a", idempotent: true, decode: decodeEcho }))
      expect(error).toMatchObject({ _tag: "ApiRedirectError", method: "GET", status: 301, location: `${elsewhere.url}/a?key=<redacted>&lang=en` })
      expect(JSON.stringify(error) + error.message).not.toContain(secret)
      expect(elsewhere.received).toHaveLength(0)
      expect(server.received).toHaveLength(1)
    })
  )

  it.scoped("follows a GET's redirects within its origin, with the credential, up to maxRedirects", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer([
        { status: 302, headers: { location: "/b" } },
        { status: 308, headers: { location: "/c?page=2" } },
        { status: 200, body: { ok: true } },
        { status: 302, headers: { location: "/loop" } }
      ])
      const client = yield* clientOf(server.url, { auth: ApiClient.Auth.header("Authorization", secret), maxRedirects: 2 })
      expect(yield* client.execute({ method: "GET", path: "/a", idempotent: true, decode: decodeEcho })).toEqual({ ok: true })
      expect(server.received.map((r) => `${r.method} ${r.url} ${r.headers.authorization}`)).toEqual([
        `GET /a ${secret}`,
        `GET /b ${secret}`,
        `GET /c?page=2 ${secret}`
      ])
      const error = yield* Effect.flip(client.execute({ method: "GET", path: "/loop", idempotent: true, decode: decodeEcho }))
      expect(error).toMatchObject({ _tag: "ApiRedirectError", status: 302, location: `${server.url}/loop` })
      expect(error.message).toContain("more than 2 redirects")
      expect(server.received).toHaveLength(6)
    })
  )
})

describe("ApiClient with a base URL that is no URL", () => {
  it.effect("fails with ApiTransportError, not a defect, and shows no query", () =>
    Effect.gen(function* () {
      const client = yield* clientOf("not a url", { auth: ApiClient.Auth.param("key", "secret_in_query") })
      const error = yield* Effect.flip(client.execute({ method: "GET", path: "/x", idempotent: true, decode: decodeEcho }))
      expect(error).toMatchObject({ _tag: "ApiTransportError", url: "not a url/x" })
      expect(JSON.stringify(error) + error.message).not.toContain("secret_in_query")
      expect(client.redactedUrl("/x")).toBe("not a url/x")
    })
  )
})

describe("Retry-After and URLs", () => {
  it("reads delta-seconds and HTTP-dates, and nothing else", () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0)
    expect(parseRetryAfter("120", now)).toEqual(Option.some(120_000))
    expect(parseRetryAfter(" 0 ", now)).toEqual(Option.some(0))
    expect(parseRetryAfter("Thu, 01 Jan 2026 12:00:30 GMT", now)).toEqual(Option.some(30_000))
    expect(parseRetryAfter("Thu, 01 Jan 2026 11:00:00 GMT", now)).toEqual(Option.some(0))
    for (const bad of [undefined, "", "-5", "1.5", "soon", "2026-01-01T12:00:30Z"]) expect(parseRetryAfter(bad, now)).toEqual(Option.none())
  })

  it("redacts the values of secret query keys, whatever their case", () => {
    expect(redactUrl(new URL("http://h/p?client_id=abc&lang=en&CLIENT_ID=d"), ["client_id"])).toBe(
      "http://h/p?client_id=<redacted>&lang=en&CLIENT_ID=<redacted>"
    )
    expect(redactUrl(new URL("http://h/p"), ["client_id"])).toBe("http://h/p")
  })

  it("names the version of package.json in the User-Agent", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
    expect(VERSION).toBe(pkg.version)
  })
})
