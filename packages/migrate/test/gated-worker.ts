/** A migration worker (worker-entry.ts) that starts only once the test sets its gate, the Int32Array over `workerData`, to 1. */
import { workerData } from "node:worker_threads"

const gate = new Int32Array(workerData as SharedArrayBuffer)
// Polled: a timer keeps the thread alive (a pending Atomics.waitAsync would not), and the test's
// store may come before the thread is here.
await new Promise<void>((resolve) => {
  const poll = setInterval(() => {
    if (Atomics.load(gate, 0) === 1) {
      clearInterval(poll)
      resolve()
    }
  }, 5)
})
await import("./worker-entry.js")
