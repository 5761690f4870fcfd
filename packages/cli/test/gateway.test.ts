/**
 * `scanbridge gateway` against the simulator on a free loopback port: run in-process as the
 * executable runs it (runCli over Stdio, the environment as a ConfigProvider), and as a process
 * of its own for SIGTERM. The tests wait for what the command prints, never for time to pass.
 * Every gateway here uses one embedded store, one after another: PGlite creates its database on
 * the first open only, which the suite's hook makes.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Layer, ManagedRuntime, Queue } from "effect"
import { readFileSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { embeddedStoreLayer } from "@scanbridge/gateway"
import { DEMO_ORG, Simulator } from "@scanbridge/simulator"
import { startGateway } from "./gateway-process.js"
import { type Printed, type Result, command, repoRoot } from "./harness.js"

const API_KEY = DEMO_ORG.apiKeys[0]!
// Client ids only the gateway knows, distinctive enough to be looked for in what it prints.
const CLIENTS = ["cl_gateway_alpha_4711", "cl_gateway_beta_0815"] as const

let simulator: ManagedRuntime.ManagedRuntime<Simulator, unknown>
let platformUrl: string
let tmp: string
let store: string
let clientsFile: string

beforeAll(async () => {
  simulator = ManagedRuntime.make(Simulator.layer())
  platformUrl = (await simulator.runPromise(Simulator)).url
  tmp = await mkdtemp(join(tmpdir(), "scanbridge-gateway-cli-"))
  store = join(tmp, "store")
  clientsFile = join(tmp, "clients.txt")
  await writeFile(clientsFile, `# the legacy client ids of our old back ends\n${CLIENTS[0]}\n\n${CLIENTS[1]}\n`)
  // The store's database made here, where a hook may take its time (initdb), not in a test.
  await Effect.runPromise(Effect.scoped(Layer.build(embeddedStoreLayer(store))))
})
afterAll(async () => {
  await simulator.dispose()
  await rm(tmp, { recursive: true, force: true })
})

const environment = (env: Readonly<Record<string, string>>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

const call = (url: string, init: RequestInit = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) })
    const text = await response.text()
    return { status: response.status, text, json: JSON.parse(text) as Record<string, unknown> }
  })

const createSession = (url: string, clientId: string) => call(`${url}/scanning/v0/create-session`, { method: "POST", body: JSON.stringify({ clientId }) })

interface Serving {
  readonly url: string
  readonly printed: Printed
  /** Interrupts the command, as the executable does on a signal, and waits for it to end. */
  readonly stop: Effect.Effect<void>
}

/** `scanbridge gateway --port 0 ...args` in-process until `f` is done with it; then stopped. */
const serving = <A>(args: ReadonlyArray<string>, env: Readonly<Record<string, string>>, f: (gateway: Serving) => Effect.Effect<A>) =>
  Effect.gen(function* () {
    const lines = yield* Queue.unbounded<string>()
    const printed = { out: "", err: "" }
    const fiber = yield* Effect.fork(command(["gateway", "--port", "0", ...args], { printed, err: (text) => Queue.offer(lines, text) }).pipe(environment(env)))
    const endedFirst = Effect.flatMap(Fiber.join(fiber), (r: Result) => Effect.dieMessage(`gateway ended (${r.code}) before it listened: ${r.stderr}`))
    const line = yield* Effect.raceFirst(Queue.take(lines), endedFirst)
    const url = /^scanbridge gateway listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(line)?.[1]
    expect(url, line).toBeDefined()
    return yield* f({ url: url!, printed, stop: Fiber.interrupt(fiber) })
  })

/** `scanbridge gateway ...args` run to its end (a refusal), with the environment `env`. */
const refused = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  Effect.runPromise(command(["gateway", ...args]).pipe(environment(env)))

const secretsIn = (text: string) => [API_KEY, ...CLIENTS].filter((secret) => text.includes(secret))

