import { readFileSync, readdirSync } from "node:fs"
import { type Options, defineConfig } from "tsup"
import { deepImports } from "../../tsup.shared"

/**
 * The plain package is installed by code that does not use Effect, so it brings its own: effect,
 * @effect/platform, @effect/platform-node's file system and worker layers and the Scanbridge
 * packages are bundled from their sources (tree-shaken, effect's modules each from its own path
 * as in the CLI's build), and the package has no dependencies. Installed with them as peers it
 * weighed 86 MB (effect alone unpacks to 34 MB, @effect/platform-node brings @effect/cluster and
 * packages with install scripts); what it uses of them is a small part.
 *
 * `pg` stays out: only a PostgreSQL migration and the gateway's stores need it, so it is an
 * optional peer dependency, imported when such a run or store starts. So does PGlite, the
 * gateway's embedded store: 27 MB installed, whose WebAssembly and data files it finds beside its
 * own modules. The bundle is split where the sources import lazily (a client, a migration, the
 * gateway, the database and Parquet code), so `normalize` loads none of those.
 *
 * A migration's worker threads run `worker.js`, which @scanbridge/migrate/node looks for beside
 * itself: built apart into one file, as the CLI's worker, so that a worker loads only the engine.
 */
const bundled = {
  platform: "node",
  target: "node20",
  // The bundled effect's source maps are five times its code (22 MB against 4): the package would
  // weigh what bundling saves.
  sourcemap: false,
  // Everything but the optional peers. tsup hands `external` to a plugin in which a match of
  // `noExternal` wins, so leaving them out of `external` alone bundled them (pg's 200 KB, PGlite's 2 MB).
  noExternal: [/^(?!(pg|@electric-sql\/pglite)(\/|$))/],
  external: ["pg", "@electric-sql/pglite"],
  esbuildPlugins: [deepImports],
  esbuildOptions: (options) => {
    options.conditions = ["@scanbridge/source"]
  }
} satisfies Options

/**
 * Every entry of the workspace's packages (`@scanbridge/model/plain`, ...) mapped to its source,
 * as the `@scanbridge/source` condition maps it, read from their package.json files so that a new
 * entry needs no line here. The declarations' bundler (rollup-plugin-dts) follows `paths` where
 * it leaves a package it reaches through node_modules external: with these, the types of the
 * Scanbridge packages that the public surface names are written into dist/index.d.ts, which a
 * user who installs only this package could not otherwise resolve.
 */
const sourcePaths = (): Record<string, Array<string>> => {
  const paths: Record<string, Array<string>> = {}
  for (const dir of readdirSync("..", { withFileTypes: true })) {
    if (!dir.isDirectory()) continue
    let manifest: { readonly name?: string; readonly exports?: Record<string, { readonly "@scanbridge/source"?: string }> }
    try {
      manifest = JSON.parse(readFileSync(`../${dir.name}/package.json`, "utf8"))
    } catch {
      continue
    }
    if (manifest.name === undefined || !manifest.name.startsWith("@scanbridge/")) continue
    for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
      const source = conditions["@scanbridge/source"]
      if (source !== undefined) paths[manifest.name + subpath.slice(1)] = [`../${dir.name}/${source.slice(2)}`]
    }
  }
  return paths
}

// Some bundled dependencies still call require(); an ESM chunk gets one.
const requireInEsm = { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" }

const index = {
  ...bundled,
  entry: ["src/index.ts"],
  // Named, so that the declarations of every package's sources are made with this one config
  // (the paths above, one program) rather than each with the tsconfig found beside it.
  tsconfig: "tsconfig.json",
  dts: { compilerOptions: { composite: false, stripInternal: true, rootDir: "..", paths: sourcePaths() } }
} satisfies Options

export default defineConfig([
  { ...index, format: ["esm"], splitting: true, banner: requireInEsm, clean: ["!worker.js"] },
  // CommonJS in one file: tsup makes split CommonJS chunks from ESM ones with sucrase, which
  // rewrites `a ?? (yield* b)` (bundled @effect/sql-pg has it) into an arrow function around the
  // yield, a syntax error that threw when the gateway's PostgreSQL store loaded. import.meta.url
  // (where the worker entry is) is shimmed.
  { ...index, format: ["cjs"], splitting: false, shims: true, clean: false },
  { ...bundled, entry: { worker: "../migrate/src/node/worker.ts" }, format: ["esm"], splitting: false, banner: requireInEsm, clean: false }
] satisfies Array<Options>)
