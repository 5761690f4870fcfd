/**
 * The store's conformance: one suite of every method, run against the memory store, the
 * embedded store (PGlite in a temporary folder) and PostgreSQL (a real server the file starts),
 * so the three agree. Then what only a database can show: a restart keeps everything; two
 * instances on one PostgreSQL decide every claim, lease and session once between them, and
 * migrate once when they start together; a stopped server or a closed store is a
 * GatewayStoreError, never a wait, and never holds the password.
 *
 * PGlite opens cost a second and some 300 MB each (the first, initdb, several seconds and 800
 * MB): the file opens one, and once more for the restart.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Either, Exit, Layer, Option, Redacted, Scope, Tracer } from "effect"
import { spawnSync } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { existsSync } from "node:fs"
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { type RunningPostgres, startPostgres } from "../../migrate/test/postgres.js"
import {
  embeddedStoreLayer,
  GatewayStore,
  GatewayStoreError,
  type GatewayStoreService,
  memoryStoreLayer,
  postgresStoreLayer,
  type SessionRecord
} from "../src/index.js"
import { MIGRATIONS } from "../src/store/schema.js"

const T = Date.UTC(2026, 0, 1)
const HOUR = 3_600_000

interface Opened {
  readonly store: GatewayStoreService
  readonly close: () => Promise<void>
}

const open = async (layer: Layer.Layer<GatewayStore, GatewayStoreError>): Promise<Opened> => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  return { store: Context.get(context, GatewayStore), close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const id = (prefix: string) => `${prefix}-${randomUUID()}`

const sessionOf = (over: Partial<SessionRecord> = {}): SessionRecord => ({
  ssid: id("ssid"),
  clientScanningId: "",
  customScanId: id("custom"),
  clientKey: "a".repeat(64),
  language: "en",
  avatar: false,
  scanToken: Redacted.make(`eyJ.${randomUUID()}`),
  createdAt: T,
  expiresAt: T + HOUR,
  scanId: null,
  ...over
})

const estimationOf = (over: { id?: string; createdAt?: number } = {}) => ({
  id: over.id ?? id("est"),
  clientKey: "b".repeat(64),
  stats: { age: 30.5, gender: "female" as const, heightMm: 1655.25, weightG: 58_300 },
  language: "ja",
  createdAt: over.createdAt ?? T
})

// Redacted values all look alike to toEqual: the token is compared as its text.
const plain = (s: SessionRecord) => ({ ...s, scanToken: Redacted.value(s.scanToken) })
const jpeg = (size: number) => new Uint8Array(randomBytes(size))

interface Backend {
  readonly name: string
  readonly store: () => GatewayStoreService
  /** The photo rows the database holds for an estimation, where the test can look. */
  readonly photoRows?: (id: string) => Promise<number>
}

let postgres: RunningPostgres
let pgA: Opened
let pgB: Opened
let folder: string
let embedded: Opened
let memory: Opened

beforeAll(async () => {
  ;[postgres, folder] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), "scanbridge-gateway-store-"))])
  const url = Redacted.make(postgres.url)
  ;[pgA, pgB, embedded, memory] = await Promise.all([
    open(postgresStoreLayer({ url })),
    open(postgresStoreLayer({ url })),
    open(embeddedStoreLayer(join(folder, "store"))),
    open(memoryStoreLayer)
  ])
})

afterAll(async () => {
  await Promise.allSettled([pgA?.close(), pgB?.close(), embedded?.close(), memory?.close()])
  await postgres?.stop()
  if (folder !== undefined) await rm(folder, { recursive: true, force: true })
})

const backends: ReadonlyArray<Backend> = [
  { name: "memory", store: () => memory.store },
  { name: "embedded (PGlite)", store: () => embedded.store },
  {
    name: "PostgreSQL",
    store: () => pgA.store,
    photoRows: async (estimation) =>
      Number((await postgres.admin.query("SELECT count(*) AS n FROM gateway_photos WHERE estimation_id = $1", [estimation])).rows[0].n)
  }
]

