/**
 * outputFile and refuseOverlaps: what a migration does to the files it writes, whatever they are
 * (a new file, a file, a link, a device, a link to nothing), and whether the run ends well or not.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { lstatSync, readFileSync, readdirSync, statSync } from "node:fs"
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { outputFile, refuseOverlaps } from "../src/index.js"

let tmp: string
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "scanbridge-output-"))
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

const writeThenEnd = (file: string, commit: boolean) =>
  Effect.scoped(
    Effect.gen(function* () {
      const output = yield* outputFile(file)
      yield* output.write("new\n")
      if (commit) yield* output.commit
      else return yield* Effect.fail("the run failed" as const)
    })
  ).pipe(Effect.provide(NodeContext.layer), Effect.exit)

const partials = () => readdirSync(tmp).filter((n) => n.endsWith(".partial"))

describe("outputFile", () => {
  it.effect("replaces a file only on commit, and removes its temporary file when the run fails", () =>
    Effect.gen(function* () {
      const file = join(tmp, "plain.ndjson")
      yield* Effect.promise(() => writeFile(file, "old\n"))
      expect(Exit.isFailure(yield* writeThenEnd(file, false))).toBe(true)
      expect(readFileSync(file, "utf8")).toBe("old\n")
      expect(partials()).toEqual([])
      expect(Exit.isSuccess(yield* writeThenEnd(file, true))).toBe(true)
      expect(readFileSync(file, "utf8")).toBe("new\n")
      expect(partials()).toEqual([])
    })
  )

  it.effect("follows a link to a file: the file is replaced, the link stays a link", () =>
    Effect.gen(function* () {
      const target = join(tmp, "target.ndjson")
      const link = join(tmp, "link.ndjson")
      yield* Effect.promise(() => writeFile(target, "old\n"))
      yield* Effect.promise(() => symlink(target, link))
      expect(Exit.isSuccess(yield* writeThenEnd(link, true))).toBe(true)
      expect(lstatSync(link).isSymbolicLink()).toBe(true)
      expect(readFileSync(target, "utf8")).toBe("new\n")
    })
  )

  it.effect("refuses a link to nothing rather than replace the link", () =>
    Effect.gen(function* () {
      const link = join(tmp, "dangling.ndjson")
      yield* Effect.promise(() => symlink(join(tmp, "nowhere", "x.ndjson"), link))
      const exit = yield* writeThenEnd(link, true)
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("is a link to nothing")
      expect(lstatSync(link).isSymbolicLink()).toBe(true)
    })
  )

  it.effect("writes a device as the run goes, and never renames over it", () =>
    Effect.gen(function* () {
      expect(Exit.isSuccess(yield* writeThenEnd("/dev/null", true))).toBe(true)
      expect(statSync("/dev/null").isCharacterDevice()).toBe(true)
      expect(readdirSync("/dev").filter((n) => n.endsWith(".partial"))).toEqual([])
    })
  )
})

describe("refuseOverlaps", () => {
  it.effect("refuses an output that is an input, through a link too, or inside an input folder; lets others through", () =>
    Effect.gen(function* () {
      const input = join(tmp, "in.ndjson")
      yield* Effect.promise(() => writeFile(input, "{}\n"))
      yield* Effect.promise(() => symlink(input, join(tmp, "in-link.ndjson")))
      const check = (inputs: ReadonlyArray<string>, file: string) =>
        refuseOverlaps(inputs, [{ name: "--out", file }]).pipe(
          Effect.provide(NodeContext.layer),
          Effect.flip,
          Effect.map((e) => e.message),
          Effect.option
        )
      expect(yield* check([input], join(tmp, "in-link.ndjson"))).toMatchObject({ value: expect.stringMatching(/^--out .*in-link\.ndjson is the input /) })
      expect(yield* check([tmp], join(tmp, "sub", "new.ndjson"))).toMatchObject({ value: expect.stringMatching(/is inside the input folder/) })
      expect((yield* check([input], join(tmp, "elsewhere.ndjson")))._tag).toBe("None")
      expect((yield* check(["-", input], "/dev/null"))._tag).toBe("None")
    })
  )
})
