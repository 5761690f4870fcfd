/**
 * The default store: PostgreSQL itself, embedded (PGlite, PostgreSQL compiled to WebAssembly),
 * in a folder on disk, with no server to run. It survives a restart of the gateway, killed or
 * not, and holds the same tables, statements and migrations as the PostgreSQL store (sql.ts),
 * so moving to several instances is a change of store, not of behaviour.
 *
 * Cost, measured on a busy 2-core machine (Node 20): the first open runs initdb, 4-7 s (up to
 * 20 s when the cores are taken) and some 900 MB of RSS at its peak; each later open 1-4 s and
 * 300-450 MB; the folder starts at 39 MB.
 *
 * PGlite is one PostgreSQL backend, started as PostgreSQL's single-user mode is, which shapes
 * three choices here:
 * - No autovacuum runs, so the space of deleted rows (photos, some MB each) would stay in the
 *   files for good: every sweep VACUUMs the store's tables. A VACUUM holds the one connection
 *   while it runs, for a time that grows with what was deleted since the last sweep.
 * - The backend checkpoints itself once max_wal_size of WAL is written: 64 MB here rather than
 *   PostgreSQL's 1 GB, so the folder stays small while photos pass through it.
 * - PGlite runs with fsync off (its default): a commit is in the operating system's hands, which
 *   survives the process being killed, not the machine losing power.
 *
 * One process at a time: there is no locking between processes, and two writing one folder
 * would corrupt it. The folder holds a lock file naming the process that has it open; another
 * open of that folder, by this process or another one on this machine, is refused while that
 * process lives. A lock left by a process that died (killed mid-flow) is taken over, so a
 * restarted gateway opens its store again. The lock guards one machine: a folder shared between
 * machines is not supported (run PostgreSQL).
 */
import { Effect, type Layer } from "effect"
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises"
import { hostname } from "node:os"
import { join } from "node:path"
import { type GatewayStore, GatewayStoreError } from "../store.js"
import { loadPg, sqlStoreLayer } from "./driver.js"

const LOCK_FILE = "gateway.lock"
const DATA_FOLDER = "pgdata"

/** Lock files this process holds: a lock naming our own pid is stale unless it is one of these. */
const held = new Set<string>()

interface LockOwner {
  readonly pid: number
  readonly host: string
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it lives, as another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const ownerOf = async (file: string): Promise<LockOwner | undefined> => {
  try {
    const owner = JSON.parse(await readFile(file, "utf8")) as Partial<LockOwner>
    return typeof owner.pid === "number" && typeof owner.host === "string" ? { pid: owner.pid, host: owner.host } : undefined
  } catch {
    return undefined
  }
}

const liveOwner = (owner: LockOwner | undefined, file: string): boolean =>
  owner !== undefined && owner.host === hostname() && (owner.pid === process.pid ? held.has(file) : alive(owner.pid))

const takeLock = async (directory: string): Promise<string> => {
  const file = join(directory, LOCK_FILE)
  const me = JSON.stringify({ pid: process.pid, host: hostname() } satisfies LockOwner)
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(file, me, { flag: "wx" })
      held.add(file)
      return file
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
    const owner = await ownerOf(file)
    if (liveOwner(owner, file)) {
      throw new Error(`it is open in process ${owner?.pid} already: one gateway per embedded store (several instances share a PostgreSQL store)`)
    }
    // A dead owner's lock: moved aside by one taker only (rename is atomic), then created afresh.
    await rename(file, `${file}.stale-${process.pid}`).then(
      () => rm(`${file}.stale-${process.pid}`, { force: true }),
      () => undefined
    )
  }
  throw new Error("its lock file could not be taken")
}

const releaseLock = (file: string): Promise<void> => {
  held.delete(file)
  return rm(file, { force: true })
}

const failure = (directory: string, error: unknown): GatewayStoreError =>
  new GatewayStoreError({
    message: `GatewayStore: the embedded store in ${directory} could not be opened: ${error instanceof Error ? error.message : String(error)}`
  })

/**
 * The store in `directory` (created if missing), open while the layer is: PGlite closes, and the
 * lock is given back, with the layer's scope.
 */
export const embeddedStoreLayer = (directory: string): Layer.Layer<GatewayStore, GatewayStoreError> =>
  sqlStoreLayer(
    Effect.gen(function* () {
      yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () => mkdir(directory, { recursive: true }).then(() => takeLock(directory)),
          catch: (error) => failure(directory, error)
        }),
        (file) => Effect.promise(() => releaseLock(file).catch(() => undefined))
      )
      const db = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            // Loaded on first use: a gateway on another store never loads PGlite's WebAssembly.
            const { PGlite } = await import("@electric-sql/pglite")
            const db = new PGlite(join(directory, DATA_FOLDER), {
              // One backend runs its own checkpoints: past this much WAL it checkpoints and recycles
              // it, where PostgreSQL's default (1 GB) would keep that much of photos' bytes on disk.
              startParams: [...PGlite.defaultStartParams, "-c", "max_wal_size=64MB", "-c", "min_wal_size=32MB"]
            })
            await db.waitReady
            return db
          },
          catch: (error) => failure(directory, error)
        }),
        (db) => Effect.promise(() => db.close().catch(() => undefined))
      )
      const pg = yield* loadPg
      return yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const { createPgConfig } = await import("@electric-sql/pglite/node-postgres")
            // PGlite is one backend: one connection, which a transaction holds for its whole length.
            const pool = new pg.Pool({ ...createPgConfig(db), max: 1, idleTimeoutMillis: 0 })
            pool.on("error", () => {})
            return pool
          },
          catch: (error) => failure(directory, error)
        }),
        (pool) => Effect.promise(() => pool.end().catch(() => undefined))
      )
    }),
    { vacuumOnSweep: true }
  )
