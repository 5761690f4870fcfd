/**
 * ApiClient: one request layer for every API client. It places the API's credential (a header,
 * a body field, or a parameter), encodes bodies from the wire schemas, bounds each attempt with
 * a timeout, repeats only what is safe to repeat (honouring Retry-After), sends a User-Agent,
 * and traces each attempt in a client span whose URL, query and headers show no secret. It reads
 * no response body beyond a limit, and follows no redirect but a GET's to the same origin: the
 * credential goes nowhere else, and a create is never sent twice or turned into a GET.
 *
 * @effect/platform's own client span is turned off for these requests: it writes `url.full` and
 * `url.query` as they are, and redacts only the headers in `Headers.currentRedactedNames`, so a
 * credential in the query (the estimation API's `client_id`) or in a header of its own
 * (`Access-Token`) would reach every installed tracer.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import { Clock, Duration, Effect, Either, FiberRef, Option, ParseResult, Redacted, Schedule, Schema } from "effect"
import { ApiEncodeError, ApiRedirectError, ApiResponseTooLargeError, ApiStatusError, ApiTimeoutError, ApiTransportError } from "./errors.js"
import { readLimited } from "./internal/body.js"
import { REDACTED, redactHeaders, redactUrl } from "./internal/redact.js"
import { DEFAULT_MAX_RETRY_AFTER, type RetryOptions, parseRetryAfter, retrySchedule } from "./retry.js"
import { userAgent } from "./version.js"

// --- Auth ---------------------------------------------------------------------------------

/** Where an API takes its credential. `field` is the name the wire uses. */
export type Auth<F extends string = string> =
  | { readonly _tag: "Header"; readonly name: string; readonly value: Redacted.Redacted<string> }
  | { readonly _tag: "BodyField"; readonly field: F; readonly value: Redacted.Redacted<string> }
  | { readonly _tag: "Param"; readonly field: F; readonly value: Redacted.Redacted<string> }

/** A secret as given in options: a string becomes Redacted at once. */
export const redactedOf = (value: Redacted.Redacted<string> | string): Redacted.Redacted<string> => (Redacted.isRedacted(value) ? value : Redacted.make(value))

export const Auth = {
  /** A header on every request (`Authorization`): redacted in spans whatever its name. */
  header: (name: string, value: Redacted.Redacted<string> | string): Auth<never> => ({ _tag: "Header", name, value: redactedOf(value) }),
  /** `Authorization: Bearer <token>`. */
  bearer: (token: Redacted.Redacted<string> | string): Auth<never> => ({
    _tag: "Header",
    name: "Authorization",
    value: Redacted.make(`Bearer ${Redacted.value(redactedOf(token))}`)
  }),
  /** A field of every request body (`clientKey`). */
  bodyField: <F extends string>(field: F, value: Redacted.Redacted<string> | string): Auth<F> => ({ _tag: "BodyField", field, value: redactedOf(value) }),
  /**
   * A parameter: in the query string of a request without a body, a field of its body otherwise
   * (the estimation API's `client_id`). Redacted in URLs whatever the API's redacted keys.
   */
  param: <F extends string>(field: F, value: Redacted.Redacted<string> | string): Auth<F> => ({ _tag: "Param", field, value: redactedOf(value) })
} as const

// --- Calls --------------------------------------------------------------------------------

type Secretable = string | Redacted.Redacted<string>

/** A request body, built by the client's `json`, `form` or `multipart`. */
export type Body =
  | { readonly _tag: "Json"; readonly schema: Schema.Schema<unknown, unknown>; readonly value: Record<string, unknown> }
  | { readonly _tag: "Form"; readonly schema: Schema.Schema<unknown, unknown>; readonly value: Record<string, unknown> }
  | { readonly _tag: "Multipart"; readonly fields: Readonly<Record<string, Secretable | File>> }

