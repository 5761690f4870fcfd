/**
 * Every failure of the plain API is a ScanbridgeError whose `code` names its kind, whatever
 * stops the work: a typed error of each kind normalize, migrateFile and migratePostgres can
 * meet, a defect (an exception thrown inside), an interruption. The PostgreSQL cases run on a
 * real server the file starts; none says the password.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, FastCheck as fc, FiberId, Redacted } from "effect"
import { MigrateInputError } from "@scanbridge/migrate"
import { PlatformStatusError, PlatformStatusReason } from "@scanbridge/platform"
import { existsSync, readFileSync } from "node:fs"
import { mkdir, mkdtemp, rm } from "node:fs/promises"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type RunningPostgres, startPostgres, urlOf } from "../../migrate/test/postgres.js"
import { DEFECT, INTERRUPTED, UNKNOWN_ERROR, errorOfCause, hidingUrls, runPlain } from "../src/errors.js"
import { type Adapter, ScanbridgeError, migrateFile, migratePostgres, normalize } from "../src/index.js"

const TIMEOUT = 300_000
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))
const photoScan = join(repoRoot, "examples/canonical/photo-scan.json")

/** `thrown`, checked to be a ScanbridgeError of `code` whose message holds `fragment`. */
const expectError = (thrown: unknown, code: string, fragment: string | RegExp): ScanbridgeError => {
  expect(thrown).toBeInstanceOf(ScanbridgeError)
  const error = thrown as ScanbridgeError
  expect(error.code).toBe(code)
  expect(error.name).toBe("ScanbridgeError")
  if (typeof fragment === "string") expect(error.message).toContain(fragment)
  else expect(error.message).toMatch(fragment)
  return error
}

const thrownBy = (f: () => unknown): unknown => {
  try {
    f()
  } catch (e) {
    return e
  }
  throw new Error("expected a throw, nothing was thrown")
}

const rejectionOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    (value) => {
      throw new Error(`expected a rejection, resolved with ${JSON.stringify(value)}`)
    },
    (e: unknown) => e
  )

/** An adapter collection that throws when it is read: an integrator's bug, not a record's. */
const throwingAdapters = (message: string): ReadonlyArray<Adapter> => [
  {
    get name(): string {
      throw new Error(message)
    }
  } as unknown as Adapter
]

describe("errorOfCause: one ScanbridgeError for whatever stopped a run", () => {
  it("a typed failure: its tag and message, the typed error itself as the cause", () => {
    const failure = new MigrateInputError({ file: "in.ndjson", message: "in.ndjson: no such file" })
    const error = expectError(errorOfCause(Cause.fail(failure)), "MigrateInputError", "in.ndjson: no such file")
    expect(error.cause).toBe(failure)
  })

  it("a typed failure wins over a defect beside it", () => {
    const failure = new MigrateInputError({ file: "in.ndjson", message: "in.ndjson: no such file" })
    expectError(errorOfCause(Cause.sequential(Cause.die(new Error("finalizer")), Cause.fail(failure))), "MigrateInputError", "no such file")
  })

  it("a failure that is no typed error: UnknownError with what it says", () => {
    expectError(errorOfCause(Cause.fail(new Error("plain error"))), UNKNOWN_ERROR, "plain error")
    expectError(errorOfCause(Cause.fail(42)), UNKNOWN_ERROR, "42")
  })

  it("a defect: Defect with its message, the original kept as the cause", () => {
    const boom = new TypeError("Cannot read properties of undefined (reading 'length')")
    const error = expectError(errorOfCause(Cause.die(boom)), DEFECT, "internal error: TypeError: Cannot read properties of undefined")
    expect(error.cause).toBe(boom)
    const value = { reason: "not an Error" }
    expect(expectError(errorOfCause(Cause.die(value)), DEFECT, "not an Error").cause).toBe(value)
    expect(expectError(errorOfCause(Cause.die("x".repeat(100_000))), DEFECT, "xxx").message.length).toBeLessThan(1_000)
  })

  it("a ScanbridgeError thrown inside is the answer as it is", () => {
    const inner = new ScanbridgeError({ _tag: "AdapterError", message: "adapter #1 is not an object" })
    expect(errorOfCause(Cause.die(inner))).toBe(inner)
    expect(errorOfCause(Cause.fail(inner))).toBe(inner)
  })

  it("an interruption: Interrupted", () => {
    expectError(errorOfCause(Cause.interrupt(FiberId.none)), INTERRUPTED, "interrupted")
  })

  it("a failure whose message cannot be read: still a Defect", () => {
    const hostile = {
      _tag: "Hostile",
      get message(): string {
        throw new Error("getter")
      }
    }
    expectError(errorOfCause(Cause.fail(hostile)), DEFECT, "could not be read")
  })

  it("runPlain rejects with the ScanbridgeError of a failure, a defect deep in a scope, an interruption", async () => {
    const failure = new MigrateInputError({ file: "in.ndjson", message: "in.ndjson: no such file" })
    expectError(await rejectionOf(runPlain(Effect.fail(failure))), "MigrateInputError", "no such file")
    const deep = Effect.scoped(
      Effect.acquireRelease(Effect.succeed(1), () => Effect.void).pipe(
        Effect.flatMap(() =>
          Effect.sync(() => {
            throw new RangeError("deep inside")
          })
        )
      )
    )
    expectError(await rejectionOf(runPlain(deep)), DEFECT, "RangeError: deep inside")
    expectError(await rejectionOf(runPlain(Effect.interrupt)), INTERRUPTED, "interrupted")
    await expect(runPlain(Effect.succeed("value"))).resolves.toBe("value")
  })

  it("hides a URL and its password, as written and decoded, from every kind of message", () => {
    const password = "p@ss/w:rd"
    const url = `postgres://user:${encodeURIComponent(password)}@db.example:5432/scans`
    const hide = hidingUrls([url])
    for (const cause of [
      Cause.die(new Error(`cannot reach ${url}`)),
      Cause.die(new Error(`password ${password} refused`)),
      Cause.fail(new MigrateInputError({ file: "x", message: `user:${encodeURIComponent(password)} refused` }))
    ]) {
      const error = errorOfCause(cause, hide)
      expect(error).toBeInstanceOf(ScanbridgeError)
      expect(error.message).toContain("***")
      for (const secret of [password, encodeURIComponent(password), url]) expect(`${error.message} ${error.stack} ${String(error.cause)}`).not.toContain(secret)
    }
  })
})

