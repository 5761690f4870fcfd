/**
 * How busy the machine was with other work while the bench ran. The load average cannot say: the
 * bench's own programs (two threads and more) keep it at the core count, so a bench on a quiet
 * two-core machine ended every run at a load of 2-3 and called itself busy. What other processes
 * took is the CPU time the whole machine spent (the kernel's per-core counters) less the time
 * the bench and its programs spent (this process's own and its waited-for children's, from
 * /proc/self/stat), over the cores' time.
 */
import { readFileSync } from "node:fs"
import { cpus } from "node:os"

/** CPU milliseconds spent so far: by every core, and by this process with its children. */
export interface CpuSnapshot {
  readonly at: number
  readonly machineMs: number
  /** Undefined where /proc/self/stat cannot be read (not Linux). */
  readonly ownMs: number | undefined
}

// The unit of /proc's times (USER_HZ), 100 on every Linux the bench runs on.
const TICKS_PER_SECOND = 100

/**
 * utime + stime + cutime + cstime of a /proc/PID/stat line, in milliseconds. The command name (the
 * second field) is in parentheses and may itself hold spaces and parentheses: the fields are
 * counted from after the last ")".
 */
export const ownMsOfStat = (stat: string): number | undefined => {
  const fields = stat
    .slice(stat.lastIndexOf(")") + 2)
    .trim()
    .split(/\s+/)
  // After the name: state is field 3, so utime (14) .. cstime (17) are at 11 .. 14.
  const times = fields.slice(11, 15).map(Number)
  if (times.length < 4 || times.some((t) => !Number.isFinite(t))) return undefined
  return (times.reduce((a, b) => a + b, 0) * 1000) / TICKS_PER_SECOND
}

const readOwnMs = (): number | undefined => {
  try {
    return ownMsOfStat(readFileSync("/proc/self/stat", "utf8"))
  } catch {
    return undefined
  }
}

const machineMs = () => cpus().reduce((n, { times }) => n + times.user + times.nice + times.sys + times.irq, 0)

export const cpuSnapshot = (): CpuSnapshot => ({ at: performance.now(), machineMs: machineMs(), ownMs: readOwnMs() })

/**
 * The share of the cores' time that other processes took between two snapshots (0 to 1), or
 * undefined where this process's own time is not known.
 */
export const othersShare = (start: CpuSnapshot, end: CpuSnapshot, cores: number): number | undefined => {
  if (start.ownMs === undefined || end.ownMs === undefined) return undefined
  const available = (end.at - start.at) * cores
  if (available <= 0) return undefined
  const others = end.machineMs - start.machineMs - (end.ownMs - start.ownMs)
  return Math.min(1, Math.max(0, others / available))
}

/** Above this share of the cores taken by others, a run's wall-time ratios are suspect. */
export const BUSY_SHARE = 0.1
