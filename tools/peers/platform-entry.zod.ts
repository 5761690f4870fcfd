/**
 * The platform entry (packages/platform/src/wire.ts: `Entry`, `EntryEnvelope`) in zod 4, as an
 * integrator would write it, for the bench's peers table (tools/bench-peers.ts). The same fields,
 * types, literals and optionality, and the constraints zod expresses (integers, non-negative and
 * finite numbers, exactly one input shape). Absent optional keys stay absent (`exactOptional`),
 * as `optionalWith(…, { exact: true })` reads them.
 *
 * What it does not do that normalize does: no canonical scan (units, catalogue names, posture
 * names), no notes, and keys it does not know are dropped without a word.
 */
import { z } from "zod"

const Count = z.int().nonnegative()
const Finite = z.number()
const NonNegative = z.number().nonnegative()

const stats = { age: Count, gender: z.enum(["male", "female"]), height: Count, weight: Count }

const INPUT_KEYS = ["statsEstimations", "photoScan", "adjustedScan"] as const

const EntryInput = z
  .object({
    statsEstimations: z.object(stats).exactOptional(),
    photoScan: z.object({ ...stats, frontPhoto: z.string().nullable(), rightPhoto: z.string().nullable() }).exactOptional(),
    adjustedScan: z
      .object({
        baseScanId: z.string(),
        baseScanType: z.string().exactOptional(),
        ...stats,
        parameters: z.array(z.object({ name: z.string(), percentage: Finite }))
      })
      .exactOptional()
  })
  .refine((input) => INPUT_KEYS.filter((k) => input[k] !== undefined).length === 1, { message: `exactly one of ${INPUT_KEYS.join(", ")}` })

const UnitValue = z.object({ unit: z.string(), value: NonNegative })
const Point = z.object({ x: Finite, y: Finite })
const Line = z.object({ name: z.string(), points: z.array(Point) })
const view = <A extends z.ZodType>(angle: A) => z.object({ angles: z.array(angle), lines: z.array(Line) })

export const Entry = z.object({
  id: z.string(),
  status: z.enum(["success", "failure"]),
  customScanId: z.string().nullable().exactOptional(),
  input: EntryInput,
  measurements: z.array(z.object({ name: z.string(), unit: z.string(), value: NonNegative })).nullable(),
  avatar: z.object({ data: z.string(), format: z.string(), type: z.string().exactOptional() }).nullable().exactOptional(),
  posture: z
    .object({
      front: view(z.object({ name: z.string(), unit: z.string(), value: Finite }))
        .nullable()
        .exactOptional(),
      right: view(z.object({ name: z.string(), unit: z.string(), angles: z.array(Finite) }))
        .nullable()
        .exactOptional()
    })
    .nullable()
    .exactOptional(),
  outputStats: z.object({ weight: Count }).nullable().exactOptional(),
  bodyComposition: z
    .object({
      bodyFatPercentage: UnitValue.nullable().exactOptional(),
      bodyFatMass: UnitValue.nullable().exactOptional(),
      leanMass: UnitValue.nullable().exactOptional()
    })
    .nullable()
    .exactOptional(),
  error: z.object({ code: z.string(), message: z.string().exactOptional() }).nullable().exactOptional()
})

export const EntryEnvelope = z.object({ entry: Entry })
