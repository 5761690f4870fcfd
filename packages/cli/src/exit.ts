/**
 * The exit codes of `scanbridge`, one per outcome a script may want to tell apart. Documented in
 * the README and docs/migrate.md; tests hold the commands to them.
 */
import { Context, Effect, Ref } from "effect"

export const ExitCode = {
  /** Done as asked. */
  ok: 0,
  /** The run could not be completed (an unreadable input, an output that cannot be written): nothing was written. */
  failure: 1,
  /** A bad command line: an unknown command or flag, a bad or missing value, a missing argument, an output that is an input. */
  usage: 2,
  /** `migrate --strict`: the run completed, and some records were rejected. */
  rejected: 3,
  /** `diff`: the scans differ by more than `--tolerance-mm`. */
  differs: 4,
  /** The reader of standard output went away (`| head`), as a shell reports SIGPIPE: 128 + 13. */
  brokenPipe: 141,
  /** Interrupted by SIGINT (Ctrl-C): 128 + 2. */
  sigint: 130,
  /** Stopped by SIGTERM: 128 + 15. */
  sigterm: 143
} as const

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** The exit code a command asks for when it completes (ok unless it says otherwise). */
export class ExitStatus extends Context.Tag("@scanbridge/cli/ExitStatus")<ExitStatus, Ref.Ref<ExitCode>>() {}

/** Sets the exit code of a command that completes. */
export const exitWith = (code: ExitCode): Effect.Effect<void, never, ExitStatus> => Effect.flatMap(ExitStatus, (status) => Ref.set(status, code))
