/** `scanbridge simulate`, run in-process: the one simulator program (`pnpm simulate` runs it too). */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Queue } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { command, exited, repoRoot, run, spawnCli } from "./harness.js"

const get = (url: string, init: RequestInit = {}) => Effect.promise(() => fetch(url, { ...init, signal: AbortSignal.timeout(5000) }))
const post = (url: string, body: unknown) => get(url, { method: "POST", body: JSON.stringify(body) })

/** The first of `pattern`'s groups in `text`, which must match. */
const field = (text: string, pattern: RegExp) => {
  const m = pattern.exec(text)
  expect(m, `${pattern} not in:\n${text}`).not.toBeNull()
  return m![1]!
}

const CREATE_SCOPE = "api.platform.vendor.com/scans:create"

/**
 * Runs `simulate` with `args` until `f` is done with the URL it prints, and returns what `f`
 * returns and everything printed.
 */
const simulating = <A>(args: ReadonlyArray<string>, f: (url: string) => Effect.Effect<A>) =>
  Effect.gen(function* () {
    const writes = yield* Queue.unbounded<string>()
    const printed = { out: "", err: "" }
    const fiber = yield* Effect.fork(
      command(["simulate", "--port", "0", ...args], {
        printed,
        out: (text) =>
          Effect.zipRight(
            Queue.offer(writes, text),
            Effect.sync(() => void (printed.out += text))
          )
      })
    )
    const exitedFirst = Effect.flatMap(Fiber.join(fiber), (r) => Effect.dieMessage(`simulate ended (${r.code}) before it listened: ${r.stderr}`))
    const url = field(yield* Effect.raceFirst(Queue.take(writes), exitedFirst), /listening on (http:\/\/127\.0\.0\.1:\d+) /)
    const result = yield* f(url)
    yield* Fiber.interrupt(fiber)
    return { result, printed: `${printed.out}${printed.err}` }
  })

const scanToken = (url: string) =>
  Effect.flatMap(
    get(`${url}/api/orgs/org_demo/scan-tokens`, {
      method: "POST",
      headers: { authorization: "sk_demo_0123456789" },
      body: JSON.stringify({ scope: [CREATE_SCOPE] })
    }),
    (r) => Effect.promise(() => r.json() as Promise<{ token: string }>)
  ).pipe(Effect.map((r) => r.token))

/** The status of creating a scan with a scan token. */
const createWith = (token: string) => (url: string) =>
  Effect.map(
    get(`${url}/api/orgs/org_demo/scans`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ statsEstimations: { age: 30, gender: "male", height: 1800, weight: 80_000 } })
    }),
    (r) => r.status
  )

