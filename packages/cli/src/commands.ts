/**
 * The `scanbridge` command: migrate, inspect, diff, simulate, gateway. Results go to stdout (so a shell
 * pipe composes), progress and summaries to stderr; a failure is one line on stderr and an exit
 * code from exit.ts. `runCli` runs a command line to its exit code over the Stdio service, so the
 * tests run it in-process exactly as the executable does.
 */
import { Command, CommandDescriptor, type Usage, ValidationError } from "@effect/cli"
import { Cause, Console, Effect, Option, Ref } from "effect"
import type { Adapter } from "@scanbridge/model"
import { GivenAdapters } from "./given-adapters.js"
import { diffCommand } from "./commands/diff.js"
import { inspectCommand } from "./commands/inspect.js"
import { type HelpEpilogue, helpText, renderEpilogue } from "./commands/help.js"
import { STDIN_ARGUMENT, migrateCommand, migrateHelp } from "./commands/migrate.js"
import { simulateCommand } from "./commands/simulate.js"
import { gatewayCommand, gatewayHelp } from "./commands/gateway.js"
import { ExitCode, ExitStatus } from "./exit.js"
import { Stdio, withStdioConsole } from "./stdio.js"
import { VERSION, asksForVersion } from "./version.js"

import { UsageError } from "./commands/errors.js"

export { CliError } from "./commands/errors.js"

const commands = [migrateCommand, inspectCommand, diffCommand, simulateCommand, gatewayCommand] as const

export const scanbridge = Command.make("scanbridge").pipe(
  Command.withDescription("Read every generation of the vendor's scanning APIs as one canonical model"),
  Command.withSubcommands(commands)
)

// --- Unknown flags --------------------------------------------------------------------------

/** The flags in a usage, each with the name of its value (`FILE`), or undefined for a switch. */
const flagsOf = (usage: Usage.Usage, into = new Map<string, string | undefined>()): Map<string, string | undefined> => {
  switch (usage._tag) {
    case "Named":
      for (const name of usage.names) if (name.startsWith("-")) into.set(name.toLowerCase(), Option.getOrUndefined(usage.acceptedValues))
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

/**
 * The flags of @effect/cli that Scanbridge keeps, on every command. Its others (--wizard,
 * --completions, --log-level) are refused as unknown: no command prompts or logs, and a flag that
 * --help does not list should not work either.
 */
const builtIns: ReadonlyMap<string, string | undefined> = new Map([
  ["--help", undefined],
  ["-h", undefined],
  ["--version", undefined]
])
// In the order of the help, which a HashMap of them does not keep.
const subcommands = commands.map((c): readonly [string, CommandDescriptor.Command<unknown>] => [
  [...CommandDescriptor.getNames(c.descriptor as CommandDescriptor.Command<unknown>)][0]!,
  c.descriptor as CommandDescriptor.Command<unknown>
])
const commandFlags = new Map(subcommands.map(([name, descriptor]) => [name, new Map([...builtIns, ...flagsOf(CommandDescriptor.getUsage(descriptor))])]))
/** The commands, in the order of the help. */
export const COMMANDS: ReadonlyArray<string> = subcommands.map(([name]) => name)

/** What runCli reads off a command line before @effect/cli parses it. */
export interface CommandLine {
  /** The command it names, in lower case. */
  readonly command: string | undefined
  /**
   * Its first mistake in its flags, as a one-line message: a flag that its command does not have,
   * or one given without its value. @effect/cli takes an unknown `--flag`, or a flag whose value
   * is missing, for an argument (`migrate --bogus f` would read a file named --bogus, `migrate x
   * --out` an input named --out), so flags are checked here first, against the commands' own usage.
   */
  readonly unknown: string | undefined
  /** The command it names when that is none of Scanbridge's (as typed); its flags are then not checked. */
  readonly unknownCommand: string | undefined
  /** Whether it asks for help (`--help`, `-h`). */
  readonly help: boolean
  /**
   * The arguments for @effect/cli, each `-` argument (standard input) spelled STDIN_ARGUMENT:
   * @effect/cli takes a lone `-` for the end of the options, so `migrate - --quiet` would read
   * `--quiet` as an input. A `-` that is an option's value (`--out -`) stays as it is.
   */
  readonly args: ReadonlyArray<string>
}

const unknownMessage = (flag: string, command: string | undefined, known: ReadonlyMap<string, string | undefined>) => {
  const options = [...known.keys()].filter((f) => !builtIns.has(f))
  return command === undefined
    ? `unknown option ${flag}; see scanbridge --help`
    : `unknown option ${flag} for ${command}${options.length === 0 ? "" : ` (its options: ${options.join(", ")})`}; see scanbridge ${command} --help`
}

/**
 * Whether `next`, the argument after a flag that takes a value, is no value: the end of the line,
 * `--`, or another of the command's flags (`--out --quiet`: a file named --quiet is the less
 * likely reading). A value that merely starts with a dash (`--workers -1`, `--out -`) is a value.
 */
const isMissing = (next: string | undefined, known: ReadonlyMap<string, string | undefined>): boolean =>
  next === undefined || next === "--" || (next.startsWith("--") && known.has((next.includes("=") ? next.slice(0, next.indexOf("=")) : next).toLowerCase()))

/** A command that is none of Scanbridge's, as one line: the nearest command if it is a typo away, and every command. */
const unknownCommandMessage = (typed: string, distance: (a: string, b: string) => number): string => {
  const near = COMMANDS.map((c) => [c, distance(typed.toLowerCase(), c)] as const)
    .filter(([c, d]) => d <= Math.max(1, Math.floor(c.length / 3)))
    .sort((a, b) => a[1] - b[1])
  return `unknown command ${typed}${near.length === 0 ? "" : ` (did you mean ${near[0]![0]}?)`}; the commands: ${COMMANDS.join(", ")}; see scanbridge --help`
}

/** Reads a command line's arguments (without node and the script): one walk, as @effect/cli will read them. */
export const readCommandLine = (given: ReadonlyArray<string>): CommandLine => {
  const args = [...given]
  let command: string | undefined
  let unknownCommand: string | undefined
  let known: ReadonlyMap<string, string | undefined> | undefined = builtIns
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
      help ||= flag === "--help" || flag === "-h"
      if (known === undefined) continue
      // As @effect/cli matches them: case-insensitively.
      const name = flag.toLowerCase()
      const value = known.get(name)
      if (!known.has(name)) unknown ??= unknownMessage(flag, command, known)
      else if (value !== undefined && eq < 0) {
        if (isMissing(args[i + 1], known))
          unknown ??= `${flag} needs a value: ${flag} ${value}${command === undefined ? "" : `; see scanbridge ${command} --help`}`
        else i++
      }
    } else if (command === undefined) {
      command = arg.toLowerCase()
      known = commandFlags.get(command)
      if (known === undefined) unknownCommand = arg
    }
  }
  return { command, unknown, unknownCommand, help, args }
}

