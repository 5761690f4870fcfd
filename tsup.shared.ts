import { readFile } from "node:fs/promises"
import { basename, extname } from "node:path"
import { type Options, defineConfig } from "tsup"

export type Plugin = NonNullable<Options["esbuildPlugins"]>[number]

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
 *
 * A library's build leaves effect external, and the same rewrite matters there for another
 * reason: Node does not tree-shake, so a dist that imports `"effect"` loads every module of effect
 * (and fast-check, which the barrel re-exports), where `"effect/Either"` loads what Either needs.
 */
export const deepImports: Plugin = {
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

const external = ["effect", /^@effect\//, /^@scanbridge\//]

/**
 * How every package builds: ESM + CJS + .d.ts, with effect, @effect/* and the other Scanbridge
 * packages left to the consumer's install.
 *
 * `bins` are executables, built ESM only, without types, each into one file: a bin is run, never
 * required, and may use `import.meta` (which a CJS build leaves empty, with a warning). The two
 * builds run side by side into one folder, so the library build's clean spares the bins' files.
 */
export const packageBuild = (entry: ReadonlyArray<string>, bins: ReadonlyArray<string> = []) => {
  const library = {
    entry: [...entry],
    format: ["esm", "cjs"],
    // Entries share their modules' chunks in the CJS build too (tsup splits only ESM by default):
    // one copy of each class and of Codegen's switch, whichever entries a consumer requires.
    splitting: true,
    // `import.meta.url` in a CommonJS build (the migration workers' own entry is found by it): tsup's shim, from the file's own path.
    shims: true,
    // `stripInternal`: a declaration marked `/** @internal */` is left out of the .d.ts files.
    dts: { compilerOptions: { composite: false, stripInternal: true } },
    sourcemap: true,
    clean: true,
    external,
    esbuildPlugins: [deepImports]
  } satisfies Options
  if (bins.length === 0) return defineConfig(library)
  const binFiles = bins.map((bin) => basename(bin, extname(bin))).flatMap((name) => [`!${name}.js`, `!${name}.js.map`])
  return defineConfig([
    { ...library, clean: binFiles },
    { entry: [...bins], format: ["esm"], splitting: false, sourcemap: true, clean: false, external, esbuildPlugins: [deepImports] }
  ] satisfies Array<Options>)
}
