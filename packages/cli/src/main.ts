#!/usr/bin/env node
/**
 * The `scanbridge` executable. It is also the entry of the worker threads `migrate` spawns (see
 * workers.ts): such a thread serves chunks instead of running a command. Each side is imported
 * only where it runs, so a worker does not load (and hold in its heap) the commands, and
 * `--version`, which needs nothing but the version, loads neither.
 */
import { isMigrateWorker } from "./is-worker.js"
import { VERSION, asksForVersion } from "./version.js"

// SCANBRIDGE_JITLESS=1: no generated code (Codegen in @scanbridge/model), for a runtime whose
// policy reports `new Function`. Read here, by the executable alone: the libraries never read
// the environment. A worker thread inherits the environment and reads it the same way.
const configured =
  process.env.SCANBRIDGE_JITLESS === "1" ? import("@scanbridge/model").then(({ Codegen }) => Codegen.configure({ jitless: true })) : Promise.resolve()

if (isMigrateWorker()) void configured.then(() => import("./serve-worker.js")).then((w) => w.serveMigrateWorker())
else if (asksForVersion(process.argv.slice(2))) process.stdout.write(`${VERSION}\n`)
else void configured.then(() => import("./run.js")).then((r) => r.run(new URL(import.meta.url)))
