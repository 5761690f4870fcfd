/**
 * `pnpm test:faults` (kept out of the default suite for its length): a 2 GB pretty-printed JSON
 * array, made as it is read and given as standard input, migrates element by element with the
 * heap far below its size. Read whole, as arrays were, it would not fit a V8 string (some 512 MiB
 * at most), let alone the heap. json-array.test.ts runs 50 MB of it.
 */
import { describe, expect, it } from "@effect/vitest"
import { expectAllMigrated, generatedArray, migrateFromStdin } from "./generated-array.js"

describe("a JSON array of 2 GB", () => {
  it("streamed from standard input migrates every element, the heap under 256 MB throughout", async () => {
    const array = generatedArray(2 * 1024 ** 3)
    const run = await migrateFromStdin(array)
    expectAllMigrated(array, run)
    expect(run.peakHeap).toBeLessThan(256 * 1024 ** 2)
  })
})
