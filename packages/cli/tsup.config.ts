import { readFile } from "node:fs/promises"
import { type Options, defineConfig } from "tsup"

type Plugin = NonNullable<Options["esbuildPlugins"]>[number]

/**
 * @effect/cli parses YAML, TOML and INI for its file options (Options.fileParse and the like),
 * and imports the three parsers at its top level, so a bundle loads and runs them at every start
 * (a fifth of the command line's code). Scanbridge has no such option: each parser is replaced by
 * one that says so, should a future option reach it.
 */
const noConfigFileParsers: Plugin = {
  name: "no-config-file-parsers",
  setup(build) {
    build.onResolve({ filter: /^(yaml|toml|ini)$/ }, (args) => ({ path: args.path, namespace: "no-config-file-parsers" }))
    build.onLoad({ filter: /.*/, namespace: "no-config-file-parsers" }, (args) => ({
      contents: `export const parse = () => { throw new Error("scanbridge reads no ${args.path} files") }`,
      loader: "js"
    }))
  }
}

/**
 * An import (at the start of a line) from a barrel whose every export is a module's namespace
 * (`export * as Effect from "./Effect.js"`).
 */
const BARRELS = /^import\s+(type\s+)?\{([^}]*)\}\s*from\s*"(effect|@effect\/cli)"/gm

/**
 * The workspace's sources import effect's modules from its barrel (`import { Effect, Stream } from
 * "effect"`), and esbuild cannot tree-shake a namespace re-exported by a barrel: it builds the
 * whole namespace object, so every function of every module named is kept, parsed and run at
 * start-up (half of effect's code here). Each such import is read as the module's own
 * (`import * as Effect from "effect/Effect"`), whose unused functions esbuild leaves out. The
 * lines stay where they were, for the source maps.
 */
const deepImports: Plugin = {
  name: "deep-imports",
  setup(build) {
    build.onLoad({ filter: /\/packages\/[^/]+\/src\/.*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, "utf8")
      const contents = source.replace(BARRELS, (whole, allTypes: string | undefined, names: string, barrel: string) => {
        const imports = names
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== "")
          .map((name) => {
            const [, onlyType, imported, local] = /^(type\s+)?(\w+)(?:\s+as\s+(\w+))?$/.exec(name) ?? []
            if (imported === undefined) throw new Error(`${args.path}: cannot read "${name}" in ${whole}`)
            return `import ${allTypes ?? onlyType ?? ""}* as ${local ?? imported} from "${barrel}/${imported}";`
          })
        // As many lines as the import had, so that the rest of the file keeps its line numbers.
        return imports.join(" ") + "\n".repeat(whole.split("\n").length - 1)
      })
      return { contents, loader: "ts" }
    })
  }
}

/** What both builds below share: ESM for Node 20, bundled with everything it uses. */
const program = {
  format: ["esm"],
  platform: "node",
  target: "node20",
  sourcemap: true,
  noExternal: [/.*/],
  // Some dependencies still call require(); give each chunk one.
  banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" },
  esbuildPlugins: [noConfigFileParsers, deepImports],
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
