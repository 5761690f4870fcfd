/**
 * What the simulator refuses whatever the API: bodies beyond a size (413), JSON nested beyond a
 * depth (400), which would otherwise reach a decoder's recursion and end as an empty 500; and,
 * as a strict server would, keys and query parameters an endpoint does not know (400 naming
 * them), so that a client sending a field the API ignores learns it here rather than in
 * production, where the field is silently dropped.
 */
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Multipart from "@effect/platform/Multipart"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Chunk, Effect, Either, Option, Schema, Stream } from "effect"
import { DecodeError, formatPath } from "@scanbridge/model"
import { collectIssues, unknownFields, unknownNames } from "@scanbridge/model/internal"
import { type Readable, type Writable, finished } from "node:stream"
import { collectBytes } from "./internal/bytes.js"
import { partsOf } from "./multipart.js"

/** Default body limit: two base64 photos of a platform photo scan fit with room to spare. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024

/** Default JSON depth limit: the deepest request of the vendor's APIs nests five levels. */
export const MAX_JSON_DEPTH = 64

/**
 * How much of a body is read and thrown away after its request is answered, when the endpoint
 * did not read it to its end (a 413, a 401 before the body): a client still sending then reads
 * the answer, rather than a reset connection, and the connection serves its next request.
 */
export const DRAIN_BYTES = 64 * 1024 * 1024

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
  constructor(
    readonly status: number,
    readonly message: string
  ) {}
}

/** The refusal of a request whose Content-Length is beyond the limit, before its body is read. */
export const refusedByLength = (request: HttpServerRequest.HttpServerRequest, maxBytes: number): Option.Option<BodyRefused> => {
  const length = Number(request.headers["content-length"])
  return Number.isFinite(length) && length > maxBytes
    ? Option.some(new BodyRefused(413, `request body of ${length} bytes exceeds the simulator's limit of ${maxBytes} bytes`))
    : Option.none()
}

/**
 * `body` as it arrives, its bytes counted chunk by chunk: the first chunk past `maxBytes` ends it
 * with a BodyRefused 413, and nothing after that chunk is pulled.
 */
export const limitedBody = <E, R>(body: Stream.Stream<Uint8Array, E, R>, maxBytes: number): Stream.Stream<Uint8Array, E, R> =>
  Stream.suspend(() => {
    let size = 0
    return Stream.mapChunksEffect(body, (chunk) => {
      size = Chunk.reduce(chunk, size, (n, bytes) => n + bytes.length)
      return size > maxBytes ? Effect.die(new BodyRefused(413, `request body exceeds the simulator's limit of ${maxBytes} bytes`)) : Effect.succeed(chunk)
    })
  })

/**
 * After a request is answered, what its client still sends of a body that was not read to its
 * end is read and thrown away, up to `maxBytes`; past that the connection is closed once the
 * answer is out.
 */
export const discardRest = (source: Readable & { readonly complete: boolean }, response: Writable, maxBytes = DRAIN_BYTES): void => {
  if (source.complete || source.destroyed) return
  let discarded = 0
  const onReadable = () => {
    for (let chunk: Buffer | null = source.read(); chunk !== null; chunk = source.read()) {
      discarded += chunk.length
      if (discarded > maxBytes) {
        source.off("readable", onReadable)
        finished(response, () => source.destroy())
        return
      }
    }
  }
  source.on("readable", onReadable)
  onReadable()
}

/** discardRest for the request the simulator's server was given. */
export const discardRequestRest = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<void> =>
  Effect.sync(() => discardRest(NodeHttpServerRequest.toIncomingMessage(request), NodeHttpServerRequest.toServerResponse(request)))

/**
 * The request as endpoints see it: its body read under the size limit, whichever way it is read
 * (text, JSON, form, bytes, multipart), and its JSON refused beyond the depth limit, both as
 * BodyRefused defects. The body is still read only when the endpoint reads it, so an endpoint
 * decides what happens first (a scan token is spent before).
 */
