/**
 * The `scanbridge` command: migrate, inspect, diff, simulate. Results go to stdout (so a shell
 * pipe composes), progress and summaries to stderr; a failure is one line on stderr and an exit
 * code from exit.ts. `runCli` runs a command line to its exit code over the Stdio service, so the
 * tests run it in-process exactly as the executable does.
 */
import { BuiltInOptions, Command, CommandDescriptor, HelpDoc, Options, Usage, ValidationError } from "@effect/cli"
import { Cause, Effect, HashMap, Option, Ref } from "effect"
import type { Adapter } from "@scanbridge/model"
import { GivenAdapters } from "./given-adapters.js"
import { diffCommand } from "./commands/diff.js"
import { inspectCommand } from "./commands/inspect.js"
import { type HelpEpilogue, renderEpilogue } from "./commands/help.js"
import { STDIN_ARGUMENT, migrateCommand, migrateHelp } from "./commands/migrate.js"
import { simulateCommand } from "./commands/simulate.js"
import { ExitCode, ExitStatus } from "./exit.js"
import { Stdio, withStdioConsole } from "./stdio.js"
import { VERSION, asksForVersion } from "./version.js"

import { UsageError } from "./commands/errors.js"

export { CliError } from "./commands/errors.js"

export const scanbridge = Command.make("scanbridge").pipe(
  Command.withDescription("Read every generation of the vendor's scanning APIs as one canonical model"),
  Command.withSubcommands([migrateCommand, inspectCommand, diffCommand, simulateCommand])
)

// --- Unknown flags --------------------------------------------------------------------------

/** The flags in a usage, each with whether it takes a value. */
const flagsOf = (usage: Usage.Usage, into = new Map<string, boolean>()): Map<string, boolean> => {
  switch (usage._tag) {
    case "Named":
      for (const name of usage.names) if (name.startsWith("-")) into.set(name.toLowerCase(), Option.isSome(usage.acceptedValues))
      break
    case "Optional":
    case "Repeated":
      flagsOf(usage.usage, into)
      break
    case "Alternation":
    case "Concat":
      flagsOf(usage.left, into)
      flagsOf(usage.right, into)
      break
  }
  return into
}

const builtIns = flagsOf(Options.getUsage(BuiltInOptions.builtInOptions(scanbridge.descriptor, Usage.empty, HelpDoc.empty)))
const commandFlags = new Map(
  HashMap.toEntries(Command.getSubcommands(scanbridge)).map(([name, descriptor]) => [name, new Map([...builtIns, ...flagsOf(CommandDescriptor.getUsage(descriptor))])])
)

/** What runCli reads off a command line before @effect/cli parses it. */
export interface CommandLine {
  /** The command it names, in lower case. */
  readonly command: string | undefined
  /**
   * Its first flag that its command does not have, as a one-line message. @effect/cli takes an
   * unknown `--flag` for an argument (`migrate --bogus f` would read a file named --bogus), so
   * flags are checked here first, against the commands' own usage.
   */
  readonly unknown: string | undefined
  /** Whether it asks for help (`--help`, `-h`). */
  readonly help: boolean
  /**
   * The arguments for @effect/cli, each `-` argument (standard input) spelled STDIN_ARGUMENT:
   * @effect/cli takes a lone `-` for the end of the options, so `migrate - --quiet` would read
   * `--quiet` as an input. A `-` that is an option's value (`--out -`) stays as it is.
   */
  readonly args: ReadonlyArray<string>
}

const unknownMessage = (flag: string, command: string | undefined, known: ReadonlyMap<string, boolean>) => {
  const options = [...known.keys()].filter((f) => !builtIns.has(f))
  return command === undefined
    ? `unknown option ${flag}; see scanbridge --help`
    : `unknown option ${flag} for ${command}${options.length === 0 ? "" : ` (its options: ${options.join(", ")})`}; see scanbridge ${command} --help`
}

