/**
 * `pnpm cycles` (and CI): dependencies point one way. dependency-cruiser reads every import,
 * type-only ones included (`tsPreCompilationDeps`), follows the workspace packages to their
 * sources, and fails on any cycle, inside a package or between packages.
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
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules)/" },
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
