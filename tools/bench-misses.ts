/**
 * The "what the misses would take" section of bench/results.md, written from the figures of one
 * `pnpm bench` run (tools/bench.ts): for each wall-time target (issue 16's, tightened by issue 34) a program misses, the
 * limit measured beside it in the same rounds (tools/bench-limit.ts), and how much of the miss is
 * the per-record work (the limit itself) and how much the pipeline around it (the program over
 * its limit).
 */

/** Medians of one input's rounds, each a ratio to the floor's time of the same round. */
export interface LimitFigures {
  readonly input: string
  /** The mixed input (target 2), or platform entries (target 1). */
  readonly mixed: boolean
  readonly default: number
  readonly inThread: number
  /** The floor's loop with the per-record work in place of JSON.parse + JSON.stringify, one thread. */
  readonly limit?: number
  /** The same on two plain worker threads. */
  readonly limit2?: number
  /** Two plain worker threads doing JSON.parse + JSON.stringify only. */
  readonly floor2?: number
  /** Bytes of canonical output over the floor's output bytes. */
  readonly outputBytes?: number
  /** CPU time (every thread) over the floor's, medians of the rounds: steadier than wall time on a busy machine. */
  readonly cpu?: { readonly default: number; readonly inThread: number; readonly limit?: number; readonly limit2?: number }
}

export interface Targets {
  /** Default settings on mixed input, x the floor (target 2). */
  readonly defaultVsFloor: number
  /** Default settings on platform entries, x the floor (target 1). */
  readonly platformDefaultVsFloor: number
  /** `--workers 0` on mixed input, x the floor (target 2). */
  readonly inThreadMixedVsFloor: number
}

const x = (ratio: number) => `${ratio.toFixed(2)} x`

/**
 * One program against its target: `program` x the floor, its limit `limit` x (or not measured).
 * When the limit itself misses, the per-record work alone misses: it would take that work's cost
 * cut by limit / target (at the least, with a pipeline costing nothing). Otherwise the per-record
 * work allows the target, and the miss is the pipeline's: program / limit over target / limit.
 */
export const whatItTakes = (what: string, program: number, target: number, limit: number | undefined, limitName: string): string => {
  const head = `${what}: ${x(program)} against ≤ ${x(target)}`
  if (program <= target) return `${head}: met.`
  if (limit === undefined) return `${head}; ${limitName} not measured at this size.`
  const pipeline = program / limit
  if (limit > target) {
    return `${head}. ${capitalize(limitName)} is ${x(limit)}: the per-record work alone misses, and the pipeline adds ${x(pipeline)} on top. It would take the time of the per-record loop cut by ${x(limit / target)} (to ${x(target)}) with a pipeline that costs nothing, or by ${x(program / target)} with today's pipeline.`
  }
  return `${head}. ${capitalize(limitName)} is ${x(limit)}, within the target: the per-record work allows it, and the miss is the pipeline's, which adds ${x(pipeline)} over the limit where at most ${x(target / limit)} fits the target.`
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** What the program costs in CPU time against its limit, when both were measured. */
export const cpuOver = (program: string, cpu: number | undefined, limitName: string, limit: number | undefined): string =>
  cpu === undefined || limit === undefined
    ? ""
    : ` In CPU time, ${program} takes ${x(cpu)} the floor's and ${limitName} ${x(limit)}: the pipeline adds ${x(cpu / limit)}.`

/** The section's lines (Markdown), one bullet per target of each input. */
export const missesSection = (figures: ReadonlyArray<LimitFigures>, targets: Targets): Array<string> => {
  const lines: Array<string> = []
  for (const f of figures) {
    const bullets = [
      whatItTakes(
        `default settings on ${f.input}`,
        f.default,
        f.mixed ? targets.defaultVsFloor : targets.platformDefaultVsFloor,
        f.limit2,
        "the two-thread limit (the per-record work on two plain worker threads)"
      ) + cpuOver("the default", f.cpu?.default, "the two-thread limit", f.cpu?.limit2)
    ]
    if (f.mixed) {
      bullets.push(
        whatItTakes(
          `\`--workers 0\` on ${f.input}`,
          f.inThread,
          targets.inThreadMixedVsFloor,
          f.limit,
          "the one-thread limit (the floor's loop with the per-record work)"
        ) + cpuOver("`--workers 0`", f.cpu?.inThread, "the one-thread limit", f.cpu?.limit)
      )
    }
    if (f.floor2 !== undefined)
      bullets.push(`Two plain worker threads doing only JSON.parse + JSON.stringify of ${f.input}: ${x(f.floor2)} (the issue's 0.55-0.66 x).`)
    if (f.outputBytes !== undefined)
      bullets.push(
        `The canonical output of ${f.input} is ${x(f.outputBytes)} the bytes the floor writes: what stringifying, encoding and writing it costs grows with it.`
      )
    for (const b of bullets) lines.push(`- ${b}`)
  }
  return lines
}
