/**
 * The `scanbridge` executable as it ships (one bundle, run by node, its own worker entry), where
 * only a real process will do: signals, pipes whose reader goes away, /dev/stdout, worker threads
 * spawned from the executable itself, and the README's pnpm form of the command. Everything else
 * about the command runs in-process (packages/cli/test).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { createWriteStream, readFileSync } from "node:fs"
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundle } from "../bundle.js"
import { repoRoot } from "../docs/generated.js"

const TIMEOUT = 60_000
const OLD = "what was there before the run\n"

let tmp: string
let executable: string
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "scanbridge-executable-"))
  executable = join(tmp, "scanbridge.mjs")
  await bundle("packages/cli/src/main.ts", executable)
}, TIMEOUT)
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

const start = (args: ReadonlyArray<string>, stdin: "ignore" | "pipe" = "ignore") =>
  spawn(process.execPath, [executable, ...args], { cwd: repoRoot, stdio: [stdin, "pipe", "pipe"] })

const exited = (child: ChildProcess): Promise<Exited> =>
  new Promise((resolve, reject) => {
    let stdout = ""
    let stderr = ""
    child.stdout?.setEncoding("utf8").on("data", (d: string) => void (stdout += d))
    child.stderr!.setEncoding("utf8").on("data", (d: string) => void (stderr += d))
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })

const partials = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith(".partial"))

/** Waits until `ready` holds (a condition, not a duration), or fails once `child` has ended without it. */
const until = async (child: ChildProcess, ready: () => Promise<boolean>) => {
  while (!(await ready())) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited (${child.exitCode ?? child.signalCode}) before it was ready`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe("signals", () => {
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143]
  ] as const) {
    it(
      `${signal} mid-run: exit ${code}, one line, temporary files removed, destinations as they were`,
      async () => {
        const dir = await mkdtemp(join(tmp, `${signal}-`))
        for (const f of ["scans.ndjson", "rejects.ndjson", "report.json"]) await writeFile(join(dir, f), OLD)
        // Standard input held open: the run waits for more records until the signal comes.
        const child = start(
          ["migrate", "-", "--out", join(dir, "scans.ndjson"), "--rejects", join(dir, "rejects.ndjson"), "--report", join(dir, "report.json")],
          "pipe"
        )
        const done = exited(child)
        child.stdin!.write(`${readFileSync(join(repoRoot, "examples/export/broken.ndjson"), "utf8")}`)
        await until(child, async () => (await partials(dir)).length === 3)
        child.kill(signal)
        const r = await done
        expect(r.code).toBe(code)
        const lines = r.stderr.split("\n").filter((l) => l !== "")
        expect(lines).toEqual([`scanbridge migrate: stopped by ${signal}; no file was left half-written: every output is as it was before the run`])
        expect(await partials(dir)).toEqual([])
        for (const f of ["scans.ndjson", "rejects.ndjson", "report.json"]) expect(await readFile(join(dir, f), "utf8")).toBe(OLD)
      },
      TIMEOUT
    )
  }
})

describe("pipes", () => {
  it(
    "a reader that goes away (| head -c 100) ends the run quietly: exit 141, no stack trace",
    async () => {
      const input = join(tmp, "big.ndjson")
      const line = readFileSync(join(repoRoot, "examples/export/platform/entries.ndjson"), "utf8").split("\n")[0]!
      await writeFile(input, `${Array.from({ length: 20_000 }, () => line).join("\n")}\n`)
      const child = start(["migrate", input, "--workers", "0"])
      const done = new Promise<{ code: number | null; stderr: string }>((resolve) => {
        let stderr = ""
        child.stderr!.setEncoding("utf8").on("data", (d: string) => void (stderr += d))
        child.on("close", (code) => resolve({ code, stderr }))
      })
      // Read a little, then go away, as head does.
      child.stdout!.once("data", () => child.stdout!.destroy())
      const r = await done
      expect(r.code).toBe(141)
      expect(r.stderr).not.toMatch(/Error|at .*\(|EPIPE/)
    },
    TIMEOUT
  )

  it(
    "--out /dev/stdout writes the same bytes as standard output; - reads standard input",
    async () => {
      const plain = await exited(start(["migrate", "examples/export", "--quiet"]))
      const device = await exited(start(["migrate", "examples/export", "--quiet", "--out", "/dev/stdout"]))
      expect(plain.code).toBe(0)
      expect(device.code).toBe(0)
      expect(device.stdout).toBe(plain.stdout)

      const piped = start(["migrate", "-", "--quiet"], "pipe")
      const done = exited(piped)
      piped.stdin!.end(readFileSync(join(repoRoot, "examples/export/platform/entries.ndjson")))
      const fromStdin = await done
      const fromFile = await exited(start(["migrate", "examples/export/platform/entries.ndjson", "--quiet"]))
      expect(fromStdin.code).toBe(0)
      expect(fromStdin.stdout).toBe(fromFile.stdout)
    },
    TIMEOUT
  )

  it(
    "/dev/stdin and a FIFO are read as streams",
    async () => {
      const fifo = join(tmp, "in.fifo")
      execFileSync("mkfifo", [fifo])
      const text = readFileSync(join(repoRoot, "examples/export/platform/entries.ndjson"))
      const child = start(["migrate", fifo, "--quiet"])
      const done = exited(child)
      createWriteStream(fifo).end(text)
      const r = await done
      const devStdin = start(["migrate", "/dev/stdin", "--quiet"], "pipe")
      const devDone = exited(devStdin)
      devStdin.stdin!.end(text)
      const d = await devDone
      const fromFile = await exited(start(["migrate", "examples/export/platform/entries.ndjson", "--quiet"]))
      expect([r.code, d.code]).toEqual([0, 0])
      expect(r.stdout).toBe(fromFile.stdout)
      expect(d.stdout).toBe(fromFile.stdout)
    },
    TIMEOUT
  )
})

describe("worker threads", () => {
  it(
    "the executable is its own worker entry: --workers 1 writes the bytes --workers 0 writes",
    async () => {
      const records = ["examples/export/platform/entries.ndjson", "examples/export/estimation/read-responses.ndjson", "examples/export/broken.ndjson"]
        .flatMap((f) => readFileSync(join(repoRoot, f), "utf8").split("\n"))
        .filter((l) => l.trim() !== "")
      const input = join(tmp, "mixed.ndjson")
      await writeFile(input, `${Array.from({ length: 2000 }, (_, i) => records[i % records.length]).join("\n")}\n`)
      const [none, one] = await Promise.all([
        exited(start(["migrate", input, "--workers", "0", "--quiet"])),
        exited(start(["migrate", input, "--workers", "1", "--quiet"]))
      ])
      expect([none.code, one.code]).toEqual([0, 0])
      expect(one.stdout.length).toBeGreaterThan(0)
      expect(one.stdout).toBe(none.stdout)
    },
    TIMEOUT
  )
})

describe("SCANBRIDGE_JITLESS", () => {
  // A preload (inherited by worker threads) that stops the process with code 7 at the first
  // `new Function` or `Function()`: only a run that generates no code at all gets through.
  const NO_CODEGEN = "data:text/javascript,globalThis.Function = new Proxy(Function, { construct() { process.exit(7) }, apply() { process.exit(7) } })"
  const run = (args: ReadonlyArray<string>, jitless: boolean, preload: boolean) =>
    exited(
      spawn(process.execPath, [...(preload ? ["--import", NO_CODEGEN] : []), executable, ...args], {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, SCANBRIDGE_JITLESS: jitless ? "1" : "" }
      })
    )

  it(
    "=1 generates no code, in the main thread or a worker, and writes the same bytes",
    async () => {
      const input = join(tmp, "jitless.ndjson")
      const records = ["examples/export/platform/entries.ndjson", "examples/export/estimation/read-responses.ndjson", "examples/export/fit/estimations.ndjson"]
      await writeFile(input, records.map((f) => `${readFileSync(join(repoRoot, f), "utf8").trimEnd()}\n`).join(""))
      for (const workers of ["0", "1"]) {
        const args = ["migrate", input, "--workers", workers, "--quiet"]
        const [generated, jitless, refused] = await Promise.all([run(args, false, false), run(args, true, true), run(args, false, true)])
        expect([generated.code, jitless.code]).toEqual([0, 0])
        expect(jitless.stdout.length).toBeGreaterThan(0)
        expect(jitless.stdout).toBe(generated.stdout)
        // Without the switch, the same run generates code, and the preload stops it.
        expect(refused.code).not.toBe(0)
      }
    },
    TIMEOUT
  )
})

describe("the README's form of the command", () => {
  // pnpm runs the suite (`pnpm test`) and says where it is; run directly by vitest, there is no pnpm to run.
  const pnpm = process.env["npm_execpath"]
  it.skipIf(pnpm === undefined || !/pnpm/.test(pnpm))(
    "npx -y pnpm@10 --silent scanbridge migrate ... --quiet prints nothing but the records on stdout",
    async () => {
      const readme = readFileSync(join(repoRoot, "README.md"), "utf8")
      const shown = /^npx -y pnpm@10 --silent scanbridge (migrate [^>\n]*?) > scans\.ndjson$/m.exec(readme)
      expect(shown, "the README shows the quiet form").not.toBeNull()
      const child = spawn(process.execPath, [pnpm!, "--silent", "scanbridge", ...shown![1]!.trim().split(/\s+/)], {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"]
      })
      const r = await exited(child)
      expect(r.code).toBe(0)
      const lines = r.stdout.split("\n")
      expect(lines.pop()).toBe("")
      expect(lines.length).toBeGreaterThan(10)
      for (const line of lines) expect((JSON.parse(line) as { format: string }).format).toBe("scanbridge.scan/v1")
    },
    TIMEOUT
  )
})
