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
    return new PostgresError({ operation, code, message: `${operation}: ${scrub(message, url)}${hintOf(code, message)}` })
  }

  /**
   * This error said of one database of several (a run reads from one and writes into another):
   * its message begins with `name`, such as the flag that gave its URL (`--from`).
   */
  on(name: string | undefined): PostgresError {
    return name === undefined || this.message.startsWith(`${name}: `)
      ? this
      : new PostgresError({ operation: this.operation, code: this.code, message: `${name}: ${this.message}` })
  }
}

/**
 * What to do about the failures whose driver message does not say: a password the server asks for
 * and that was never given (SCRAM: the driver's "client password must be a string"; md5 or plain:
 * the server's "empty password returned by client"; `pg` takes it from the URL, else from
 * PGPASSWORD), one it refuses, a server that does not answer.
 */
const hintOf = (code: string | null, message: string): string => {
  if (/password must be a string|empty password|no password supplied/i.test(message)) {
    return " (the server asks for a password, and none was given: set PGPASSWORD, or give it in the URL, postgres://USER:PASSWORD@HOST/DATABASE)"
  }
  if (code === "28P01") return " (the password, from the URL or else PGPASSWORD, is not this user's: check it)"
  if (code === "ECONNREFUSED") return " (no server accepts connections there: is it running, and are the URL's host and port right?)"
  return ""
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
