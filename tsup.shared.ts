import { basename, extname } from "node:path"
import { type Options, defineConfig } from "tsup"

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
    // `stripInternal`: a declaration marked `/** @internal */` is left out of the .d.ts files.
    dts: { compilerOptions: { composite: false, stripInternal: true } },
    sourcemap: true,
    clean: true,
    external
  } satisfies Options
  if (bins.length === 0) return defineConfig(library)
  const binFiles = bins.map((bin) => basename(bin, extname(bin))).flatMap((name) => [`!${name}.js`, `!${name}.js.map`])
  return defineConfig([
    { ...library, clean: binFiles },
    { entry: [...bins], format: ["esm"], splitting: false, sourcemap: true, clean: false, external }
  ] satisfies Array<Options>)
}
