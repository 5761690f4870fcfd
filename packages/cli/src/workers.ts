/**
 * The migration's worker threads. The built executable spawns `dist/worker.js` beside it (the
 * engine alone). Otherwise the executable is its own worker entry: `main.ts` spawns itself with a
 * marker in `workerData`, and a thread started that way serves chunks instead of running a
 * command. So the source run (tsx), the built `dist/main.js` and a single-file bundle each find
 * their worker without knowing where the others put it.
 */
import { nodeWorkerPlatform } from "@scanbridge/migrate/node"

export { WORKERS_FROM_BYTES, defaultWorkers } from "@scanbridge/migrate/node"
import { existsSync } from "node:fs"
import { MARKER } from "./is-worker.js"

/**
 * The module a worker runs: the built worker entry (worker.js, beside the executable's dist/main.js),
 * which loads only the migration engine; else the executable itself (a single-file bundle, the
 * sources), which serves chunks when spawned with the marker.
 */
const workerEntry = (entry: URL): URL => {
  if (entry.protocol !== "file:" || entry.pathname.endsWith(".ts")) return entry
  const lean = new URL("worker.js", entry)
  return existsSync(lean) ? lean : entry
}

/** What `makeMigratePool` needs on Node, spawning `entry` (the executable's own module URL). */
export const workerPlatform = (entry: URL) => nodeWorkerPlatform(workerEntry(entry), MARKER)
