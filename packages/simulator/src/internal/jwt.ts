/** HS256 JSON Web Tokens (RFC 7519), enough for the simulator's scan tokens. */
import { createHmac, timingSafeEqual } from "node:crypto"

const b64url = (data: string | Buffer) => Buffer.from(data).toString("base64url")
const HEADER = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))

const signature = (secret: string, input: string) => createHmac("sha256", secret).update(input).digest()

export const sign = (secret: string, claims: object): string => {
  const input = `${HEADER}.${b64url(JSON.stringify(claims))}`
  return `${input}.${b64url(signature(secret, input))}`
}

/** The claims of a token signed with this secret, or a reason it is not one. */
export const verify = (secret: string, token: string): { readonly claims: Record<string, unknown> } | { readonly error: string } => {
  const parts = token.split(".")
  if (parts.length !== 3) return { error: "not a JWT" }
  const [header, payload, sig] = parts as [string, string, string]
  if (header !== HEADER) return { error: "unsupported JWT header" }
  const expected = signature(secret, `${header}.${payload}`)
  const given = Buffer.from(sig, "base64url")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { error: "bad token signature" }
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
    if (typeof claims !== "object" || claims === null) return { error: "malformed token claims" }
    return { claims: claims as Record<string, unknown> }
  } catch {
    return { error: "malformed token claims" }
  }
}
