import { Effect } from "effect"

/**
 * A command's handler, loaded when the command runs: `--help`, `--version` and the other commands
 * do not load its work (the migration engine, the simulator), so they start in a fraction of the time.
 */
export const lazy =
  <A, E, R>(load: () => Promise<(args: A) => Effect.Effect<void, E, R>>) =>
  (args: A): Effect.Effect<void, E, R> =>
    Effect.flatMap(
      Effect.promise(() => load()),
      (handler) => handler(args)
    )