for (const backend of backends) {
  describe(`the ${backend.name} store`, () => {
    it.effect("keeps a session, refuses a second with its ssid, and knows no other", () =>
      Effect.gen(function* () {
        const store = backend.store()
        const session = sessionOf({ clientScanningId: "scan-ü-😀", avatar: true })
        yield* store.createSession(session)
        const read = yield* store.session(session.ssid)
        expect(Option.map(read, plain)).toEqual(Option.some(plain(session)))
        const again = yield* Effect.flip(store.createSession({ ...session, clientKey: "c".repeat(64) }))
        expect(again).toBeInstanceOf(GatewayStoreError)
        expect(again.message).toContain("createSession")
        expect(Option.map(yield* store.session(session.ssid), plain)).toEqual(Option.some(plain(session)))
        expect(yield* store.session(id("ssid"))).toEqual(Option.none())
      })
    )

    it.effect("creates a session unless an open one waits on its customScanId", () =>
      Effect.gen(function* () {
        const store = backend.store()
        const first = sessionOf()
        expect(yield* store.createSessionUnlessOpen(first, T)).toBe(true)
        expect(Option.isSome(yield* store.session(first.ssid))).toBe(true)
        // Another on the same id while the first is open: refused, and nothing stored.
        const second = sessionOf({ customScanId: first.customScanId })
        expect(yield* store.createSessionUnlessOpen(second, T)).toBe(false)
        expect(yield* store.session(second.ssid)).toEqual(Option.none())
        // Open no longer after its expiry...
        expect(yield* store.createSessionUnlessOpen(second, first.expiresAt)).toBe(true)
        // ...nor once it holds a scan.
        const third = sessionOf()
        yield* store.createSession(third)
        expect(yield* store.claimScan(third.ssid, id("scan"))).toBe(true)
        expect(yield* store.createSessionUnlessOpen(sessionOf({ customScanId: third.customScanId }), T)).toBe(true)
        // A second record with one ssid is refused here too.
        expect(yield* Effect.flip(store.createSessionUnlessOpen(sessionOf({ ssid: first.ssid }), T))).toBeInstanceOf(GatewayStoreError)
      })
    )

    it.effect("gives a scan to one session, and a session one scan", () =>
      Effect.gen(function* () {
        const store = backend.store()
        const a = sessionOf()
        const b = sessionOf({ customScanId: a.customScanId })
        yield* store.createSession(a)
        yield* store.createSession(b)
        const scan = id("scan")
        expect(yield* store.openSessionWith(a.customScanId, T)).toBe(true)
        expect(yield* store.claimScan(a.ssid, scan)).toBe(true)
        expect(yield* store.claimScan(a.ssid, scan)).toBe(true)
        expect(yield* store.claimScan(b.ssid, scan)).toBe(false)
        expect(yield* store.claimScan(a.ssid, id("scan"))).toBe(false)
        expect(yield* store.claimScan(id("ssid"), id("scan"))).toBe(false)
        expect(Option.map(yield* store.session(a.ssid), (s) => s.scanId)).toEqual(Option.some(scan))
        expect(Option.map(yield* store.session(b.ssid), (s) => s.scanId)).toEqual(Option.some(null))
        // b still waits; once it holds a scan of its own, no session with that id is open.
        expect(yield* store.openSessionWith(a.customScanId, T)).toBe(true)
        expect(yield* store.openSessionWith(a.customScanId, b.expiresAt)).toBe(false)
        expect(yield* store.claimScan(b.ssid, id("scan"))).toBe(true)
        expect(yield* store.openSessionWith(a.customScanId, T)).toBe(false)
        expect(yield* store.openSessionWith(id("custom"), T)).toBe(false)
      })
    )

    it.effect("keeps tokens by their hash, one record each", () =>
      Effect.gen(function* () {
        const store = backend.store()
        const token = { tokenHash: randomBytes(32).toString("hex"), uid: id("uid"), clientKey: "d".repeat(64), expiresAt: T + HOUR }
        yield* store.issueToken(token)
        expect(yield* store.token(token.tokenHash)).toEqual(Option.some(token))
        expect(yield* store.token(randomBytes(32).toString("hex"))).toEqual(Option.none())
        expect(yield* Effect.flip(store.issueToken({ ...token, uid: id("uid") }))).toBeInstanceOf(GatewayStoreError)
        expect(yield* store.token(token.tokenHash)).toEqual(Option.some(token))
      })
    )

    it.effect("keeps an estimation's stats as given, and its photos until both are in", () =>
      Effect.gen(function* () {
        const store = backend.store()
        const estimation = estimationOf()
        yield* store.createEstimation(estimation)
        expect(yield* store.estimation(estimation.id)).toEqual(Option.some({ ...estimation, received: [], scanId: null, creatingUntil: null }))
        expect(yield* store.estimation(id("est"))).toEqual(Option.none())
        expect(yield* Effect.flip(store.createEstimation(estimation))).toBeInstanceOf(GatewayStoreError)

        const right = jpeg(2_000_000)
        const afterRight = yield* store.putPhoto(estimation.id, "right", right)
        expect(afterRight.received).toEqual(["right"])
        expect(yield* store.photos(estimation.id)).toEqual(Option.none())
        const front = jpeg(1000)
        const afterFront = yield* store.putPhoto(estimation.id, "front", jpeg(10))
        expect([...afterFront.received].sort()).toEqual(["front", "right"])
        // A second photo of a pattern replaces the first, and is received once.
        const replaced = yield* store.putPhoto(estimation.id, "front", front)
        expect([...replaced.received].sort()).toEqual(["front", "right"])
        expect(replaced.stats).toEqual(estimation.stats)
        const photos = yield* store.photos(estimation.id)
        expect(Option.map(photos, (p) => [Buffer.from(p.front).equals(front), Buffer.from(p.right).equals(right)])).toEqual(Option.some([true, true]))
        expect(Option.map(photos, (p) => p.front.constructor)).toEqual(Option.some(Uint8Array))

        const unknown = yield* Effect.flip(store.putPhoto(id("est"), "front", jpeg(10)))
        expect(unknown).toBeInstanceOf(GatewayStoreError)
        expect(unknown.message).toContain("putPhoto")
      })
    )

    it.effect("leases the creation to one caller at a time, and deletes the photos once the scan is created", () =>
      Effect.gen(function* () {
        const store = backend.store()
        const estimation = estimationOf()
        yield* store.createEstimation(estimation)
        yield* store.putPhoto(estimation.id, "front", jpeg(100))
        yield* store.putPhoto(estimation.id, "right", jpeg(100))
        expect(yield* store.leaseCreation(id("est"), T, T + 60_000)).toBe(false)
        expect(yield* store.leaseCreation(estimation.id, T, T + 60_000)).toBe(true)
        expect(yield* store.leaseCreation(estimation.id, T + 59_999, T + 120_000)).toBe(false)
        expect(Option.map(yield* store.estimation(estimation.id), (e) => e.creatingUntil)).toEqual(Option.some(T + 60_000))
        // A lease whose time is up is taken over; one given back is free at once.
        expect(yield* store.leaseCreation(estimation.id, T + 60_000, T + 120_000)).toBe(true)
        yield* store.releaseCreation(estimation.id)
        expect(Option.map(yield* store.estimation(estimation.id), (e) => e.creatingUntil)).toEqual(Option.some(null))
        expect(yield* store.leaseCreation(estimation.id, T + 60_000, T + 120_000)).toBe(true)

        const scan = id("scan")
        yield* store.scanCreated(estimation.id, scan)
        expect(yield* store.photos(estimation.id)).toEqual(Option.none())
        if (backend.photoRows !== undefined) expect(yield* Effect.promise(() => backend.photoRows!(estimation.id))).toBe(0)
        const after = yield* store.estimation(estimation.id)
        expect(Option.map(after, (e) => [e.scanId, e.creatingUntil, [...e.received].sort()])).toEqual(Option.some([scan, null, ["front", "right"]]))
        expect(yield* store.leaseCreation(estimation.id, T + HOUR, T + 2 * HOUR)).toBe(false)
        // A photo that comes after the scan is not kept: nothing would ever delete it.
        yield* store.putPhoto(estimation.id, "front", jpeg(100))
        yield* store.putPhoto(estimation.id, "right", jpeg(100))
        expect(yield* store.photos(estimation.id)).toEqual(Option.none())
        if (backend.photoRows !== undefined) expect(yield* Effect.promise(() => backend.photoRows!(estimation.id))).toBe(0)
      })
    )

    it.effect("sweeps expired tokens and waiting sessions, the photos of stale estimations, and old estimations with their photos", () =>
      Effect.gen(function* () {
        const store = backend.store()
        const now = T + 10 * HOUR
        const token = (expiresAt: number) => ({ tokenHash: randomBytes(32).toString("hex"), uid: id("uid"), clientKey: "d".repeat(64), expiresAt })
        const expiredToken = token(now)
        const liveToken = token(now + 1)
        const expired = sessionOf({ expiresAt: now })
        const claimed = sessionOf({ expiresAt: now - 1 })
        const live = sessionOf({ expiresAt: now + 1 })
        const old = estimationOf({ createdAt: now - HOUR - 1 })
        const stale = estimationOf({ createdAt: now - 10 * 60_000 - 1 })
        const recent = estimationOf({ createdAt: now - 10 * 60_000 })
        yield* Effect.all([store.issueToken(expiredToken), store.issueToken(liveToken)])
        yield* Effect.all([store.createSession(expired), store.createSession(claimed), store.createSession(live)])
        yield* store.claimScan(claimed.ssid, id("scan"))
        for (const e of [old, stale, recent]) {
          yield* store.createEstimation(e)
          yield* store.putPhoto(e.id, "front", jpeg(50))
          yield* store.putPhoto(e.id, "right", jpeg(50))
        }

        yield* store.sweep({ now, sessionsBefore: now, photosBefore: now - 10 * 60_000, estimationsBefore: now - HOUR })

        expect(yield* store.token(expiredToken.tokenHash)).toEqual(Option.none())
        expect(Option.isSome(yield* store.token(liveToken.tokenHash))).toBe(true)
        expect(yield* store.session(expired.ssid)).toEqual(Option.none())
        expect(Option.isSome(yield* store.session(claimed.ssid))).toBe(true)
        expect(Option.isSome(yield* store.session(live.ssid))).toBe(true)
        expect(yield* store.estimation(old.id)).toEqual(Option.none())
        expect(yield* store.photos(old.id)).toEqual(Option.none())
        if (backend.photoRows !== undefined) expect(yield* Effect.promise(() => backend.photoRows!(old.id))).toBe(0)
        expect(Option.isSome(yield* store.estimation(stale.id))).toBe(true)
        expect(yield* store.photos(stale.id)).toEqual(Option.none())
        if (backend.photoRows !== undefined) expect(yield* Effect.promise(() => backend.photoRows!(stale.id))).toBe(0)
        expect(Option.isSome(yield* store.estimation(recent.id))).toBe(true)
        expect(Option.isSome(yield* store.photos(recent.id))).toBe(true)
      })
    )
  })
}

