/**
 * The PostgreSQL the database tests use: started by the suite itself on 127.0.0.1 and a free
 * port, reached through @effect/sql-pg as any PostgreSQL, stopped afterwards; a wrong password's
 * error never holds the password.
 */
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { closedFolder, testPostgres } from "./postgres.js"

const TIMEOUT = 120_000

describe("the tests' PostgreSQL", () => {
  it.live(
    "runs on 127.0.0.1, stores and reads JSONB through @effect/sql-pg, and keeps a wrong password out of errors",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const pg = yield* testPostgres
          const connected = PgClient.layer({ host: pg.host, port: pg.port, username: pg.username, password: pg.password, database: pg.database })
          const rows = yield* Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            yield* sql`create table scans (id text primary key, payload jsonb not null)`
            yield* sql`insert into scans ${sql.insert({ id: "a", payload: JSON.stringify({ heightMm: 1755 }) })}`
            return yield* sql<{
              id: string
              height: number
              address: string
            }>`select id, (payload->>'heightMm')::int as height, host(inet_server_addr()) as address from scans`
          }).pipe(Effect.provide(connected))
          expect(rows).toEqual([{ id: "a", height: 1755, address: "127.0.0.1" }])

          const wrong = "not-the-password-" + Redacted.value(pg.password).slice(0, 6)
          const refused = yield* Effect.flip(
            Effect.flatMap(SqlClient.SqlClient, (sql) => sql`select 1`).pipe(
              Effect.provide(PgClient.layer({ host: pg.host, port: pg.port, username: pg.username, password: Redacted.make(wrong), database: pg.database }))
            )
          )
          expect(JSON.stringify(refused) + String(refused)).not.toContain(wrong)
          expect(JSON.stringify(refused) + String(refused)).not.toContain(Redacted.value(pg.password))
        })
      ),
    TIMEOUT
  )
})

describe("the tests' PostgreSQL, where it cannot run", () => {
  it("names the folder that keeps the postgres user from its binaries (run as root), rather than waiting on a start that never comes", () => {
    const base = mkdtempSync(join(tmpdir(), "scanbridge-closed-"))
    try {
      const closed = join(base, "clone")
      mkdirSync(join(closed, "node_modules", "bin"), { recursive: true })
      chmodSync(closed, 0o700)
      chmodSync(base, 0o755)
      const expected = process.getuid?.() === 0 ? closed : undefined
      expect(closedFolder(join(closed, "node_modules", "bin"))).toBe(expected)
      chmodSync(closed, 0o755)
      expect(closedFolder(join(closed, "node_modules", "bin"))).toBe(process.getuid?.() === 0 ? closedFolder(base) : undefined)
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})
