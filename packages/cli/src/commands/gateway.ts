/**
 * `scanbridge gateway`: the legacy gateway (@scanbridge/gateway) as a server. Code written for the
 * deprecated session and estimation APIs, and pages that load the old widget, keep running with
 * only their base URL changed to the gateway's, while every call is carried out on the Scan
 * Platform of the integrator's organisation.
 *
 * Secrets never appear on the command line, where other users of the machine can read them
 * (`ps`, /proc/PID/cmdline): the platform API key comes from SCANBRIDGE_API_KEY or a file, the
 * legacy client ids from a file or SCANBRIDGE_GATEWAY_CLIENTS, and a PostgreSQL store's password
 * from PGPASSWORD or ~/.pgpass. There is no flag for any of them, and a `--store` URL that holds a
 * password is refused.
 *
 * The command's flags and help; the run is gateway-run.ts, loaded when the command runs.
 */
import { Command, Options } from "@effect/cli"
import { ExitCode } from "../exit.js"
import { choice, file, integer, optionalText, text } from "./flags.js"
import { DEFAULT_STORE } from "./gateway-defaults.js"
import { lazy } from "./lazy.js"

/** Where the embedded store lives when --store is not given: a folder beside where the gateway is started. */

/** What `scanbridge gateway --help` shows after the flags (see help.ts). */
export const gatewayHelp = {
  usage:
    "scanbridge gateway [--port N] [--host HOST] [--platform-url URL] [--org ID] [--api-key-file FILE] [--clients FILE] [--store DIR|URL] [--estimation-length-unit mm|cm] [--scanner-url URL]",
  exitCodes: [
    [ExitCode.ok, "stopped by SIGINT (Ctrl-C) or SIGTERM, having closed its server and its store"],
    [ExitCode.failure, "it could not start (the port is taken, the store cannot be opened) or stopped on an error"],
    [ExitCode.usage, "a bad command line: an unknown flag, a bad value, no API key or client ids, a --store URL with a password"],
    [ExitCode.sigint, "SIGINT, and the server or the store did not close in time"],
    [ExitCode.sigterm, "SIGTERM, and the server or the store did not close in time"]
  ],
  examples: [
    "SCANBRIDGE_API_KEY=sk_... scanbridge gateway --platform-url https://platform.example.com --org org_123 --clients clients.txt",
    "scanbridge gateway --api-key-file /run/secrets/platform-key --clients /run/secrets/legacy-clients --host 0.0.0.0 --port 8080",
    "PGPASSWORD=... scanbridge gateway --store postgres://gateway@db:5432/gateway --clients clients.txt",
    "SCANBRIDGE_GATEWAY_CLIENTS=cl_demo_0123456789 SCANBRIDGE_API_KEY=sk_demo_0123456789 scanbridge gateway --platform-url http://127.0.0.1:8787 --org org_demo --scanner-url 'http://127.0.0.1:8787/scanner/{LOCALE}/'"
  ]
} as const

// One paragraph: @effect/cli lists a command with its description only when it is one.
const description =
  "Serve the deprecated session and estimation APIs and the widget's script at their old paths, carrying out every call on the Scan Platform, so that old integration code keeps running with only its base URL changed; it runs until stopped (Ctrl-C, SIGTERM)."

export const gatewayCommand = Command.make(
  "gateway",
  {
    port: integer("port", 0, 65535, 8080, "the port to listen on; 0 picks a free port"),
    host: text("host", "HOST", "127.0.0.1", "the address to listen on; 0.0.0.0 for every interface"),
    platformUrl: optionalText("platform-url", "URL", "the Scan Platform's base URL", "SCANBRIDGE_PLATFORM_URL"),
    org: optionalText("org", "ID", "the organisation whose platform API carries out the calls", "SCANBRIDGE_ORG_ID"),
    apiKeyFile: file(
      "api-key-file",
      "the organisation's platform API key, read from the first line of this file (there is no flag for the key itself: other users of the machine can read a command line)",
      "SCANBRIDGE_API_KEY"
    ),
    clients: file(
      "clients",
      "the legacy client ids the gateway accepts, read from this file, one per line (blank lines and lines starting with # are skipped); secrets, so never on the command line",
      "SCANBRIDGE_GATEWAY_CLIENTS, comma-separated"
    ),
    // Redacted from the moment it is parsed: a URL given with its password in spite of the help
    // is refused without being shown.
    store: Options.redacted("store").pipe(
      Options.withPseudoName("DIR|URL"),
      Options.optional,
      Options.withDescription(
        `the gateway's state (sessions, tokens, estimations, photos awaiting their pair): a folder for the embedded store, or postgres://USER@HOST:PORT/DB for a PostgreSQL that several gateways share, its password in PGPASSWORD or ~/.pgpass, never in the URL (default: ${DEFAULT_STORE})`
      )
    ),
    estimationLengthUnit: choice(
      "estimation-length-unit",
      ["mm", "cm"] as const,
      "mm",
      "the unit of the lengths in estimation answers, as the old code reads them (the vendor's documents state none)"
    ),
    scannerUrl: optionalText(
      "scanner-url",
      "URL",
      "the hosted scanner's address, with {LOCALE} where the locale goes, which the widget opens and GET /gateway/v0/sessions/SSID/scanner answers",
      "none"
    )
  },
  lazy(() => import("./gateway-run.js").then((m) => m.runGateway))
).pipe(Command.withDescription(description))
