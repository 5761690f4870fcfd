import { copyFile, mkdir } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { type Options, defineConfig } from "tsup"
import { type Plugin, deepImports } from "../../tsup.shared"

/**
 * PGlite, the gateway's embedded store, reads its WebAssembly and its file system's data from
 * beside its own module (`new URL("./pglite.wasm", import.meta.url)`): bundled, that is beside
 * the chunk that holds it, in the output folder, so they are copied there (15 MB).
 */
const PGLITE_FILES = ["pglite.wasm", "pglite.data", "initdb.wasm"]

const copyPgliteFiles = async (outDir: string): Promise<void> => {
  const from = dirname(createRequire(join(import.meta.dirname, "../gateway/package.json")).resolve("@electric-sql/pglite"))
  await mkdir(outDir, { recursive: true })
  await Promise.all(PGLITE_FILES.map((file) => copyFile(join(from, file), join(outDir, file))))
}

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
 * spares the worker's files. A test builds them into a folder of its own (`builds`).
 */
export const builds = (outDir: string): Array<Options> => [
  {
    ...program,
    entry: ["src/main.ts"],
    outDir,
    splitting: true,
    clean: ["!worker.js", "!worker.js.map"],
    onSuccess: () => copyPgliteFiles(outDir)
  },
  { ...program, entry: ["src/worker.ts"], outDir, splitting: false, clean: false }
]

export default defineConfig(builds("dist"))
