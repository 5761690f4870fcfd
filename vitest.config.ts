import { readdirSync } from "node:fs"
import { defineConfig } from "vitest/config"

/**
 * Workspace packages resolve to each other's sources through the `@scanbridge/source` export
 * condition (see "Package exports" in the README): the tests need no build. Vite's own server
 * conditions follow it, as Vite lists them by default (setting `conditions` replaces them).
 */
const conditions = ["@scanbridge/source", "module", "node", "development|production"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    // `test.projects` rather than a vitest.workspace.ts file: vitest 3.2 deprecates the
    // workspace file and prints a warning for it on every run.
    // One project per package, tools/ and each example package, each given this file's settings (`extends`).
    projects: [...readdirSync("packages").map((name) => `packages/${name}`), "tools", "examples/custom-adapter"].map((root) => ({
      extends: true,
      test: { name: root, root }
    })),
    // Test files share their worker's module cache rather than loading effect and every package
    // again per file: on two cores that was a third of the suite's time. No test mocks a module
    // or keeps state in one, so nothing leaks from one file to the next.
    isolate: false,
    // Tests wait on TestClock, not on the wall; a limit is only there to end a hang. Vitest's own
    // (5 s) failed tests that take 4 s on a quiet machine when two cores are busy with others.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // What Node itself loads (worker threads a test starts, through tsx) resolves to sources too.
    poolOptions: { forks: { execArgv: ["--conditions=@scanbridge/source"] } },
    // Under CI, also write a JSON report, from which .ci/run prints a plain pass/fail count.
    reporters: process.env.CI ? ["default", ["json", { outputFile: ".ci/out/vitest.json" }]] : ["default"]
  }
})
