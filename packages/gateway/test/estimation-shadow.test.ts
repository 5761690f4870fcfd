/**
 * Shadow traffic: the repository's own EstimationClient runs one flow (token, create, the two
 * photos, polling to the result) against the legacy estimation simulator and against the
 * gateway in front of the platform simulator, with the same stats and photos, and the canonical
 * scans it reads back are compared, as Diffy compares a candidate with the primary.
 *
 * They are equal but for:
 * - ids and times: `source.id` (each server's estimation id) and `createdAt`;
 * - what the platform cannot carry: skeletal muscle mass (`composition.skeletalMuscleMassG`:
 *   the platform's body composition has body fat, fat mass and lean mass, and no skeletal
 *   muscle mass), and the legacy job's own `version` and `work_id`, which the platform has no
 *   job to give; the reader notes them when they are there, so its `notes` differ by those;
 * and in both length units the gateway writes (mm, cm).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { EstimationClient } from "@scanbridge/estimation"
import type { Scan } from "@scanbridge/model"
import { GatewayHarness } from "./support/harness.js"
import { CLIENT_ID, PHOTO, STATS, failingPhoto, run } from "./support/estimation.js"

/** The flow as integrators' code runs it, against the estimation API at `url`. */
const estimate = (url: string, photos: { readonly front: Uint8Array; readonly right: Uint8Array }) =>
  Effect.gen(function* () {
    const client = yield* EstimationClient.make({
      authUrl: url,
      estimationUrl: url,
      clientId: CLIENT_ID,
      measurementId: "ms_shadow",
      pollInterval: "5 seconds"
    })
    return yield* client.estimate(STATS, photos)
  })

/** A scan without what the two servers may differ in (see the module comment). */
const comparable = (scan: Scan) => ({
  ...scan,
  source: { api: scan.source.api, id: null },
  createdAt: null,
  composition: scan.composition === null ? null : { ...scan.composition, skeletalMuscleMassG: null },
  notes: scan.notes.filter((n) => !(n.kind === "dropped" && n.path === "estimation") && !n.path.endsWith("skeletal_muscle_mass"))
})

/** Both servers' scans of one flow; the legacy simulator writes lengths in `unit`, as the gateway is told to. */
const shadow = (unit: "mm" | "cm", photos = { front: PHOTO, right: PHOTO }) =>
  run(
    Effect.gen(function* () {
      const { gatewayUrl, simulatorUrl } = yield* GatewayHarness
      const legacy = yield* estimate(simulatorUrl, photos)
      const gateway = yield* estimate(gatewayUrl, photos)
      return { legacy, gateway }
    }),
    { gateway: { estimationLengthUnit: unit }, simulator: { estimation: { clientIds: [CLIENT_ID], lengthUnit: unit } } }
  )

describe("EstimationClient, shadowed: the legacy simulator and the gateway on the platform", () => {
  for (const unit of ["mm", "cm"] as const) {
    it.effect(`reads the same scan from both, lengths in ${unit}`, () =>
      Effect.gen(function* () {
        const { gateway, legacy } = yield* shadow(unit)
        expect(gateway.status).toBe("success")
        expect(Object.keys(gateway.measurementsMm)).toHaveLength(33)
        expect(comparable(gateway)).toEqual(comparable(legacy))
        // What differs is only what the module comment names: the job's note has its code alone.
        expect(gateway.notes.find((n) => n.path === "estimation")?.detail).toBe("code 101: the canonical scan does not record the estimation job")
        expect(gateway.source.id).not.toBe(legacy.source.id)
        expect(legacy.composition?.skeletalMuscleMassG).toBeGreaterThan(0)
        expect(gateway.composition?.skeletalMuscleMassG).toBeNull()
      })
    )
  }

  it.effect("reads a failed estimation as failed from both, with the code each server gives", () =>
    Effect.gen(function* () {
      const { gateway, legacy } = yield* shadow("mm", { front: failingPhoto("306"), right: PHOTO })
      expect(legacy.failure).toMatchObject({ code: "306", category: "estimation" })
      expect(gateway.status).toBe("failure")
      expect(gateway.failure?.code).toBe("306")
    })
  )
})
