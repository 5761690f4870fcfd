/**
 * `pnpm bench --parts gateway`: what the legacy gateway adds (issue 32). The platform simulator and
 * the gateway (on its default embedded store, as `scanbridge gateway` runs it) each run in a
 * process of their own on loopback; this process is the client of both.
 *
 * 1. Latency: an estimation read (`GET /estimation/{id}`) and a session results read
 *    (`GET /scanning/v0/results/{SSID}`) through the gateway, against the platform read they
 *    stand for, `GET /scans/{id}` (getScan) on the simulator alone, for the same scans. The four
 *    requests of a sample run one after another, their order rotated by the sample, so that a
 *    busy moment of the machine falls on every side alike; one request at a time, over kept-alive
 *    connections, the body read whole. Ratios are p50 against p50 and p99 against p99.
 * 2. Memory: the gateway process's RSS and V8 heap (after a full GC, through its IPC channel)
 *    before and after waves of 200 concurrent estimation flows (token, create, front, right, read
 *    until completed), each flow checked to end `completed` with `success`. Flat: the heap after
 *    the last wave against the heap after the first (the first warms code and caches).
 *
 * Run alone (`--parts gateway`), it writes its own section of bench/results.md and leaves the
 * rest of the file as it was; the full bench writes it with the others.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { makeJpeg } from "@scanbridge/estimation"

const ORG = "org_bench_gateway"
const API_KEY = "sk_bench_gateway_0123456789"
const CLIENT_ID = "cl_bench_gateway_0123456789"
const STATS = { age: 31, gender: "male", heightMm: 1780, weightG: 76_000 } as const
const SELF = fileURLToPath(import.meta.url)
/** The clientScanningId of the session read, and so its scan's customScanId. */
const SESSION_SCANNING_ID = "bench-session"

/** The heading of the section this part writes in bench/results.md. */
export const GATEWAY_HEADING = "## Legacy gateway (issue 32)"

export interface GatewayBenchOptions {
  /** Timed samples of each of the four requests. */
  readonly samples: number
  /** Concurrent estimation flows per wave. */
  readonly flows: number
  /** Waves of them. */
  readonly waves: number
  readonly note: (line: string) => void
}

// --- the servers, each in a process of its own ------------------------------------------------

interface Served {
  readonly url: string
  readonly child: ChildProcess
}

/** This file run as a server (`--serve simulator|gateway`): it prints `READY <url>` once listening. */
const start = (args: ReadonlyArray<string>): Promise<Served> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", "--conditions=@scanbridge/source", "--import", "tsx", SELF, "--serve", ...args], {
      stdio: ["ignore", "pipe", "inherit", "ipc"]
    })
    let out = ""
    child.stdout!.setEncoding("utf8")
    child.stdout!.on("data", (chunk: string) => {
      out += chunk
      const ready = /READY (\S+)/.exec(out)
      if (ready !== null) resolve({ url: ready[1]!, child })
    })
    child.once("exit", (code, signal) => reject(new Error(`bench-gateway --serve ${args.join(" ")} exited with ${code ?? signal} before it listened`)))
  })

const stop = (served: Served) =>
  new Promise<void>((resolve) => {
    if (served.child.exitCode !== null) return resolve()
    served.child.once("exit", () => resolve())
    served.child.kill("SIGTERM")
  })

interface Memory {
  readonly rss: number
  readonly heapUsed: number
}

/** The gateway process's memory after a full GC. */
const memoryOf = (served: Served): Promise<Memory> =>
  new Promise((resolve) => {
    served.child.once("message", (m) => resolve(m as Memory))
    served.child.send("memory")
  })

