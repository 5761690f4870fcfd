/**
 * The `scanbridge` command: migrate, inspect, diff, simulate. Results go to stdout (so a shell
 * pipe composes), progress and summaries to stderr; a failure is one line on stderr and a
 * non-zero exit code.
 */
import { Args, BuiltInOptions, Command, CommandDescriptor, HelpDoc, Options, Usage, ValidationError } from "@effect/cli"
import { FileSystem, Terminal } from "@effect/platform"
import { Clock, Console, Effect, Either, HashMap, Layer, Option, Schema } from "effect"
import { type Report, type TextWriter, Normalizer, fileWriter, listInputs, makeMigratePool, migrate, renderReport } from "@scanbridge/migrate"
import type { Scan } from "@scanbridge/model"
import { DEMO_ORG, Simulator } from "@scanbridge/simulator"
import { renderDiff, renderScan } from "./render.js"
import { WORKERS_FROM_BYTES, defaultWorkers } from "./workers.js"

/** A failure the command reports as one line and exit code 1. */
export class CliError extends Schema.TaggedError<CliError>("@scanbridge/cli/CliError")("CliError", { message: Schema.String }) {}

const TARGETS = ["canonical", "platform", "session", "estimation", "fit"] as const

const normalizerLayer = Normalizer.layer.pipe(Layer.provide(Normalizer.adapters))

// --- migrate ------------------------------------------------------------------------------

const stdoutWriter: TextWriter = (text) => (text === "" ? Effect.void : Effect.sync(() => void process.stdout.write(text)))
const discard: TextWriter = () => Effect.void

const progressLine = (report: Report, started: number, now: number) => {
  const seconds = Math.max((now - started) / 1000, 0.001)
  return `\r${report.records} records, ${Math.round(report.records / seconds)}/s, ${report.rejected} rejected`
}

