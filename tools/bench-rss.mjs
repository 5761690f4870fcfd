// Loaded with --import (through NODE_OPTIONS) by tools/bench.ts where /usr/bin/time is missing:
// reports the program's peak RSS (KiB) and CPU time (user and system, microseconds) on stderr at
// exit. Worker threads inherit --import; RSS and CPU time are the whole process's, so only the
// main thread reports them.
import { isMainThread } from "node:worker_threads"

if (process.env.SCANBRIDGE_BENCH_RSS === "1" && isMainThread) {
  process.on("exit", () => {
    const usage = process.resourceUsage()
    process.stderr.write(`bench-rss maxRSS ${usage.maxRSS} user ${usage.userCPUTime} system ${usage.systemCPUTime}\n`)
  })
}
