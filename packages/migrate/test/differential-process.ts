/**
 * The differential comparison in a process of its own (differential-child.ts): jitless, which
 * needs a fresh process, and the sweep's million, which runs beside the default comparison on
 * another core. The child holds one batch of records at a time.
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import type { Summary } from "./differential-sides.js"
import { repo } from "./records.js"

const CHILD = fileURLToPath(new URL("./differential-child.ts", import.meta.url))

export interface ChildSummary extends Summary {
  /** How many times the child generated code (`new Function`): none when jitless. */
  readonly generatedCode: number
}

/**
 * Batches `from` to `from + count - 1` of `size` records of the corpus seeded by `seed`, compared in
 * a child process; every `optionsEvery`-th batch under every option set, the others under the default.
 */
export const compareInChild = (seed: number, from: number, count: number, size: number, jitless: boolean, optionsEvery = 1): Promise<ChildSummary> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--conditions=@scanbridge/source",
        "--import",
        "tsx",
        CHILD,
        ...[seed, from, count, size].map(String),
        ...(jitless ? ["--jitless"] : []),
        "--options-every",
        String(optionsEvery)
      ],
      { cwd: repo, stdio: ["ignore", "pipe", "pipe"] }
    )
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout.on("data", (b: Buffer) => out.push(b))
    // Shown as it comes (the sweep's progress), and kept for the error should the child fail.
    child.stderr.on("data", (b: Buffer) => {
      err.push(b)
      process.stderr.write(b)
    })
    child.on("error", reject)
    child.on("close", (code) => {
      if (code === 0) resolve(JSON.parse(Buffer.concat(out).toString("utf8")) as ChildSummary)
      else
        reject(
          new Error(
            `differential child (seed ${seed}, batches ${from}+${count} of ${size}${jitless ? ", jitless" : ""}) exited with ${code}: ${Buffer.concat(err).toString("utf8").slice(0, 4_000)}`
          )
        )
    })
  })
