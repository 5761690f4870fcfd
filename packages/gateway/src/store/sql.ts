/**
 * The store in SQL: one implementation over @effect/sql's SqlClient, which the embedded store
 * (PGlite) and PostgreSQL both provide through node-postgres, so that the same statements, types
 * and migrations run on both.
 *
 * Every method is one statement, or one transaction, whose outcome two instances on one
 * PostgreSQL agree on: claims and leases are decided by a unique constraint or by a conditional
 * UPDATE, never by a read followed by a write. Two that need a fresh look after a lock are
 * transactions at READ COMMITTED, whose every statement sees what committed before it began:
 * `scanCreated` marks the estimation (taking its row lock, so an upload in flight finishes first)
 * and only then deletes the photos, so a photo can never outlive the scan's creation; an upload
 * that comes after sees the scan and keeps nothing. `createSessionUnlessOpen` takes a
 * transaction-scoped advisory lock on the customScanId's hash before it looks for an open
 * session, so two creates with one customScanId, on any instances, store at most one session.
 * `claimScan` is decided by its INSERT; the read after a lost one only tells a repeated claim
 * (true) from a rival's (false), and a claim, once made, is never undone.
 *
 * A deleted photo's bytes stay in the database's files until VACUUM reuses their space (and in
 * its WAL until that is recycled), as with any PostgreSQL: autovacuum sees to it on a server,
 * each sweep on the embedded store (embedded.ts).
 *
 * Errors are GatewayStoreError, named after the method, with the reason and PostgreSQL's SQLSTATE
 * (or the socket's code), and nothing else: a driver's own message or detail may quote a value
 * (a failing row holds a photo or a user's stats), so it is not kept, not even as the cause.
 */
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Array as Arr, Effect, Option, type ParseResult, Redacted, Schema } from "effect"
import { type EstimationRecord, GatewayStoreError, type GatewayStoreService, type SessionRecord, type TokenRecord } from "../store.js"
import { MIGRATION_LOCK, MIGRATIONS, SESSION_LOCK_SPACE } from "./schema.js"

// bigint columns arrive as text (node-postgres reads int8 so, since not every one fits a number).
const Millis = Schema.NumberFromString
const PatternSchema = Schema.Literal("front", "right")

const SessionRow = Schema.Struct({
  ssid: Schema.String,
  client_scanning_id: Schema.String,
  custom_scan_id: Schema.String,
  client_key: Schema.String,
  language: Schema.String,
  avatar: Schema.Boolean,
  scan_token: Schema.String,
  created_at: Millis,
  expires_at: Millis,
  scan_id: Schema.NullOr(Schema.String)
})

const TokenRow = Schema.Struct({
  token_hash: Schema.String,
  uid: Schema.String,
  client_key: Schema.String,
  expires_at: Millis
})

const EstimationRow = Schema.Struct({
  id: Schema.String,
  client_key: Schema.String,
  age: Schema.Number,
  gender: Schema.Literal("male", "female"),
  height_mm: Schema.Number,
  weight_g: Schema.Number,
  language: Schema.String,
  created_at: Millis,
  received: Schema.Array(PatternSchema),
  scan_id: Schema.NullOr(Schema.String),
  creating_until: Schema.NullOr(Millis)
})

const PhotoRow = Schema.Struct({ pattern: PatternSchema, jpeg: Schema.Uint8ArrayFromSelf })
const Flag = Schema.Struct({ flag: Schema.Boolean })
const Version = Schema.Struct({ version: Schema.Number })
const ScanId = Schema.Struct({ scan_id: Schema.String })

const sessionOf = (row: typeof SessionRow.Type): SessionRecord => ({
  ssid: row.ssid,
  clientScanningId: row.client_scanning_id,
  customScanId: row.custom_scan_id,
  clientKey: row.client_key,
  language: row.language,
  avatar: row.avatar,
  scanToken: Redacted.make(row.scan_token),
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  scanId: row.scan_id
})

const tokenOf = (row: typeof TokenRow.Type): TokenRecord => ({
  tokenHash: row.token_hash,
  uid: row.uid,
  clientKey: row.client_key,
  expiresAt: row.expires_at
})

const estimationOf = (row: typeof EstimationRow.Type): EstimationRecord => ({
  id: row.id,
  clientKey: row.client_key,
  stats: { age: row.age, gender: row.gender, heightMm: row.height_mm, weightG: row.weight_g },
  language: row.language,
  createdAt: row.created_at,
  received: row.received,
  scanId: row.scan_id,
  creatingUntil: row.creating_until
})

