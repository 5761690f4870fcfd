/**
 * `scanbridge simulate` (and `pnpm simulate`, which runs this same command): the simulator of all
 * four APIs as a server, for developing offline. It prints where each API is and the demo
 * credentials of each: they are the fixed credentials of a local fake, meant to be copied.
 * Sessions complete by themselves (3 s after creation by default), since no widget plays the
 * user here; `--session-complete-after -1` leaves that to the control endpoint. Scan tokens are
 * the exception to fixed credentials: their secret is random to each run unless one is given,
 * since a secret anyone knows lets anyone sign a token for any organization.
 *
 * The command's flags; the run is simulate-run.ts, loaded when the command runs.
 */
import { Command, Options } from "@effect/cli"
import { Effect, Redacted } from "effect"
import { flag, integer, invalid, number, text } from "./flags.js"
import { lazy } from "./lazy.js"

// One paragraph: @effect/cli lists a command with its description only when it is one.
const description =
  "Run the simulator of all four APIs (platform, session, estimation, fit) on 127.0.0.1, and print where each is and its demo credentials; it runs until interrupted (Ctrl-C)."

// Redacted from the moment it is parsed, so that no error or log line can show it.
const secret = Options.redacted("secret").pipe(
  Options.withPseudoName("SECRET"),
  Options.mapEffect((value) => (Redacted.value(value) === "" ? Effect.fail(invalid("--secret: expected a secret that is not empty")) : Effect.succeed(value))),
  Options.optional,
  Options.withDescription(
    "the secret that signs scan tokens, for tokens that stay valid across runs; never printed (default: SCANBRIDGE_SIMULATOR_SECRET, or a secret random to each run)"
  )
)

export const simulateCommand = Command.make(
  "simulate",
  {
    port: integer("port", 0, 65535, 8787, "the port to listen on; 0 picks a free port"),
    host: text("host", "HOST", "127.0.0.1", "the address to listen on"),
    seed: integer("seed", 0, Number.MAX_SAFE_INTEGER, 1, "seed of the injected faults: the same seed fails the same requests"),
    faultRate: number("fault-rate", 0, 1, 0, "share of requests answered 503 before they reach the API"),
    sessionCompleteAfter: integer(
      "session-complete-after",
      -1,
      Number.MAX_SAFE_INTEGER,
      3000,
      "milliseconds after creation a session completes by itself; -1 leaves it to the control endpoint"
    ),
    staging: flag("staging", "estimation jobs take minutes, as on the vendor's staging server (default: off, seconds)"),
    secret
  },
  lazy(() => import("./simulate-run.js").then((m) => m.runSimulate))
).pipe(Command.withDescription(description))
