/**
 * The one platform scan of an estimation: created from its stats and its two photos, with
 * customScanId = the estimation id, by exactly one caller at a time, and never twice.
 *
 * A caller takes the store's creation lease, then looks for a scan the platform already holds
 * with that customScanId (a create whose answer was lost, by this instance or by one that died)
 * and adopts it; only when there is none does it create one. The platform has the photos from
 * then on, so the store records the scan and deletes them in the same step.
 *
 * The lease runs ATTEMPT + SETTLE. An attempt (the lookup and the create) is cut at ATTEMPT, so
 * that no lease runs out under a create still in flight. A create that failed without saying
 * whether it created (a timeout, a lost connection, a 5xx) keeps the lease SETTLE longer, so
 * that a platform which finishes it late has stored the scan before anyone looks again; any
 * other failure gives the lease back at once. Either way the next upload or read tries again.
 *
 * Photos the platform never took are kept only so long (the gateway's photoRetention, then
 * swept): an estimation whose two photos came and went with no scan can never complete, and
 * says so (PhotosGone) rather than stay in progress for ever.
 */
import { Cause, Clock, Duration, Effect, Exit, Option } from "effect"
import { ApiTimeoutError } from "@scanbridge/http"
import { PlatformClient } from "@scanbridge/platform"
import { type EstimationRecord, GatewayStore, type GatewayStoreError } from "../store.js"
import { type PlatformFailure, failureKind, mayHaveCreated } from "./platform-failure.js"

/** Longest attempt to find or create a scan: past it, the attempt stops and counts as a timeout. */
export const ATTEMPT = Duration.minutes(1)
/** How long a create that may have succeeded keeps its lease after it failed. */
export const SETTLE = Duration.seconds(30)

const ATTEMPT_MS = Duration.toMillis(ATTEMPT)
const SETTLE_MS = Duration.toMillis(SETTLE)

/** Where an estimation's platform scan stands. */
export type ScanState =
  | { readonly _tag: "Created"; readonly scanId: string }
  /** A photo is missing, or another caller is creating the scan. */
  | { readonly _tag: "Waiting" }
  /** Both photos came, the store no longer holds them, and the platform has no scan of them. */
  | { readonly _tag: "PhotosGone" }

const created = (scanId: string): ScanState => ({ _tag: "Created", scanId })
const WAITING: ScanState = { _tag: "Waiting" }
const PHOTOS_GONE: ScanState = { _tag: "PhotosGone" }

/** Both photos are in. */
export const hasBothPhotos = (estimation: EstimationRecord): boolean => estimation.received.includes("front") && estimation.received.includes("right")

/** The attempt ran out of time, as a platform timeout: the create, if it was sent, may have created. */
const attemptTimedOut = () =>
  new ApiTimeoutError({
    api: "platform",
    method: "POST",
    url: "(the gateway's attempt to find or create an estimation's scan)",
    message: `finding or creating the scan took longer than ${Duration.format(ATTEMPT)}`,
    timeoutMs: ATTEMPT_MS
  })

/** The scan the platform holds with the estimation's id, or a new one from its photos. */
const findOrCreate = (estimation: EstimationRecord, sent: { value: boolean }) =>
  Effect.gen(function* () {
    const platform = yield* PlatformClient
    const store = yield* GatewayStore
    const found = yield* platform.listScans({ customScanId: estimation.id, direction: "ascending", limit: 1 })
    const existing = found.results[0]?.source.id
    if (existing !== undefined && existing !== null) return created(existing)
    const photos = yield* store.photos(estimation.id)
    if (Option.isNone(photos)) return PHOTOS_GONE
    const { front, right } = photos.value
    sent.value = true
    const scan = yield* platform.createScan({
      ...estimation.stats,
      photos: { front: Buffer.from(front).toString("base64"), right: Buffer.from(right).toString("base64") },
      customScanId: estimation.id
    })
    // The platform's scans always carry their id: the decoder refuses one without.
    return created(scan.source.id!)
  })

/**
 * The estimation's platform scan: recorded already, or found or created now. Fails with the
 * platform's error when the attempt failed; the lease is then given back, or kept SETTLE longer
 * (see above).
 */
export const ensureScan = (estimation: EstimationRecord): Effect.Effect<ScanState, PlatformFailure | GatewayStoreError, GatewayStore | PlatformClient> =>
  Effect.gen(function* () {
    if (estimation.scanId !== null) return created(estimation.scanId)
    if (!hasBothPhotos(estimation)) return WAITING
    const store = yield* GatewayStore
    const now = yield* Clock.currentTimeMillis
    const until = now + ATTEMPT_MS + SETTLE_MS
    if (!(yield* store.leaseCreation(estimation.id, now, until))) {
      // Another caller holds it, or has just recorded the scan.
      const current = yield* store.estimation(estimation.id)
      const scanId = Option.getOrNull(current)?.scanId ?? null
      return scanId === null ? WAITING : created(scanId)
    }
    const sent = { value: false }
    // Whatever ends the attempt, its outcome is recorded, even when the request is interrupted.
    return yield* Effect.uninterruptibleMask((restore) =>
      restore(findOrCreate(estimation, sent).pipe(Effect.timeoutFail({ duration: ATTEMPT, onTimeout: attemptTimedOut }))).pipe(
        Effect.exit,
        Effect.flatMap((exit) => settle(estimation.id, until, sent.value, exit))
      )
    )
  })

const settle = (
  id: string,
  until: number,
  sent: boolean,
  exit: Exit.Exit<ScanState, PlatformFailure | GatewayStoreError>
): Effect.Effect<ScanState, PlatformFailure | GatewayStoreError, GatewayStore> =>
  Effect.gen(function* () {
    const store = yield* GatewayStore
    if (Exit.isSuccess(exit)) {
      if (exit.value._tag === "Created") yield* store.scanCreated(id, exit.value.scanId)
      else yield* store.releaseCreation(id)
      return exit.value
    }
    const error = Option.getOrUndefined(Cause.failureOption(exit.cause))
    // Interrupted (the client went away) with the create sent: it may have created too.
    const uncertain = sent && (error === undefined || (error._tag !== "GatewayStoreError" && mayHaveCreated(error)))
    if (uncertain) {
      // Our own lease ends at `until`: a lease "at until" is granted only while no one else has
      // taken it since, which makes this a compare-and-set of its end to SETTLE from now.
      yield* store.leaseCreation(id, until, (yield* Clock.currentTimeMillis) + SETTLE_MS)
    } else yield* store.releaseCreation(id)
    const kind = error === undefined ? "interrupted" : error._tag === "GatewayStoreError" ? error._tag : failureKind(error)
    yield* Effect.logWarning(`creating an estimation's platform scan failed (${kind}); the next upload or read tries again`).pipe(
      Effect.annotateLogs({ estimation: id, outcome: uncertain ? "may have created: looked for first, after the settle time" : "not created" })
    )
    return yield* Effect.failCause(exit.cause)
  })
