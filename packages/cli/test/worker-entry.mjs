// The migration workers of in-process runs: on Node 20 a worker thread does not inherit tsx's
// loader from the main thread, so it registers tsx itself before loading the worker's side.
import { register } from "tsx/esm/api"

register()
const { serveMigrateWorker } = await import("../src/serve-worker.ts")
serveMigrateWorker()