/** The bytes of the files under `folder`. */
const sizeOf = async (folder: string): Promise<number> => {
  let total = 0
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size
  }
  return total
}

describe("the embedded store", () => {
  it.effect("gives the space of deleted photos back to the disk on a sweep (PGlite has no autovacuum)", () =>
    Effect.gen(function* () {
      const tables = join(folder, "store", "pgdata", "base")
      const before = yield* Effect.promise(() => sizeOf(tables))
      for (let i = 0; i < 6; i++) {
        const estimation = estimationOf()
        yield* embedded.store.createEstimation(estimation)
        yield* embedded.store.putPhoto(estimation.id, "front", jpeg(1_000_000))
        yield* embedded.store.putPhoto(estimation.id, "right", jpeg(1_000_000))
        yield* embedded.store.scanCreated(estimation.id, id("scan"))
      }
      const deleted = yield* Effect.promise(() => sizeOf(tables))
      expect(deleted - before).toBeGreaterThan(10_000_000)
      // A sweep that deletes nothing else still vacuums.
      yield* embedded.store.sweep({ now: 0, sessionsBefore: 0, photosBefore: 0, estimationsBefore: 0 })
      const swept = yield* Effect.promise(() => sizeOf(tables))
      expect(deleted - swept).toBeGreaterThan(10_000_000)
    })
  )

  it.effect("is held by one opener at a time, keeps everything over a restart, and takes over the lock of a process that died", () =>
    Effect.gen(function* () {
      const directory = join(folder, "store")
      const session = sessionOf()
      const estimation = estimationOf()
      const front = jpeg(300_000)
      const right = jpeg(300_000)
      yield* embedded.store.createSession(session)
      yield* embedded.store.claimScan(session.ssid, "scan-restart")
      yield* embedded.store.createEstimation(estimation)
      yield* embedded.store.putPhoto(estimation.id, "front", front)
      yield* embedded.store.putPhoto(estimation.id, "right", right)
      yield* embedded.store.leaseCreation(estimation.id, T, T + 60_000)

      // Open already (here): a second opener is refused before PGlite is touched.
      const refused = yield* Effect.flip(Layer.build(embeddedStoreLayer(directory)).pipe(Effect.scoped))
      expect(refused.message).toContain(`open in process ${process.pid}`)

      const closed = embedded.store
      yield* Effect.promise(() => embedded.close())
      // A closed store answers with an error, not a wait.
      const afterClose = yield* Effect.flip(closed.session(session.ssid))
      expect(afterClose).toBeInstanceOf(GatewayStoreError)
      expect(existsSync(join(directory, "gateway.lock"))).toBe(false)

      // The lock of a process that is gone (killed mid-flow) does not keep a restarted gateway out.
      const gone = spawnSync(process.execPath, ["-e", "0"]).pid
      yield* Effect.promise(() => writeFile(join(directory, "gateway.lock"), JSON.stringify({ pid: gone, host: hostname() })))
      embedded = yield* Effect.promise(() => open(embeddedStoreLayer(directory)))

      expect(Option.map(yield* embedded.store.session(session.ssid), plain)).toEqual(Option.some({ ...plain(session), scanId: "scan-restart" }))
      expect(yield* embedded.store.estimation(estimation.id)).toEqual(
        Option.some({ ...estimation, received: ["front", "right"], scanId: null, creatingUntil: T + 60_000 })
      )
      const photos = yield* embedded.store.photos(estimation.id)
      expect(Option.map(photos, (p) => Buffer.from(p.front).equals(front) && Buffer.from(p.right).equals(right))).toEqual(Option.some(true))
    })
  )
})

