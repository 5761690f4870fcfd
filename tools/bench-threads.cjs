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

/** utime and stime, in ticks, of a /proc stat file (read after the command's name, which may hold spaces and parentheses). */
const ticksOf = (path) => {
  const stat = readFileSync(path, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  // Fields from the third (state) on: utime and stime are the 14th and 15th of the line.
  return { user: Number(fields[14 - 3]), system: Number(fields[15 - 3]) }
}

/** utime and stime, in seconds, of a /proc stat file. */
const cpuOf = (path) => {
  const { user, system } = ticksOf(path)
  return { user: user / TICKS, system: system / TICKS }
}

/** A thread's or process's CPU seconds, user and system together. */
const secondsOf = (path) => {
  const { user, system } = ticksOf(path)
  return (user + system) / TICKS
}

module.exports = { cpuOf }

if (file && isMainThread) {
  // Not inherited by the programs this one starts: each would overwrite the file at its exit.
  delete process.env.SCANBRIDGE_BENCH_THREADS
  process.on("exit", () => {
    const main = secondsOf(`/proc/self/task/${process.pid}/stat`)
    const whole = secondsOf("/proc/self/stat")
    writeFileSync(file, JSON.stringify({ main, process: whole, ticks: TICKS }))
  })
}
