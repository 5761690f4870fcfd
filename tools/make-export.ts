/**
 * Writes `examples/export/`: a mixed export of the kind integrators hold, for the demo and the
 * migration tests. Records come from the simulator's wire responses (so they are what each API
 * sends), plus the documented quirks and a few broken records. Run it when the simulator's
 * output changes: `npx tsx --conditions=@scanbridge/source tools/make-export.ts`; the files are committed.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { makeJpeg } from "@scanbridge/estimation"
import { snakeCase } from "@scanbridge/model"
import { DEMO_ESTIMATION_CLIENT_ID, DEMO_ORG, DEMO_SESSION_CLIENT_ID, FAIL_MARKER, Simulator } from "@scanbridge/simulator"
import { repoRoot } from "./docs/generated.js"

const out = join(repoRoot, "examples", "export")

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(() =>
    fetch(url, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...headers } }).then((r) => r.json())
  )
const get = (url: string, headers: Record<string, string> = {}) => Effect.promise(() => fetch(url, { headers }).then((r) => r.json()))

const PEOPLE = [
  { age: 29, gender: "female", height: 1640, weight: 54_000 },
  { age: 41, gender: "male", height: 1790, weight: 82_000 },
  { age: 35, gender: "female", height: 1580, weight: 67_000 },
  { age: 62, gender: "male", height: 1720, weight: 91_000 }
] as const

const jpegBase64 = (comment = "") => Buffer.from(makeJpeg(1080, 1920, comment === "" ? {} : { comment })).toString("base64")

const platform = (url: string) =>
  Effect.gen(function* () {
    const base = `${url}/api/orgs/${DEMO_ORG.id}`
    const auth = { authorization: DEMO_ORG.apiKeys[0]! }
    const entries: Array<unknown> = []
    for (const p of PEOPLE.slice(0, 2)) entries.push(yield* post(`${base}/scans`, { statsEstimations: p }, auth))
    const photo = (yield* post(`${base}/scans`, { photoScan: { ...PEOPLE[2], frontPhoto: jpegBase64(), rightPhoto: jpegBase64() } }, auth)) as {
      entry: { id: string }
    }
    entries.push(photo)
    entries.push(
      yield* post(
        `${base}/scans`,
        { photoScan: { ...PEOPLE[3], frontPhoto: jpegBase64(), rightPhoto: jpegBase64(`${FAIL_MARKER}rightPhotoFacingWrongDirection`) } },
        auth
      )
    )
    entries.push(yield* post(`${base}/scans/${photo.entry.id}/adjust`, { parameters: [{ name: "weight", percentage: -5 }] }, auth))
    const page = yield* get(`${base}/scans?limit=3`, auth)
    // Quirks: the bare entry, the "degree" angle unit, and the client library's variant.
    const bare = JSON.parse(JSON.stringify((photo as { entry: unknown }).entry)) as { posture: { front: { angles: Array<{ unit: string }> } } }
    for (const a of bare.posture.front.angles) a.unit = "degree"
    const client = JSON.parse(JSON.stringify((photo as { entry: unknown }).entry)) as Record<string, unknown>
    client["bodyComposition"] = { bodyFatPercentage: 27.5, skeletalMuscleMass: 21.4 }
    client["avatar"] = { format: "glb", type: "UPPER_BODY", data: Buffer.from("glTF").toString("base64") }
    return { entries: [...entries, bare, client], page }
  })

const snakeKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(snakeKeys)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeCase(k), snakeKeys(v)]))
      : value

const session = (url: string, sim: Simulator["Type"]) =>
  Effect.gen(function* () {
    const results: Array<unknown> = []
    const create = (config: object = {}) =>
      Effect.map(
        post(`${url}/scanning/v0/create-session`, {
          clientId: DEMO_SESSION_CLIENT_ID,
          clientScanningId: `order-${results.length + 1}`,
          scanningConfig: config
        }),
        (r) => (r as { scanningSession: { scanningSessionId: string } }).scanningSession.scanningSessionId
      )
    const read = (ssid: string) => get(`${url}/scanning/v0/results/${ssid}`)
    const done = yield* create({ include3dAvatarInResults: true })
    yield* sim.session.submit(done, { age: 29, gender: "female", heightMm: 1640, weightG: 54_000 })
    const success = yield* read(done)
    results.push(success)
    // Quirk: an old protobuf library's spelling, with snake_case keys.
    results.push(snakeKeys(success))
    const pending = yield* create()
    yield* sim.session.submit(pending, { processingMs: 3_600_000 })
    results.push(yield* read(pending))
    results.push(yield* read(yield* create({ languageCode: "ja" })))
    const aborted = yield* create()
    yield* sim.session.submit(aborted, { outcome: "ABORTED" })
    results.push(yield* read(aborted))
    return results
  })

const estimation = (lengthUnit: "mm" | "cm") =>
  Effect.gen(function* () {
    const url = (yield* Simulator).url
    const token = ((yield* get(`${url}/tokens/anonymous?client_id=${DEMO_ESTIMATION_CLIENT_ID}`)) as { access_token: string }).access_token
    const headers = { "access-token": token }
    const responses: Array<unknown> = []
    for (const [i, p] of PEOPLE.entries()) {
      const form = new URLSearchParams({
        client_id: DEMO_ESTIMATION_CLIENT_ID,
        measurement_id: "ms_demo",
        height: String(p.height),
        weight: String(p.weight),
        age: String(p.age),
        gender: p.gender
      })
      const created = (yield* Effect.promise(() =>
        fetch(`${url}/estimation`, {
          method: "POST",
          body: form.toString(),
          headers: { ...headers, "content-type": "application/x-www-form-urlencoded" }
        }).then((r) => r.json())
      )) as { estimation_id: string }
      if (i < 3) {
        for (const pattern of ["front", "right"] as const) {
          const body = new FormData()
          body.append("client_id", DEMO_ESTIMATION_CLIENT_ID)
          body.append("pattern", pattern)
          const comment = i === 2 && pattern === "right" ? `${FAIL_MARKER}306` : ""
          body.append("image", new Blob([makeJpeg(1080, 1920, comment === "" ? {} : { comment })], { type: "image/jpeg" }), `${pattern}.jpg`)
          yield* Effect.promise(() => fetch(`${url}/estimation/${created.estimation_id}/image`, { method: "POST", body, headers }))
        }
      }
      responses.push(yield* get(`${url}/estimation/${created.estimation_id}?client_id=${DEMO_ESTIMATION_CLIENT_ID}`, headers))
    }
    return responses
    // The first read completes a job with both photos; the fourth has none and stays in progress.
  }).pipe(Effect.provide(Simulator.layer({ estimation: { processingPolls: 0, lengthUnit } })))

const program = Effect.gen(function* () {
  const sim = yield* Simulator
  const { entries, page } = yield* platform(sim.url)
  const sessions = yield* session(sim.url, sim)
  const mm = yield* Effect.scoped(estimation("mm"))
  const cm = yield* Effect.scoped(estimation("cm"))
  const fit = [
    yield* sim.fit.estimate({ age: 34, gender: "male", heightMm: 1780, weightG: 76_000 }),
    yield* sim.fit.estimate({ age: 27, gender: "female", heightMm: 1650, weightG: 58_000 }, "INPUT_TYPE_UNSPECIFIED")
  ]
  // Quirk: the snake_case token key of the spec's examples.
  const snakeFit = JSON.parse(JSON.stringify(fit[1])) as { estimations: Record<string, unknown> }
  snakeFit.estimations["estimation_token"] = snakeFit.estimations["estimationToken"]
  delete snakeFit.estimations["estimationToken"]

  const write = (file: string, text: string) => {
    mkdirSync(join(out, file, ".."), { recursive: true })
    writeFileSync(join(out, file), text)
  }
  const ndjson = (records: ReadonlyArray<unknown>) => records.map((r) => JSON.stringify(r)).join("\n") + "\n"
  write("platform/entries.ndjson", ndjson(entries))
  write("platform/list-page.json", `${JSON.stringify(page, null, 2)}\n`)
  write("session/results.json", `${JSON.stringify(sessions, null, 2)}\n`)
  // A zone-less created_at, as some stored records have it.
  const zoneless = JSON.parse(JSON.stringify(cm[0])) as { measurements: Array<{ created_at: string }> }
  zoneless.measurements[0]!.created_at = zoneless.measurements[0]!.created_at.replace("T", " ").replace(/\.\d+Z$/, "")
  write("estimation/read-responses.ndjson", ndjson([...mm, zoneless, ...cm.slice(1)]))
  write("fit/estimations.ndjson", ndjson([...fit, snakeFit]))
  // Records nothing can migrate: they go to the rejects file, each with its reason.
  write(
    "broken.ndjson",
    [
      `{"id": "scan_truncated", "status": "succ`,
      JSON.stringify({ kind: "not a scan", value: 1 }),
      JSON.stringify({
        measurements: [
          {
            created_at: "2020-01-01T00:00:00Z",
            status: "completed",
            estimation_id: "est_mixed",
            estimation: {
              code: 101,
              input: { age: 30, gender: "male", height: 1750, weight: 70000 },
              result: { measurement: { back_neck_height: 1480, hip_girth: 96 }, status: "success" },
              status: "success"
            }
          }
        ]
      })
    ].join("\n") + "\n"
  )
  console.log(`wrote ${out}`)
})

program.pipe(Effect.provide(Simulator.layer({ platform: { orgs: [{ ...DEMO_ORG, quota: 100 }] } })), Effect.scoped, Effect.runPromise)