/** Reads a command line's arguments (without node and the script): one walk, as @effect/cli will read them. */
export const readCommandLine = (given: ReadonlyArray<string>): CommandLine => {
  const args = [...given]
  let command: string | undefined
  let known = builtIns
  let unknown: string | undefined
  let help = false
  let options = true
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "-") args[i] = STDIN_ARGUMENT
    else if (!options) continue
    else if (arg === "--") options = false
    else if (arg.startsWith("-")) {
      const eq = arg.indexOf("=")
      const flag = eq < 0 ? arg : arg.slice(0, eq)
      // As @effect/cli matches them: case-insensitively.
      const takesValue = known.get(flag.toLowerCase())
      if (takesValue === undefined) unknown ??= unknownMessage(flag, command, known)
      else if (takesValue && eq < 0) i++
      help ||= flag === "--help" || flag === "-h"
    } else if (command === undefined) {
      command = arg.toLowerCase()
      known = commandFlags.get(command) ?? builtIns
    }
  }
  return { command, unknown, help, args }
}

/** The part of each command's help that @effect/cli has no place for. */
const epilogues: Readonly<Record<string, HelpEpilogue>> = { migrate: migrateHelp }

const run = Command.run(scanbridge, { name: "scanbridge", version: VERSION })

const messageOf = (error: unknown): string =>
  error instanceof Error || (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string")
    ? (error as { message: string }).message
    : String(error)

export interface RunCliOptions {
  /**
   * Adapters for other storage formats, added to the built-in ones for every command (as
   * `--adapter` adds a module's). Values have no module a worker thread could import, so with
   * them `migrate` runs in the main thread whatever `--workers` says.
   */
  readonly adapters?: ReadonlyArray<Adapter>
}

/**
 * Runs a command line (`process.argv`: node, the script, then the arguments) to its exit code.
 * Every failure is printed here, as one line, and becomes its exit code; only an interruption
 * (a signal, which the executable turns into its own exit code) ends it otherwise.
 */
export const runCli = (argv: ReadonlyArray<string>, options: RunCliOptions = {}) =>
  Effect.gen(function* () {
    const stdio = yield* Stdio
    // One line, as the executable prints it without loading the commands (main.ts).
    if (asksForVersion(argv.slice(2))) return yield* Effect.as(Effect.ignore(stdio.out(`${VERSION}\n`)), ExitCode.ok)
    const line = readCommandLine(argv.slice(2))
    if (line.unknown !== undefined) {
      yield* stdio.err(`scanbridge: ${line.unknown}\n`)
      return ExitCode.usage
    }
    const status = yield* Ref.make<ExitCode>(ExitCode.ok)
    const epilogue = line.help && line.command !== undefined ? epilogues[line.command] : undefined
    return yield* run([...argv.slice(0, 2), ...line.args]).pipe(
      Effect.zipRight(epilogue === undefined ? Effect.void : Effect.ignore(stdio.out(renderEpilogue(epilogue)))),
      Effect.zipRight(Ref.get(status)),
      Effect.provideService(ExitStatus, status),
      Effect.provideService(GivenAdapters, options.adapters ?? []),
      withStdioConsole,
      Effect.catchAllCause((cause): Effect.Effect<ExitCode> => {
        if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const failure = Cause.failureOption(cause)
        // A bad command line has been reported already, by @effect/cli.
        if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) return Effect.succeed(ExitCode.usage)
        if (Option.isSome(failure) && failure.value instanceof UsageError) return Effect.as(stdio.err(`scanbridge: ${failure.value.message}\n`), ExitCode.usage)
        // The reader of stdout has gone: nothing to tell it.
        if (Option.isSome(failure) && typeof failure.value === "object" && failure.value !== null && "_tag" in failure.value && failure.value._tag === "BrokenPipe") {
          return Effect.succeed(ExitCode.brokenPipe)
        }
        const message = Option.isSome(failure) ? messageOf(failure.value) : `internal error: ${messageOf(Cause.squash(cause))}`
        return Effect.as(stdio.err(`scanbridge: ${message}\n`), ExitCode.failure)
      })
    )
  })
