/**
 * The legacy estimation API's wire as the gateway serves it, by raw HTTP: forms, multipart,
 * headers, statuses and error bodies of every endpoint, and what the store and the platform
 * hold after each step. Time runs on the TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Either, Exit, Option, Schema, TestClock, type Tracer } from "effect"
import { Wire, makeJpeg } from "@scanbridge/estimation"
import { readMultipart } from "../src/internal/multipart.js"
import { SETTLE } from "../src/internal/scan-creation.js"
import { digest } from "../src/options.js"
import { GatewayHarness, HARNESS_API_KEY, recordingTracer } from "./support/harness.js"
import {
  CLIENT_ID,
  OTHER_CLIENT_ID,
  PHOTO,
  STATS,
  call,
  createForm,
  estimationOf,
  failingPhoto,
  getToken,
  losingFirstCreate,
  platformScans,
  postCreate,
  postImage,
  read,
  run,
  runAdjusting,
  tokenOf,
  upload,
  uploadForm
} from "./support/estimation.js"

/** Every refusal is `{message}` and nothing else, and never shows a client id. */
const expectRefusal = (reply: { status: number; json: unknown; text: string }, status: number, message: string) => {
  expect([message, reply.status]).toEqual([message, status])
  expect(Object.keys(reply.json as object)).toEqual(["message"])
  expect((reply.json as { message: string }).message).toContain(message)
  expect(reply.text).not.toContain(CLIENT_ID)
  expect(reply.text).not.toContain(OTHER_CLIENT_ID)
}

/** A token and an estimation of CLIENT_ID's. */
const started = Effect.gen(function* () {
  const token = yield* tokenOf()
  return { token, id: yield* estimationOf(token) }
})

/** A token and an estimation of CLIENT_ID's with both photos in. */
const scheduled = Effect.tap(started, ({ id, token }) => Effect.zipRight(upload(token, id, "front"), upload(token, id, "right")))

/** The platform's scan of an estimation, read with the organisation's API key. */
const platformScanOf = (id: string) =>
  Effect.gen(function* () {
    const { platform } = yield* GatewayHarness
    const [summary] = yield* platformScans(id)
    return yield* Effect.orDie(platform.getScan(summary!.source.id!))
  })

const postsTo = (path: RegExp) =>
  Effect.flatMap(GatewayHarness, ({ simulator }) => Effect.map(simulator.requests, (log) => log.filter((r) => r.method === "POST" && path.test(r.path))))

const SCANS = /^\/api\/orgs\/[^/]+\/scans$/

// The first bytes of the photo as base64, as a create's body carries it.
const PHOTO_BASE64_START = Buffer.from(PHOTO).toString("base64").slice(0, 24)

describe("GET /tokens/anonymous", () => {
  it.effect("issues a random token for an accepted client id and keeps only its SHA-256", () =>
    run(
      Effect.gen(function* () {
        const { store } = yield* GatewayHarness
        const reply = yield* getToken()
        expect(reply.status).toBe(200)
        expect(Object.keys(reply.json).sort()).toEqual(["access_token", "uid"])
        const token: string = reply.json.access_token
        // 256 bits of base64url.
        expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
        const again = yield* getToken()
        expect(again.json.access_token).not.toBe(token)
        expect(again.json.uid).not.toBe(reply.json.uid)
        const held = JSON.stringify(Option.getOrThrow(yield* store.token(digest(token))))
        expect(held).not.toContain(token)
        expect(held).not.toContain(CLIENT_ID)
      })
    )
  )

  it.effect("refuses a missing, empty, unknown or repeated client id, and unknown parameters, never echoing the id", () =>
    run(
      Effect.gen(function* () {
        const cases: ReadonlyArray<readonly [string, number, string]> = [
          ["", 400, "client_id is required"],
          ["?client_id=", 400, "client_id is required"],
          ["?client_id=cl_not_ours_42", 401, "invalid client_id"],
          [`?client_id=${CLIENT_ID}&client_id=${CLIENT_ID}`, 400, "client_id is given 2 times"],
          [`?client_id=${CLIENT_ID}&scope=all`, 400, 'token request: unknown query parameter "scope"']
        ]
        for (const [query, status, message] of cases) {
          const reply = yield* call(`/tokens/anonymous${query}`)
          expectRefusal(reply, status, message)
          expect(reply.text).not.toContain("cl_not_ours_42")
        }
      })
    )
  )
})

