// Loaded with --import by tools/bench.ts: reports the program's peak RSS (KiB) on stderr at exit.
// Worker threads inherit --import; RSS is the whole process's, so only the main thread reports it.
import { isMainThread } from "node:worker_threads"

if (process.env.SCANBRIDGE_BENCH_RSS === "1" && isMainThread) {
  process.on("exit", () => process.stderr.write(`maxRSS ${process.resourceUsage().maxRSS}\n`))
}