describe("a status error of a client", () => {
  it.prop(
    "is the ScanbridgeError of its one tag, with its reason beside the code, also when its message is hidden (property)",
    [fc.constantFrom(...PlatformStatusReason.literals), fc.integer({ min: 400, max: 599 }), fc.boolean()],
    ([reason, status, secretInMessage]) => {
      const url = "postgres://user:pw@db.example/scans"
      const failure = new PlatformStatusError({
        api: "platform",
        method: "GET",
        url: "https://api.example/scans",
        status,
        reason,
        message: `GET -> ${status}${secretInMessage ? ` ${url}` : ""}`
      })
      const error = errorOfCause(Cause.fail(failure), hidingUrls([url]))
      expect(error).toMatchObject({ code: "PlatformStatusError", reason })
      expect(error.message).not.toContain(url)
      // The error itself is the cause when nothing was hidden; its fields stay readable there.
      if (!secretInMessage) expect(error.cause).toBe(failure)
    }
  )

  it("has no reason when the error behind it has none", () => {
    expect(errorOfCause(Cause.fail(new MigrateInputError({ file: "x", message: "cannot read" }))).reason).toBeUndefined()
    expect(errorOfCause(Cause.die(new Error("boom"))).reason).toBeUndefined()
  })
})

describe("normalize: every failure a ScanbridgeError of its kind", () => {
  it("JSON text that does not parse, or a value JSON cannot hold: UnknownFormatError", () => {
    for (const bad of ['{"format": "scanbridge.scan/v1"', 10n, () => 1, Symbol("scan")]) {
      expectError(
        thrownBy(() => normalize(bad)),
        "UnknownFormatError",
        /^unknown format/
      )
    }
  })

  it("a record of no known format: UnknownFormatError", () => {
    expectError(
      thrownBy(() => normalize({ kind: "not a scan" })),
      "UnknownFormatError",
      /^unknown format/
    )
  })

  it("a record of a known format that does not decode: DecodeError at its path, with the value", () => {
    const broken = JSON.parse(readFileSync(join(repoRoot, "examples/canonical/broken-scan.json"), "utf8")) as unknown
    const error = expectError(
      thrownBy(() => normalize(broken)),
      "DecodeError",
      "subject.gender"
    )
    expect(error.path).toEqual(["subject", "gender"])
    expect(error.value).toBe("M")
  })

  it("a record nested 100,000 deep, and a 2 MB list page: DecodeError, not a RangeError", () => {
    const deep = 100_000
    expectError(
      thrownBy(() => normalize(JSON.parse(`{"results":${"[".repeat(deep)}${"]".repeat(deep)}}`))),
      "DecodeError",
      "platform list page"
    )
    const items = 1_000_000
    expectError(
      thrownBy(() => normalize(JSON.parse(`{"results":[${"1,".repeat(items - 1)}1]}`))),
      "DecodeError",
      `(and ${items - 1} more`
    )
  })

  it("adapters that throw when read: Defect, the thrown error kept as the cause", () => {
    const error = expectError(
      thrownBy(() => normalize({}, { adapters: throwingAdapters("adapter bug") })),
      DEFECT,
      "internal error: Error: adapter bug"
    )
    expect(error.cause).toBeInstanceOf(Error)
    expect((error.cause as Error).message).toBe("adapter bug")
  })
})

