import { Schema } from "effect"

/** A failure the command reports as one line and exit code 1. */
export class CliError extends Schema.TaggedError<CliError>("@scanbridge/cli/CliError")("CliError", { message: Schema.String }) {}
