import { Context } from "effect"
import type { Adapter } from "@scanbridge/model"

/**
 * The adapters `runCli` was given as values, added to the built-in ones (none by default). Apart
 * from adapters.ts so that the command line's runner does not load the migration engine for it.
 */
export class GivenAdapters extends Context.Reference<GivenAdapters>()("@scanbridge/cli/GivenAdapters", {
  defaultValue: (): ReadonlyArray<Adapter> => []
}) {}