export const limitedRequest = (request: HttpServerRequest.HttpServerRequest, maxBytes: number, maxDepth: number): HttpServerRequest.HttpServerRequest => {
  const decodeError = (cause: unknown) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  // Not closed when it ends early: that would reset the connection before the 413 is sent.
  // discardRequestRest reads the rest once the request is answered.
  const body = limitedBody(
    NodeStream.fromReadable<HttpServerError.RequestError, Uint8Array>(() => NodeHttpServerRequest.toIncomingMessage(request), decodeError, {
      closeOnDone: false
    }),
    maxBytes
  )
  const bytes = Effect.runSync(Effect.cached(collectBytes(body)))
  const text = Effect.map(bytes, (b) => b.toString("utf8"))
  const json = Effect.flatMap(text, (read) =>
    Effect.flatMap(Effect.try({ try: () => (read === "" ? null : (JSON.parse(read) as unknown)), catch: decodeError }), (value) =>
      nestedDeeperThan(value, maxDepth) ? Effect.die(new BodyRefused(400, `the JSON body nests deeper than ${maxDepth} levels`)) : Effect.succeed(value)
    )
  )
  const multipartStream = Stream.unwrap(Effect.map(bytes, (b) => partsOf(b, request.headers["content-type"] ?? ""))).pipe(
    Stream.mapError((cause) => new Multipart.MultipartError({ reason: "Parse", cause }))
  )
  const overrides = new Map<PropertyKey, unknown>([
    ["stream", body],
    ["text", text],
    ["json", json],
    ["arrayBuffer", Effect.map(bytes, (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))],
    ["multipartStream", multipartStream],
    ["multipart", Multipart.toPersisted(multipartStream)]
  ])
  // The proxy is the receiver of the request's own getters too, so that every body reader built
  // on `this.text` (urlParamsBody, the schema body readers) reads under the limit.
  return new Proxy(request, {
    get: (target, property, receiver) => (overrides.has(property) ? overrides.get(property) : Reflect.get(target, property, receiver))
  })
}

// --- Unknown keys and query parameters ------------------------------------------------------

// Shared with the gateway (model's internal entry), so that both refuse in one wording.
export { unknownFields, unknownNames }

/** The leaf message effect's Schema gives a key its struct does not declare. */
const isUnexpected = (issue: { readonly message: string }) => issue.message.startsWith("is unexpected")

/**
 * A decoder that refuses keys `schema` does not declare, at any depth, as a strict server
 * does: the refusal names every unknown key (`statsEstimations.foo`) before any other problem.
 */
export const strictDecoder = <A, I>(schema: Schema.Schema<A, I>, what: string, noun = "key") => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })
  return (input: unknown): Either.Either<A, string> =>
    Either.mapLeft(decode(input), (error) => {
      const list = collectIssues(error.issue)
      const unexpected = list.issues.filter(isUnexpected)
      const others = list.issues.filter((i) => !isUnexpected(i))
      const unknown = unknownNames(
        what,
        noun,
        unexpected.map((i) => formatPath(i.path))
      )
      if (unknown === undefined) return DecodeError.fromIssueList(what, list).message
      return others.length === 0 ? unknown : `${unknown}; ${DecodeError.fromIssues(what, others, list.omitted).message}`
    })
}

/** A request's query parameters by name; a name given more than once has all its values. */
export const queryOf = (request: HttpServerRequest.HttpServerRequest): Record<string, string | ReadonlyArray<string>> => {
  const params = new URL(request.url, "http://simulator.invalid").searchParams
  const out: Record<string, string | ReadonlyArray<string>> = {}
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key)
    out[key] = all.length === 1 ? all[0]! : all
  }
  return out
}

/** The refusal of query parameters not among `allowed`, or undefined. */
export const unknownParams = (request: HttpServerRequest.HttpServerRequest, what: string, allowed: ReadonlyArray<string>): string | undefined =>
  unknownNames(
    what,
    "query parameter",
    Object.keys(queryOf(request)).filter((k) => !allowed.includes(k))
  )
