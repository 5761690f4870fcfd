/** The version a bundle's Device names is the package's own, so a release cannot ship another. */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { VERSION } from "../src/version.js"

const manifest = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "package.json"), "utf8")) as { readonly version: string }

describe("VERSION", () => {
  it("is package.json's version", () => {
    expect(VERSION).toBe(manifest.version)
  })
})
