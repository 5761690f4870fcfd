/**
 * Load: 200 estimation flows at once through the gateway, each with stats of its own and photos
 * of 256 KiB, all complete with their own results, and the memory they leave behind is flat.
 *
 * Memory is the V8 heap plus the ArrayBuffers (where photos live) after a collection, measured
 * after a warm-up round and again after the 200. The platform simulator runs in this process
 * and keeps every scan it is given, photos included, so each flow deletes its scan from the
 * platform once it has read the result: what stays is the gateway's. The bound is generous
 * (no timing, no tight figure), and half of the photos the 200 flows send: a gateway that kept
 * their photos would break it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { EstimationClient, makeJpeg } from "@scanbridge/estimation"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { GatewayHarness } from "./support/harness.js"
import { CLIENT_ID, run } from "./support/estimation.js"

// V8's gc(), without starting Node with --expose-gc.
setFlagsFromString("--expose-gc")
const collectGarbage = runInNewContext("gc") as () => void

const FLOWS = 200
const WARM_UP = 20
const PHOTO_BYTES = 128 * 1024
const PHOTO = makeJpeg(1080, 1920, { padTo: PHOTO_BYTES })
/** What the 200 flows' photos weigh: a leak of them is twice the bound. */
const SENT_BYTES = FLOWS * 2 * PHOTO_BYTES
const BOUND_BYTES = SENT_BYTES / 2

// A few turns of the event loop, for the servers to finish with the last responses.
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))

/** Heap and ArrayBuffers in use once what the flows let go is collected: the least of three looks. */
const memory = Effect.gen(function* () {
  let least = Number.POSITIVE_INFINITY
  for (let i = 0; i < 3; i++) {
    yield* settle
    collectGarbage()
    const { arrayBuffers, heapUsed } = process.memoryUsage()
    least = Math.min(least, heapUsed + arrayBuffers)
  }
  return least
})

/** One flow as integrators' code runs it, its stats its own; its platform scan deleted after. */
const flow = (i: number) =>
  Effect.gen(function* () {
    const { gatewayUrl, platform } = yield* GatewayHarness
    const client = yield* EstimationClient.make({ authUrl: gatewayUrl, estimationUrl: gatewayUrl, clientId: CLIENT_ID, measurementId: "ms_load" })
    const stats = { age: 20 + (i % 50), gender: i % 2 === 0 ? "female" : "male", heightMm: 1500 + i, weightG: 50_000 + 100 * i } as const
    const scan = yield* client.estimate(stats, { front: PHOTO, right: PHOTO })
    const page = yield* platform.listScans({ customScanId: scan.source.id! })
    const platformScan = yield* platform.getScan(page.results[0]!.source.id!)
    // A connection reset is the keep-alive race of a busy machine; an answer lost so was a delete done.
    yield* platform.deleteScan(platformScan.source.id!).pipe(
      Effect.retry({ times: 3, while: (e) => e._tag === "ApiTransportError" }),
      Effect.catchTag("PlatformAlreadyDeletedError", () => Effect.void)
    )
    return { stats, scan, platformScan, platformScans: page.results.length }
  })

describe("200 estimation flows at once", () => {
  it.effect(
    "all complete with their own results, and memory stays flat",
    () =>
      run(
        Effect.gen(function* () {
          yield* Effect.forEach(
            Array.from({ length: WARM_UP }, (_, i) => FLOWS + i),
            flow,
            { concurrency: "unbounded" }
          )
          const before = yield* memory
          const results = yield* Effect.forEach(
            Array.from({ length: FLOWS }, (_, i) => i),
            flow,
            { concurrency: "unbounded" }
          )
          const after = yield* memory
          for (const { platformScan, platformScans, scan, stats } of results) {
            expect(scan.status).toBe("success")
            expect(scan.subject).toEqual(stats)
            expect(platformScans).toBe(1)
            // Its own platform scan's lengths, to the millimetre the legacy shape writes.
            expect(Object.keys(scan.measurementsMm)).toHaveLength(33)
            for (const [name, mm] of Object.entries(scan.measurementsMm))
              expect([name, mm]).toEqual([name, Math.round(platformScan.measurementsMm[name as keyof typeof scan.measurementsMm]!)])
          }
          expect(new Set(results.map((r) => r.scan.source.id)).size).toBe(FLOWS)
          expect(after - before).toBeLessThan(BOUND_BYTES)
          const { store } = yield* GatewayHarness
          for (const { scan } of results) expect((yield* store.photos(scan.source.id!))._tag).toBe("None")
          yield* Effect.logInfo(
            `heap + array buffers: ${(before / 2 ** 20).toFixed(1)} MiB after the warm-up, ${(after / 2 ** 20).toFixed(1)} MiB after ${FLOWS} flows`
          )
        })
      ),
    // About a minute on a busy two-core machine: the limit only ends a hang.
    300_000
  )
})
