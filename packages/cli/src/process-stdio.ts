/** Stdio over the process's own streams. */
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Effect, Layer } from "effect"
import { BrokenPipe, Stdio } from "./stdio.js"

const closedPipe = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error && (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED")

/**
 * The process's stdout, stderr and stdin. A reader that goes away makes stdout emit EPIPE as an
 * 'error' event, which would otherwise end the process with a stack trace: it is listened for
 * here and turned into BrokenPipe for the next write (and the one waiting, if any).
 */
export const processStdio = Layer.sync(Stdio, () => {
  const stdout = process.stdout
  let broken = false
  const waiting = new Set<(error: unknown) => void>()
  stdout.on("error", (error) => {
    if (!closedPipe(error)) return
    broken = true
    for (const wake of waiting) wake(error)
  })
  return {
    out: (text) =>
      Effect.async<void, BrokenPipe>((resume) => {
        if (broken) return resume(new BrokenPipe())
        if (text.length === 0 || stdout.write(text)) return resume(Effect.void)
        // Behind: wait for the reader, or for it to go.
        const wake = (error?: unknown) => {
          waiting.delete(wake)
          stdout.off("drain", wake)
          resume(error === undefined ? Effect.void : new BrokenPipe())
        }
        waiting.add(wake)
        stdout.once("drain", wake)
        return Effect.sync(() => {
          waiting.delete(wake)
          stdout.off("drain", wake)
        })
      }),
    err: (text) => Effect.sync(() => void process.stderr.write(text)),
    stdin: NodeStream.fromReadable(
      () => process.stdin,
      (error) => (error instanceof Error ? error : new Error(String(error)))
    ),
    outIsTerminal: stdout.isTTY === true,
    errIsTerminal: process.stderr.isTTY === true,
    colour: (process.env["NO_COLOR"] ?? "") === ""
  }
})
