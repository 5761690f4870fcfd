/**
 * The store's schema, as one numbered list of migrations that the embedded store and PostgreSQL
 * both apply. A migration is never edited once released: a change is a new one at the end, so
 * that every store, whatever version made it, reaches the same tables.
 *
 * Tables carry the `gateway_` prefix so that a PostgreSQL database the integrator already uses
 * for something else can hold them too. Times are epoch milliseconds (bigint), as the store's
 * records have them; stats are double precision, so that whatever number the form gave reads
 * back as that number.
 */

export interface Migration {
  readonly version: number
  readonly name: string
  /** One statement each: both back ends run them through the extended protocol, which takes one. */
  readonly statements: ReadonlyArray<string>
}

export const MIGRATIONS: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: "sessions, claims, tokens, estimations, photos",
    statements: [
      `CREATE TABLE gateway_sessions (
        ssid text PRIMARY KEY,
        client_scanning_id text NOT NULL,
        custom_scan_id text NOT NULL,
        client_key text NOT NULL,
        language text NOT NULL,
        avatar boolean NOT NULL,
        scan_token text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL
      )`,
      "CREATE INDEX gateway_sessions_custom_scan_id ON gateway_sessions (custom_scan_id)",
      "CREATE INDEX gateway_sessions_expires_at ON gateway_sessions (expires_at)",
      // A scan belongs to one session (its primary key), a session holds one scan (unique ssid):
      // the two constraints are what make claimScan right between instances.
      `CREATE TABLE gateway_claims (
        scan_id text PRIMARY KEY,
        ssid text NOT NULL UNIQUE REFERENCES gateway_sessions (ssid) ON DELETE CASCADE
      )`,
      `CREATE TABLE gateway_tokens (
        token_hash text PRIMARY KEY,
        uid text NOT NULL,
        client_key text NOT NULL,
        expires_at bigint NOT NULL
      )`,
      "CREATE INDEX gateway_tokens_expires_at ON gateway_tokens (expires_at)",
      `CREATE TABLE gateway_estimations (
        id text PRIMARY KEY,
        client_key text NOT NULL,
        age double precision NOT NULL,
        gender text NOT NULL CHECK (gender IN ('male', 'female')),
        height_mm double precision NOT NULL,
        weight_g double precision NOT NULL,
        language text NOT NULL,
        created_at bigint NOT NULL,
        received text[] NOT NULL DEFAULT '{}',
        scan_id text,
        creating_until bigint
      )`,
      "CREATE INDEX gateway_estimations_created_at ON gateway_estimations (created_at)",
      `CREATE TABLE gateway_photos (
        estimation_id text NOT NULL REFERENCES gateway_estimations (id) ON DELETE CASCADE,
        pattern text NOT NULL CHECK (pattern IN ('front', 'right')),
        jpeg bytea NOT NULL,
        PRIMARY KEY (estimation_id, pattern)
      )`
    ]
  }
]

/**
 * The advisory lock a starting instance holds while it migrates, so that two instances starting
 * together on one PostgreSQL apply each migration once (the second waits, then finds it done).
 * Any constant will do, as long as nothing else in the database takes it: "SCANBRDG" in ASCII.
 */
export const MIGRATION_LOCK = "5999710932963574855"

/**
 * The first key of the advisory locks (two int4 keys: a space apart from MIGRATION_LOCK's one
 * bigint) that createSessionUnlessOpen takes on a customScanId's hash: "SB" + 1.
 */
export const SESSION_LOCK_SPACE = 21314001
