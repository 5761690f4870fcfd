/** The worker side of `scanbridge migrate`: loaded only in the threads the command spawns. */
export { serveMigrateWorker } from "@scanbridge/migrate/node"