describe("POST /estimation", () => {
  it.effect("creates an estimation from the form and keeps its stats", () =>
    run(
      Effect.gen(function* () {
        const { store } = yield* GatewayHarness
        const token = yield* tokenOf()
        const reply = yield* postCreate(token, createForm({ lang: "ja" }))
        expect(reply.status).toBe(200)
        expect(Object.keys(reply.json).sort()).toEqual(["created_at", "estimation_id"])
        expect(reply.json.created_at).toBe("2026-01-01T00:00:00.000Z")
        const id: string = reply.json.estimation_id
        expect(id).toMatch(/^est_[A-Za-z0-9_-]{22}$/)
        const record = Option.getOrThrow(yield* store.estimation(id))
        expect(record).toMatchObject({ id, clientKey: digest(CLIENT_ID), stats: STATS, language: "ja", received: [], scanId: null })
      })
    )
  )

  it.effect("refuses requests without a valid token, for another client, or with a bad form", () =>
    run(
      Effect.gen(function* () {
        const token = yield* tokenOf()
        const cases: ReadonlyArray<readonly [string | undefined, string, number, string]> = [
          [undefined, createForm(), 401, "missing Access-Token header"],
          ["at_made_up", createForm(), 401, "invalid access token"],
          [token, createForm({ client_id: OTHER_CLIENT_ID }), 401, "client_id does not match the access token"],
          [token, `${createForm()}&shoe_size=42`, 400, 'create form: unknown field "shoe_size"'],
          [token, createForm({ height: "tall" }), 400, "invalid form: height"],
          [token, createForm({ gender: "x" }), 400, "invalid form: gender"],
          [token, createForm({ age: -3 }), 400, "invalid form: age"],
          [token, createForm({ measurement_id: "" }), 400, "invalid measurement_id"],
          [token, `${createForm()}&age=30`, 400, "invalid form: age"],
          [token, createForm().replace(/&?weight=[^&]*/, ""), 400, "weight: is missing"]
        ]
        for (const [given, body, status, message] of cases) expectRefusal(yield* postCreate(given, body), status, message)
        const query = yield* call(`/estimation?client_id=${CLIENT_ID}`, { method: "POST", headers: { "access-token": token }, body: createForm() })
        expectRefusal(query, 400, 'create request: unknown query parameter "client_id"')
        expectRefusal(yield* postCreate(token, `${createForm()}&lang=${"x".repeat(20_000)}`), 413, "the create form is")
      })
    )
  )

  it.effect("refuses a token past its lifetime, and one the store no longer holds", () =>
    runAdjusting(
      Effect.gen(function* () {
        const { store } = yield* GatewayHarness
        const token = yield* tokenOf()
        expect((yield* postCreate(token)).status).toBe(200)
        yield* TestClock.adjust("59 minutes")
        expect((yield* postCreate(token)).status).toBe(200)
        yield* TestClock.adjust("1 minute")
        expectRefusal(yield* postCreate(token), 401, "access token expired")
        yield* store.sweep({ now: Date.UTC(2026, 0, 1, 2), sessionsBefore: 0, photosBefore: 0, estimationsBefore: 0 })
        expectRefusal(yield* postCreate(token), 401, "invalid access token")
        // A new token works as before.
        expect((yield* postCreate(yield* tokenOf())).status).toBe(200)
      })
    )
  )
})