// node-postgres hands bytea as a Buffer: the same bytes, as the plain Uint8Array the memory store gives.
const bytesOf = (buffer: Uint8Array): Uint8Array => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)

/** Why a statement failed, in words that hold no value of any row: the codes, never the driver's text. */
const reasonOf = (error: SqlError | ParseResult.ParseError | GatewayStoreError): string => {
  if (error._tag === "GatewayStoreError") return error.message
  if (error._tag === "ParseError") return "the database holds a row this gateway cannot read (was it written by another version?)"
  const cause: unknown = error.cause
  const code = typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined
  const text = cause instanceof Error ? cause.message : ""
  if (code === "23505") return "a record with this id exists already (23505)"
  if (code === "57014") return "the statement took longer than the store's timeout (57014)"
  if (code === "28P01" || code === "28000") return `the database refused the credentials (${code})`
  if (code === "3D000") return "the database named in the URL does not exist (3D000)"
  if (code?.startsWith("57P") === true) return `the database is shutting down or restarting (${code})`
  if (code?.startsWith("08") === true) return `the connection to the database failed (${code})`
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) return `the database refused the statement (SQLSTATE ${code})`
  if (code !== undefined) return `the database cannot be reached (${code})`
  if (/timeout/i.test(text)) return "the database did not answer within the store's timeout"
  if (/terminated|ended|closed|not queryable/i.test(text)) return "the connection to the database was lost"
  return `the database failed (${error.message})`
}

/**
 * A method's failures as GatewayStoreError. A transaction whose COMMIT fails (the database gone
 * at that moment) dies in @effect/sql rather than failing: that death is a failure here too.
 */
const guard =
  (method: string) =>
  <A, R>(effect: Effect.Effect<A, SqlError | ParseResult.ParseError | GatewayStoreError, R>): Effect.Effect<A, GatewayStoreError, R> =>
    effect.pipe(
      Effect.catchSomeDefect((defect) => (defect instanceof SqlError ? Option.some(Effect.fail(defect)) : Option.none())),
      Effect.mapError((error) => new GatewayStoreError({ message: `GatewayStore.${method}: ${reasonOf(error)}` }))
    )

const decode =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>, ParseResult.ParseError> =>
    Schema.decodeUnknown(Schema.Array(schema))(rows)

/**
 * Brings the database to the newest schema. Under PostgreSQL's advisory lock, in one transaction:
 * an instance that starts while another migrates waits for it, then finds every migration
 * recorded. A database some newer gateway migrated further is refused, not written to.
 */
