/**
 * The gateway's state: sessions, anonymous tokens, estimations, and photos awaiting their pair.
 * One interface, and one SQL implementation for an embedded PGlite on disk (the default) and a
 * PostgreSQL that several instances share (store/). Every method is one atomic step, so that two
 * instances, or one restarted, agree on who did what.
 */
import { Context, type Effect, type Option, type Redacted, Schema } from "effect"

export class GatewayStoreError extends Schema.TaggedError<GatewayStoreError>("@scanbridge/gateway/GatewayStoreError")("GatewayStoreError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

export interface SessionRecord {
  readonly ssid: string
  /** The request's clientScanningId, echoed in every response ("" when absent). */
  readonly clientScanningId: string
  /** The customScanId of the session's platform scan token, by which its scan is found. */
  readonly customScanId: string
  /** SHA-256 of the client id that created it. */
  readonly clientKey: string
  readonly language: string
  readonly avatar: boolean
  /** The platform scan token, for the hosted scanner. A JWT the platform calls safe to give a device. */
  readonly scanToken: Redacted.Redacted<string>
  /** Epoch milliseconds. */
  readonly createdAt: number
  /** Epoch milliseconds: the scan token's expiry. */
  readonly expiresAt: number
  /** The platform scan this session's token created, once found. */
  readonly scanId: string | null
}

export interface TokenRecord {
  /** SHA-256 of the access token: the token itself is never stored. */
  readonly tokenHash: string
  readonly uid: string
  readonly clientKey: string
  readonly expiresAt: number
}

export type Pattern = "front" | "right"

export interface EstimationRecord {
  readonly id: string
  readonly clientKey: string
  readonly stats: { readonly age: number; readonly gender: "male" | "female"; readonly heightMm: number; readonly weightG: number }
  readonly language: string
  readonly createdAt: number
  /** The patterns received so far. */
  readonly received: ReadonlyArray<Pattern>
  /** The platform scan created with its photos, once created (or found again). */
  readonly scanId: string | null
  /** While an instance creates the platform scan: until when it holds the right to (epoch ms). */
  readonly creatingUntil: number | null
}

/**
 * Every store refuses a second record with one id (ssid, token hash, estimation id) with a
 * GatewayStoreError: ids are random, and overwriting would hand one client's record to another.
 */
/** What a sweep deletes, as epoch-millisecond bounds (see `GatewayStoreService.sweep`). */
export interface Sweep {
  readonly now: number
  readonly sessionsBefore: number
  readonly photosBefore: number
  readonly estimationsBefore: number
}

export interface GatewayStoreService {
  readonly createSession: (session: SessionRecord) => Effect.Effect<void, GatewayStoreError>
  /**
   * Stores the session unless another session, holding no scan and expiring after `openAfter`,
   * has its customScanId; false (nothing stored) when one has. One atomic step, across instances
   * too (two creates racing with one customScanId: at most one is stored), so that two sessions
   * waiting at once never share a customScanId and cannot be given each other's scans.
   */
  readonly createSessionUnlessOpen: (session: SessionRecord, openAfter: number) => Effect.Effect<boolean, GatewayStoreError>
  readonly session: (ssid: string) => Effect.Effect<Option.Option<SessionRecord>, GatewayStoreError>
  /**
   * Records that the session's scan is `scanId`. False when another session already holds that
   * scan (a clientScanningId given twice) or this one holds another: a scan belongs to one session.
   */
  readonly claimScan: (ssid: string, scanId: string) => Effect.Effect<boolean, GatewayStoreError>
  /** Whether a session not yet holding a scan, and not expired at `now`, has this customScanId. */
  readonly openSessionWith: (customScanId: string, now: number) => Effect.Effect<boolean, GatewayStoreError>

  readonly issueToken: (token: TokenRecord) => Effect.Effect<void, GatewayStoreError>
  readonly token: (tokenHash: string) => Effect.Effect<Option.Option<TokenRecord>, GatewayStoreError>

  readonly createEstimation: (estimation: Omit<EstimationRecord, "received" | "scanId" | "creatingUntil">) => Effect.Effect<void, GatewayStoreError>
  readonly estimation: (id: string) => Effect.Effect<Option.Option<EstimationRecord>, GatewayStoreError>
  /**
   * Keeps a photo until the platform has it; a second photo of one pattern replaces the first.
   * Once the estimation's scan is recorded the photo is received but not kept (nothing would
   * delete it); an unknown estimation is a GatewayStoreError.
   */
  readonly putPhoto: (id: string, pattern: Pattern, jpeg: Uint8Array) => Effect.Effect<EstimationRecord, GatewayStoreError>
  readonly photos: (id: string) => Effect.Effect<Option.Option<Readonly<Record<Pattern, Uint8Array>>>, GatewayStoreError>
  /**
   * Takes the right to create the estimation's platform scan until `until`: true for exactly one
   * caller while no scan is recorded and no other holder's right is still running at `now`.
   */
  readonly leaseCreation: (id: string, now: number, until: number) => Effect.Effect<boolean, GatewayStoreError>
  /** The platform has the scan: records its id, ends the lease and deletes the photos, in one step. */
  readonly scanCreated: (id: string, scanId: string) => Effect.Effect<void, GatewayStoreError>
  /** Gives the right back after a failed attempt, so that the next read tries again. */
  readonly releaseCreation: (id: string) => Effect.Effect<void, GatewayStoreError>
  /**
   * Deletes what no request needs any more: tokens expired at `now`; sessions holding no scan that
   * expired before `sessionsBefore`; the photos of estimations created before `photosBefore`
   * (their pair never came, or the platform never took them); and estimations (with their photos)
   * created before `estimationsBefore`.
   */
  readonly sweep: (sweep: Sweep) => Effect.Effect<void, GatewayStoreError>
}

export class GatewayStore extends Context.Tag("@scanbridge/gateway/GatewayStore")<GatewayStore, GatewayStoreService>() {}
