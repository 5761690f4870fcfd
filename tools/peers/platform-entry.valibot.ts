/**
 * The platform entry (packages/platform/src/wire.ts: `Entry`, `EntryEnvelope`) in valibot, as an
 * integrator would write it, for the bench's peers table (tools/bench-peers.ts). The same fields,
 * types, literals and optionality, and the constraints valibot expresses (integers, non-negative
 * and finite numbers, exactly one input shape). Absent optional keys stay absent
 * (`exactOptional`), as `optionalWith(…, { exact: true })` reads them.
 *
 * What it does not do that normalize does: no canonical scan (units, catalogue names, posture
 * names), no notes, and keys it does not know are dropped without a word.
 */
import * as v from "valibot"

const Count = v.pipe(v.number(), v.integer(), v.minValue(0))
const Finite = v.pipe(v.number(), v.finite())
const NonNegative = v.pipe(v.number(), v.finite(), v.minValue(0))

const stats = { age: Count, gender: v.picklist(["male", "female"]), height: Count, weight: Count }

const INPUT_KEYS = ["statsEstimations", "photoScan", "adjustedScan"] as const

const EntryInput = v.pipe(
  v.object({
    statsEstimations: v.exactOptional(v.object(stats)),
    photoScan: v.exactOptional(v.object({ ...stats, frontPhoto: v.nullable(v.string()), rightPhoto: v.nullable(v.string()) })),
    adjustedScan: v.exactOptional(
      v.object({
        baseScanId: v.string(),
        baseScanType: v.exactOptional(v.string()),
        ...stats,
        parameters: v.array(v.object({ name: v.string(), percentage: Finite }))
      })
    )
  }),
  v.check((input) => INPUT_KEYS.filter((k) => input[k] !== undefined).length === 1, `exactly one of ${INPUT_KEYS.join(", ")}`)
)

const UnitValue = v.object({ unit: v.string(), value: NonNegative })
const Point = v.object({ x: Finite, y: Finite })
const Line = v.object({ name: v.string(), points: v.array(Point) })
const view = <A extends v.GenericSchema>(angle: A) => v.object({ angles: v.array(angle), lines: v.array(Line) })
const optionalNullable = <A extends v.GenericSchema>(schema: A) => v.exactOptional(v.nullable(schema))

export const Entry = v.object({
  id: v.string(),
  status: v.picklist(["success", "failure"]),
  customScanId: optionalNullable(v.string()),
  input: EntryInput,
  measurements: v.nullable(v.array(v.object({ name: v.string(), unit: v.string(), value: NonNegative }))),
  avatar: optionalNullable(v.object({ data: v.string(), format: v.string(), type: v.exactOptional(v.string()) })),
  posture: optionalNullable(
    v.object({
      front: optionalNullable(view(v.object({ name: v.string(), unit: v.string(), value: Finite }))),
      right: optionalNullable(view(v.object({ name: v.string(), unit: v.string(), angles: v.array(Finite) })))
    })
  ),
  outputStats: optionalNullable(v.object({ weight: Count })),
  bodyComposition: optionalNullable(
    v.object({
      bodyFatPercentage: optionalNullable(UnitValue),
      bodyFatMass: optionalNullable(UnitValue),
      leanMass: optionalNullable(UnitValue)
    })
  ),
  error: optionalNullable(v.object({ code: v.string(), message: v.exactOptional(v.string()) }))
})

export const EntryEnvelope = v.object({ entry: Entry })
