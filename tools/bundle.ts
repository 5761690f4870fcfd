/**
 * One file of JavaScript from a TypeScript entry, as a package ships it and node runs it: the
 * bench measures the command so, and the executable's tests run it so (one bundle, started in a
 * fraction of a second, where tsx would compile the sources in every process).
 */
import { build } from "esbuild"
import { join } from "node:path"
import { repoRoot } from "./docs/generated.js"

export const bundle = (entry: string, outfile: string) =>
  build({
    entryPoints: [join(repoRoot, entry)],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    // Some dependencies still call require(); give the bundle one.
    banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" },
    logLevel: "error"
  })