const serve = async (what: string, platformUrl: string | undefined) => {
  const [{ Cause, Context, Effect, Fiber, Layer }, HttpServer, NodeHttpServer, FetchHttpClient, { createServer }] = await Promise.all([
    import("effect"),
    import("@effect/platform/HttpServer"),
    import("@effect/platform-node/NodeHttpServer"),
    import("@effect/platform/FetchHttpClient"),
    import("node:http")
  ])
  const server = NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })
  const listening = (url: string) =>
    Effect.sync(() => {
      process.stdout.write(`READY ${url}\n`)
    })
  let app: import("effect").Effect.Effect<never, unknown>
  if (what === "simulator") {
    const { Simulator } = await import("@scanbridge/simulator")
    app = Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(Simulator.layer({ platform: { orgs: [{ id: ORG, apiKeys: [API_KEY], quota: 1_000_000 }] } }))
        yield* listening(Context.get(context, Simulator).url)
        return yield* Effect.never
      })
    )
  } else {
    const [{ Gateway, embeddedStoreLayer }, { PlatformClient }] = await Promise.all([
      import("../packages/gateway/src/index.js"),
      import("@scanbridge/platform")
    ])
    const store = mkdtempSync(join(tmpdir(), "scanbridge-bench-gateway-"))
    process.on("exit", () => rmSync(store, { recursive: true, force: true }))
    const gateway = Gateway.layer({ clientIds: [CLIENT_ID], scannerAddress: `${platformUrl}/scanner/{LOCALE}/` })
    const platform = PlatformClient.layer({ baseUrl: platformUrl!, orgId: ORG, apiKey: API_KEY }).pipe(Layer.provide(FetchHttpClient.layer))
    const running = Layer.provideMerge(gateway, Layer.mergeAll(server, platform, embeddedStoreLayer(store)))
    app = Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(running)
        const address = Context.get(context, HttpServer.HttpServer).address
        yield* listening(address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}` : "")
        return yield* Effect.never
      })
    )
  }
  process.on("message", () => {
    globalThis.gc?.()
    const { rss, heapUsed } = process.memoryUsage()
    process.send?.({ rss, heapUsed })
  })
  // SIGTERM interrupts the program, so that the store is closed (and its lock released).
  const fiber = Effect.runFork(app)
  process.once("SIGTERM", () => Effect.runFork(Fiber.interrupt(fiber)).addObserver(() => process.exit(0)))
  fiber.addObserver((exit) => {
    // Interrupted is how SIGTERM ends it; anything else is a failure to serve.
    if (exit._tag === "Failure" && !Cause.isInterruptedOnly(exit.cause)) {
      console.error(`bench-gateway --serve ${what}: ${String(exit.cause)}`)
      process.exit(1)
    }
  })
}

// --- the client side ------------------------------------------------------------------------

interface Reply {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: the bench reads the JSON it is given
  readonly json: any
}

const request = async (url: string, init: RequestInit = {}): Promise<Reply> => {
  const response = await fetch(url, init)
  const text = await response.text()
  return { status: response.status, json: text === "" ? undefined : JSON.parse(text) }
}

const ok = (what: string, reply: Reply): Reply => {
  if (reply.status !== 200) throw new Error(`${what}: HTTP ${reply.status} ${JSON.stringify(reply.json)}`)
  return reply
}

const PHOTO = makeJpeg(1080, 1920)

const imageForm = (pattern: string): FormData => {
  const form = new FormData()
  form.set("client_id", CLIENT_ID)
  form.set("pattern", pattern)
  form.set("image", new File([new Uint8Array(PHOTO)], `${pattern}.jpg`, { type: "image/jpeg" }))
  return form
}

const createForm = () =>
  new URLSearchParams({
    client_id: CLIENT_ID,
    measurement_id: "ms_bench",
    height: String(STATS.heightMm),
    weight: String(STATS.weightG),
    age: String(STATS.age),
    gender: STATS.gender
  }).toString()

/** One legacy estimation flow through the gateway, to `completed` with `success`: the estimation id and its token. */
const estimationFlow = async (gateway: string) => {
  const token = ok("token", await request(`${gateway}/tokens/anonymous?client_id=${CLIENT_ID}`)).json.access_token as string
  const headers = { "access-token": token }
  const created = ok(
    "create",
    await request(`${gateway}/estimation`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
      body: createForm()
    })
  )
  const id = created.json.estimation_id as string
  for (const pattern of ["front", "right"]) {
    ok(`upload ${pattern}`, await request(`${gateway}/estimation/${id}/image`, { method: "POST", headers, body: imageForm(pattern) }))
  }
  const readUrl = `${gateway}/estimation/${id}?client_id=${CLIENT_ID}`
  for (let attempt = 0; attempt < 600; attempt++) {
    const item = ok("read", await request(readUrl, { headers })).json.measurements[0]
    if (item.status === "completed") {
      if (item.estimation.status !== "success") throw new Error(`estimation ${id} ended ${item.estimation.status} (${item.estimation.code})`)
      return { id, token, readUrl }
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`estimation ${id} never completed`)
}

/** The platform scan an estimation or a session became: the one with its customScanId. */
const scanIdOf = async (platform: string, customScanId: string) => {
  const page = ok(
    "list",
    await request(`${platform}/api/orgs/${ORG}/scans?customScanId=${encodeURIComponent(customScanId)}`, { headers: { authorization: API_KEY } })
  )
  const id = page.json.results?.[0]?.id as string | undefined
  if (id === undefined) throw new Error(`no platform scan with customScanId ${customScanId}`)
  return id
}

/** One session through the gateway, its scan made by the user in the hosted scanner (as the simulator's page does): the results URL and the scan's id. */
const sessionFlow = async (gateway: string, platform: string) => {
  const created = ok(
    "create-session",
    await request(`${gateway}/scanning/v0/create-session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ clientId: CLIENT_ID, clientScanningId: SESSION_SCANNING_ID })
    })
  )
  const ssid = created.json.scanningSession.scanningSessionId as string
  const scanner = ok("scanner", await request(`${gateway}/gateway/v0/sessions/${ssid}/scanner`))
  const token = new URL(scanner.json.url).searchParams.get("token")!
  const photo = Buffer.from(PHOTO).toString("base64")
  const { PlatformClient } = await import("@scanbridge/platform")
  const { Effect } = await import("effect")
  const FetchHttpClient = await import("@effect/platform/FetchHttpClient")
  await Effect.runPromise(
    Effect.gen(function* () {
      const client = yield* PlatformClient.make({ baseUrl: platform, orgId: ORG, apiKey: API_KEY })
      return yield* client.withToken(token).createScan({ ...STATS, gender: "male", photos: { front: photo, right: photo } })
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )
  const resultsUrl = `${gateway}/scanning/v0/results/${ssid}`
  const results = ok("results", await request(resultsUrl)).json
  if (results.results === undefined) throw new Error(`session results: ${JSON.stringify(results)}`)
  return { resultsUrl, scanId: await scanIdOf(platform, SESSION_SCANNING_ID) }
}

const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}

