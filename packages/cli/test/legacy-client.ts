/**
 * The legacy integrator's calls, over plain HTTP, against any gateway's base URL: what old code
 * sends (forms, multipart, the Access-Token header) and reads. For the tests that run
 * `scanbridge gateway` as processes, where the gateway's URL changes from call to call.
 */
import { expect } from "@effect/vitest"
import { makeJpeg } from "@scanbridge/estimation"

export const STATS = { age: 35, gender: "female", heightMm: 1680, weightG: 61_000 } as const
export const PHOTO = makeJpeg(1080, 1920)

export interface Reply {
  readonly status: number
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: a test reads any JSON it is given
  readonly json: any
}

/** A request bounded only to end a hang: no gateway here takes seconds to answer. */
export const call = async (url: string, init: RequestInit = {}): Promise<Reply> => {
  const response = await fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(30_000) })
  const text = await response.text()
  return { status: response.status, text, json: text.startsWith("{") ? JSON.parse(text) : undefined }
}

/** The reply's JSON, once it is a 200 (the body said when it is not). */
// biome-ignore lint/suspicious/noExplicitAny: a test reads any JSON it is given
export const ok = (r: Reply): any => {
  expect(r.status, r.text).toBe(200)
  return r.json
}

/** Calls `next(i)` until `done` says so or a call fails, as legacy clients poll; the bound ends a hang, it times nothing. */
export const pollEach = async (next: (i: number) => Promise<Reply>, done: (r: Reply) => boolean): Promise<Reply> => {
  for (let i = 0; ; i++) {
    const r = await next(i)
    if (r.status !== 200 || done(r) || i === 150) return r
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** The legacy calls of one client id. */
export const legacyClient = (clientId: string) => {
  const form = (fields: Record<string, string | number>) =>
    new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)])).toString()
  return {
    createSession: async (gateway: string, clientScanningId: string): Promise<string> =>
      ok(
        await call(`${gateway}/scanning/v0/create-session`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ clientId, clientScanningId })
        })
      ).scanningSession.scanningSessionId,
    results: (gateway: string, ssid: string) => call(`${gateway}/scanning/v0/results/${ssid}`),
    /** The hosted scanner's address a gateway gives the integrator's back end for a session. */
    scanner: async (gateway: string, ssid: string): Promise<string> => ok(await call(`${gateway}/gateway/v0/sessions/${ssid}/scanner`)).url,
    token: async (gateway: string): Promise<string> => ok(await call(`${gateway}/tokens/anonymous?client_id=${clientId}`)).access_token,
    estimation: async (gateway: string, token: string, measurementId: string): Promise<string> =>
      ok(
        await call(`${gateway}/estimation`, {
          method: "POST",
          headers: { "access-token": token, "content-type": "application/x-www-form-urlencoded" },
          body: form({
            client_id: clientId,
            measurement_id: measurementId,
            height: STATS.heightMm,
            weight: STATS.weightG,
            age: STATS.age,
            gender: STATS.gender
          })
        })
      ).estimation_id,
    upload: (gateway: string, token: string, id: string, pattern: "front" | "right") => {
      const body = new FormData()
      body.set("client_id", clientId)
      body.set("pattern", pattern)
      body.set("image", new File([new Uint8Array(PHOTO)], `${pattern}.jpg`, { type: "image/jpeg" }))
      return call(`${gateway}/estimation/${id}/image`, { method: "POST", headers: { "access-token": token }, body })
    },
    read: (gateway: string, token: string, id: string) => call(`${gateway}/estimation/${id}?client_id=${clientId}`, { headers: { "access-token": token } })
  }
}