/** One look at a database of the test server, as any PostgreSQL is looked at. */
const query = <A>(url: Redacted.Redacted<string>, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url })), Effect.orDie)

/** `count` rounds of `race`, each of whose outcomes must hold exactly one `true`. */
const rounds = (count: number, race: (round: number) => Effect.Effect<ReadonlyArray<boolean>, GatewayStoreError>) =>
  Effect.gen(function* () {
    for (let round = 0; round < count; round++) {
      const outcomes = yield* race(round)
      expect(outcomes.filter((won) => won).length, `round ${round}: ${outcomes}`).toBe(1)
    }
  })

describe("two instances on one PostgreSQL", () => {
  it.effect("lease an estimation's creation to exactly one of them", () =>
    rounds(40, () =>
      Effect.gen(function* () {
        const estimation = estimationOf()
        yield* pgA.store.createEstimation(estimation)
        return yield* Effect.all(
          [pgA, pgB, pgA, pgB].map((instance) => instance.store.leaseCreation(estimation.id, T, T + 60_000)),
          { concurrency: "unbounded" }
        )
      })
    )
  )

  it.effect("give a scan to exactly one session, and a session exactly one scan", () =>
    Effect.gen(function* () {
      yield* rounds(40, () =>
        Effect.gen(function* () {
          const a = sessionOf()
          const b = sessionOf()
          yield* Effect.all([pgA.store.createSession(a), pgB.store.createSession(b)])
          const scan = id("scan")
          return yield* Effect.all([pgA.store.claimScan(a.ssid, scan), pgB.store.claimScan(b.ssid, scan)], { concurrency: "unbounded" })
        })
      )
      yield* rounds(40, () =>
        Effect.gen(function* () {
          const a = sessionOf()
          yield* pgA.store.createSession(a)
          return yield* Effect.all([pgA.store.claimScan(a.ssid, id("scan")), pgB.store.claimScan(a.ssid, id("scan"))], { concurrency: "unbounded" })
        })
      )
      // The same claim made twice at once (one poll on each instance) is right on both.
      yield* Effect.gen(function* () {
        for (let round = 0; round < 20; round++) {
          const a = sessionOf()
          yield* pgA.store.createSession(a)
          const scan = id("scan")
          const both = yield* Effect.all([pgA.store.claimScan(a.ssid, scan), pgB.store.claimScan(a.ssid, scan)], { concurrency: "unbounded" })
          expect(both).toEqual([true, true])
        }
      })
    })
  )

  it.effect("store one of two sessions created at once with one customScanId", () =>
    rounds(40, () =>
      Effect.gen(function* () {
        const customScanId = id("custom")
        return yield* Effect.all(
          [pgA, pgB, pgA, pgB].map((instance) => instance.store.createSessionUnlessOpen(sessionOf({ customScanId }), T)),
          { concurrency: "unbounded" }
        )
      })
    )
  )

  it.effect("migrate once when they start together, and a newer schema is refused", () =>
    Effect.gen(function* () {
      for (let round = 0; round < 4; round++) {
        const database = `gateway_start_${round}`
        yield* Effect.promise(() => postgres.admin.query(`CREATE DATABASE ${database}`))
        const url = Redacted.make(postgres.url.replace(/\/postgres$/, `/${database}`))
        const [one, two] = yield* Effect.promise(() => Promise.all([open(postgresStoreLayer({ url })), open(postgresStoreLayer({ url }))]))
        const session = sessionOf()
        yield* one.store.createSession(session)
        expect(Option.isSome(yield* two.store.session(session.ssid))).toBe(true)
        yield* Effect.promise(() => Promise.all([one.close(), two.close()]))
        const applied = yield* query(url, (sql) => sql<{ version: number }>`SELECT version FROM gateway_migrations ORDER BY version`)
        expect(applied.map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version))
      }

      yield* Effect.promise(() => postgres.admin.query("CREATE DATABASE gateway_newer"))
      const newer = Redacted.make(postgres.url.replace(/\/postgres$/, "/gateway_newer"))
      const first = yield* Effect.promise(() => open(postgresStoreLayer({ url: newer })))
      yield* Effect.promise(() => first.close())
      yield* query(newer, (sql) => sql`INSERT INTO gateway_migrations (version, name) VALUES (999, 'from a newer gateway')`)
      const refused = yield* Effect.flip(Layer.build(postgresStoreLayer({ url: newer })).pipe(Effect.scoped))
      expect(refused.message).toContain("newer than this gateway's")
    })
  )
})

