/**
 * A session's scan on the platform: found by its token's customScanId, claimed in the store so
 * that it belongs to this session alone, and shaped as the session API reports a scan.
 */
import { Chunk, Effect, Option, Stream } from "effect"
import type { Scan } from "@scanbridge/model"
import { PlatformClient } from "@scanbridge/platform"
import { type SessionLanguage, sessionErrorMessage } from "@scanbridge/session"
import { GatewayStore, type SessionRecord } from "../store.js"

/**
 * How far the platform's clock may be behind the gateway's. A scan is looked for from this long
 * before its session was created, so that a slow clock on either side never hides it; and a
 * clientScanningId stays with the session that took it until this long after that session
 * expired, so that no scan an older session's token made can fall in a newer one's window.
 */
export const CLOCK_SKEW_MS = 5 * 60 * 1000

/**
 * The session's scan, if the platform holds it: the one the store has recorded, or the oldest
 * scan with the session's customScanId created in its window that no other session has claimed,
 * claimed now. Nothing is lost when a platform call fails: the claim is made before the scan is
 * read, and the next read finds the same scan.
 */
export const sessionScan = (session: SessionRecord) =>
  Effect.gen(function* () {
    const platform = yield* PlatformClient
    if (session.scanId !== null) return Option.some(yield* platform.getScan(session.scanId))
    const store = yield* GatewayStore
    const since = session.createdAt - CLOCK_SKEW_MS
    // Newest first (the platform's order), up to the first scan older than the window: a
    // clientScanningId an integrator reuses every day is not read back to its first day.
    const inWindow = yield* platform.listAllScans({ customScanId: session.customScanId }).pipe(
      Stream.takeWhile((s) => s.createdAt === null || Date.parse(s.createdAt) >= since),
      Stream.runCollect,
      // The list's URL carries the customScanId, which is the integrator's clientScanningId and
      // may be a user id: its spans (url.full, url.query) are not recorded.
      Effect.withTracerEnabled(false)
    )
    for (const candidate of Chunk.reverse(inWindow)) {
      const id = candidate.source.id
      if (id !== null && (yield* store.claimScan(session.ssid, id))) return Option.some(yield* platform.getScan(id))
    }
    return Option.none<Scan>()
  })

/**
 * A platform scan as the session API reports it: under the session's SSID and clientScanningId;
 * a failed scan as INVALID_USER_INPUT, in the session's language, the platform's code in
 * brackets (the platform fails a scan for what it was given, the photos or the stats; spec 02
 * documents no other results error that says so); no avatar (see session-api.ts).
 */
export const asSessionScan = (scan: Scan, session: SessionRecord, language: SessionLanguage): Scan => ({
  ...scan,
  source: { api: "session", id: session.ssid },
  externalId: session.clientScanningId === "" ? null : session.clientScanningId,
  createdAt: null,
  expiresAt: null,
  adjustment: null,
  avatar: null,
  notes: [],
  failure:
    scan.failure === null
      ? null
      : { code: "INVALID_USER_INPUT", category: "session", message: sessionErrorMessage(language, "INVALID_USER_INPUT", scan.failure.code) }
})
