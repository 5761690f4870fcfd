/**
 * How a legacy endpoint says no: an HTTP status and a `{message}` body, as the legacy estimation
 * API (and the simulator that stands in for it) answers. A handler fails with a Refusal wherever
 * it stops; `answered` turns it, and a store that failed, into the response.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Schema } from "effect"
import { unknownNames } from "@scanbridge/model/internal"
import type { GatewayStoreError } from "../store.js"

export class Refusal extends Schema.TaggedError<Refusal>("@scanbridge/gateway/Refusal")("Refusal", {
  status: Schema.Number,
  message: Schema.String,
  /** Seconds, sent as Retry-After. */
  retryAfter: Schema.optional(Schema.Number)
}) {}

export const refuse = (status: number, message: string): Effect.Effect<never, Refusal> => Effect.fail(new Refusal({ status, message }))

const body = (status: number, message: string) => HttpServerResponse.unsafeJson({ message }, { status })

/**
 * The handler's response, or its refusal's. A store that failed is a 500 whose message says only
 * that: the store's own message may quote what it held, which is personal data, so the log line
 * names the error's tag alone.
 */
export const answered = <R>(
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, Refusal | GatewayStoreError, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> =>
  Effect.catchTags(handler, {
    Refusal: (e) => {
      const response = body(e.status, e.message)
      return Effect.succeed(e.retryAfter === undefined ? response : HttpServerResponse.setHeader(response, "retry-after", String(e.retryAfter)))
    },
    GatewayStoreError: (e) =>
      Effect.as(
        Effect.logError("the gateway's store failed").pipe(Effect.annotateLogs("error", e._tag)),
        body(500, "internal error: the gateway's store failed")
      )
  })

/** A 400 naming the fields (form fields, multipart parts) an endpoint does not take. */
export const onlyFields = (what: string, names: Iterable<string>, allowed: ReadonlyArray<string>): Effect.Effect<void, Refusal> => {
  const unknown = unknownNames(
    what,
    "field",
    [...names].filter((n) => !allowed.includes(n))
  )
  return unknown === undefined ? Effect.void : refuse(400, unknown)
}

/**
 * The query parameters `allowed` names, each at most once: a 400 naming any other, or one given
 * twice (which of the two a server would read is not shown).
 */
export const queryParams = <K extends string>(
  request: HttpServerRequest.HttpServerRequest,
  what: string,
  allowed: ReadonlyArray<K>
): Effect.Effect<Partial<Record<K, string>>, Refusal> => {
  const params = new URL(request.url, "http://gateway.invalid").searchParams
  const unknown = unknownNames(
    what,
    "query parameter",
    [...params.keys()].filter((n) => !(allowed as ReadonlyArray<string>).includes(n))
  )
  if (unknown !== undefined) return refuse(400, unknown)
  const out: Partial<Record<K, string>> = {}
  for (const name of allowed) {
    const all = params.getAll(name)
    if (all.length > 1) return refuse(400, `${what}: ${name} is given ${all.length} times; give it once`)
    if (all.length === 1) out[name] = all[0]!
  }
  return Effect.succeed(out)
}