describe("migrateFile: every failure a ScanbridgeError of its kind", () => {
  let tmp: string
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "scanbridge-failures-"))
  })
  afterAll(() => rm(tmp, { recursive: true, force: true }))

  it("a missing input: MigrateInputError naming it", async () => {
    const missing = join(tmp, "missing.ndjson")
    const error = expectError(await rejectionOf(migrateFile(missing, { out: join(tmp, "out.ndjson") })), "MigrateInputError", missing)
    expect(error.cause).toMatchObject({ file: missing })
  })

  it("an output inside the input folder: MigratePlanError naming out", async () => {
    const folder = join(tmp, "inputs")
    await mkdir(folder, { recursive: true })
    const error = expectError(await rejectionOf(migrateFile(folder, { out: join(folder, "out.ndjson") })), "MigratePlanError", "inside the input folder")
    expect(error.cause).toMatchObject({ option: "out" })
  })

  it("a target that does not exist: UnknownTargetError; units that do not: MigratePlanError naming units", async () => {
    expectError(await rejectionOf(migrateFile(photoScan, { out: join(tmp, "xml.ndjson"), to: "xml" })), "UnknownTargetError", 'to "xml": expected one of')
    // A caller without types can pass any string.
    const units = "furlong" as unknown as "mm"
    const error = expectError(await rejectionOf(migrateFile(photoScan, { out: join(tmp, "csv.csv"), to: "csv", units })), "MigratePlanError", 'units "furlong"')
    expect(error.cause).toMatchObject({ option: "units" })
  })

  it("an output that cannot be written (a folder in its place, a folder that does not exist): MigrateOutputError", async () => {
    const folder = join(tmp, "taken.ndjson")
    await mkdir(folder, { recursive: true })
    expectError(await rejectionOf(migrateFile(photoScan, { out: folder })), "MigrateOutputError", "is a folder")
    const nowhere = join(tmp, "no-such-folder", "rejects.ndjson")
    expectError(await rejectionOf(migrateFile(photoScan, { out: join(tmp, "ok.ndjson"), rejects: nowhere })), "MigrateOutputError", "no-such-folder")
  })

  it("adapters that throw when read: Defect, nothing written", async () => {
    const out = join(tmp, "defect.ndjson")
    expectError(await rejectionOf(migrateFile(photoScan, { out, adapters: throwingAdapters("adapter bug") })), DEFECT, "adapter bug")
    expect(existsSync(out)).toBe(false)
  })
})

