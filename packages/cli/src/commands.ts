/**
 * The `scanbridge` command: migrate, inspect, diff, simulate. Results go to stdout (so a shell
 * pipe composes), progress and summaries to stderr; a failure is one line on stderr and a
 * non-zero exit code.
 */
import { Args, Command, Options } from "@effect/cli"
import { FileSystem, Terminal } from "@effect/platform"
import { Clock, Console, Effect, Either, Layer, Option, Schema } from "effect"
import { type Report, type TextWriter, Normalizer, fileWriter, migrate, renderReport } from "@scanbridge/migrate"
import type { Scan } from "@scanbridge/model"
import { DEMO_ORG, Simulator } from "@scanbridge/simulator"
import { renderDiff, renderScan } from "./render.js"

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
    strict: Options.boolean("strict").pipe(Options.withDescription("exit with code 2 when any record was rejected"))
  },
  (args) =>
    Effect.scoped(
      Effect.gen(function* () {
        const output = Option.isSome(args.out) ? yield* fileWriter(args.out.value) : stdoutWriter
        const rejects = Option.isSome(args.rejects) ? yield* fileWriter(args.rejects.value) : discard
        const started = yield* Clock.currentTimeMillis
        const tty = process.stderr.isTTY === true
        const report = yield* migrate({
          inputs: args.inputs,
          to: args.to,
          output,
          rejects,
          ...(tty ? { onProgress: (r: Report) => Effect.map(Clock.currentTimeMillis, (now) => void process.stderr.write(progressLine(r, started, now))) } : {})
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

export const cli = Command.run(scanbridge, { name: "scanbridge", version: "0.1.0" })

/** Used by the terminal-aware parts; kept here so tests can supply a fake. */
export type { Terminal }
