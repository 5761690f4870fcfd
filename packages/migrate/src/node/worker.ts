/**
 * The entry of a migration's worker threads (`migrateWorkerPlatform`): the engine and nothing
 * else, so that a pool is cheap to start. Jitless is set by the pool's first message.
 */
import { serveMigrateWorker } from "./index.js"

void serveMigrateWorker()
