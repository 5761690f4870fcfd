/** A migration worker (worker-entry.ts) that stops with code 7 the moment anything generates code. */
globalThis.Function = new Proxy(Function, {
  construct: () => process.exit(7),
  apply: () => process.exit(7)
})
await import("./worker-entry.js")
