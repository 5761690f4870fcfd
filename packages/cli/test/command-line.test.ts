/**
 * The command line's own words: a flag given without its value, a command mistyped, each
 * command's --help (Scanbridge's flags only, none of @effect/cli's boilerplate), and the decode
 * flags (--length-unit, --body-fat-scale, --muscle-mass-unit) reaching the records' decode.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { COMMANDS } from "../src/commands.js"
import { BOILERPLATE } from "../src/commands/help.js"
import { exited, repoRoot, run, spawnCli } from "./harness.js"

const TIMEOUT = 60_000
const fromRepo = (file: string) => readFileSync(join(repoRoot, file), "utf8")

let tmp: string
/** The example photo scan with every measurement in inches, as a canonical record states millimetres. */
let inches: string
const INCH_MM = 25.4
const example = JSON.parse(fromRepo("examples/canonical/photo-scan.json")) as { measurementsMm: Record<string, number> }

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "scanbridge-command-line-"))
  inches = join(tmp, "inches.json")
  const measurementsMm = Object.fromEntries(Object.entries(example.measurementsMm).map(([k, v]) => [k, Math.round((v / INCH_MM) * 100) / 100]))
  await writeFile(inches, JSON.stringify({ ...example, measurementsMm, notes: [] }))
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe("a flag without its value", () => {
  it(
    "at the end of the line, or before another flag, is said to need its value, exit 2; nothing is read or written",
    async () => {
      const out = join(tmp, "never.ndjson")
      for (const [args, message] of [
        [["migrate", "examples/export", "--out"], "scanbridge: --out needs a value: --out FILE; see scanbridge migrate --help\n"],
        [["migrate", "examples/export", "--out", "--quiet"], "scanbridge: --out needs a value: --out FILE; see scanbridge migrate --help\n"],
        [
          ["migrate", "examples/export", "--length-unit"],
          "scanbridge: --length-unit needs a value: --length-unit auto|mm|cm|in; see scanbridge migrate --help\n"
        ],
        [["inspect", "examples/canonical/photo-scan.json", "--record"], "scanbridge: --record needs a value: --record N; see scanbridge inspect --help\n"],
        [["simulate", "--port"], "scanbridge: --port needs a value: --port N; see scanbridge simulate --help\n"]
      ] as const) {
        const r = await run(...args)
        expect([r.code, r.stdout, r.stderr], args.join(" ")).toEqual([2, "", message])
      }
      // Not taken for an input named --out: nothing was read, and no file appeared.
      expect(existsSync(out)).toBe(false)
      expect((await readdir(tmp)).sort()).toEqual(["inches.json"])
    },
    TIMEOUT
  )

  it("a value that starts with a dash is still a value", async () => {
    const r = await run("migrate", "examples/export", "--workers", "-1")
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("--workers -1: expected a whole number, 0 or more")
  })
})

describe("a mistyped command", () => {
  it(
    "is Scanbridge's one line naming the commands, and the nearest when it is a typo away; exit 2",
    async () => {
      for (const [typed, near] of [
        ["migrat", "migrate"],
        ["MIGRATE2", "migrate"],
        ["inpsect", "inspect"],
        ["dif", "diff"],
        ["simualte", "simulate"],
        ["gatway", "gateway"],
        ["sync", undefined],
        ["export", undefined]
      ] as const) {
        const r = await run(typed, "examples/export")
        expect(r.code, typed).toBe(2)
        expect(r.stdout).toBe("")
        expect(r.stderr).toBe(
          `scanbridge: unknown command ${typed}${near === undefined ? "" : ` (did you mean ${near}?)`}; the commands: migrate, inspect, diff, simulate, gateway; see scanbridge --help\n`
        )
        expect(r.stderr).not.toContain("Invalid subcommand")
      }
    },
    TIMEOUT
  )
})

