import { Schema } from "effect"

/** A failure the command reports as one line and exit code 1. */
export class CliError extends Schema.TaggedError<CliError>("@scanbridge/cli/CliError")("CliError", { message: Schema.String }) {}

/** A bad command line found once the command runs (a `--to` no adapter offers): one line and exit code 2. */
export class UsageError extends Schema.TaggedError<UsageError>("@scanbridge/cli/UsageError")("UsageError", { message: Schema.String }) {}
