// The test worker's entry: on Node 20 a worker thread does not inherit tsx's loader from the
// main thread, so it registers tsx itself before loading the TypeScript entry.
import { register } from "tsx/esm/api"

register()
await import(process.env.SCANBRIDGE_TEST_WORKER ?? "./worker-entry.ts")
