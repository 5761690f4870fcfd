// Loaded with --import by the tests of what a process loads (packages/scanbridge/test/light.test.ts,
// packages/cli/test/startup.test.ts): every module the process loads from here on is
// appended to the file SCANBRIDGE_LOADED_LOG names, one URL a line (see record-loads-hooks.mjs).
import { register } from "node:module"

register(new URL("./record-loads-hooks.mjs", import.meta.url), { data: { log: process.env.SCANBRIDGE_LOADED_LOG } })