const migrateCommand = Command.make(
  "migrate",
  {
    inputs: Args.text({ name: "inputs" }).pipe(Args.withDescription("NDJSON files, JSON files (an object or an array) or folders of them"), Args.atLeast(1)),
    to: Options.choice("to", TARGETS).pipe(Options.withDefault("canonical" as const), Options.withDescription("the shape to write")),
    out: Options.text("out").pipe(Options.optional, Options.withDescription("where to write the records (default: stdout)")),
    rejects: Options.text("rejects").pipe(Options.optional, Options.withDescription("where to write {file, line, error, raw} per rejected record")),
    report: Options.text("report").pipe(Options.optional, Options.withDescription("where to write the report as JSON")),
    strict: Options.boolean("strict").pipe(Options.withDescription("exit with code 2 when any record was rejected")),
    workers: Options.integer("workers").pipe(
      Options.mapEffect((n) => (n >= 0 ? Effect.succeed(n) : Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--workers must be 0 or more, not ${n}`))))),
      Options.optional,
      Options.withDescription(
        `worker threads to migrate on besides the main thread, 0 for none (default: one per core but one when the inputs hold ${WORKERS_FROM_BYTES / 1024 / 1024} MiB or more, else 0); the output is the same either way`
      )
    )
  },
  (args) =>
    Effect.scoped(
      Effect.gen(function* () {
        const output = Option.isSome(args.out) ? yield* fileWriter(args.out.value) : stdoutWriter
        const rejects = Option.isSome(args.rejects) ? yield* fileWriter(args.rejects.value) : discard
        const started = yield* Clock.currentTimeMillis
        const tty = process.stderr.isTTY === true
        const inputs = yield* listInputs(args.inputs)
        const workers = Option.isSome(args.workers) ? args.workers.value : defaultWorkers(inputs.bytesTotal ?? 0)
        const pool = workers > 0 ? yield* makeMigratePool({ size: workers }) : undefined
        const report = yield* migrate({
          inputs,
          to: args.to,
          output,
          rejects,
          ...(pool === undefined ? {} : { pool }),
          ...(tty ? { onProgress: ({ report }) => Effect.map(Clock.currentTimeMillis, (now) => void process.stderr.write(progressLine(report, started, now))) } : {})
        })
        const seconds = ((yield* Clock.currentTimeMillis) - started) / 1000
        if (tty) process.stderr.write("\r\u001b[K")
        yield* Effect.sync(() => process.stderr.write(`${renderReport(report, seconds)}\n`))
        if (Option.isSome(args.report)) {
          const fs = yield* FileSystem.FileSystem
          yield* fs.writeFileString(args.report.value, `${JSON.stringify(report, null, 2)}\n`)
        }
        if (report.rejected > 0 && Option.isNone(args.rejects)) {
          yield* Effect.sync(() => process.stderr.write(`${report.rejected} rejected record(s) not kept: pass --rejects FILE to keep them\n`))
        }
        if (args.strict && report.rejected > 0) yield* Effect.sync(() => void (process.exitCode = 2))
      })
    ).pipe(Effect.provide(normalizerLayer))
).pipe(Command.withDescription("Migrate stored records of any API to canonical scans or another API's shape"))

// --- inspect and diff ---------------------------------------------------------------------

/** Every scan of a file: one JSON document, or NDJSON. */
const scansOf = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.mapError(fs.readFileString(file), () => new CliError({ message: `${file}: cannot read it (missing, a folder, or not permitted)` }))
    const normalizer = yield* Normalizer
    const documents = (() => {
      try {
        return [JSON.parse(text) as unknown]
      } catch {
        return text.split("\n").filter((l) => l.trim() !== "").map((l) => l)
      }
    })()
    const scans: Array<Scan> = []
    for (const [i, doc] of documents.entries()) {
      let json: unknown = doc
      if (typeof doc === "string") {
        try {
          json = JSON.parse(doc)
        } catch {
          return yield* Effect.fail(new CliError({ message: `${file}:${i + 1}: not JSON` }))
        }
      }
      const result = normalizer.normalize(json)
      if (Either.isLeft(result)) return yield* Effect.fail(new CliError({ message: `${file}${documents.length > 1 ? `:${i + 1}` : ""}: ${result.left.message}` }))
      scans.push(...result.right)
    }
    if (scans.length === 0) return yield* Effect.fail(new CliError({ message: `${file}: holds no scan` }))
    return scans
  })

const inspectCommand = Command.make("inspect", { file: Args.text({ name: "file" }).pipe(Args.withDescription("a record of any supported format")) }, ({ file }) =>
  Effect.gen(function* () {
    const scans = yield* scansOf(file)
    yield* Console.log(scans.map(renderScan).join("\n\n"))
  }).pipe(Effect.provide(normalizerLayer))
).pipe(Command.withDescription("Show a scan as a table: measurements in cm and inches, with its notes"))

const diffCommand = Command.make(
  "diff",
  { a: Args.text({ name: "a" }), b: Args.text({ name: "b" }) },
  ({ a, b }) =>
    Effect.gen(function* () {
      const [x] = yield* scansOf(a)
      const [y] = yield* scansOf(b)
      yield* Console.log(renderDiff(x!, y!, [a, b]))
    }).pipe(Effect.provide(normalizerLayer))
).pipe(Command.withDescription("Compare two scans of one person, measurement by measurement, largest difference first"))

// --- simulate -----------------------------------------------------------------------------

const simulateCommand = Command.make(
  "simulate",
  { port: Options.integer("port").pipe(Options.withDefault(8787), Options.withDescription("0 picks a free port")) },
  ({ port }) =>
    Effect.gen(function* () {
      const sim = yield* Simulator
      yield* Console.log(`scanbridge simulator listening on ${sim.url} (platform org ${DEMO_ORG.id}, key ${DEMO_ORG.apiKeys[0]})`)
      return yield* Effect.never
    }).pipe(
      Effect.provide(Simulator.layer({ port, platform: { orgs: [{ ...DEMO_ORG, quota: 1000 }] }, session: { completeAfterMs: 3000 } })),
      Effect.mapError((e) => new CliError({ message: `simulate: cannot listen on port ${port} (${e._tag})` }))
    )
).pipe(Command.withDescription("Run the simulator of all four APIs on 127.0.0.1"))

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

const run = Command.run(scanbridge, { name: "scanbridge", version: "0.1.0" })

/** The command line (`process.argv`): runs the command, or fails with a ValidationError already printed. */
export const cli = (argv: ReadonlyArray<string>) => {
  const unknown = unknownFlag(argv.slice(2))
  if (unknown === undefined) return run(argv)
  return Effect.zipRight(Console.error(`scanbridge: ${unknown}`), Effect.fail(ValidationError.invalidValue(HelpDoc.p(unknown))))
}

/** Used by the terminal-aware parts; kept here so tests can supply a fake. */
export type { Terminal }
