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
 * `pg` stays out: only a PostgreSQL migration needs it, so it is an optional peer dependency,
 * imported when such a run starts. The bundle is split where the sources import lazily (a client,
 * a migration, the database and Parquet code), so `normalize` loads none of those.
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
  noExternal: [/.*/],
  external: ["pg"],
  esbuildPlugins: [deepImports],
  esbuildOptions: (options) => {
    options.conditions = ["@scanbridge/source"]
  }
} satisfies Options

// Some bundled dependencies still call require(); an ESM chunk gets one.
const requireInEsm = { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" }

export default defineConfig([
  {
    ...bundled,
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    splitting: true,
    // import.meta.url (where the worker entry is) in the CJS build too.
    shims: true,
    banner: (context) => (context.format === "esm" ? requireInEsm : {}),
    dts: { resolve: true, compilerOptions: { composite: false, stripInternal: true } },
    clean: ["!worker.js"]
  },
  { ...bundled, entry: { worker: "../migrate/src/node/worker.ts" }, format: ["esm"], splitting: false, banner: requireInEsm, clean: false }
] satisfies Array<Options>)
