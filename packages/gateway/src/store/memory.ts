/**
 * The store in this process's memory: for tests and for trying the gateway out. It forgets
 * everything when the process ends, so a gateway that must survive a restart uses the embedded
 * or the PostgreSQL store.
 */
import { Effect, Layer, Option } from "effect"
import {
  type EstimationRecord,
  GatewayStore,
  GatewayStoreError,
  type GatewayStoreService,
  type Pattern,
  type SessionRecord,
  type TokenRecord
} from "../store.js"

// As the SQL store refuses a second record with one id (its primary key): ids are random, and
// overwriting would hand one client's record to another.
const exists = (method: string) => new GatewayStoreError({ message: `GatewayStore.${method}: a record with this id exists already (23505)` })

export const makeMemoryStore = (): GatewayStoreService => {
  const sessions = new Map<string, SessionRecord>()
  const claimed = new Set<string>()
  const tokens = new Map<string, TokenRecord>()
  const estimations = new Map<string, EstimationRecord>()
  const photos = new Map<string, Partial<Record<Pattern, Uint8Array>>>()
  const update = (id: string, f: (e: EstimationRecord) => EstimationRecord) => {
    const e = estimations.get(id)
    if (e !== undefined) estimations.set(id, f(e))
  }
  return {
    createSession: (s) => Effect.suspend(() => (sessions.has(s.ssid) ? Effect.fail(exists("createSession")) : Effect.sync(() => void sessions.set(s.ssid, s)))),
    createSessionUnlessOpen: (s, openAfter) =>
      Effect.suspend(() => {
        if (sessions.has(s.ssid)) return Effect.fail(exists("createSessionUnlessOpen"))
        for (const other of sessions.values())
          if (other.customScanId === s.customScanId && other.scanId === null && other.expiresAt > openAfter) return Effect.succeed(false)
        sessions.set(s.ssid, s)
        return Effect.succeed(true)
      }),
    session: (ssid) => Effect.sync(() => Option.fromNullable(sessions.get(ssid))),
    claimScan: (ssid, scanId) =>
      Effect.sync(() => {
        const s = sessions.get(ssid)
        if (s === undefined) return false
        if (s.scanId !== null) return s.scanId === scanId
        if (claimed.has(scanId)) return false
        claimed.add(scanId)
        sessions.set(ssid, { ...s, scanId })
        return true
      }),
    openSessionWith: (customScanId, now) =>
      Effect.sync(() => [...sessions.values()].some((s) => s.customScanId === customScanId && s.scanId === null && s.expiresAt > now)),
    issueToken: (t) => Effect.suspend(() => (tokens.has(t.tokenHash) ? Effect.fail(exists("issueToken")) : Effect.sync(() => void tokens.set(t.tokenHash, t)))),
    token: (hash) => Effect.sync(() => Option.fromNullable(tokens.get(hash))),
    createEstimation: (e) =>
      Effect.suspend(() =>
        estimations.has(e.id)
          ? Effect.fail(exists("createEstimation"))
          : Effect.sync(() => void estimations.set(e.id, { ...e, received: [], scanId: null, creatingUntil: null }))
      ),
    estimation: (id) => Effect.sync(() => Option.fromNullable(estimations.get(id))),
    putPhoto: (id, pattern, jpeg) =>
      Effect.suspend(() => {
        const e = estimations.get(id)
        if (e === undefined) return Effect.fail(new GatewayStoreError({ message: "GatewayStore.putPhoto: no such estimation" }))
        // Once the platform has the scan, a photo is not kept: nothing would ever delete it.
        if (e.scanId === null) photos.set(id, { ...photos.get(id), [pattern]: jpeg })
        const updated = e.received.includes(pattern) ? e : { ...e, received: [...e.received, pattern] }
        estimations.set(id, updated)
        return Effect.succeed(updated)
      }),
    photos: (id) =>
      Effect.sync(() => {
        const p = photos.get(id)
        return p?.front !== undefined && p.right !== undefined ? Option.some({ front: p.front, right: p.right }) : Option.none()
      }),
    leaseCreation: (id, now, until) =>
      Effect.sync(() => {
        const e = estimations.get(id)
        if (e === undefined || e.scanId !== null || (e.creatingUntil !== null && e.creatingUntil > now)) return false
        estimations.set(id, { ...e, creatingUntil: until })
        return true
      }),
    scanCreated: (id, scanId) =>
      Effect.sync(() => {
        photos.delete(id)
        update(id, (e) => ({ ...e, scanId, creatingUntil: null }))
      }),
    releaseCreation: (id) => Effect.sync(() => update(id, (e) => ({ ...e, creatingUntil: null }))),
    sweep: ({ now, sessionsBefore, photosBefore, estimationsBefore }) =>
      Effect.sync(() => {
        for (const [k, t] of tokens) if (t.expiresAt <= now) tokens.delete(k)
        for (const [k, s] of sessions) if (s.expiresAt <= sessionsBefore && s.scanId === null) sessions.delete(k)
        for (const [k, e] of estimations) {
          if (e.createdAt < photosBefore) photos.delete(k)
          if (e.createdAt < estimationsBefore) estimations.delete(k)
        }
      })
  }
}

export const memoryStoreLayer: Layer.Layer<GatewayStore> = Layer.sync(GatewayStore, makeMemoryStore)
