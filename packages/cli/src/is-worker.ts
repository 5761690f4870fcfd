import { isMainThread, workerData } from "node:worker_threads"

/** What `migrate`'s spawner puts in a worker's `workerData`. */
export const MARKER = "scanbridge migrate worker"

/** Whether this thread was spawned to migrate chunks (not merely any worker thread that loads the CLI). */
export const isMigrateWorker = (): boolean => !isMainThread && workerData === MARKER
