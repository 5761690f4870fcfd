/**
 * The `scanbridge` command: migrate, inspect, diff, simulate. Results go to stdout (so a shell
 * pipe composes), progress and summaries to stderr; a failure is one line on stderr and an exit
 * code from exit.ts. `runCli` runs a command line to its exit code over the Stdio service, so the
 * tests run it in-process exactly as the executable does.
 */
import { BuiltInOptions, Command, CommandDescriptor, HelpDoc, Options, Usage, ValidationError } from "@effect/cli"
import { Cause, Effect, HashMap, Option, Ref } from "effect"
import { diffCommand } from "./commands/diff.js"
import { inspectCommand } from "./commands/inspect.js"
import { type HelpEpilogue, renderEpilogue } from "./commands/help.js"
import { STDIN_ARGUMENT, migrateCommand, migrateHelp } from "./commands/migrate.js"
import { simulateCommand } from "./commands/simulate.js"
import { ExitCode, ExitStatus } from "./exit.js"
import { Stdio, withStdioConsole } from "./stdio.js"

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

/**
 * The first flag of the command line that its command does not have, as a one-line message.
 * @effect/cli takes an unknown `--flag` for an argument (`migrate --bogus f` would read a file
 * named --bogus), so flags are checked here first, against the commands' own usage.
 */
export const unknownFlag = (args: ReadonlyArray<string>): string | undefined => {
  let command: string | undefined
  let known = builtIns
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") break
    if (arg.startsWith("-") && arg.length > 1) {
      const eq = arg.indexOf("=")
      const flag = eq < 0 ? arg : arg.slice(0, eq)
      // As @effect/cli matches them: case-insensitively.
      const takesValue = known.get(flag.toLowerCase())
      if (takesValue === undefined) {
        const options = [...known.keys()].filter((f) => !builtIns.has(f))
        return command === undefined
          ? `unknown option ${flag}; see scanbridge --help`
          : `unknown option ${flag} for ${command}${options.length === 0 ? "" : ` (its options: ${options.join(", ")})`}; see scanbridge ${command} --help`
      }
      if (takesValue && eq < 0) i++
    } else if (command === undefined) {
      command = arg
      known = commandFlags.get(arg.toLowerCase()) ?? builtIns
    }
  }
  return undefined
}

/**
 * The command line with each `-` argument (standard input) spelled as STDIN_ARGUMENT: @effect/cli
 * takes a lone `-` for the end of the options, so `migrate - --quiet` would read `--quiet` as an
 * input. A `-` that is an option's value (`--out -`) stays as it is.
 */
export const protectDashes = (args: ReadonlyArray<string>): Array<string> => {
  const out = [...args]
  let known = builtIns
  let command: string | undefined
  let options = true
  for (let i = 0; i < out.length; i++) {
    const arg = out[i]!
    if (arg === "-") out[i] = STDIN_ARGUMENT
    else if (!options) continue
    else if (arg === "--") options = false
    else if (arg.startsWith("-")) {
      if (known.get(arg.toLowerCase()) === true) i++
    } else if (command === undefined) {
      command = arg
      known = commandFlags.get(arg.toLowerCase()) ?? builtIns
    }
  }
  return out
}

/** The part of each command's help that @effect/cli has no place for. */
const epilogues: Readonly<Record<string, HelpEpilogue>> = { migrate: migrateHelp }

/** The command a command line runs, if it asks for that command's help. */
const helpAskedOf = (args: ReadonlyArray<string>): string | undefined => {
  const end = args.indexOf("--")
  const words = end < 0 ? args : args.slice(0, end)
  if (!words.some((a) => a === "--help" || a === "-h")) return undefined
  return words.find((a) => !a.startsWith("-") && commandFlags.has(a.toLowerCase()))?.toLowerCase()
}

const run = Command.run(scanbridge, { name: "scanbridge", version: "0.1.0" })

const messageOf = (error: unknown): string =>
  error instanceof Error || (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string")
    ? (error as { message: string }).message
    : String(error)

/**
 * Runs a command line (`process.argv`: node, the script, then the arguments) to its exit code.
 * Every failure is printed here, as one line, and becomes its exit code; only an interruption
 * (a signal, which the executable turns into its own exit code) ends it otherwise.
 */
export const runCli = (argv: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const stdio = yield* Stdio
    const unknown = unknownFlag(argv.slice(2))
    if (unknown !== undefined) {
      yield* stdio.err(`scanbridge: ${unknown}\n`)
      return ExitCode.usage
    }
    const status = yield* Ref.make<ExitCode>(ExitCode.ok)
    const epilogue = epilogues[helpAskedOf(argv.slice(2)) ?? ""]
    return yield* run([...argv.slice(0, 2), ...protectDashes(argv.slice(2))]).pipe(
      Effect.zipRight(epilogue === undefined ? Effect.void : Effect.ignore(stdio.out(renderEpilogue(epilogue)))),
      Effect.zipRight(Ref.get(status)),
      Effect.provideService(ExitStatus, status),
      withStdioConsole,
      Effect.catchAllCause((cause): Effect.Effect<ExitCode> => {
        if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const failure = Cause.failureOption(cause)
        // A bad command line has been reported already, by @effect/cli.
        if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) return Effect.succeed(ExitCode.usage)
        // The reader of stdout has gone: nothing to tell it.
        if (Option.isSome(failure) && typeof failure.value === "object" && failure.value !== null && "_tag" in failure.value && failure.value._tag === "BrokenPipe") {
          return Effect.succeed(ExitCode.brokenPipe)
        }
        const message = Option.isSome(failure) ? messageOf(failure.value) : `internal error: ${messageOf(Cause.squash(cause))}`
        return Effect.as(stdio.err(`scanbridge: ${message}\n`), ExitCode.failure)
      })
    )
  })
