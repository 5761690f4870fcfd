/**
 * The command's standard streams, as a service: the process's own when run as a program, and
 * buffers in the tests, which run the command in-process. Every byte the command prints goes
 * through here (help and errors of @effect/cli too, through `withStdioConsole`), so what a test
 * reads is what a user sees.
 */
import { type Console, Context, Effect, Schema, type Stream } from "effect"

/** The reader of standard output has gone (`scanbridge migrate ... | head -1`). */
export class BrokenPipe extends Schema.TaggedError<BrokenPipe>("@scanbridge/cli/BrokenPipe")("BrokenPipe", {}) {}

export interface StdioShape {
  /**
   * Writes to standard output (a string, or UTF-8 bytes as migration workers send them), waiting
   * while the reader is behind; fails once the reader has gone.
   */
  readonly out: (text: string | Uint8Array) => Effect.Effect<void, BrokenPipe>
  /** Writes to standard error. Never fails: a message that cannot be shown is dropped. */
  readonly err: (text: string) => Effect.Effect<void>
  /** Standard input's bytes, read when (and only if) the stream is run. */
  readonly stdin: Stream.Stream<Uint8Array, Error>
  readonly outIsTerminal: boolean
  readonly errIsTerminal: boolean
  /** Whether colours are wanted at all (`NO_COLOR`, https://no-color.org, turns them off). */
  readonly colour: boolean
}

export class Stdio extends Context.Tag("@scanbridge/cli/Stdio")<Stdio, StdioShape>() {}

// Select Graphic Rendition: the colours and bold of @effect/cli's help and errors.
const SGR = /\u001b\[[0-9;]*m/g

/** Text without colours or bold. */
export const uncoloured = (text: string): string => text.replace(SGR, "")

const show = (args: ReadonlyArray<unknown>, coloured: boolean) => {
  const text = args.map((a) => (typeof a === "string" ? a : String(a))).join(" ")
  return `${coloured ? text : uncoloured(text)}\n`
}

/**
 * Runs `effect` with a Console that prints through Stdio. @effect/cli renders help and errors
 * with ANSI styles whatever the output; without a terminal to read them they are noise, so
 * they are taken out there.
 */
export const withStdioConsole = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Stdio> =>
  Effect.flatMap(Stdio, (stdio) =>
    Effect.consoleWith((console) =>
      Effect.withConsole(effect, {
        ...console,
        log: (...args) => Effect.ignore(stdio.out(show(args, stdio.colour && stdio.outIsTerminal))),
        error: (...args) => stdio.err(show(args, stdio.colour && stdio.errIsTerminal))
      } satisfies Console.Console)
    )
  )
