/**
 * `pnpm cycles` (and CI): dependencies point one way. dependency-cruiser reads every import,
 * type-only ones included (`tsPreCompilationDeps`), follows the workspace packages to their
 * sources, and fails on any cycle, inside a package or between packages. It also keeps the
 * packages off @effect/platform's index module (see the rule).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle, counting type-only imports: move what both sides need to a module of its own.",
      from: {},
      to: { circular: true }
    },
    {
      name: "no-platform-barrel",
      severity: "error",
      comment:
        "Import @effect/platform's modules by path (@effect/platform/HttpClient): its index loads every module, MsgPack among them, whose msgpackr runs `new Function` on import, which a strict CSP reports and SCANBRIDGE_JITLESS cannot turn off.",
      from: { path: "^packages/[^/]+/src/" },
      to: { path: "node_modules/@effect/platform/dist/[^/]+/index\\.(d\\.ts|js)$" }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^packages/[^/]+/dist/" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@scanbridge/source", "import", "types", "default"],
      mainFields: ["module", "main", "types"],
      extensions: [".ts", ".mts", ".js", ".mjs"]
    },
    reporterOptions: { text: { highlightFocused: true } }
  }
}
