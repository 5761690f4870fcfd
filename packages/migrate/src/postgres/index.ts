/**
 * @scanbridge/migrate/postgres: PostgreSQL as a migration's source (a query's rows, streamed
 * through a cursor) and as its sink (a table of scans and one of rejects, upserted a chunk at a
 * time in transactions). Needs `pg`, an optional peer dependency of @scanbridge/migrate.
 */
export { PostgresError } from "./errors.js"
export type { PostgresOptions } from "./connection.js"
export { type PostgresSink, type PostgresSinkOptions, postgresSink, sinkInput } from "./sink.js"
export { type PostgresSource, type PostgresSourceOptions, postgresSource } from "./source.js"
export { REJECTS_SUFFIX } from "./schema.js"
