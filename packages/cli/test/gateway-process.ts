/** `scanbridge gateway` as a process of its own, for what only a process shows: signals, its exit code, a bundle run alone. */
import { spawn } from "node:child_process"

export interface GatewayProcess {
  /** Where it listens, from the line it prints. */
  readonly url: string
  /** Its exit code once it has ended (null when a signal ended it). */
  readonly exit: Promise<number | null>
  readonly kill: (signal: NodeJS.Signals) => void
  /** What it has printed so far. */
  readonly printed: () => { readonly stdout: string; readonly stderr: string }
}

/** Runs node with `args` until it prints where it listens; fails if it ends first. */
export const startGateway = (args: ReadonlyArray<string>, options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv }): Promise<GatewayProcess> => {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout.setEncoding("utf8").on("data", (d: string) => void (stdout += d))
  const exit = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(stderr)?.[1]
      if (url !== undefined) resolve({ url, exit, kill: (signal) => void child.kill(signal), printed: () => ({ stdout, stderr }) })
    })
    void exit.then((code) => reject(new Error(`exited (${code}) before it listened: ${stderr}`)))
  })
}
