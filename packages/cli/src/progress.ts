/**
 * The progress line of a migration on a terminal: how far through the input (by bytes), how long
 * it has run, how long it has left, how fast it goes now, and how many records were rejected.
 * The rate is the current one (over the last few seconds), not the run's average, so a slow start
 * (workers starting, a cold disk) does not skew the estimate for the rest of the run.
 */
import { Clock, Effect } from "effect"
import type { MigrateProgress } from "@scanbridge/migrate"
import type { StdioShape } from "./stdio.js"

/** How often the line is redrawn on a terminal, and written as a new line elsewhere (a log). */
const REDRAW_MS = { terminal: 250, lines: 1000 } as const

/** How far back the current rate looks. */
const WINDOW_MS = 5_000

interface Sample {
  readonly at: number
  readonly bytes: number
  readonly records: number
}

/** Samples of a run's progress, with its rate over the last WINDOW_MS. */
export const makeMeter = (started: number) => {
  const samples: Array<Sample> = [{ at: started, bytes: 0, records: 0 }]
  return {
    /** Records a sample; returns the rates since the oldest sample still in the window. */
    sample(at: number, progress: MigrateProgress): { readonly bytesPerSecond: number; readonly recordsPerSecond: number } {
      samples.push({ at, bytes: progress.bytesRead, records: progress.report.records })
      // Keep one sample at or before the window's start, so the window is always covered.
      while (samples.length > 2 && samples[1]!.at <= at - WINDOW_MS) samples.shift()
      const oldest = samples[0]!
      const seconds = (at - oldest.at) / 1000
      if (seconds <= 0) return { bytesPerSecond: 0, recordsPerSecond: 0 }
      return { bytesPerSecond: (progress.bytesRead - oldest.bytes) / seconds, recordsPerSecond: (progress.report.records - oldest.records) / seconds }
    }
  }
}

const UNITS = ["B", "KB", "MB", "GB", "TB"] as const

/** Bytes in decimal units, three significant digits: `415 MB`, `1.21 GB`. */
export const bytesText = (bytes: number): string => {
  let unit = 0
  let value = bytes
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000
    unit++
  }
  return `${unit === 0 ? value : value.toPrecision(3)} ${UNITS[unit]}`
}

/** A duration as `m:ss`, or `h:mm:ss` from an hour. */
export const durationText = (ms: number): string => {
  const total = Math.max(0, Math.round(ms / 1000))
  const s = total % 60
  const m = Math.floor(total / 60) % 60
  const h = Math.floor(total / 3600)
  const two = (n: number) => String(n).padStart(2, "0")
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`
}

export interface ProgressState {
  readonly progress: MigrateProgress
  readonly elapsedMs: number
  readonly bytesPerSecond: number
  readonly recordsPerSecond: number
}

/** The progress line's text (without the carriage return that redraws it). */
export const progressText = ({ progress, elapsedMs, bytesPerSecond, recordsPerSecond }: ProgressState): string => {
  const { bytesRead, bytesTotal, report } = progress
  const parts: Array<string> = []
  if (bytesTotal !== null && bytesTotal > 0) {
    const left = Math.max(0, bytesTotal - bytesRead)
    parts.push(`${((100 * Math.min(bytesRead, bytesTotal)) / bytesTotal).toFixed(1)} %`, `${bytesText(bytesRead)} of ${bytesText(bytesTotal)}`)
    parts.push(`${durationText(elapsedMs)} elapsed`, `ETA ${bytesPerSecond > 0 ? durationText((1000 * left) / bytesPerSecond) : "--:--"}`)
  } else {
    parts.push(`${bytesText(bytesRead)} read`, `${durationText(elapsedMs)} elapsed`)
  }
  parts.push(
    `${Math.round(recordsPerSecond).toLocaleString("en-US")} records/s`,
    `${report.records.toLocaleString("en-US")} records`,
    `${report.rejected.toLocaleString("en-US")} rejected`
  )
  return parts.join("  ")
}

/**
 * Shows the progress of a run started at `started` on stderr until interrupted: redrawn in place on
 * a terminal, a line at a time elsewhere. `current` gives the progress so far.
 */
export const progressLine = (stdio: StdioShape, started: number, current: () => MigrateProgress): Effect.Effect<never> =>
  Effect.gen(function* () {
    const meter = makeMeter(started)
    for (;;) {
      yield* Effect.sleep(stdio.errIsTerminal ? REDRAW_MS.terminal : REDRAW_MS.lines)
      const now = yield* Clock.currentTimeMillis
      const progress = current()
      const text = progressText({ progress, elapsedMs: now - started, ...meter.sample(now, progress) })
      yield* stdio.err(stdio.errIsTerminal ? `\r${text}\u001b[K` : `${text}\n`)
    }
  })
