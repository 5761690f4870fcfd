import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts", "src/plain.ts"],
  format: ["esm", "cjs"],
  dts: { compilerOptions: { composite: false } },
  sourcemap: true,
  clean: true,
  external: ["effect"]
})