describe("scanbridge gateway", () => {
  it.live("serves the legacy APIs with the key of SCANBRIDGE_API_KEY and the client ids of --clients, says where in one line, and prints no secret", () =>
    serving(
      ["--platform-url", platformUrl, "--org", DEMO_ORG.id, "--clients", clientsFile, "--store", store],
      { SCANBRIDGE_API_KEY: API_KEY },
      ({ url, printed, stop }) =>
        Effect.gen(function* () {
          expect(printed.err).toBe(`scanbridge gateway listening on ${url} (platform ${platformUrl}, org ${DEMO_ORG.id}, store ${store}, 2 client ids)\n`)
          const created = yield* createSession(url, CLIENTS[0])
          expect(created.status).toBe(200)
          expect(Object.keys(created.json)).toEqual(["scanningSession"])
          expect(typeof (created.json["scanningSession"] as { scanningSessionId?: unknown }).scanningSessionId).toBe("string")
          const unknown = yield* createSession(url, "cl_not_one_of_ours")
          expect((unknown.json["error"] as { errorType?: unknown }).errorType).toBe("INVALID_CLIENT_ID")
          const token = yield* call(`${url}/tokens/anonymous?client_id=${CLIENTS[1]}`)
          expect(token.status).toBe(200)
          expect(Object.keys(token.json)).toEqual(["uid", "access_token"])

          yield* stop
          const after = yield* Effect.either(Effect.tryPromise(() => fetch(`${url}/tokens/anonymous?client_id=${CLIENTS[1]}`)))
          expect(after._tag).toBe("Left")
          expect(printed.out).toBe("")
          expect(secretsIn(`${printed.err}${created.text}${unknown.text}${token.text}`)).toEqual([])
        })
    )
  )

  it.live("takes the key from --api-key-file and the client ids from SCANBRIDGE_GATEWAY_CLIENTS, comma-separated", () =>
    Effect.gen(function* () {
      const keyFile = join(tmp, "platform-key")
      yield* Effect.promise(() => writeFile(keyFile, `${API_KEY}\n`, { mode: 0o600 }))
      yield* serving(
        ["--platform-url", platformUrl, "--org", DEMO_ORG.id, "--api-key-file", keyFile, "--store", store],
        { SCANBRIDGE_GATEWAY_CLIENTS: ` ${CLIENTS[0]}, ${CLIENTS[1]} ` },
        ({ url, printed, stop }) =>
          Effect.gen(function* () {
            expect(printed.err).toContain("2 client ids)")
            for (const client of CLIENTS) expect((yield* createSession(url, client)).status).toBe(200)
            yield* stop
            expect(secretsIn(printed.err)).toEqual([])
          })
      )
    })
  )

  it("has no flag for the API key: given on the command line, it is refused as an unknown option, not echoed", async () => {
    for (const args of [["--api-key", API_KEY], [`--api-key=${API_KEY}`], ["--clients", clientsFile, "--apikey", API_KEY]]) {
      const r = await refused(["--platform-url", platformUrl, "--org", DEMO_ORG.id, ...args])
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.stderr).toMatch(/^scanbridge: unknown option --api-?key for gateway \(its options: .*--api-key-file.*\); see scanbridge gateway --help\n$/)
      expect(secretsIn(r.stdout + r.stderr)).toEqual([])
    }
  })

  it("refuses a --store URL that holds a password, saying why and where it goes instead, without showing it", async () => {
    for (const url of ["postgres://gateway:s3cret-pw@127.0.0.1:5432/gateway", "postgresql://gateway@127.0.0.1/gateway?sslmode=disable&password=s3cret-pw"]) {
      const r = await refused(["--platform-url", platformUrl, "--org", DEMO_ORG.id, "--clients", clientsFile, "--store", url], { SCANBRIDGE_API_KEY: API_KEY })
      expect(r.code).toBe(2)
      expect(r.stderr).toBe(
        "scanbridge: gateway: --store: the URL holds a password, which any user of this machine can read on a command line (ps, /proc); give the URL without it, and the password in PGPASSWORD or ~/.pgpass\n"
      )
      expect(r.stderr + r.stdout).not.toContain("s3cret-pw")
    }
  })

  it("refuses to start without a key, client ids, a platform or an organisation, naming where each goes; an unreadable file names itself", async () => {
    const base = ["--platform-url", platformUrl, "--org", DEMO_ORG.id]
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, Readonly<Record<string, string>>, number, RegExp]> = [
      [[...base, "--clients", clientsFile], {}, 2, /no platform API key: set SCANBRIDGE_API_KEY, or give --api-key-file FILE/],
      [[...base, "--clients", clientsFile], { SCANBRIDGE_API_KEY: " " }, 2, /no platform API key/],
      [base, { SCANBRIDGE_API_KEY: API_KEY }, 2, /no legacy client ids to accept: give --clients FILE \(one per line\) or set SCANBRIDGE_GATEWAY_CLIENTS/],
      [[...base, "--clients", join(tmp, "empty.txt")], { SCANBRIDGE_API_KEY: API_KEY }, 1, /--clients .*empty\.txt: cannot read it \(NotFound\)/],
      [[...base, "--api-key-file", join(tmp, "no-key")], {}, 1, /--api-key-file .*no-key: cannot read it \(NotFound\)/],
      [["--org", DEMO_ORG.id], { SCANBRIDGE_API_KEY: API_KEY }, 2, /give --platform-url, or set SCANBRIDGE_PLATFORM_URL/],
      [["--platform-url", "ftp://example.com"], {}, 2, /--platform-url: expected an http:\/\/ or https:\/\/ URL/],
      [["--platform-url", platformUrl], {}, 2, /give --org, or set SCANBRIDGE_ORG_ID/],
      [[...base, "--store", "mysql://db/gateway"], {}, 2, /--store: expected a folder or a postgres:\/\/ URL/],
      [[...base, "--estimation-length-unit", "in"], {}, 2, /--estimation-length-unit in: expected one of mm, cm/]
    ]
    for (const [args, env, code, message] of cases) {
      const r = await refused(args, env)
      expect([r.code, r.stderr], args.join(" ")).toEqual([code, expect.stringMatching(message)])
      expect(r.stderr.split("\n").filter((l) => l !== "")).toHaveLength(1)
    }
  })

  it("takes the platform and the organisation from SCANBRIDGE_PLATFORM_URL and SCANBRIDGE_ORG_ID, as the platform client's layerConfig does", () =>
    Effect.runPromise(
      serving(
        ["--clients", clientsFile, "--store", store],
        { SCANBRIDGE_API_KEY: API_KEY, SCANBRIDGE_PLATFORM_URL: `${platformUrl}/`, SCANBRIDGE_ORG_ID: DEMO_ORG.id },
        ({ url, printed, stop }) =>
          Effect.gen(function* () {
            expect(printed.err).toContain(`(platform ${platformUrl}, org ${DEMO_ORG.id}, `)
            expect((yield* createSession(url, CLIENTS[0])).status).toBe(200)
            yield* stop
          })
      )
    ))

  it("stops on SIGTERM with exit code 0, its server and its store closed, after one line saying so", async () => {
    const gateway = await startGateway(
      [
        "--conditions=@scanbridge/source",
        "--import",
        "tsx",
        join(repoRoot, "packages/cli/src/main.ts"),
        ...["gateway", "--port", "0", "--platform-url", platformUrl, "--org", DEMO_ORG.id, "--clients", clientsFile, "--store", store]
      ],
      { cwd: repoRoot, env: { ...process.env, SCANBRIDGE_API_KEY: API_KEY } }
    )
    const url = gateway.url
    expect((await Effect.runPromise(createSession(url, CLIENTS[1]))).status).toBe(200)
    gateway.kill("SIGTERM")
    expect(await gateway.exit).toBe(0)
    const { stdout, stderr } = gateway.printed()
    expect(stderr.split("\n").filter((l) => l !== "")).toEqual([
      expect.stringMatching(/^scanbridge gateway listening on http:\/\/127\.0\.0\.1:\d+ \(/),
      "scanbridge gateway: stopped by SIGTERM; it no longer listens; what it held (sessions, tokens, estimations, photos awaiting their pair) is in its store, for the next gateway on that store"
    ])
    expect(stdout).toBe("")
    expect(secretsIn(stdout + stderr)).toEqual([])
    await expect(fetch(url)).rejects.toThrow()
  }, 120_000)
})

