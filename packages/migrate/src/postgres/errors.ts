/** What can go wrong with a PostgreSQL source or sink, as one typed error that never holds a credential. */
import { Redacted, Schema } from "effect"

export class PostgresError extends Schema.TaggedError<PostgresError>("@scanbridge/migrate/PostgresError")("PostgresError", {
  /** What Scanbridge was doing: `connect`, `create table`, `write`, `read`, ... */
  operation: Schema.String,
  /** PostgreSQL's SQLSTATE, or the socket's code (`ECONNREFUSED`), when there is one. */
  code: Schema.NullOr(Schema.String),
  message: Schema.String
}) {
  /**
   * An error of the driver or the server, its message cleared of the connection URL and of the
   * password in it (a driver may quote what it was given).
   */
  static of(operation: string, url: Redacted.Redacted<string>, cause: unknown): PostgresError {
    const message = cause instanceof Error ? cause.message : String(cause)
    const code = typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : null
    return new PostgresError({ operation, code, message: `${operation}: ${scrub(message, url)}` })
  }
}

/** `text` without the URL, its password (as written and decoded) or its user info. */
export const scrub = (text: string, url: Redacted.Redacted<string>): string => {
  const raw = Redacted.value(url)
  const secrets = [raw]
  try {
    const parsed = new URL(raw)
    if (parsed.password !== "") secrets.push(parsed.password, decodeURIComponent(parsed.password))
  } catch {
    // Not a URL: the whole text is the only secret known.
  }
  let scrubbed = text
  for (const secret of secrets.filter((s) => s.length > 0).sort((a, b) => b.length - a.length)) scrubbed = scrubbed.split(secret).join("***")
  return scrubbed
}