export interface Call<A, D> {
  readonly method: "GET" | "POST" | "DELETE"
  /** Appended to the base URL; path segments already encoded. */
  readonly path: string
  readonly query?: Readonly<Record<string, Secretable>>
  /** Headers of this call; a Redacted value is also redacted in spans, whatever its name. */
  readonly headers?: Readonly<Record<string, Secretable>>
  readonly body?: Body
  /**
   * Whether the call may be sent twice. False for anything that creates state or spends quota:
   * such a call is never retried, on any error.
   */
  readonly idempotent: boolean
  /** Appended to the timeout message: what may have happened, how to find out. */
  readonly onTimeout?: string
  /** The body of a response (parsed JSON, or the text when it is not JSON, or null) as a result. */
  readonly decode: (body: unknown, status: number) => Either.Either<A, D>
}

/** A response outside 2xx, as an API's classification sees it. */
export interface FailedResponse {
  readonly api: string
  readonly method: string
  /** Redacted. */
  readonly url: string
  readonly status: number
  /** Parsed JSON, or the text when it is not JSON, or null when empty. */
  readonly body: unknown
  readonly retryAfterMs?: number
}

export interface ApiClientOptions<F extends string, E> {
  /** The API's name, in errors and the User-Agent. */
  readonly api: string
  readonly baseUrl: string
  readonly auth?: Auth<F>
  /** Header names that carry secrets besides the auth header (case-insensitive). */
  readonly redactedHeaders?: ReadonlyArray<string>
  /** Query keys that carry secrets besides the auth parameter (case-insensitive). */
  readonly redactedQueryKeys?: ReadonlyArray<string>
  /** Longest wait for one attempt's complete response. Default DEFAULT_TIMEOUT. */
  readonly timeout?: Duration.DurationInput
  /**
   * Most bytes of one response body read (after any content decoding); a longer body is
   * ApiResponseTooLargeError. Default DEFAULT_MAX_RESPONSE_BYTES.
   */
  readonly maxResponseBytes?: number
  /**
   * Redirects of a GET to the same origin followed in a row; 0 follows none. Default 5. No other
   * redirect is ever followed: see ApiRedirectError.
   */
  readonly maxRedirects?: number
  readonly retry?: RetryOptions
  /**
   * `status` (the default): a response outside 2xx is an error, `classify`'s. `data`: the API
   * answers errors with a message whatever the status, so every body goes to `decode` first; one
   * that does not decode is `classify`'s error (a proxy's 502 page, say).
   */
  readonly errorBodies?: "status" | "data"
  /** The API's error for a response outside 2xx. Default: ApiStatusError. */
  readonly classify?: (response: FailedResponse) => E
  readonly transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
}

/**
 * One attempt's wait for a complete response, unless configured: long enough for a scan the
 * platform computes for seconds from two photos, short enough that a dead server is noticed.
 */
export const DEFAULT_TIMEOUT: Duration.DurationInput = "60 seconds"

/**
 * The longest response body read unless configured, 16 MiB: the largest the APIs answer, a scan
 * with its base64 photos and avatar or a page of 100 summaries, holds a few MiB; a body far
 * beyond that is a fault (or an attack) whose reading would take the process's memory with it.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024

const DEFAULT_MAX_REDIRECTS = 5

// The statuses that redirect to the Location they give; other 3xx (300, 304) point nowhere to go.
const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** What any call can fail with besides the API's classification and its decoding. */
export type CallError = ApiTransportError | ApiTimeoutError | ApiRedirectError | ApiResponseTooLargeError | ApiEncodeError

export interface ApiClient<F extends string, E> {
  readonly api: string
  readonly execute: <A, D>(call: Call<A, D>) => Effect.Effect<A, D | E | CallError>
  /** A JSON body encoded by its wire schema; the auth field, if any, is the client's to add. */
  readonly json: <A extends object, I>(schema: Schema.Schema<A, I>, value: Omit<A, F>) => Body
  /** An application/x-www-form-urlencoded body encoded by its wire schema (strings, then). */
  readonly form: <A extends object, I extends Readonly<Record<string, string | undefined>>>(schema: Schema.Schema<A, I>, value: Omit<A, F>) => Body
  readonly multipart: (fields: Readonly<Record<string, Secretable | File>>) => Body
  /** The same client presenting another credential: a device's scan token, say. */
  readonly withAuth: (auth: Auth<F>) => ApiClient<F, E>
  /** The URL of a path as errors show it. */
  readonly redactedUrl: (path: string, query?: Readonly<Record<string, Secretable>>) => string
}

