/** Where `--adapter MODULE` looks for its module. */
import { describe, expect, it } from "@effect/vitest"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { TABLE_TARGETS, defaultNormalizer } from "@scanbridge/migrate"
import { adapterModuleUrl } from "../src/adapters.js"
import { BUILT_IN_TARGETS } from "../src/commands/flags.js"
import { repoRoot } from "./harness.js"

describe("adapterModuleUrl", () => {
  it("reads a path from the current folder, with or without ./", () => {
    const file = join(repoRoot, "examples/custom-adapter/src/index.ts")
    expect(adapterModuleUrl("./examples/custom-adapter/src/index.ts", repoRoot)).toBe(pathToFileURL(file).href)
    expect(adapterModuleUrl("examples/custom-adapter/src/index.ts", repoRoot)).toBe(pathToFileURL(file).href)
    expect(adapterModuleUrl(file, "/")).toBe(pathToFileURL(file).href)
  })

  it("keeps a URL as it is", () => {
    expect(adapterModuleUrl("file:///srv/acme/adapter.js")).toBe("file:///srv/acme/adapter.js")
  })

  it("resolves a package name from the current folder, and leaves one it cannot find to import()", () => {
    const from = join(repoRoot, "examples/custom-adapter")
    expect(adapterModuleUrl("effect", from)).toMatch(/^file:\/\/.*\/node_modules\/effect\/dist\/cjs\/index\.js$/)
    expect(adapterModuleUrl("@acme/no-such-adapter", from)).toBe("@acme/no-such-adapter")
  })
})

describe("--to's help", () => {
  it("lists the default normalizer's targets, which it spells out so that --help loads no adapter", () => {
    expect(BUILT_IN_TARGETS).toEqual([...defaultNormalizer.encoders.keys(), ...TABLE_TARGETS])
  })
})
