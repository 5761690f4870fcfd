import { defineConfig } from "vitest/config"

/**
 * `pnpm test:faults`: the tests kept out of the default suite for their length: the full sweep of
 * fault injection (packages/cli/test/faults.sweep.ts), a 2 GB JSON array streamed at flat memory
 * (packages/migrate/test/huge-array.sweep.ts), the differential test on a million records, with
 * generated code and jitless (packages/migrate/test/differential.sweep.ts), and the plain package
 * built, packed and its declarations type-checked as installed alone
 * (packages/scanbridge/test/declarations.sweep.ts).
 * Sources resolve as in vitest.config.ts.
 */
const conditions = ["@scanbridge/source", "module", "node", "development|production"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    projects: [
      { extends: true, test: { name: "packages/cli", root: "packages/cli", include: ["test/faults.sweep.ts"] } },
      { extends: true, test: { name: "packages/migrate", root: "packages/migrate", include: ["test/huge-array.sweep.ts", "test/differential.sweep.ts"] } },
      { extends: true, test: { name: "packages/scanbridge", root: "packages/scanbridge", include: ["test/declarations.sweep.ts"] } }
    ],
    testTimeout: 3_600_000,
    hookTimeout: 3_600_000,
    poolOptions: { forks: { execArgv: ["--conditions=@scanbridge/source"] } },
    reporters: process.env.CI ? ["default", ["json", { outputFile: ".ci/out/faults.json" }]] : ["default"]
  }
})
