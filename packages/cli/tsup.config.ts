import { type Options, defineConfig } from "tsup"

/** What both builds below share: ESM for Node 20, bundled with everything it uses. */
const program = {
  format: ["esm"],
  platform: "node",
  target: "node20",
  sourcemap: true,
  noExternal: [/.*/],
  // Some dependencies still call require(); give each chunk one.
  banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" },
  esbuildOptions: (options) => {
    options.conditions = ["@scanbridge/source"]
  }
} satisfies Options

/**
 * A program, not a library: the executable alone, bundled with what it uses (effect, @effect/*
 * and the Scanbridge packages, tree-shaken; the workspace's from their sources). It is split where
 * main.ts and the commands import lazily (a command's run, the worker side), so `--version` and
 * `--help` load the command line's definitions and nothing of the migration engine or the
 * simulator.
 *
 * The migration workers' entry (src/worker.ts) is built apart, into one file with only the
 * migration engine: not split, so that a worker loads none of the chunks the command line shares
 * with the commands. The two builds run side by side into one folder, so the first one's clean
 * spares the worker's files.
 */
export default defineConfig([
  { ...program, entry: ["src/main.ts"], splitting: true, clean: ["!worker.js", "!worker.js.map"] },
  { ...program, entry: ["src/worker.ts"], splitting: false, clean: false }
] satisfies Array<Options>)
