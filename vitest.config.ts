import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    // `test.projects` rather than a vitest.workspace.ts file: vitest 3.2 deprecates the
    // workspace file and prints a warning for it on every run.
    projects: ["packages/*", "tools"],
    // Under CI, also write a JSON report, from which .ci/run prints a plain pass/fail count.
    reporters: process.env.CI ? ["default", ["json", { outputFile: ".ci/out/vitest.json" }]] : ["default"]
  }
})
