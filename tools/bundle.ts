/**
 * One file of JavaScript per TypeScript entry, as a package ships it and node runs it: the bench
 * measures the command so, and the tests run programs so (one bundle, started in a fraction of a
 * second, where tsx would compile the sources again in every process).
 */
import { build } from "esbuild"
import { join } from "node:path"
import { repoRoot } from "./docs/generated.js"

const options = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Workspace packages as their sources, as in the tests (see "Package exports" in the README).
  conditions: ["@scanbridge/source"] as Array<string>,
  // Some dependencies still call require(); give the bundle one.
  banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" },
  logLevel: "error"
} as const

/** `entry` (from the repository's root) bundled into `outfile`. */
export const bundle = (entry: string, outfile: string) => build({ ...options, entryPoints: [join(repoRoot, entry)], outfile })

/** Several entries in one build (their common modules parsed once), each into `outdir/NAME.mjs`. */
export const bundleAll = (entries: Readonly<Record<string, string>>, outdir: string) =>
  build({
    ...options,
    entryPoints: Object.entries(entries).map(([name, entry]) => ({ in: join(repoRoot, entry), out: name })),
    outdir,
    outExtension: { ".js": ".mjs" }
  })