// Statuses worth another attempt of a call that may be repeated.
const TRANSIENT = new Set([408, 429, 500, 502, 503, 504])
const RETRY_AFTER = new Set([429, 503])

// An attempt's failure, with what the retry policy needs to know about it.
class Failed<Err> {
  constructor(
    readonly error: Err,
    readonly transient: boolean,
    readonly retryAfterMs: number | undefined
  ) {}
}

/** The `message` of a JSON error body (`{"message": "..."}`), or null when it has none. */
export const bodyMessage = (body: unknown): string | null =>
  typeof body === "object" && body !== null && typeof (body as { message?: unknown }).message === "string" ? (body as { message: string }).message : null

/** A status error's fields for a failed response; its message is `METHOD URL -> STATUS` and then `detail`. */
export const statusErrorFields = (r: FailedResponse, detail: string) => ({
  api: r.api,
  method: r.method,
  url: r.url,
  status: r.status,
  ...(r.retryAfterMs === undefined ? {} : { retryAfterMs: r.retryAfterMs }),
  message: `${r.method} ${r.url} -> ${r.status}${detail}`
})

const parseBody = (text: string): unknown => {
  if (text.trim() === "") return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const describeBody = (body: unknown): string => {
  const message = bodyMessage(body)
  if (message !== null) return message
  if (typeof body === "string") return body.length > 200 ? `${body.slice(0, 200)}...` : body
  return body === null ? "no body" : "no message"
}

export const make = <F extends string = never, E = ApiStatusError>(
  options: ApiClientOptions<F, E>
): Effect.Effect<ApiClient<F, E>, never, HttpClient.HttpClient> => Effect.map(HttpClient.HttpClient, (base) => build(options, base))

const build = <F extends string, E>(options: ApiClientOptions<F, E>, base: HttpClient.HttpClient): ApiClient<F, E> => {
  const api = options.api
  const root = options.baseUrl.replace(/\/$/, "")
  const auth = options.auth
  const timeout = Duration.decode(options.timeout ?? DEFAULT_TIMEOUT)
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS
  const maxRetryAfter = Duration.toMillis(options.retry?.maxRetryAfter ?? DEFAULT_MAX_RETRY_AFTER)
  const backoff = retrySchedule(options.retry)
  const errorBodies = options.errorBodies ?? "status"
  const classify = options.classify ?? ((r: FailedResponse) => new ApiStatusError(statusErrorFields(r, `: ${describeBody(r.body)}`)) as E)
  const secretKeys = [...(options.redactedQueryKeys ?? []), ...(auth?._tag === "Param" ? [auth.field] : [])]
  const secretHeaders = [...(options.redactedHeaders ?? []), ...(auth?._tag === "Header" ? [auth.name] : [])]
  const http = base.pipe(
    // This layer writes the span itself, with redacted attributes: see the module comment.
    HttpClient.withTracerDisabledWhen(() => true),
    options.transformClient ?? ((c: HttpClient.HttpClient) => c),
    // fetch follows redirects itself unless told not to, whatever the method or origin: a POST's
    // 302 would come back as the answer of a GET sent elsewhere. Redirects are this layer's to
    // decide. A RequestInit provided around the call is kept but for that; one given to
    // FetchHttpClient.layer itself cannot be seen from here, and gives way to this one.
    HttpClient.transformResponse((response) =>
      Effect.flatMap(Effect.serviceOption(FetchHttpClient.RequestInit), (init) =>
        Effect.provideService(response, FetchHttpClient.RequestInit, { ...Option.getOrElse(init, () => ({})), redirect: "manual" })
      )
    )
  )

  const urlOf = (path: string, query: Readonly<Record<string, Secretable>>) => {
    const url = new URL(`${root}${path}`)
    for (const [key, value] of Object.entries(query)) url.searchParams.append(key, Redacted.isRedacted(value) ? Redacted.value(value) : value)
    return url
  }
  const reveal = <V>(fields: Readonly<Record<string, V | Redacted.Redacted<string>>>) =>
    Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Redacted.isRedacted(v) ? Redacted.value(v) : v])) as Record<string, V | string>

  const withAuthField = <V>(fields: Readonly<Record<string, V>>): Readonly<Record<string, V | Redacted.Redacted<string>>> =>
    auth !== undefined && auth._tag !== "Header" ? { ...fields, [auth.field]: auth.value } : fields

  // The wire body, with the credential put in only after the schema has encoded the rest: an
  // encoding error's message quotes the value it refused.
  const encodeBody = (
    body: Body,
    method: string,
    url: string
  ): Effect.Effect<(r: HttpClientRequest.HttpClientRequest) => HttpClientRequest.HttpClientRequest, ApiEncodeError> => {
    switch (body._tag) {
      case "Json":
      case "Form": {
        const placeholder = auth !== undefined && auth._tag !== "Header" ? { [auth.field]: REDACTED } : {}
        return Schema.encode(body.schema)({ ...body.value, ...placeholder }).pipe(
          Effect.mapError(
            (e) =>
              new ApiEncodeError({
                api,
                method,
                url,
                message: `${method} ${url}: the request body does not match its wire schema: ${ParseResult.TreeFormatter.formatErrorSync(e)}`
              })
          ),
          Effect.map((encoded) => {
            const json = auth !== undefined && auth._tag !== "Header" ? { ...(encoded as object), [auth.field]: Redacted.value(auth.value) } : encoded
            return body._tag === "Json" ? HttpClientRequest.bodyUnsafeJson(json) : HttpClientRequest.bodyUrlParams(json as Record<string, string>)
          })
        )
      }
      case "Multipart":
        return Effect.succeed(HttpClientRequest.bodyFormDataRecord(reveal(withAuthField(body.fields))))
    }
  }

  const execute = <A, D>(call: Call<A, D>): Effect.Effect<A, D | E | CallError> => {
    const query = call.body === undefined && auth?._tag === "Param" ? { ...call.query, [auth.field]: auth.value } : (call.query ?? {})
    const url = Either.try(() => urlOf(call.path, query))
    if (Either.isRight(url)) return send(call, query, url.right)
    // The path only: the query may hold a secret.
    const shown = `${root}${call.path}`
    return Effect.fail(new ApiTransportError({ api, method: call.method, url: shown, message: `${call.method} ${shown}: not a valid URL`, cause: url.left }))
  }

  const send = <A, D>(call: Call<A, D>, query: Readonly<Record<string, Secretable>>, url: URL): Effect.Effect<A, D | E | CallError> => {
    const method = call.method
    const shown = redactUrl(url, secretKeys)
    const headers: Record<string, Secretable> = { ...call.headers, "user-agent": userAgent(api) }
    if (auth?._tag === "Header") headers[auth.name] = auth.value
    const hidden = [...secretHeaders, ...Object.entries(headers).flatMap(([name, value]) => (Redacted.isRedacted(value) ? [name] : []))]

    // An error page may echo the request (a proxy's 502 showing the URL): what an error quotes
    // of a body has this call's secrets cut out.
    const secrets = [
      ...(auth === undefined ? [] : [Redacted.value(auth.value)]),
      ...[...Object.values(headers), ...Object.values(query)].flatMap((v) => (Redacted.isRedacted(v) ? [Redacted.value(v)] : []))
    ].filter((v) => v !== "")
    const cut = (text: string) => secrets.reduce((t, secret) => t.split(secret).join(REDACTED), text)
    const scrub = (body: unknown): unknown => {
      if (typeof body === "string") return cut(body)
      const message = bodyMessage(body)
      return message === null ? body : { ...(body as object), message: cut(message) }
    }

    type Err = D | E | Exclude<CallError, ApiEncodeError>

    const tooLarge = (status: number) =>
      new ApiResponseTooLargeError({
        api,
        method,
        url: shown,
        status,
        maxBytes: maxResponseBytes,
        message: `${method} ${shown} -> ${status}: the response body is longer than the limit of ${maxResponseBytes} bytes (maxResponseBytes); it was not read further`
      })

    // A redirect is followed only for a GET, only to the origin the call was made to, and only so
    // many times in a row; any other is the call's error. The location it shows is redacted as the
    // call's own URL is, since a server may echo the query into it.
    const refusal = (status: number, next: URL | undefined, hops: number): string | undefined => {
      if (status === 0) return "a redirect the runtime does not show (a browser's fetch hides where it points)"
      if (!REDIRECTS.has(status)) return "not a redirect that can be followed"
      if (next === undefined) return "a redirect without a usable Location"
      if (method !== "GET") return `a redirect of a ${method}, never followed: its body and credential are for this URL alone`
      if (next.origin !== url.origin) return `a redirect to another origin (${next.origin}), never followed: the credential would go with it`
      if (hops >= maxRedirects) return `more than ${maxRedirects} redirects in a row (maxRedirects)`
      return undefined
    }
    const redirected = (status: number, location: string | undefined, at: URL, hops: number): Either.Either<URL, ApiRedirectError> => {
      const next = location === undefined ? undefined : Either.getOrUndefined(Either.try(() => new URL(location, at)))
      const why = refusal(status, next, hops)
      if (why === undefined && next !== undefined) return Either.right(next)
      const shownLocation = next === undefined ? (location === undefined ? undefined : cut(location)) : cut(redactUrl(next, secretKeys))
      return Either.left(
        new ApiRedirectError({
          api,
          method,
          url: shown,
          status,
          ...(shownLocation === undefined ? {} : { location: shownLocation }),
          message: `${method} ${shown} -> ${status}: ${why}${shownLocation === undefined ? "" : `; Location: ${shownLocation}`}`
        })
      )
    }

    // One response, its body read within the limit, after the redirects it may follow.
    const exchange = (
      request: HttpClientRequest.HttpClientRequest,
      at: URL,
      hops: number
    ): Effect.Effect<
      { response: HttpClientResponse.HttpClientResponse; text: string },
      HttpClientError.HttpClientError | ApiRedirectError | ApiResponseTooLargeError
    > =>
      Effect.flatMap(http.execute(request), (response) =>
        Effect.flatMap(
          readLimited(response, maxResponseBytes, () => tooLarge(response.status)),
          (text) => {
            if (response.status !== 0 && (response.status < 300 || response.status > 399)) return Effect.succeed({ response, text })
            return Either.match(redirected(response.status, response.headers["location"], at, hops), {
              onLeft: Effect.fail,
              onRight: (next) => exchange(HttpClientRequest.setUrl(request, next), next, hops + 1)
            })
          }
        )
      )

    const attempt = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<A, Failed<Err>> =>
      Effect.useSpan(`http.client ${method}`, { kind: "client", captureStackTrace: false }, (span) =>
        Effect.gen(function* () {
          const redactedNames = [...(yield* FiberRef.get(Headers.currentRedactedNames)), ...hidden]
          span.attribute("http.request.method", method)
          span.attribute("server.address", url.origin)
          if (url.port !== "") span.attribute("server.port", Number(url.port))
          span.attribute("url.full", shown)
          span.attribute("url.path", url.pathname)
          span.attribute("url.scheme", url.protocol.slice(0, -1))
          const shownQuery = shown.includes("?") ? shown.slice(shown.indexOf("?") + 1) : ""
          if (shownQuery !== "") span.attribute("url.query", shownQuery)
          for (const [name, value] of Object.entries(redactHeaders(request.headers, redactedNames))) span.attribute(`http.request.header.${name}`, value)
          const traced = HttpClientRequest.setHeaders(request, HttpTraceContext.toHeaders(span))

          const outcome = yield* exchange(traced, url, 0).pipe(
            Effect.timeoutFail({
              duration: timeout,
              onTimeout: () =>
                new ApiTimeoutError({
                  api,
                  method,
                  url: shown,
                  timeoutMs: Duration.toMillis(timeout),
                  message: `${method} ${shown}: no complete response within ${Duration.format(timeout)}${call.onTimeout === undefined ? "" : `; ${call.onTimeout}`}`
                })
            }),
            Effect.mapError((e): Failed<Err> => {
              switch (e._tag) {
                case "ApiTimeoutError":
                  return new Failed<Err>(e, true, undefined)
                // The same request would meet the same answer.
                case "ApiRedirectError":
                case "ApiResponseTooLargeError":
                  return new Failed<Err>(e, false, undefined)
                default:
                  return new Failed<Err>(transportError(e), true, undefined)
              }
            })
          )
          const { response, text } = outcome
          span.attribute("http.response.status_code", response.status)
          const body = parseBody(text)
          const now = yield* Clock.currentTimeMillis
          const retryAfterMs = RETRY_AFTER.has(response.status) ? Option.getOrUndefined(parseRetryAfter(response.headers["retry-after"], now)) : undefined
          const refused = (): Failed<Err> =>
            new Failed<Err>(
              classify({ api, method, url: shown, status: response.status, body: scrub(body), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) }),
              TRANSIENT.has(response.status),
              retryAfterMs
            )
          const decoded = (): Effect.Effect<A, Failed<Err>> =>
            Either.match(call.decode(body, response.status), {
              onLeft: (d) => Effect.fail(new Failed<Err>(d, false, undefined)),
              onRight: Effect.succeed
            })
          return yield* HttpClientResponse.matchStatus(response, {
            "2xx": decoded,
            orElse: () => {
              if (errorBodies === "status") return Effect.fail(refused())
              const answer = call.decode(body, response.status)
              return Either.isRight(answer) ? Effect.succeed(answer.right) : Effect.fail(refused())
            }
          })
        })
      )

    const transportError = (e: HttpClientError.HttpClientError) =>
      new ApiTransportError({
        api,
        method,
        url: shown,
        message: `${method} ${shown}: no response (${e._tag === "RequestError" ? e.reason : `body ${e.reason}`}${e.cause instanceof Error ? `: ${e.cause.message}` : ""})`,
        // The socket's error, not the HttpClientError: that one holds the request and its headers.
        ...(e.cause === undefined ? {} : { cause: e.cause })
      })

    // Retry-After, when a 429 or 503 gave one, in place of the backoff's delay.
    const policy = Schedule.intersect(backoff, Schedule.identity<Failed<Err>>()).pipe(
      Schedule.modifyDelay(([, failed], delay) => (failed.retryAfterMs === undefined ? delay : Duration.millis(failed.retryAfterMs)))
    )
    const retryable = (f: Failed<Err>) => f.transient && (f.retryAfterMs === undefined || f.retryAfterMs <= maxRetryAfter)

    return Effect.gen(function* () {
      let request = HttpClientRequest.make(method)(`${url.origin}${url.pathname}`).pipe(
        HttpClientRequest.setUrlParams(reveal(query)),
        HttpClientRequest.setHeaders(reveal(headers)),
        HttpClientRequest.acceptJson
      )
      if (call.body !== undefined) request = (yield* encodeBody(call.body, method, shown))(request)
      const once = attempt(request)
      return yield* (call.idempotent ? Effect.retry(once, { schedule: policy, while: retryable }) : once).pipe(Effect.mapError((f) => f.error))
    })
  }

  return {
    api,
    execute,
    json: (schema, value) => ({ _tag: "Json", schema: schema as unknown as Schema.Schema<unknown, unknown>, value: value as Record<string, unknown> }),
    form: (schema, value) => ({ _tag: "Form", schema: schema as unknown as Schema.Schema<unknown, unknown>, value: value as Record<string, unknown> }),
    multipart: (fields) => ({ _tag: "Multipart", fields }),
    withAuth: (next) => build({ ...options, auth: next }, base),
    redactedUrl: (path, query = {}) =>
      Either.getOrElse(
        Either.try(() => redactUrl(urlOf(path, query), secretKeys)),
        () => `${root}${path}`
      )
  }
}