const timed = async (url: string, init: RequestInit) => {
  const t = performance.now()
  const reply = await request(url, init)
  const ms = performance.now() - t
  if (reply.status !== 200) throw new Error(`${url}: HTTP ${reply.status}`)
  return ms
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`

/** Runs the part: the lines of its section of bench/results.md. */
export const gatewayBench = async (options: GatewayBenchOptions): Promise<ReadonlyArray<string>> => {
  const { note } = options
  const simulator = await start(["simulator"])
  let gateway: Served | undefined
  try {
    gateway = await start(["gateway", simulator.url])
    note(`gateway ${gateway.url} in front of the platform simulator ${simulator.url}`)
    const estimation = await estimationFlow(gateway.url)
    const estimationScan = await scanIdOf(simulator.url, estimation.id)
    const session = await sessionFlow(gateway.url, simulator.url)
    const platformHeaders = { authorization: API_KEY }
    const kinds = [
      { name: "estimation read, gateway", url: estimation.readUrl, init: { headers: { "access-token": estimation.token } } },
      { name: "estimation's scan, platform getScan", url: `${simulator.url}/api/orgs/${ORG}/scans/${estimationScan}`, init: { headers: platformHeaders } },
      { name: "session results read, gateway", url: session.resultsUrl, init: {} },
      { name: "session's scan, platform getScan", url: `${simulator.url}/api/orgs/${ORG}/scans/${session.scanId}`, init: { headers: platformHeaders } }
    ] as const
    const times: Array<Array<number>> = kinds.map(() => [])
    const warmup = Math.min(200, Math.max(20, Math.floor(options.samples / 10)))
    note(`latency: ${warmup} warm-up and ${options.samples} timed samples of each of ${kinds.length} requests, interleaved`)
    for (let s = -warmup; s < options.samples; s++) {
      for (let k = 0; k < kinds.length; k++) {
        const i = (k + (s + warmup)) % kinds.length
        const ms = await timed(kinds[i]!.url, kinds[i]!.init)
        if (s >= 0) times[i]!.push(ms)
      }
    }
    const p = (i: number, q: number) => percentile(times[i]!, q)
    const row = (label: string, through: number, direct: number) =>
      `| ${label} | ${p(through, 50).toFixed(2)} | ${p(direct, 50).toFixed(2)} | ${(p(through, 50) / p(direct, 50)).toFixed(2)} x (+${(p(through, 50) - p(direct, 50)).toFixed(2)} ms) | ${p(through, 99).toFixed(2)} | ${p(direct, 99).toFixed(2)} | ${(p(through, 99) / p(direct, 99)).toFixed(2)} x (+${(p(through, 99) - p(direct, 99)).toFixed(2)} ms) |`

    const memory: Array<Memory> = [await memoryOf(gateway)]
    const seconds: Array<number> = []
    for (let w = 0; w < options.waves; w++) {
      note(`memory: wave ${w + 1} of ${options.waves}, ${options.flows} concurrent estimation flows`)
      const t = performance.now()
      await Promise.all(Array.from({ length: options.flows }, () => estimationFlow(gateway!.url)))
      seconds.push((performance.now() - t) / 1000)
      memory.push(await memoryOf(gateway))
    }
    const first = memory[1]!
    const last = memory.at(-1)!
    return [
      GATEWAY_HEADING,
      "",
      `The gateway (its default embedded store, in a process of its own) in front of the platform simulator (another process), against the simulator alone, over loopback, measured by this process as their client: one request at a time, ${options.samples} samples of each, the four interleaved in rotating order. Milliseconds from the request to its whole body; p50 against p50, p99 against p99.`,
      "",
      "| read | gateway p50 | platform getScan p50 | gateway / platform, p50 | gateway p99 | platform getScan p99 | gateway / platform, p99 |",
      "|---|---|---|---|---|---|---|",
      row("estimation read (`GET /estimation/{id}`, completed)", 0, 1),
      row("session results read (`GET /scanning/v0/results/{SSID}`, results)", 2, 3),
      "",
      `The gateway's memory after a full GC, before and after each wave of ${options.flows} concurrent estimation flows (token, create, front and right photos, reads until \`completed\` with \`success\`; every flow checked). Most of the RSS is the embedded store's PostgreSQL (PGlite's WebAssembly memory, which does not shrink); the V8 heap is the gateway's own:`,
      "",
      "| | RSS | V8 heap used | wave time |",
      "|---|---|---|---|",
      `| before | ${mib(memory[0]!.rss)} | ${mib(memory[0]!.heapUsed)} | |`,
      ...memory.slice(1).map((m, i) => `| after wave ${i + 1} | ${mib(m.rss)} | ${mib(m.heapUsed)} | ${seconds[i]!.toFixed(1)} s |`),
      "",
      options.waves > 1
        ? `Heap after the last wave against after the first: ${(last.heapUsed / first.heapUsed).toFixed(2)} x; RSS ${(last.rss / first.rss).toFixed(2)} x.`
        : "One wave: run more (`--gateway-waves N`) to see whether memory stays flat.",
      ""
    ]
  } finally {
    if (gateway !== undefined) await stop(gateway)
    await stop(simulator)
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf("--serve")
  if (at >= 0) void serve(process.argv[at + 1]!, process.argv[at + 2])
}