describe("--help", () => {
  const EFFECT_CLI_FLAGS = ["--wizard", "--completions", "--log-level"]

  it(
    "of scanbridge and of every command shows Scanbridge's flags only, each with its description, without @effect/cli's boilerplate",
    async () => {
      expect(COMMANDS).toEqual(["migrate", "inspect", "diff", "simulate", "gateway"])
      for (const args of [["--help"], ["-h"], [], ...COMMANDS.map((c) => [c, "--help"])]) {
        const r = await run(...args)
        const what = `scanbridge ${args.join(" ")}`
        expect(r.code, what).toBe(0)
        expect(r.stderr, what).toBe("")
        expect(r.stdout, what).toMatch(/^scanbridge \d+\.\d+\.\d+\n\nUSAGE\n/)
        for (const line of r.stdout.split("\n")) for (const re of BOILERPLATE) expect(line.trim(), what).not.toMatch(re)
        for (const flag of EFFECT_CLI_FLAGS) expect(r.stdout, what).not.toContain(flag)
        // Said once, in the usage, rather than among each command's options.
        expect(r.stdout.split("\n").filter((l) => /^\(?-h, --help|^--version$/.test(l))).toEqual([])
      }
    },
    TIMEOUT
  )

  it(
    "every flag in a command's usage has its own entry, with a description that says its default",
    async () => {
      for (const command of COMMANDS) {
        const r = await run(command, "--help")
        const usage = r.stdout.split("\n").find((l) => l.startsWith(`$ scanbridge ${command} `))!
        const flags = [...usage.matchAll(/\[(--[a-z-]+)/g)].map((m) => m[1]!)
        expect(flags.length, command).toBeGreaterThan(0)
        const lines = r.stdout.split("\n")
        for (const flag of flags) {
          const at = lines.findIndex((l) => l === flag || l.startsWith(`${flag} `))
          expect(at, `${command} ${flag}`).toBeGreaterThan(0)
          const description = lines.slice(at + 1).find((l) => l.trim() !== "")!
          expect(description, `${command} ${flag}`).toMatch(/\(default: [^)]*\)?/)
        }
      }
    },
    TIMEOUT
  )

  it("migrate, inspect and diff take the decode flags, each defaulting to auto", async () => {
    for (const command of ["migrate", "inspect", "diff"]) {
      const r = await run(command, "--help")
      for (const usage of ["[--length-unit auto|mm|cm|in]", "[--body-fat-scale auto|percent|e4]", "[--muscle-mass-unit auto|g|kg]"])
        expect(r.stdout, command).toContain(usage)
    }
  })

  it("@effect/cli's own flags are refused as unknown, exit 2", async () => {
    for (const args of [["--wizard"], ["migrate", "--wizard"], ["--completions", "bash"], ["--log-level", "debug", "inspect", "x.json"]]) {
      const r = await run(...args)
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.stderr).toMatch(/^scanbridge: unknown option --(wizard|completions|log-level)/)
      expect(r.stdout).toBe("")
    }
  })
})

describe("--length-unit", () => {
  it(
    "a record whose lengths are plausible only in inches is refused by inspect, naming --length-unit in; with it, read as inches with a note",
    async () => {
      const refused = await run("inspect", inches)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain("pass --length-unit in")

      const read = await run("inspect", inches, "--length-unit", "in", "--json")
      expect(read.code).toBe(0)
      const scan = JSON.parse(read.stdout) as { measurementsMm: Record<string, number>; notes: ReadonlyArray<{ kind: string; detail: string }> }
      for (const [name, mm] of Object.entries(example.measurementsMm)) expect(Math.abs(scan.measurementsMm[name]! - mm), name).toBeLessThanOrEqual(0.13)
      expect(scan.notes).toContainEqual(expect.objectContaining({ kind: "assumed", detail: expect.stringContaining('lengthUnit "in"') }))
    },
    TIMEOUT
  )

  it(
    "migrate rejects the record without it, with the way out, and migrates it with it; diff reads both sides with it",
    async () => {
      const rejects = join(tmp, "inches.rejects")
      const without = await run("migrate", inches, "--rejects", rejects)
      expect(without.code).toBe(0)
      expect(without.stdout).toBe("")
      const reject = JSON.parse(readFileSync(rejects, "utf8").split("\n")[0]!) as { error: { tag: string; message: string } }
      expect(reject.error.tag).toBe("DecodeError")
      expect(reject.error.message).toContain("pass --length-unit in")
      await rm(rejects)

      const withIt = await run("migrate", inches, "--length-unit", "in")
      expect(withIt.code).toBe(0)
      const scan = JSON.parse(withIt.stdout) as { format: string; measurementsMm: Record<string, number> }
      expect(scan.format).toBe("scanbridge.scan/v1")
      expect(scan.measurementsMm["waistHeight"]).toBeCloseTo(example.measurementsMm["waistHeight"]!, 0)

      // diff reads both files with the unit given.
      const refused = await run("diff", inches, inches)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain("pass --length-unit in")
      const diff = await run("diff", inches, inches, "--length-unit", "in")
      expect(diff.code, diff.stderr).toBe(0)
      expect(diff.stdout).toContain("0 of 35 shared measurements differ by more than 0 mm")
    },
    TIMEOUT
  )

  it("a bad value names the flag and its values; exit 2", async () => {
    for (const [flag, value, values] of [
      ["--length-unit", "inch", "auto, mm, cm, in"],
      ["--body-fat-scale", "fraction", "auto, percent, e4"],
      ["--muscle-mass-unit", "lb", "auto, g, kg"]
    ] as const) {
      for (const command of [
        ["migrate", "examples/export"],
        ["inspect", "examples/canonical/photo-scan.json"]
      ]) {
        const r = await run(...command, flag, value)
        expect(r.code).toBe(2)
        expect(r.stderr).toContain(`${flag} ${value}: expected one of ${values}`)
      }
    }
  })
})