describe("POST /estimation/:id/image", () => {
  it.effect("keeps the first photo, and with the second creates one platform scan and deletes both photos", () =>
    run(
      Effect.gen(function* () {
        const { store } = yield* GatewayHarness
        const { id, token } = yield* started
        const front = yield* upload(token, id, "front")
        expect(front.status).toBe(200)
        expect(front.json).toEqual({
          created_at: "2026-01-01T00:00:00.000Z",
          estimation_id: id,
          message: "front photo received",
          send_input_queue: false
        })
        expect(Option.getOrThrow(yield* store.estimation(id)).received).toEqual(["front"])
        expect(yield* postsTo(SCANS)).toEqual([])
        const right = yield* upload(token, id, "right")
        expect(right.json).toEqual({
          created_at: "2026-01-01T00:00:00.000Z",
          estimation_id: id,
          message: "both photos received; the estimation is scheduled",
          send_input_queue: true
        })
        const record = Option.getOrThrow(yield* store.estimation(id))
        expect(record.scanId).toMatch(/^scan_/)
        expect(record.creatingUntil).toBeNull()
        expect(Option.isNone(yield* store.photos(id))).toBe(true)
        const scans = yield* platformScans(id)
        expect(scans.map((s) => s.source.id)).toEqual([record.scanId])
        expect(scans[0]!.subject).toEqual(STATS)
        expect(scans[0]!.method).toBe("photo")
        // A photo sent again once the scan exists is not kept, and spends nothing.
        const again = yield* upload(token, id, "front")
        expect(again.json).toMatchObject({ send_input_queue: true, message: "the estimation is scheduled already; this front photo was not kept" })
        expect(Option.isNone(yield* store.photos(id))).toBe(true)
        expect(yield* postsTo(SCANS)).toHaveLength(1)
      })
    )
  )

  it.effect("replaces a photo sent twice before its pair, and sends the platform the last one", () =>
    run(
      Effect.gen(function* () {
        const { id, token } = yield* started
        yield* upload(token, id, "front", failingPhoto("personNotFound"))
        yield* upload(token, id, "front", PHOTO)
        yield* upload(token, id, "right", PHOTO)
        expect((yield* platformScanOf(id)).status).toBe("success")
      })
    )
  )

  it.effect("refuses photos that break the limits, naming the rule, and keeps none of them", () =>
    run(
      Effect.gen(function* () {
        const { store } = yield* GatewayHarness
        const { id, token } = yield* started
        const cases: ReadonlyArray<readonly [Uint8Array, number, string]> = [
          [new TextEncoder().encode("GIF89a not a jpeg"), 400, "front photo refused: not a readable JPEG"],
          [makeJpeg(1080, 1920, { padTo: 3 * 1024 * 1024 + 1 }), 413, "front photo refused: photo is 3,145,729 bytes; the limit is 3 MB"],
          [makeJpeg(540, 960), 400, "front photo refused: photo is 540 x 960; the minimum is 720 x 1280"],
          [makeJpeg(1080, 1440), 400, "front photo refused: 1080 x 1440 is 3:4, not 9:16"],
          [makeJpeg(2560, 1440), 400, "front photo refused: 2560 x 1440 is landscape 16:9, not 9:16"]
        ]
        for (const [image, status, message] of cases) expectRefusal(yield* upload(token, id, "front", image), status, message)
        // Past what an upload may hold, the body is refused before it is parsed.
        const huge = yield* upload(token, id, "front", makeJpeg(1080, 1920, { padTo: 4 * 1024 * 1024 }))
        expectRefusal(huge, 413, "a photo may be at most 3 MB (3,145,728 bytes)")
        // 3 MiB exactly passes.
        expect((yield* upload(token, id, "front", makeJpeg(1080, 1920, { padTo: 3 * 1024 * 1024 }))).status).toBe(200)
        expect(Option.getOrThrow(yield* store.estimation(id)).received).toEqual(["front"])
      })
    )
  )

  it.effect("refuses unknown and other clients' estimations, tokens, and forms that are not the upload's", () =>
    run(
      Effect.gen(function* () {
        const { store } = yield* GatewayHarness
        const { id, token } = yield* started
        const other = yield* tokenOf(OTHER_CLIENT_ID)
        const body = (fields: Record<string, string | Blob>) => {
          const form = new FormData()
          for (const [k, v] of Object.entries(fields)) form.append(k, v)
          return form
        }
        const jpeg = new Blob([new Uint8Array(PHOTO)], { type: "image/jpeg" })
        const cases: ReadonlyArray<readonly [string, string, NonNullable<RequestInit["body"]>, Record<string, string>, number, string]> = [
          ["unknown estimation", token, uploadForm("front", PHOTO), {}, 404, 'unknown estimation "est_nope"'],
          ["another client's estimation", other, uploadForm("front", PHOTO, OTHER_CLIENT_ID), {}, 404, `unknown estimation "${id}"`],
          ["invalid token", "at_made_up", uploadForm("front", PHOTO), {}, 401, "invalid access token"],
          ["another client's id", token, uploadForm("front", PHOTO, OTHER_CLIENT_ID), {}, 401, "client_id does not match the access token"],
          ["no client id", token, body({ pattern: "front", image: new File([jpeg], "f.jpg") }), {}, 401, "client_id does not match"],
          ["bad pattern", token, uploadForm("back", PHOTO), {}, 400, "pattern must be front or right"],
          ["no image", token, body({ client_id: CLIENT_ID, pattern: "front" }), {}, 400, "image is required (a JPEG file part)"],
          ["image as text", token, body({ client_id: CLIENT_ID, pattern: "front", image: "abc" }), {}, 400, "image is required (a JPEG file part)"],
          [
            "unknown part",
            token,
            body({ client_id: CLIENT_ID, pattern: "front", image: new File([jpeg], "f.jpg"), note: "x" }),
            {},
            400,
            'upload form: unknown field "note"'
          ],
          [
            "not multipart",
            token,
            "client_id=x&pattern=front",
            { "content-type": "application/x-www-form-urlencoded" },
            400,
            "the body is not multipart/form-data"
          ],
          ["no boundary", token, "--x\r\n", { "content-type": "multipart/form-data" }, 400, "needs a boundary parameter"],
          [
            "cut short",
            token,
            `--b0\r\nContent-Disposition: form-data; name="client_id"\r\n\r\n${CLIENT_ID}\r\n--b0\r\nContent-Disposition: form-data; name="image"; filename="f.jpg"\r\n\r\n\u00ff\u00d8`,
            { "content-type": "multipart/form-data; boundary=b0" },
            400,
            "the multipart body ends before its closing boundary"
          ],
          [
            "headers cut short",
            token,
            '--b0\r\nContent-Disposition: form-data; name="client_id"',
            { "content-type": "multipart/form-data; boundary=b0" },
            400,
            "a part's headers do not end"
          ],
          [
            "no name",
            token,
            "--b0\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b0--\r\n",
            { "content-type": "multipart/form-data; boundary=b0" },
            400,
            "every part needs Content-Disposition: form-data with a name"
          ]
        ]
        for (const [what, given, form, headers, status, message] of cases) {
          const target = what === "unknown estimation" ? "est_nope" : id
          const reply = yield* postImage(given, target, form, headers)
          expect(what).toBe(what)
          expectRefusal(reply, status, message)
        }
        const query = yield* call(`/estimation/${id}/image?client_id=${CLIENT_ID}`, {
          method: "POST",
          headers: { "access-token": token },
          body: uploadForm("front", PHOTO)
        })
        expectRefusal(query, 400, 'upload request: unknown query parameter "client_id"')
        expect(Option.getOrThrow(yield* store.estimation(id)).received).toEqual([])
      })
    )
  )
})

