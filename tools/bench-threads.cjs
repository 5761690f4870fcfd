/**
 * Loaded into a program the bench runs (`NODE_OPTIONS=--require=tools/bench-threads.cjs`, with
 * SCANBRIDGE_BENCH_THREADS naming a file): when the process exits, writes to that file the CPU
 * time of its main thread and of the whole process, as JSON `{ main, process, ticks }` in seconds.
 *
 * Why /proc and not process.cpuUsage(): cpuUsage is the whole process's, every thread's, and
 * --cpu-prof sees the main thread only as samples. The main thread is the task whose id is the
 * process id; /proc/self/stat counts every thread, the ones that have exited (worker threads the
 * run stopped) included. Fields 14 and 15 (utime, stime) are clock ticks; Linux reports them at
 * USER_HZ, 100 a second on every architecture Node runs on (`getconf CLK_TCK`), which a CommonJS
 * preload cannot ask sysconf for.
 *
 * Only the process's own main thread writes: worker threads load preloads too.
 */
"use strict"
const { readFileSync, writeFileSync } = require("node:fs")
const { isMainThread } = require("node:worker_threads")

const file = process.env.SCANBRIDGE_BENCH_THREADS
const TICKS = 100

/** utime + stime, in ticks, of a /proc stat line (after the command's name, which may hold spaces). */
const ticksOf = (path) => {
  const stat = readFileSync(path, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  // Fields from the third (state) on: utime and stime are the 14th and 15th of the line.
  return Number(fields[14 - 3]) + Number(fields[15 - 3])
}

if (file && isMainThread) {
  // Not inherited by the programs this one starts: each would overwrite the file at its exit.
  delete process.env.SCANBRIDGE_BENCH_THREADS
  process.on("exit", () => {
    const main = ticksOf(`/proc/self/task/${process.pid}/stat`)
    const whole = ticksOf("/proc/self/stat")
    writeFileSync(file, JSON.stringify({ main: main / TICKS, process: whole / TICKS, ticks: TICKS }))
  })
}
