// Loaded with --import by tools/bench.ts: reports the program's peak RSS (KiB) on stderr at exit.
if (process.env.SCANBRIDGE_BENCH_RSS === "1") {
  process.on("exit", () => process.stderr.write(`maxRSS ${process.resourceUsage().maxRSS}\n`))
}