describe("GET /estimation/:id", () => {
  it.effect("answers in-progress until both photos are in, then completed with the platform scan in millimetres", () =>
    runAdjusting(
      Effect.gen(function* () {
        const { id, token } = yield* started
        const pending = yield* read(token, id, `client_id=${CLIENT_ID}&lang=en`)
        expect(pending.status).toBe(200)
        expect(pending.json).toEqual({
          measurements: [{ created_at: "2026-01-01T00:00:00.000Z", estimation_id: id, status: "in-progress", estimation: {} }],
          message: "success",
          result: true
        })
        yield* TestClock.adjust("3 seconds")
        yield* upload(token, id, "front")
        expect((yield* read(token, id)).json.measurements[0].status).toBe("in-progress")
        yield* upload(token, id, "right")
        const done = yield* read(token, id)
        expect(done.status).toBe(200)
        const item = done.json.measurements[0]
        expect(item).toMatchObject({ created_at: "2026-01-01T00:00:00.000Z", estimation_id: id, status: "completed" })
        expect(item.estimation).toMatchObject({
          code: Wire.SUCCESS_CODE,
          status: "success",
          input: { age: STATS.age, gender: STATS.gender, height: STATS.heightMm, weight: STATS.weightG }
        })
        expect(done.json.message).toBe("success")
        expect(done.json.result).toBe(true)
        // Every length of the platform's scan, in whole millimetres, under its legacy key.
        const scan = yield* platformScanOf(id)
        const measurement: Record<string, number> = item.estimation.result.measurement
        expect(Object.keys(measurement)).toHaveLength(33)
        expect(measurement["hip_girth"]).toBe(Math.round(scan.measurementsMm.hipGirth!))
        expect(measurement["back_neck_point_to_wrist_length_r"]).toBe(Math.round(scan.measurementsMm.backNeckPointToWristLengthR!))
        expect(item.estimation.result.body_composition).toEqual({ body_fat_percentage: Math.round(scan.composition!.bodyFatPercent!) })
        // The decoded response is the estimation shape a legacy reader takes.
        expect(Either.isRight(Schema.decodeUnknownEither(Wire.ReadResponse)(done.json))).toBe(true)
      })
    )
  )

  it.effect("writes lengths in centimetres when the gateway is told to", () =>
    run(
      Effect.gen(function* () {
        const { id, token } = yield* scheduled
        const measurement = (yield* read(token, id)).json.measurements[0].estimation.result.measurement
        const scan = yield* platformScanOf(id)
        expect(measurement["hip_girth"]).toBe(Math.round(scan.measurementsMm.hipGirth! / 10))
      }),
      { gateway: { estimationLengthUnit: "cm" } }
    )
  )

  it.effect("maps the platform's failure codes to estimation codes: 301 for a photo that is no JPEG, 306 for the rest", () =>
    run(
      Effect.gen(function* () {
        const cases: ReadonlyArray<readonly [string, number]> = [
          ["frontPhotoNotJpeg", 301],
          ["rightPhotoNotJpeg", 301],
          ["personNotFound", 306],
          ["rightPhotoFacingWrongDirection", 306],
          ["photoTooDark", 306]
        ]
        const token = yield* tokenOf()
        for (const [code, expected] of cases) {
          const id = yield* estimationOf(token)
          yield* upload(token, id, "front", failingPhoto(code))
          yield* upload(token, id, "right", PHOTO)
          const reply = yield* read(token, id)
          expect(reply.status).toBe(200)
          const item = reply.json.measurements[0]
          expect([code, item.status, item.estimation.status, item.estimation.code]).toEqual([code, "completed", "fail", expected])
          expect(item.estimation.result).toBeUndefined()
          expect(item.estimation.input).toEqual({ age: STATS.age, gender: STATS.gender, height: STATS.heightMm, weight: STATS.weightG })
          expect(reply.json.message).toBe(`the estimation failed with code ${expected} (the platform's code: ${code})`)
        }
      })
    )
  )

  it.effect("refuses reads without the token's client id, of others' estimations, and with unknown parameters", () =>
    run(
      Effect.gen(function* () {
        const { id, token } = yield* started
        const other = yield* tokenOf(OTHER_CLIENT_ID)
        expectRefusal(yield* read(token, id, ""), 401, "client_id is required and must match the access token")
        expectRefusal(yield* read(token, id, `client_id=${OTHER_CLIENT_ID}`), 401, "client_id is required and must match the access token")
        expectRefusal(yield* read(other, id, `client_id=${OTHER_CLIENT_ID}`), 404, `unknown estimation "${id}"`)
        expectRefusal(yield* read(token, "est_nope"), 404, 'unknown estimation "est_nope"')
        expectRefusal(yield* read(token, id, `client_id=${CLIENT_ID}&units=cm`), 400, 'read request: unknown query parameter "units"')
        expectRefusal(yield* call(`/estimation/${id}?client_id=${CLIENT_ID}`), 401, "missing Access-Token header")
      })
    )
  )
})

