import { type Options, defineConfig } from "tsup"

/**
 * How every package builds: ESM + CJS + .d.ts, with effect, @effect/* and the other Scanbridge
 * packages left to the consumer's install.
 */
export const packageBuild = (entry: ReadonlyArray<string>) =>
  defineConfig({
    entry: [...entry],
    format: ["esm", "cjs"],
    dts: { compilerOptions: { composite: false } },
    sourcemap: true,
    clean: true,
    external: ["effect", /^@effect\//, /^@scanbridge\//]
  } satisfies Options)