// --- The README's example -------------------------------------------------------------------

/** A shell line's words, single-quoted ones unquoted (all the README's lines use). */
const words = (line: string): ReadonlyArray<string> => [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => (m[1] ?? m[2])!)

/** The README's gateway example: the command's environment and flags, and each curl's method, URL and body. */
const readmeExample = () => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8")
  const after = readme.slice(readme.indexOf("<!-- gateway-example -->"))
  const [start, calls] = [...after.matchAll(/```sh\n([\s\S]*?)```/g)].slice(0, 2).map((m) => m[1]!.split("\n").filter((l) => l !== ""))
  const line = start!.find((l) => l.includes("scanbridge gateway"))!
  const all = words(line)
  const env = Object.fromEntries(all.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => [w.slice(0, w.indexOf("=")), w.slice(w.indexOf("=") + 1)]))
  const args = all.slice(all.indexOf("gateway") + 1)
  const curls = calls!.map((l) => {
    const w = words(l)
    const at = (flag: string) => (w.includes(flag) ? w[w.indexOf(flag) + 1] : undefined)
    return { method: at("-X") ?? "GET", url: w.find((x) => x.startsWith("http"))!, body: at("-d") }
  })
  return { simulator: start!.find((l) => l.includes("scanbridge simulate"))!, env, args, curls }
}

describe("the README's gateway example", () => {
  it.live("starts against the simulator it shows, with the demo credentials it prints, and answers each curl", () =>
    Effect.gen(function* () {
      const example = readmeExample()
      const shownSimulator = `http://127.0.0.1:${words(example.simulator)[words(example.simulator).indexOf("--port") + 1]}`
      const port = example.args[example.args.indexOf("--port") + 1]!
      // The same command on free ports (serving gives --port 0) and a folder of the test's own.
      const args = example.args
        .map((a, i) => (example.args[i - 1] === "--store" ? store : a.replace(shownSimulator, platformUrl)))
        .filter((_, i) => example.args[i] !== "--port" && example.args[i - 1] !== "--port")
      expect(example.curls.length).toBeGreaterThan(0)
      yield* serving(args, example.env, ({ url, stop }) =>
        Effect.gen(function* () {
          for (const curl of example.curls) {
            const answered = yield* call(curl.url.replace(`http://127.0.0.1:${port}`, url), {
              method: curl.method,
              ...(curl.body === undefined ? {} : { body: curl.body })
            })
            expect(answered.status, curl.url).toBe(200)
            expect(answered.json["error"], curl.url).toBeUndefined()
          }
          yield* stop
        })
      )
    })
  )
})
