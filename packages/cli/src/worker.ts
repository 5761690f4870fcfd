/**
 * The entry of the worker threads `scanbridge migrate` spawns, built as a file of its own
 * (`dist/worker.js`) holding the migration engine and nothing else: a worker starts without
 * loading the command line, so a pool is cheap to start even for a small input. Jitless is set by
 * the pool's first message (the main thread's `Codegen` setting), before anything is compiled.
 */
import { serveMigrateWorker } from "./serve-worker.js"

serveMigrateWorker()