/** The part of each command's help that @effect/cli has no place for. */
const epilogues: Readonly<Record<string, HelpEpilogue>> = { migrate: migrateHelp, gateway: gatewayHelp }

/** `scanbridge --help`, or a command's. */
const helpOf = (command: string | undefined): string => {
  const descriptor = subcommands.find(([name]) => name === command)?.[1]
  if (descriptor === undefined) {
    return helpText(scanbridge.descriptor, "", VERSION, [`scanbridge <command> [flags]`, `scanbridge [<command>] --help`, `scanbridge --version`])
  }
  const epilogue = epilogues[command!]
  return `${helpText(descriptor, "scanbridge ", VERSION)}${epilogue === undefined ? "" : `\n${renderEpilogue(epilogue)}`}`
}

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
    if (line.unknownCommand !== undefined) {
      // Loaded only for the message: the model's edit distance, which its own suggestions use.
      const { editDistance } = yield* Effect.promise(() => import("@scanbridge/model"))
      yield* stdio.err(`scanbridge: ${unknownCommandMessage(line.unknownCommand, editDistance)}\n`)
      return ExitCode.usage
    }
    // Help is Scanbridge's own: @effect/cli's lists flags Scanbridge does not take, and says of each
    // flag what its description says better ("A user-defined piece of text.").
    if (line.help || line.command === undefined) {
      yield* withStdioConsole(Console.log(helpOf(line.command)))
      return ExitCode.ok
    }
    const status = yield* Ref.make<ExitCode>(ExitCode.ok)
    return yield* run([...argv.slice(0, 2), ...line.args]).pipe(
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
        if (
          Option.isSome(failure) &&
          typeof failure.value === "object" &&
          failure.value !== null &&
          "_tag" in failure.value &&
          failure.value._tag === "BrokenPipe"
        ) {
          return Effect.succeed(ExitCode.brokenPipe)
        }
        const message = Option.isSome(failure) ? messageOf(failure.value) : `internal error: ${messageOf(Cause.squash(cause))}`
        return Effect.as(stdio.err(`scanbridge: ${message}\n`), ExitCode.failure)
      })
    )
  })