describe("the platform failing", () => {
  it.effect("a create whose answer was lost after the platform stored the scan: adopted by the next read, one scan spent", () =>
    runAdjusting(
      Effect.gen(function* () {
        const { simulator, store } = yield* GatewayHarness
        const quota = yield* simulator.platform.quota("org_gateway")
        const { id, token } = yield* started
        yield* upload(token, id, "front")
        const right = yield* upload(token, id, "right")
        // The upload succeeds: the photos are held for the platform.
        expect(right.json.send_input_queue).toBe(true)
        expect(yield* postsTo(SCANS)).toHaveLength(1)
        expect(Option.isSome(yield* store.photos(id))).toBe(true)
        // The create may have created: no one looks again until it has settled.
        expect((yield* read(token, id)).json.measurements[0].status).toBe("in-progress")
        yield* TestClock.adjust(SETTLE)
        const done = yield* read(token, id)
        expect(done.json.measurements[0].estimation.status).toBe("success")
        expect(yield* postsTo(SCANS)).toHaveLength(1)
        expect(yield* platformScans(id)).toHaveLength(1)
        expect(yield* simulator.platform.quota("org_gateway")).toBe(quota! - 1)
        expect(Option.isNone(yield* store.photos(id))).toBe(true)
      }),
      { platform: { transformClient: losingFirstCreate() } }
    )
  )

  it.effect("a read when the platform answers 5xx or 429: 503 {message} with its Retry-After, and the next read completes", () =>
    run(
      Effect.gen(function* () {
        const { simulator } = yield* GatewayHarness
        const { id, token } = yield* scheduled
        // The client tries twice (one retry): both fail.
        yield* simulator.injectFaults([500, 503])
        const unavailable = yield* read(token, id)
        expectRefusal(unavailable, 503, "the platform is unavailable (HTTP 503); try again later")
        expect(unavailable.headers.get("retry-after")).toBeNull()
        // A Retry-After longer than the client waits is passed on.
        yield* simulator.injectFaults([{ status: 429, retryAfter: "120" }])
        const limited = yield* read(token, id)
        expectRefusal(limited, 503, "the platform is unavailable (HTTP 429)")
        expect(limited.headers.get("retry-after")).toBe("120")
        expect((yield* read(token, id)).json.measurements[0].estimation.status).toBe("success")
      })
    )
  )

  it.effect("a create refused at the second upload is tried again by the read, still one scan", () =>
    run(
      Effect.gen(function* () {
        const { simulator, store } = yield* GatewayHarness
        const { id, token } = yield* started
        yield* upload(token, id, "front")
        // The lookup passes; the create is refused (quota) and not retried.
        yield* simulator.platform.setQuota("org_gateway", 0)
        const right = yield* upload(token, id, "right")
        expect(right.status).toBe(200)
        expect(right.json.send_input_queue).toBe(true)
        expect(Option.getOrThrow(yield* store.estimation(id)).creatingUntil).toBeNull()
        const refused = yield* read(token, id)
        expectRefusal(refused, 503, "the platform is unavailable (HTTP 429)")
        yield* simulator.platform.setQuota("org_gateway", 5)
        expect((yield* read(token, id)).json.measurements[0].estimation.status).toBe("success")
        expect(yield* platformScans(id)).toHaveLength(1)
        expect(yield* simulator.platform.quota("org_gateway")).toBe(4)
      })
    )
  )
})