/** A port no one listens on, on 127.0.0.1. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

describe("migratePostgres: every failure a ScanbridgeError of its kind, without the password", () => {
  let running: RunningPostgres
  let url: string
  let password: string
  beforeAll(async () => {
    running = await startPostgres()
    url = running.url
    password = Redacted.value(running.server.password)
  }, TIMEOUT)
  afterAll(() => running?.stop(), TIMEOUT)

  /** The rejection of `migratePostgres(options)`, checked as expectError does and to say no secret anywhere. */
  const rejected = async (options: Parameters<typeof migratePostgres>[0], code: string | RegExp, fragment: string | RegExp): Promise<ScanbridgeError> => {
    const thrown = await rejectionOf(migratePostgres(options))
    expect(thrown).toBeInstanceOf(ScanbridgeError)
    const error = thrown as ScanbridgeError
    expect(error.code).toMatch(typeof code === "string" ? new RegExp(`^${code}$`) : code)
    if (typeof fragment === "string") expect(error.message).toContain(fragment)
    else expect(error.message).toMatch(fragment)
    const said = `${String(error)} ${JSON.stringify(error)} ${error.stack}`
    for (const secret of [password, encodeURIComponent(password), url]) expect(said).not.toContain(secret)
    return error
  }

  it(
    "a server stopped (immediate) under a run: the Promise settles, a PostgresError; restarted, resume completes it",
    async () => {
      await running.admin.query(
        "create table stopped_source as select g as id, jsonb_build_object('kind', 'not a scan', 'n', g)::text as payload from generate_series(1, 50000) g"
      )
      const options = { from: { url, query: "select id, payload from stopped_source" }, into: { url, table: "stopped_into" } }
      const run = migratePostgres(options)
      const settled = run.then(
        () => "resolved",
        (e: unknown) => e
      )
      // Once a first chunk is committed, the server goes: what waits on either connection must fail.
      const committed = async () =>
        (await running.admin.query(`select 1 from scanbridge_checkpoints where table_name = '"stopped_into"'`).catch(() => ({ rowCount: 0 }))).rowCount! > 0
      let done = false
      void settled.then(() => (done = true))
      while (!done && !(await committed())) await new Promise((r) => setTimeout(r, 5))
      await running.kill("immediate")
      const outcome = await settled
      await running.restart()
      expect(outcome).toBeInstanceOf(ScanbridgeError)
      expect((outcome as ScanbridgeError).code).toBe("PostgresError")
      expect(String(outcome)).not.toContain(password)
      const report = await migratePostgres({ ...options, resume: true })
      expect(report).toMatchObject({ records: 50_000, rejected: 50_000 })
      expect((await running.admin.query("select count(*)::int as n from stopped_into_rejects")).rows[0].n).toBe(50_000)
    },
    TIMEOUT
  )

  it(
    "an unreachable server (a port no one listens on): PostgresError of the connection",
    async () => {
      const nowhere = urlOf({ ...running.server, port: await freePort() })
      // The message names the side, as the command's name --from and --into.
      await rejected({ from: { url: nowhere, query: "select 1, 2" }, into: { url, table: "never" } }, "PostgresError", /^from: connect: .*ECONNREFUSED/)
      await rejected({ from: photoScan, into: { url: nowhere, table: "never" } }, "PostgresError", /^into: connect: .*ECONNREFUSED/)
    },
    TIMEOUT
  )

  it(
    "a wrong password: PostgresError, holding neither password",
    async () => {
      const wrong = urlOf(running.server, "not-the-password")
      const error = await rejected(
        { from: { url: wrong, query: "select 1, 2" }, into: { url, table: "never" } },
        "PostgresError",
        "password authentication failed"
      )
      expect(`${String(error)} ${error.stack}`).not.toContain("not-the-password")
    },
    TIMEOUT
  )

  it(
    "a query that is not SQL, or of the wrong number of columns: PostgresError of the read",
    async () => {
      await rejected({ from: { url, query: "not sql at all" }, into: { url, table: "never" } }, "PostgresError", /^from: read: syntax error/)
      await rejected({ from: { url, query: "select 1, 2, 3" }, into: { url, table: "never" } }, "PostgresError", "returns 3 column(s)")
      await rejected({ from: { url, query: "select 1" }, into: { url, table: "never" } }, "PostgresError", "returns 1 column(s)")
    },
    TIMEOUT
  )

  it(
    "a query that breaks out of its wrapper (a `)`, then other statements): a ScanbridgeError, not an Effect FiberFailure",
    async () => {
      // The server refuses a second statement (the source's extended protocol takes one): a syntax error, never run.
      await rejected(
        { from: { url, query: "select 1, 2) as x; select (1" }, into: { url, table: "never" } },
        /^PostgresError$/,
        /syntax error|cannot insert multiple commands/
      )
    },
    TIMEOUT
  )

  it(
    "a missing input file: MigrateInputError",
    async () => {
      const missing = join(repoRoot, "examples/no-such-file.ndjson")
      await rejected({ from: missing, into: { url, table: "never" } }, "MigrateInputError", missing)
    },
    TIMEOUT
  )

  it(
    "a defect (adapters that throw when read, with the URL in what they throw): Defect, the URL hidden",
    async () => {
      const error = await rejected(
        { from: photoScan, into: { url, table: "never" }, adapters: throwingAdapters(`cannot reach ${url}`) },
        DEFECT,
        "internal error: Error: cannot reach ***"
      )
      // The original said the URL: it is not kept.
      expect(String(error.cause)).not.toContain(password)
    },
    TIMEOUT
  )

  it(
    "options that are not what their type says (no `from`): Defect, not a TypeError",
    async () => {
      const options = { into: { url, table: "never" } } as unknown as Parameters<typeof migratePostgres>[0]
      await rejected(options, DEFECT, "internal error: TypeError")
    },
    TIMEOUT
  )
})
