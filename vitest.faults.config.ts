import { defineConfig } from "vitest/config"

/**
 * `pnpm test:faults`: the full sweep of fault injection (packages/cli/test/faults.sweep.ts), kept
 * out of the default suite for its length. Sources resolve as in vitest.config.ts.
 */
const conditions = ["@scanbridge/source", "module", "node", "development|production"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    root: "packages/cli",
    include: ["test/faults.sweep.ts"],
    testTimeout: 3_600_000,
    hookTimeout: 3_600_000,
    poolOptions: { forks: { execArgv: ["--conditions=@scanbridge/source"] } },
    reporters: process.env.CI ? ["default", ["json", { outputFile: "../../.ci/out/faults.json" }]] : ["default"]
  }
})