describe("--body-fat-scale and --muscle-mass-unit", () => {
  it(
    "reach the estimation API's decode: the value is read in the unit given, with a note naming the option",
    async () => {
      const record = join(tmp, "estimation.ndjson")
      await writeFile(record, `${fromRepo("examples/export/estimation/read-responses.ndjson").split("\n")[0]}\n`)
      const notesOf = async (...flags: ReadonlyArray<string>) => {
        const r = await run("inspect", record, "--json", ...flags)
        expect(r.code, r.stderr).toBe(0)
        return (JSON.parse(r.stdout.split("\n")[0]!) as { notes: ReadonlyArray<{ detail: string }> }).notes.map((n) => n.detail)
      }
      const auto = await notesOf()
      expect(auto.filter((d) => d.includes("bodyFatScale") || d.includes("muscleMassUnit"))).toEqual([])
      expect((await notesOf("--body-fat-scale", "percent")).filter((d) => d.includes("given by the caller (bodyFatScale)"))).toHaveLength(1)
      expect((await notesOf("--muscle-mass-unit", "g")).filter((d) => d.includes("given by the caller (muscleMassUnit)"))).toHaveLength(1)
    },
    TIMEOUT
  )
})

describe("a resumed run", () => {
  it("refuses other decode units than its checkpoint's, saying which and how to go on, and resumes with the same into the bytes of a run that never stopped", async () => {
    const entries = fromRepo("examples/export/platform/entries.ndjson")
      .split("\n")
      .filter((l) => l !== "")
    const input = join(tmp, "many.ndjson")
    // Enough chunks that the run is stopped after its first checkpoint and before its end.
    await writeFile(input, `${Array.from({ length: 12_000 }, (_, i) => entries[i % entries.length]).join("\n")}\n`)
    const clean = join(tmp, "clean.ndjson")
    expect((await run("migrate", input, "--out", clean, "--body-fat-scale", "percent", "--quiet")).code).toBe(0)

    const out = join(tmp, "resumed.ndjson")
    const checkpoint = join(tmp, ".resumed.ndjson.resumable.checkpoint")
    for (let wait = 200; ; wait = Math.floor(wait / 2)) {
      const child = spawnCli(["migrate", input, "--out", out, "--resumable", "--quiet", "--body-fat-scale", "percent"])
      const done = exited(child)
      while (!existsSync(checkpoint) && child.exitCode === null) await new Promise((r) => setTimeout(r, 5))
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * wait)))
      child.kill("SIGKILL")
      if ((await done) !== 0) break
    }
    const before = readFileSync(checkpoint, "utf8")
    expect(JSON.parse(before)).toMatchObject({ decode: { lengthUnit: "auto", bodyFatScale: "percent", muscleMassUnit: "auto" } })

    for (const units of [[], ["--body-fat-scale", "e4"], ["--body-fat-scale", "percent", "--length-unit", "cm"]]) {
      const refused = await run("migrate", input, "--out", out, "--resume", ...units)
      expect(refused.code, units.join(" ")).toBe(1)
      expect(refused.stderr).toMatch(
        /^scanbridge: cannot resume: the run being resumed read its records with (--[a-z-]+ [a-z0-9]+ ?)+, this run with (--[a-z-]+ [a-z0-9]+ ?)+: resume with (--[a-z-]+ [a-z0-9]+ ?)+; run without --resume to start again\n$/
      )
      expect(refused.stderr).toContain(units.length === 0 ? "with --body-fat-scale percent, this run with --body-fat-scale auto" : "resume with --")
      // Refused before anything is touched.
      expect(readFileSync(checkpoint, "utf8")).toBe(before)
      expect(existsSync(out)).toBe(false)
    }

    const resumed = await run("migrate", input, "--out", out, "--resume", "--body-fat-scale", "percent", "--quiet")
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(readFileSync(out).equals(readFileSync(clean))).toBe(true)
  }, 300_000)
})