describe("PostgreSQL going away", () => {
  it.effect("a wrong password or no server is a GatewayStoreError that holds neither the password nor the URL", () =>
    Effect.gen(function* () {
      const wrong = `wrong-${randomUUID()}`
      const wrongUrl = postgres.url.replace(`:${encodeURIComponent(Redacted.value(postgres.server.password))}@`, `:${wrong}@`)
      const refused = yield* Effect.flip(Layer.build(postgresStoreLayer({ url: Redacted.make(wrongUrl) })).pipe(Effect.scoped))
      expect(refused).toBeInstanceOf(GatewayStoreError)
      expect(refused.message).toContain("28P01")
      for (const secret of [wrong, wrongUrl, Redacted.value(postgres.server.password)]) {
        expect(String(refused) + JSON.stringify(refused)).not.toContain(secret)
      }
      const nowhere = yield* Effect.flip(Layer.build(postgresStoreLayer({ url: Redacted.make("postgres://u:secret-pw@127.0.0.1:1/db") })).pipe(Effect.scoped))
      expect(nowhere.message).toContain("ECONNREFUSED")
      expect(String(nowhere) + JSON.stringify(nowhere)).not.toContain("secret-pw")
    })
  )

  it.effect("stopped with statements in flight, every one ends as a value or a GatewayStoreError; started again, the store works", () =>
    Effect.gen(function* () {
      for (const mode of ["fast", "immediate"] as const) {
        const estimation = estimationOf()
        yield* pgA.store.createEstimation(estimation)
        const inFlight = yield* Effect.fork(
          Effect.all(
            Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? pgA : pgB).store.putPhoto(estimation.id, i % 4 < 2 ? "front" : "right", jpeg(20_000))),
            { concurrency: "unbounded", mode: "either" }
          )
        )
        yield* Effect.promise(() => postgres.kill(mode))
        const outcomes = yield* inFlight.await
        expect(Exit.isSuccess(outcomes)).toBe(true)
        if (Exit.isSuccess(outcomes)) for (const outcome of outcomes.value) if (Either.isLeft(outcome)) expect(outcome.left).toBeInstanceOf(GatewayStoreError)

        const down = yield* Effect.flip(pgA.store.session(id("ssid")))
        expect(down).toBeInstanceOf(GatewayStoreError)
        expect(down.message).toMatch(/^GatewayStore\.session: /)
        expect(String(down) + JSON.stringify(down)).not.toContain(Redacted.value(postgres.server.password))

        yield* Effect.promise(() => postgres.restart())
        // The pool drops the connections that died with the server and opens new ones. (What
        // was written just before an immediate stop may be gone: the test server commits
        // without waiting for its disk.)
        const again = estimationOf()
        yield* pgA.store.createEstimation(again).pipe(Effect.retry({ times: 3 }))
        expect(Option.isSome(yield* pgB.store.estimation(again.id).pipe(Effect.retry({ times: 3 })))).toBe(true)
      }
    })
  )
})