describe("simulate", () => {
  it.live("--port 0 serves all four APIs on a free port with the credentials it prints, and stops when interrupted", () =>
    Effect.gen(function* () {
      // What the command prints arrives here: the test waits for it, not for time to pass.
      const writes = yield* Queue.unbounded<string>()
      const fiber = yield* Effect.fork(command(["simulate", "--port", "0"], { out: (text) => Queue.offer(writes, text) }))
      const printed = yield* Queue.take(writes)

      const url = field(printed, /^scanbridge simulator listening on (http:\/\/127\.0\.0\.1:\d+) /m)
      expect(url).not.toMatch(/:8787$/)
      const org = field(printed, /^ {2}platform: .* org id: (\S+)/m)
      const key = field(printed, /^ {2}platform: .* Authorization: (\S+)/m)
      const sessionClient = field(printed, /^ {2}session: .* clientId: (\S+)/m)
      const estimationClient = field(printed, /^ {2}estimation: .* client_id: (\S+)$/m)
      const fitKey = field(printed, /^ {2}fit: .* clientKey: (\S+)/m)
      expect(printed).toContain("sessions complete 3000 ms after creation")

      const scans = `${url}/api/orgs/${org}/scans`
      expect((yield* get(scans)).status).toBe(401)
      const listed = yield* get(scans, { headers: { authorization: key } })
      expect(listed.status).toBe(200)
      expect(yield* Effect.promise(() => listed.json())).toEqual({ results: [], nextOffsetId: "" })
      expect((yield* post(`${url}/scanning/v0/create-session`, { clientId: sessionClient })).status).toBe(200)
      expect((yield* post(`${url}/scanning/v0/create-session`, { clientId: "cl_wrong" })).status).not.toBe(200)
      const token = yield* get(`${url}/tokens/anonymous?client_id=${estimationClient}`)
      expect(Object.keys((yield* Effect.promise(() => token.json())) as object)).toEqual(["uid", "access_token"])
      const support = (clientKey: string) =>
        Effect.flatMap(post(`${url}/fit/v2/CreateSession`, { clientKey, productInfo: { productId: { brandId: "acme", garmentSku: "TEE-001" } } }), (r) =>
          Effect.promise(() => r.text())
        )
      expect(yield* support(fitKey)).toContain("SUPPORTED")
      expect(yield* support("ck_wrong")).toContain("INVALID_CLIENT_KEY")

      yield* Fiber.interrupt(fiber)
      const after = yield* Effect.either(Effect.tryPromise(() => fetch(scans, { headers: { authorization: key } })))
      expect(after._tag).toBe("Left")
    })
  )

  it.live("takes every option of the simulator: --host, --seed, --fault-rate, --session-complete-after, --staging", () =>
    Effect.gen(function* () {
      const writes = yield* Queue.unbounded<string>()
      const args = ["simulate", "--port", "0", "--host", "127.0.0.1", "--seed", "7", "--fault-rate", "1", "--session-complete-after", "-1", "--staging"]
      const fiber = yield* Effect.fork(command(args, { out: (text) => Queue.offer(writes, text) }))
      const printed = yield* Queue.take(writes)
      const url = field(printed, /listening on (http:\/\/127\.0\.0\.1:\d+) /)
      expect(printed).toContain(`complete a session: POST ${url}/_simulator/session/sessions/<SSID>/submit`)
      expect(printed).toContain("jobs take 120 s after the second photo (staging)")
      expect(printed).toContain("faults:     100% of requests answered 503, seed 7")
      // A fault rate of 1 fails every request before it reaches an API.
      const answered = yield* get(`${url}/api/orgs/org_demo/scans`, { headers: { authorization: "sk_demo_0123456789" } })
      expect(answered.status).toBe(503)
      yield* Fiber.interrupt(fiber)
    })
  )

  it.live("signs scan tokens with a secret random to each run, or with --secret, which keeps them valid across runs and is never printed", () =>
    Effect.gen(function* () {
      const secret = "our-simulator-secret-4711"
      const issued = yield* simulating(["--secret", secret], scanToken)
      expect(issued.printed).toContain("scan tokens signed with the secret of --secret")
      const again = yield* simulating(["--secret", secret], createWith(issued.result))
      expect(again.result).toBe(200)
      const random = yield* simulating([], createWith(issued.result))
      expect(random.result).toBe(401)
      expect(random.printed).toContain("scan tokens signed with a secret random to this run")
      const other = yield* simulating([], scanToken)
      expect((yield* simulating([], createWith(other.result))).result).toBe(401)
      for (const printed of [issued.printed, again.printed]) expect(printed).not.toContain(secret)
    })
  )

  it.live("takes the secret from SCANBRIDGE_SIMULATOR_SECRET too; --secret wins over it", () =>
    Effect.gen(function* () {
      const secret = "from-the-environment-0815"
      const withEnvironment = Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SCANBRIDGE_SIMULATOR_SECRET", secret]])))
      const issued = yield* withEnvironment(simulating([], scanToken))
      expect(issued.printed).toContain("scan tokens signed with the secret of SCANBRIDGE_SIMULATOR_SECRET")
      expect(issued.printed).not.toContain(secret)
      expect((yield* simulating(["--secret", secret], createWith(issued.result))).result).toBe(200)
      expect((yield* withEnvironment(simulating(["--secret", "another"], createWith(issued.result)))).result).toBe(401)
    })
  )

  it("refuses bad values and unknown flags with exit code 2, naming the flag", async () => {
    for (const [args, message] of [
      [["--fault-rate", "2"], "--fault-rate 2: expected a number from 0 to 1"],
      [["--port", "x"], "--port x: expected a whole number from 0 to 65535"],
      [["--port", "70000"], "--port 70000: expected a whole number from 0 to 65535"],
      [["--session-complete-after", "-2"], "--session-complete-after -2: expected a whole number from -1"],
      [["--seed", "1.5"], "--seed 1.5: expected a whole number"],
      [["--bogus"], "unknown option --bogus for simulate"],
      [["--verbose", "1"], "unknown option --verbose for simulate"],
      [["--secret", ""], "--secret: expected a secret that is not empty"]
    ] as const) {
      const r = await run("simulate", ...args)
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toContain(message)
      expect(r.stdout).toBe("")
    }
  })

  it("a port already in use is one line with exit code 1, and no credential", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const writes = yield* Queue.unbounded<string>()
        const first = yield* Effect.fork(command(["simulate", "--port", "0"], { out: (text) => Queue.offer(writes, text) }))
        const port = field(yield* Queue.take(writes), /listening on http:\/\/127\.0\.0\.1:(\d+) /)
        const second = yield* command(["simulate", "--port", port])
        yield* Fiber.interrupt(first)
        expect(second.code).toBe(1)
        expect(second.stderr).toBe(`scanbridge: simulate: cannot listen on 127.0.0.1 port ${port} (EADDRINUSE)\n`)
        expect(second.stdout).toBe("")
      })
    ))

  it("--help shows every option with its default", async () => {
    const r = await run("simulate", "--help")
    expect(r.code).toBe(0)
    for (const text of [
      "--port N",
      "(default: 8787)",
      "--host HOST",
      "(default: 127.0.0.1)",
      "--seed N",
      "(default: 1)",
      "--fault-rate N",
      "(default: 0)",
      "--session-complete-after N",
      "(default: 3000)",
      "--staging",
      "--secret SECRET",
      "(default: SCANBRIDGE_SIMULATOR_SECRET, or a secret random to each run)"
    ]) {
      expect(r.stdout).toContain(text)
    }
  })

  it("Ctrl-C (SIGINT) stops it with its own line, not migrate's about files, and exit code 130", async () => {
    const child = spawnCli(["simulate", "--port", "0"], { stdout: true, stderr: true })
    let out = ""
    let err = ""
    child.stderr!.on("data", (chunk: Buffer) => void (err += chunk.toString()))
    const listening = new Promise<void>((resolve) =>
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes("listening on")) resolve()
      })
    )
    const code = exited(child)
    // It listens before it is stopped: a signal before the command runs is Node's, not the command's.
    await Promise.race([listening, code.then(() => expect.fail(`simulate exited before it listened: ${err}`))])
    child.kill("SIGINT")
    expect(await code).toBe(130)
    expect(err).toBe("scanbridge simulate: stopped by SIGINT; the simulator no longer listens, and what it held (scans, sessions, jobs) is gone with it\n")
    expect(err).not.toContain("half-written")
  }, 60_000)

  it("scanbridge --help lists it with its description", async () => {
    expect((await run("--help")).stdout).toMatch(/^ {2}- simulate \[--port N\] \[--host HOST\] .* +Run the simulator of all four APIs/m)
  })

  it("is what `pnpm simulate` runs", () => {
    const scripts = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
    expect(scripts.simulate).toBe("tsx --conditions=@scanbridge/source packages/cli/src/main.ts simulate")
  })
})