describe("photos the platform never took", () => {
  it.effect("are swept after photoRetention, and their estimation then says it cannot complete (410)", () =>
    runAdjusting(
      Effect.gen(function* () {
        const { simulator, store } = yield* GatewayHarness
        const gone = { _tag: "None" }
        // One photo whose pair comes too late, and a pair the platform refused until too late.
        const { id: late, token } = yield* started
        yield* upload(token, late, "front")
        const stuck = yield* estimationOf(token)
        yield* simulator.platform.setQuota("org_gateway", 0)
        yield* upload(token, stuck, "front")
        yield* upload(token, stuck, "right")
        expect(Option.isSome(yield* store.photos(stuck))).toBe(true)
        // The gateway's sweeper runs on the clock, every few minutes.
        yield* TestClock.adjust("2 hours")
        expect(yield* store.photos(stuck)).toMatchObject(gone)
        yield* simulator.platform.setQuota("org_gateway", 5)
        const fresh = yield* tokenOf()
        const message = "cannot complete: its photos were deleted 1h after it was created, before the platform took them; create a new estimation"
        expectRefusal(yield* upload(fresh, late, "right"), 410, message)
        expectRefusal(yield* read(fresh, late), 410, message)
        expectRefusal(yield* read(fresh, stuck), 410, message)
        expect(yield* platformScans(stuck)).toEqual([])
      }),
      { gateway: { photoRetention: "1 hour" } }
    )
  )
})