export const migrate: Effect.Effect<void, GatewayStoreError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK}::bigint)`
      yield* sql`CREATE TABLE IF NOT EXISTS gateway_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`
      const applied = new Set((yield* sql`SELECT version FROM gateway_migrations`.pipe(Effect.flatMap(decode(Version)))).map((row) => row.version))
      const known = Math.max(0, ...MIGRATIONS.map((m) => m.version))
      const newest = Math.max(0, ...applied)
      if (newest > known) {
        return yield* new GatewayStoreError({
          message: `the store's schema is at version ${newest}, newer than this gateway's ${known}: run the newer gateway, or a store of its own`
        })
      }
      for (const migration of MIGRATIONS) {
        if (applied.has(migration.version)) continue
        for (const statement of migration.statements) yield* sql.unsafe(statement)
        yield* sql`INSERT INTO gateway_migrations (version, name) VALUES (${migration.version}, ${migration.name})`
      }
    })
  )
}).pipe(guard("migrate"))

export interface SqlStoreOptions {
  /**
   * VACUUM after each sweep. For PGlite, which runs PostgreSQL as one backend with no autovacuum:
   * without it, the space of every deleted photo stays in the files for good.
   */
  readonly vacuumOnSweep?: boolean
}

/** The store over the SqlClient in context, once its database is migrated. */
export const makeSqlStore = (options: SqlStoreOptions = {}): Effect.Effect<GatewayStoreService, GatewayStoreError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    yield* migrate
    const sql = yield* SqlClient.SqlClient

    const estimationRow = (rows: ReadonlyArray<unknown>) => Effect.map(decode(EstimationRow)(rows), (found) => Option.map(Arr.head(found), estimationOf))

    return {
      createSession: (s) =>
        guard("createSession")(
          sql`INSERT INTO gateway_sessions (ssid, client_scanning_id, custom_scan_id, client_key, language, avatar, scan_token, created_at, expires_at)
            VALUES (${s.ssid}, ${s.clientScanningId}, ${s.customScanId}, ${s.clientKey}, ${s.language}, ${s.avatar}, ${Redacted.value(s.scanToken)}, ${s.createdAt}, ${s.expiresAt})`.pipe(
            Effect.asVoid
          )
        ),

      createSessionUnlessOpen: (s, openAfter) =>
        guard("createSessionUnlessOpen")(
          // Creates with one customScanId wait for each other on a lock of that id (a transaction
          // lock, in a key space of its own), so the second one's look for an open session, a
          // statement begun after the first committed, sees the first's session.
          sql
            .withTransaction(
              Effect.zipRight(
                sql`SELECT pg_advisory_xact_lock(${SESSION_LOCK_SPACE}, hashtext(${s.customScanId}))`,
                sql`INSERT INTO gateway_sessions (ssid, client_scanning_id, custom_scan_id, client_key, language, avatar, scan_token, created_at, expires_at)
                SELECT ${s.ssid}::text, ${s.clientScanningId}::text, ${s.customScanId}::text, ${s.clientKey}::text, ${s.language}::text,
                       ${s.avatar}::boolean, ${Redacted.value(s.scanToken)}::text, ${s.createdAt}::bigint, ${s.expiresAt}::bigint
                WHERE NOT EXISTS (
                  SELECT 1 FROM gateway_sessions o
                  WHERE o.custom_scan_id = ${s.customScanId} AND o.expires_at > ${openAfter}
                    AND NOT EXISTS (SELECT 1 FROM gateway_claims c WHERE c.ssid = o.ssid)
                )
                RETURNING ssid`
              )
            )
            .pipe(Effect.map((rows) => rows.length > 0))
        ),

      session: (ssid) =>
        guard("session")(
          sql`SELECT s.ssid, s.client_scanning_id, s.custom_scan_id, s.client_key, s.language, s.avatar, s.scan_token, s.created_at, s.expires_at, c.scan_id
            FROM gateway_sessions s LEFT JOIN gateway_claims c ON c.ssid = s.ssid
            WHERE s.ssid = ${ssid}`.pipe(
            Effect.flatMap(decode(SessionRow)),
            Effect.map((rows) => Option.map(Arr.head(rows), sessionOf))
          )
        ),

      claimScan: (ssid, scanId) =>
        guard("claimScan")(
          Effect.gen(function* () {
            // The constraints decide: this insert wins only if the scan is no session's and the session holds no scan.
            const won = yield* sql`INSERT INTO gateway_claims (scan_id, ssid)
                                 SELECT ${scanId}::text, ssid FROM gateway_sessions WHERE ssid = ${ssid}
                                 ON CONFLICT DO NOTHING RETURNING ssid`
            if (won.length > 0) return true
            // Lost, or no such session: still right if this very claim was made before (the same
            // poll, here or on another instance). A claim is never undone, so this read is final.
            const held = yield* sql`SELECT scan_id FROM gateway_claims WHERE ssid = ${ssid}`.pipe(Effect.flatMap(decode(ScanId)))
            return held[0]?.scan_id === scanId
          })
        ),

      openSessionWith: (customScanId, now) =>
        guard("openSessionWith")(
          sql`SELECT EXISTS (
              SELECT 1 FROM gateway_sessions s
              WHERE s.custom_scan_id = ${customScanId} AND s.expires_at > ${now}
                AND NOT EXISTS (SELECT 1 FROM gateway_claims c WHERE c.ssid = s.ssid)
            ) AS flag`.pipe(
            Effect.flatMap(decode(Flag)),
            Effect.map((rows) => rows[0]?.flag === true)
          )
        ),

      issueToken: (t) =>
        guard("issueToken")(
          sql`INSERT INTO gateway_tokens (token_hash, uid, client_key, expires_at)
            VALUES (${t.tokenHash}, ${t.uid}, ${t.clientKey}, ${t.expiresAt})`.pipe(Effect.asVoid)
        ),

      token: (tokenHash) =>
        guard("token")(
          sql`SELECT token_hash, uid, client_key, expires_at FROM gateway_tokens WHERE token_hash = ${tokenHash}`.pipe(
            Effect.flatMap(decode(TokenRow)),
            Effect.map((rows) => Option.map(Arr.head(rows), tokenOf))
          )
        ),

      createEstimation: (e) =>
        guard("createEstimation")(
          sql`INSERT INTO gateway_estimations (id, client_key, age, gender, height_mm, weight_g, language, created_at)
            VALUES (${e.id}, ${e.clientKey}, ${e.stats.age}, ${e.stats.gender}, ${e.stats.heightMm}, ${e.stats.weightG}, ${e.language}, ${e.createdAt})`.pipe(
            Effect.asVoid
          )
        ),

      estimation: (id) => guard("estimation")(sql`SELECT * FROM gateway_estimations WHERE id = ${id}`.pipe(Effect.flatMap(estimationRow))),

      putPhoto: (id, pattern, jpeg) =>
        guard("putPhoto")(
          // The UPDATE takes the estimation's row lock and reads its latest state: once its scan is
          // recorded, the photo is not kept (the platform has the scan; a photo kept then would
          // never be deleted by scanCreated).
          sql`WITH e AS (
              UPDATE gateway_estimations
              SET received = CASE WHEN ${pattern}::text = ANY (received) THEN received ELSE array_append(received, ${pattern}::text) END
              WHERE id = ${id}
              RETURNING *
            ), kept AS (
              INSERT INTO gateway_photos (estimation_id, pattern, jpeg)
              SELECT e.id, ${pattern}::text, ${jpeg}::bytea FROM e WHERE e.scan_id IS NULL
              ON CONFLICT (estimation_id, pattern) DO UPDATE SET jpeg = EXCLUDED.jpeg
            )
            SELECT * FROM e`.pipe(
            Effect.flatMap(estimationRow),
            Effect.flatMap(
              Option.match({
                onNone: () => Effect.fail(new GatewayStoreError({ message: "GatewayStore.putPhoto: no such estimation" })),
                onSome: Effect.succeed
              })
            )
          )
        ),

      photos: (id) =>
        guard("photos")(
          sql`SELECT pattern, jpeg FROM gateway_photos WHERE estimation_id = ${id}`.pipe(
            Effect.flatMap(decode(PhotoRow)),
            Effect.map((rows) => {
              const front = rows.find((row) => row.pattern === "front")
              const right = rows.find((row) => row.pattern === "right")
              return front !== undefined && right !== undefined ? Option.some({ front: bytesOf(front.jpeg), right: bytesOf(right.jpeg) }) : Option.none()
            })
          )
        ),

      leaseCreation: (id, now, until) =>
        guard("leaseCreation")(
          // A second caller waits on the row lock, then sees the first one's lease and updates nothing.
          sql`UPDATE gateway_estimations SET creating_until = ${until}
            WHERE id = ${id} AND scan_id IS NULL AND (creating_until IS NULL OR creating_until <= ${now})
            RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))
        ),

      scanCreated: (id, scanId) =>
        guard("scanCreated")(
          sql
            .withTransaction(
              Effect.zipRight(
                sql`UPDATE gateway_estimations SET scan_id = ${scanId}, creating_until = NULL WHERE id = ${id}`,
                sql`DELETE FROM gateway_photos WHERE estimation_id = ${id}`
              )
            )
            .pipe(Effect.asVoid)
        ),

      releaseCreation: (id) => guard("releaseCreation")(sql`UPDATE gateway_estimations SET creating_until = NULL WHERE id = ${id}`.pipe(Effect.asVoid)),

      sweep: ({ now, sessionsBefore, photosBefore, estimationsBefore }) =>
        guard("sweep")(
          // Photos go with their estimation (ON DELETE CASCADE); a session that holds a scan stays,
          // as the memory store's does, so that its results can still be read.
          sql`WITH tokens AS (
              DELETE FROM gateway_tokens WHERE expires_at <= ${now}
            ), sessions AS (
              DELETE FROM gateway_sessions s
              WHERE s.expires_at <= ${sessionsBefore} AND NOT EXISTS (SELECT 1 FROM gateway_claims c WHERE c.ssid = s.ssid)
            ), photos AS (
              DELETE FROM gateway_photos p USING gateway_estimations e WHERE p.estimation_id = e.id AND e.created_at < ${photosBefore} AND e.created_at >= ${estimationsBefore}
            ), estimations AS (
              DELETE FROM gateway_estimations WHERE created_at < ${estimationsBefore}
            )
            SELECT 1`.pipe(
            Effect.zipRight(
              options.vacuumOnSweep === true
                ? Effect.asVoid(sql`VACUUM gateway_photos, gateway_estimations, gateway_sessions, gateway_claims, gateway_tokens`)
                : Effect.void
            )
          )
        )
    } satisfies GatewayStoreService
  })
