import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    // `test.projects` rather than a vitest.workspace.ts file: vitest 3.2 deprecates the
    // workspace file and prints a warning for it on every run.
    projects: ["packages/*", "tools", "examples/custom-adapter"],
    // Test files share their worker's module cache rather than loading effect and every package
    // again per file: on two cores that was a third of the suite's time. No test mocks a module
    // or keeps state in one, so nothing leaks from one file to the next.
    isolate: false,
    // Under CI, also write a JSON report, from which .ci/run prints a plain pass/fail count.
    reporters: process.env.CI ? ["default", ["json", { outputFile: ".ci/out/vitest.json" }]] : ["default"]
  }
})
