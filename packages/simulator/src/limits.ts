/**
 * What the simulator refuses whatever the API: bodies beyond a size (413), JSON nested beyond a
 * depth (400), which would otherwise reach a decoder's recursion and end as an empty 500.
 */
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Option, Stream } from "effect"

/** Default body limit: two base64 photos of a platform photo scan fit with room to spare. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024

/** Default JSON depth limit: the deepest request of the vendor's APIs nests five levels. */
export const MAX_JSON_DEPTH = 64

/** Whether `value` nests arrays and objects deeper than `max`; iterative, so depth costs no stack. */
export const nestedDeeperThan = (value: unknown, max: number): boolean => {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (typeof v !== "object" || v === null) continue
    if (depth + 1 > max) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1])
  }
  return false
}

/** A body refused for its size or depth: raised as a defect, so that no endpoint reads it as data. */
export class BodyRefused {
  readonly _tag = "BodyRefused"
  constructor(readonly status: number, readonly message: string) {}
}

const tooLarge = (maxBytes: number, size: string) => new BodyRefused(413, `request body of ${size} exceeds the simulator's limit of ${maxBytes} bytes`)

/** The refusal of a request whose Content-Length is beyond the limit, before its body is read. */
export const refusedByLength = (request: HttpServerRequest.HttpServerRequest, maxBytes: number): Option.Option<BodyRefused> => {
  const length = Number(request.headers["content-length"])
  return Number.isFinite(length) && length > maxBytes ? Option.some(tooLarge(maxBytes, `${length} bytes`)) : Option.none()
}

/**
 * The request as endpoints see it: its text read under the size limit and its JSON refused
 * beyond the depth limit, both as BodyRefused defects. The body is still read only when the
 * endpoint reads it, so an endpoint decides what happens first (a scan token is spent before).
 * A multipart body is streamed to its endpoint: it is held to the limit by its Content-Length,
 * which every client sends.
 */
export const limitedRequest = (request: HttpServerRequest.HttpServerRequest, maxBytes: number, maxDepth: number): HttpServerRequest.HttpServerRequest => {
  // The body is drained to its end even past the limit, keeping nothing beyond it: stopping
  // early would reset the connection before the 413 could be sent.
  const read = Effect.gen(function* () {
    const chunks: Array<Uint8Array> = []
    let size = 0
    yield* Stream.runForEach(request.stream, (chunk) =>
      Effect.sync(() => {
        size += chunk.length
        if (size <= maxBytes) chunks.push(chunk)
      })
    )
    if (size > maxBytes) return yield* Effect.die(tooLarge(maxBytes, `${size} bytes`))
    return Buffer.concat(chunks).toString("utf8")
  })
  const text = Effect.runSync(Effect.cached(read))
  const json = Effect.flatMap(text, (body) =>
    Effect.flatMap(
      Effect.try({ try: () => (body === "" ? null : (JSON.parse(body) as unknown)), catch: (cause) => new HttpServerError.RequestError({ request, reason: "Decode", cause }) }),
      (value) => (nestedDeeperThan(value, maxDepth) ? Effect.die(new BodyRefused(400, `the JSON body nests deeper than ${maxDepth} levels`)) : Effect.succeed(value))
    )
  )
  // The proxy is the receiver of the request's own getters too, so that every body reader built
  // on `this.text` (urlParamsBody, the schema body readers) reads under the limit.
  return new Proxy(request, {
    get: (target, property, receiver) => (property === "text" ? text : property === "json" ? json : Reflect.get(target, property, receiver))
  })
}