describe("what the gateway records", () => {
  it.effect("puts no client id, access token, API key, stats or photo in a span of its own", () =>
    Effect.gen(function* () {
      const { spans, tracer } = yield* recordingTracer
      let token = ""
      yield* runAdjusting(
        Effect.gen(function* () {
          token = yield* tokenOf()
          const id = yield* estimationOf(token)
          yield* upload(token, id, "front")
          // The create's answer is lost (a failed span), and the scan adopted once it has settled.
          yield* upload(token, id, "right")
          yield* TestClock.adjust(SETTLE)
          expect((yield* read(token, id)).json.measurements[0].status).toBe("completed")
          expectRefusal(yield* read(token, id, "client_id=cl_typo_secret"), 401, "client_id is required")
        }),
        { platform: { transformClient: losingFirstCreate() } }
      ).pipe(Effect.withTracer(tracer))
      // The server's own spans (http.server) are the serving layer's: they record the request's
      // URL and headers as they are, so whoever serves the router turns them off.
      const own = spans.filter((s) => !s.name.startsWith("http.server"))
      expect(own.map((s) => s.name)).toContain("PlatformClient.createScan")
      const failed = (s: Tracer.Span) => (s.status._tag === "Ended" && Exit.isFailure(s.status.exit) ? Cause.pretty(s.status.exit.cause) : "")
      const recorded = JSON.stringify(own.map((s) => [s.name, [...s.attributes], failed(s)]))
      expect(recorded).toContain("connection reset (test)")
      for (const secret of [CLIENT_ID, "cl_typo_secret", token, HARNESS_API_KEY, String(STATS.weightG), PHOTO_BASE64_START])
        expect(recorded).not.toContain(secret)
    })
  )
})

describe("the multipart reader", () => {
  it("reads what FormData sends, and a preamble, padding and an epilogue", async () => {
    const form = uploadForm("front", PHOTO)
    const response = new Response(form)
    const bytes = new Uint8Array(await response.arrayBuffer())
    const parts = Either.getOrThrow(readMultipart(bytes, response.headers.get("content-type")!))
    expect(parts.map((p) => [p.name, p.filename, p.contentType])).toEqual([
      ["client_id", undefined, "text/plain"],
      ["pattern", undefined, "text/plain"],
      ["image", "front.jpg", "image/jpeg"]
    ])
    expect(Buffer.from(parts[2]!.bytes).equals(Buffer.from(PHOTO))).toBe(true)
    const body = 'preamble\r\n--b0 \t\r\nContent-Disposition: form-data; name="a\\"b"\r\n\r\nx\r\n--b0--\r\nepilogue'
    const read = Either.getOrThrow(readMultipart(Buffer.from(body), 'multipart/form-data; boundary="b0"'))
    expect(read.map((p) => [p.name, Buffer.from(p.bytes).toString()])).toEqual([['a"b', "x"]])
  })

  it("refuses more parts than the upload could need", () => {
    const body = `${Array.from({ length: 17 }, (_, i) => `--b0\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nx\r\n`).join("")}--b0--`
    expect(readMultipart(Buffer.from(body), "multipart/form-data; boundary=b0")).toEqual(Either.left("the multipart body has more than 16 parts"))
  })
})