describe("what the PostgreSQL store shows a tracer", () => {
  it.effect("spans name statements, never the URL's password nor a record's values", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const tracer = Tracer.make({
        span: (name, parent, context, links, startTime, kind) => {
          const span = Tracer.externalSpan({ spanId: randomUUID(), traceId: "trace" })
          seen.push(name)
          return {
            ...span,
            _tag: "Span",
            name,
            parent,
            context,
            links,
            kind,
            status: { _tag: "Started", startTime },
            attributes: new Map(),
            end: () => {},
            attribute: (key, value) => void seen.push(`${key}=${String(value)}`),
            event: (event, _time, attributes) => void seen.push(event, JSON.stringify(attributes ?? {})),
            addLinks: () => {}
          }
        },
        context: (f) => f()
      })
      const photo = jpeg(64)
      const session = sessionOf({ clientScanningId: "personal-scan-id" })
      const estimation = estimationOf()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const store = yield* Effect.map(Layer.build(postgresStoreLayer({ url: Redacted.make(postgres.url) })), (context) =>
            Context.get(context, GatewayStore)
          )
          yield* store.createSession(session)
          yield* store.session(session.ssid)
          yield* Effect.flip(store.createSession(session))
          yield* store.createEstimation(estimation)
          yield* store.putPhoto(estimation.id, "front", photo)
          yield* store.putPhoto(estimation.id, "right", photo)
          yield* store.photos(estimation.id)
          yield* store.scanCreated(estimation.id, id("scan"))
        })
      ).pipe(Effect.withTracer(tracer))
      const text = seen.join("\n")
      expect(text).toContain("sql.execute")
      expect(text).toContain("INSERT INTO gateway_photos")
      for (const secret of [
        Redacted.value(postgres.server.password),
        postgres.url,
        "personal-scan-id",
        Redacted.value(session.scanToken),
        String(estimation.stats.heightMm),
        Buffer.from(photo).toString("hex").slice(0, 32)
      ]) {
        expect(text).not.toContain(secret)
      }
    })
  )
})
