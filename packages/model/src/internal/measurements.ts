/**
 * Builds a scan's `measurementsMm` in bulk decoding. A record's measurements are collected by
 * catalogue position, and the object is made in one step, keys in catalogue order, by a
 * constructor compiled for that set of measurements. Adding some 35 keys one by one to a new
 * object costs V8 a transition lookup per key, about fifteen times what one object literal
 * costs, and a bulk migration sees the same few sets of measurements again and again.
 */
import { Catalogue, type MeasurementName } from "../catalogue.js"
import { compiled } from "../codegen.js"

type Measurements = Partial<Record<MeasurementName, number>>

const NAMES: ReadonlyArray<MeasurementName> = Catalogue.measurements.map((e) => e.name)
const INDEX: ReadonlyMap<string, number> = new Map(NAMES.map((name, i) => [name, i]))
const BITS: ReadonlyArray<number> = NAMES.map((_, i) => 2 ** i)

/** The catalogue position of a measurement: what `MeasurementsBuilder.setAt` takes. */
export const measurementIndex = (name: MeasurementName): number => INDEX.get(name)!

type Construct = (values: ReadonlyArray<number | undefined>) => Measurements

// Where code is not generated (jitless, a strict CSP), keys are added one by one, as generic code does.
const generic =
  (indices: ReadonlyArray<number>): Construct =>
  (values) => {
    const out: Record<string, number> = {}
    for (const i of indices) out[NAMES[i]!] = values[i]!
    return out
  }

const compile = (indices: ReadonlyArray<number>): Construct =>
  compiled(
    {
      kind: "measurements",
      name: `${indices.length}-of-${NAMES.length}`,
      params: ["v"],
      body: `return {${indices.map((i) => `${JSON.stringify(NAMES[i])}: v[${i}]`).join(", ")}}`
    },
    () => generic(indices)
  )

// One constructor per set of measurements seen, keyed by the set as a bit mask (35 bits fit a
// double exactly). Bounded: a stream of ever new sets falls back to the generic constructor.
const constructors = new Map<number, Construct>()
const MAX_CONSTRUCTORS = 512

const construct = (mask: number, values: ReadonlyArray<number | undefined>): Measurements => {
  let make = constructors.get(mask)
  if (make === undefined) {
    const indices = NAMES.map((_, i) => i).filter((i) => values[i] !== undefined)
    if (constructors.size < MAX_CONSTRUCTORS) constructors.set(mask, (make = compile(indices)))
    else make = generic(indices)
  }
  return make(values)
}

/**
 * An empty array of values by catalogue position, for `measurementsFrom`. Its slots are holes,
 * which read as undefined: V8 makes such an array several times faster than a filled one.
 */
export const emptyMeasurementValues = (): Array<number | undefined> => new Array<number | undefined>(NAMES.length)

/** The bit of a catalogue position in the `set` that `measurementsFrom` takes. */
export const measurementBit = (index: number): number => BITS[index]!

/**
 * The `measurementsMm` object of values by catalogue position (from `emptyMeasurementValues`,
 * undefined where absent), as a reader that fills them in one generated pass has them. `set`,
 * the sum of `measurementBit` over the positions filled, saves a pass where the reader knows it.
 */
export const measurementsFrom = (values: ReadonlyArray<number | undefined>, set?: number): Measurements => {
  let mask = set ?? 0
  if (set === undefined) for (let i = 0; i < NAMES.length; i++) if (values[i] !== undefined) mask += BITS[i]!
  return construct(mask, values)
}

/** Collects one record's measurements. Not shared between records. */
export class MeasurementsBuilder {
  // Full length from the start: filling a growing array out of order reallocates it.
  private readonly values: Array<number | undefined> = emptyMeasurementValues()
  private mask = 0

  /** Whether the measurement at this catalogue position has been set. */
  hasAt(index: number): boolean {
    return this.values[index] !== undefined
  }

  has(name: MeasurementName): boolean {
    return this.hasAt(INDEX.get(name)!)
  }

  setAt(index: number, value: number): void {
    if (this.values[index] === undefined) this.mask += BITS[index]!
    this.values[index] = value
  }

  set(name: MeasurementName, value: number): void {
    this.setAt(INDEX.get(name)!, value)
  }

  /** The `measurementsMm` object: the measurements set, in catalogue order. */
  build(): Measurements {
    return construct(this.mask, this.values)
  }
}
