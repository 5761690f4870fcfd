import { execFile } from "node:child_process"
import { cpus } from "node:os"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { type CpuSnapshot, cpuSnapshot, othersShare, ownMsOfStat } from "../bench-load.js"

const run = promisify(execFile)

// A /proc/PID/stat line whose command name holds spaces and parentheses; utime 250, stime 50,
// cutime 1200, cstime 100 ticks.
const stat = (name: string) => `4242 (${name}) R 1 4242 4242 0 -1 4194304 9000 0 0 0 250 50 1200 100 20 0 3 0 12345 1000000 5000 18446744073709551615`

const at = (ms: number, machineMs: number, ownMs: number | undefined): CpuSnapshot => ({ at: ms, machineMs, ownMs })

describe("how busy the machine was (tools/bench-load.ts)", () => {
  it.each(["node", "tricky ) name (x", "a) R 1 2 3"])("reads utime + stime + cutime + cstime after the command name %j", (name) => {
    expect(ownMsOfStat(stat(name))).toBe(16_000)
  })

  it("answers undefined for a line it cannot read", () => {
    expect(ownMsOfStat("")).toBeUndefined()
    expect(ownMsOfStat("1 (x) R 1 2")).toBeUndefined()
  })

  it("counts what the machine spent beyond this process and its children, over the cores' time", () => {
    // 10 s on 2 cores: the machine spent 15 s, the bench 12 s, so others took 3 s of 20.
    expect(othersShare(at(0, 0, 0), at(10_000, 15_000, 12_000), 2)).toBeCloseTo(0.15)
    // All of it the bench's own: nobody else.
    expect(othersShare(at(0, 100, 50), at(10_000, 20_100, 20_050), 2)).toBe(0)
    // Counters that disagree by rounding never give a share outside 0..1.
    expect(othersShare(at(0, 0, 0), at(1_000, 100, 130), 2)).toBe(0)
    expect(othersShare(at(0, 0, 0), at(1_000, 5_000, 0), 2)).toBe(1)
    expect(othersShare(at(0, 0, undefined), at(1_000, 5_000, 0), 2)).toBeUndefined()
    expect(othersShare(at(5, 0, 0), at(5, 0, 0), 2)).toBeUndefined()
  })

  it.runIf(process.platform === "linux")("counts a child's CPU time as this process's own", async () => {
    const before = cpuSnapshot()
    // Half a second of CPU in a child, waited for: it must show in this process's own time.
    await run(process.execPath, [
      "-e",
      "const t = process.cpuUsage(); let x = 0; while (process.cpuUsage(t).user < 500000) for (let i = 0; i < 1e6; i++) x += i"
    ])
    const after = cpuSnapshot()
    expect(after.ownMs! - before.ownMs!).toBeGreaterThanOrEqual(450)
    expect(after.machineMs - before.machineMs).toBeGreaterThanOrEqual(450)
    const share = othersShare(before, after, cpus().length)
    expect(share).toBeGreaterThanOrEqual(0)
    expect(share).toBeLessThanOrEqual(1)
  })
})
