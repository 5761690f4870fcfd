import { defineConfig } from "tsup"

/**
 * A program, not a library: the executable alone, bundled with what it uses (effect, @effect/*
 * and the Scanbridge packages, tree-shaken; the workspace's from their sources). It is split where
 * main.ts and the commands import lazily (a command's run, the worker side), so `--version` and
 * `--help` load the command line's definitions and nothing of the migration engine or the
 * simulator.
 */
export default defineConfig({
  entry: ["src/main.ts"],
  format: ["esm"],
  platform: "node",
  target: "node20",
  splitting: true,
  sourcemap: true,
  clean: true,
  noExternal: [/.*/],
  // Some dependencies still call require(); give each chunk one.
  banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" },
  esbuildOptions: (options) => {
    options.conditions = ["@scanbridge/source"]
  }
})
