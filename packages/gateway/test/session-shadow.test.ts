/**
 * Shadow traffic (as Diffy compares a candidate with the primary): the repository's own
 * SessionClient runs one flow twice, unchanged but for its base URL, against the legacy session
 * simulator (the primary; the user played by Simulator.session.submit) and against the gateway in
 * front of the platform simulator (the candidate; the user played by a photo scan created with the
 * session's token, as the hosted scanner creates it), with the same stats. The canonical scans it
 * returns must be equal but for the differences listed in DIFFERENCES, each checked to be what it
 * says, so that a new difference fails the test and a listed one that vanished does too.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import type { Scan } from "@scanbridge/model"
import { SessionClient, type SessionClientService } from "@scanbridge/session"
import { type Simulator, onTestClock } from "@scanbridge/simulator"
import { GatewayHarness, HARNESS_CLIENT_ID, type UserScan, harnessLayer, scanAsUser } from "./support/harness.js"

/**
 * What the platform cannot carry, or the gateway chooses not to, and so differs from the legacy
 * session API's scan; every other field of the canonical scan is equal.
 */
const DIFFERENCES = {
  "source.id": "the SSIDs: each server issues its own",
  "composition.skeletalMuscleMassG":
    "the platform reports no skeletal muscle mass (its body composition is body fat percentage, fat mass and lean mass), so the gateway's results have no SKELETAL_MUSCLE_MASS item",
  avatar:
    "left out by the gateway: the platform's avatar is a model file with a mesh of its own, and the session API's vertex list is drawn with the vendor's static index data (session-api.ts)",
  "failure.message": "a failed scan's message: the gateway's names the platform's failure code in brackets after the legacy message"
} as const

const SUBJECTS: ReadonlyArray<UserScan> = [
  { age: 34, gender: "female", heightMm: 1680, weightG: 61_000 },
  { age: 58, gender: "male", heightMm: 1925, weightG: 104_500 },
  { age: 19, gender: "female", heightMm: 1512, weightG: 47_200 }
]

// The legacy simulator accepts the gateway's client id, so one client setting serves both.
const layer = harnessLayer({ simulator: { session: { clientIds: [HARNESS_CLIENT_ID], processingMs: 3000 } } })

const clientOf = (baseUrl: string) =>
  SessionClient.make({ baseUrl, clientId: Redacted.make(HARNESS_CLIENT_ID), pollInterval: "2 seconds", maxWait: "10 minutes" })

/** Old code's flow: create a session, hand its SSID to the user, then poll until the results. */
const flow = (client: SessionClientService, user: (ssid: string) => Effect.Effect<unknown, unknown, GatewayHarness | Simulator>, avatar: boolean) =>
  Effect.gen(function* () {
    const created = yield* client.createSession({ clientScanningId: "order-shadow", languageCode: "ja", include3dAvatarInResults: avatar })
    yield* user(created.scanningSessionId)
    return { ssid: created.scanningSessionId, scan: yield* client.awaitResults(created.scanningSessionId) }
  })

/** Both runs of one flow: the legacy simulator's and the gateway's. */
const shadow = (subject: UserScan, avatar: boolean) =>
  Effect.gen(function* () {
    const { gatewayUrl, simulatorUrl, simulator } = yield* GatewayHarness
    const { failWith, ...stats } = subject
    const legacy = yield* flow(
      yield* clientOf(simulatorUrl),
      (ssid) => simulator.session.submit(ssid, { ...stats, ...(failWith === undefined ? {} : { outcome: "INVALID_USER_INPUT" as const }) }),
      avatar
    )
    const gateway = yield* flow(yield* clientOf(gatewayUrl), (ssid) => scanAsUser(ssid, subject), avatar)
    return { legacy, gateway }
  })

/** The scan with each field DIFFERENCES lists set aside: what must be equal. */
const comparable = (scan: Scan): unknown => {
  const copy = structuredClone(scan) as unknown as Record<string, Record<string, unknown> | null>
  for (const path of Object.keys(DIFFERENCES)) {
    const [head, leaf] = path.split(".") as [string, string | undefined]
    if (leaf === undefined) copy[head] = "(differs)" as never
    else if (copy[head] !== null && copy[head] !== undefined) copy[head]![leaf] = "(differs)"
  }
  return copy
}

describe("SessionClient, unchanged but for its base URL, against the legacy simulator and against the gateway", () => {
  for (const [i, subject] of SUBJECTS.entries()) {
    it.effect(`returns the same canonical scan but for the listed differences (subject ${i + 1}, avatar asked for: ${i === 0})`, () =>
      Effect.gen(function* () {
        const avatar = i === 0
        const { legacy, gateway } = yield* shadow(subject, avatar)
        expect(legacy.scan.status).toBe("success")
        expect(comparable(gateway.scan)).toEqual(comparable(legacy.scan))

        // Each listed difference is what it says.
        expect(legacy.scan.source).toEqual({ api: "session", id: legacy.ssid })
        expect(gateway.scan.source).toEqual({ api: "session", id: gateway.ssid })
        expect(legacy.scan.composition?.skeletalMuscleMassG).toBeGreaterThan(0)
        expect(gateway.scan.composition?.skeletalMuscleMassG).toBeNull()
        expect(legacy.scan.avatar?.format ?? null).toBe(avatar ? "vertices" : null)
        expect(gateway.scan.avatar).toBeNull()
        // And what old code reads most is there: every measurement, the subject, the posture.
        expect(Object.keys(gateway.scan.measurementsMm)).toHaveLength(Object.keys(legacy.scan.measurementsMm).length)
        expect(gateway.scan.subject).toEqual({ age: subject.age, gender: subject.gender, heightMm: subject.heightMm, weightG: subject.weightG })
        expect(gateway.scan.posture).not.toBeNull()
        expect(gateway.scan.notes).toEqual(legacy.scan.notes)
      }).pipe(Effect.provide(layer), onTestClock())
    )
  }

  it.effect("returns the same failed scan for a scan that failed on the user's input but for the message", () =>
    Effect.gen(function* () {
      const { legacy, gateway } = yield* shadow({ ...SUBJECTS[0]!, failWith: "personNotFound" }, false)
      expect(legacy.scan.status).toBe("failure")
      expect(comparable(gateway.scan)).toEqual(comparable(legacy.scan))
      expect(gateway.scan.failure).toEqual({ ...legacy.scan.failure, message: `${legacy.scan.failure?.message} (personNotFound)` })
    }).pipe(Effect.provide(layer), onTestClock())
  )
})
