/** URLs and headers as they may be shown: in errors, span attributes and logs. */
import * as Headers from "@effect/platform/Headers"

export const REDACTED = "<redacted>"

/** `url` with the value of every key in `secretKeys` (case-insensitive) replaced by <redacted>. */
export const redactUrl = (url: URL, secretKeys: ReadonlyArray<string>): string => {
  const secret = new Set(secretKeys.map((k) => k.toLowerCase()))
  if (url.search === "") return url.toString()
  const query = [...url.searchParams]
    .map(([key, value]) => `${encodeURIComponent(key)}=${secret.has(key.toLowerCase()) ? REDACTED : encodeURIComponent(value)}`)
    .join("&")
  return `${url.origin}${url.pathname}?${query}${url.hash}`
}

/** The headers as strings, the secret ones replaced by <redacted>. */
export const redactHeaders = (headers: Headers.Headers, secretNames: ReadonlyArray<string | RegExp>): Record<string, string> => {
  const redacted = Headers.redact(headers, secretNames)
  const out: Record<string, string> = {}
  for (const name in redacted) out[name] = typeof redacted[name] === "string" ? (redacted[name] as string) : REDACTED
  return out
}
