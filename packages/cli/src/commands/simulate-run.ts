/** The run of `scanbridge simulate` (see simulate.ts for its flags), loaded when the command runs. */
import { Config, Console, Effect, Option, Redacted } from "effect"
import {
  DEMO_ESTIMATION_CLIENT_ID,
  DEMO_FIT_CLIENT_KEY,
  DEMO_ORG,
  DEMO_PRODUCTS,
  DEMO_SESSION_CLIENT_ID,
  PROCESSING_MS,
  Simulator
} from "@scanbridge/simulator"
import { CliError } from "./errors.js"

export interface SimulateOptions {
  readonly port: number
  readonly host: string
  readonly seed: number
  readonly faultRate: number
  readonly sessionCompleteAfter: number
  readonly staging: boolean
  readonly secret: Option.Option<Redacted.Redacted<string>>
}

/** The environment variable that gives the secret when --secret does not. */
const SECRET_VARIABLE = "SCANBRIDGE_SIMULATOR_SECRET"

/** Where the secret of scan tokens came from; the secret itself is never printed. */
export type SecretSource = "--secret" | typeof SECRET_VARIABLE | "random"

interface TokenSecret {
  readonly source: SecretSource
  /** None: the simulator draws one for the run. */
  readonly secret: Option.Option<Redacted.Redacted<string>>
}

/** The secret of scan tokens: --secret's, else the environment's (empty counts as unset). */
const tokenSecret = (options: SimulateOptions): Effect.Effect<TokenSecret, CliError> =>
  Option.isSome(options.secret)
    ? Effect.succeed({ source: "--secret", secret: options.secret })
    : Config.option(Config.redacted(SECRET_VARIABLE)).pipe(
        Effect.map((given): TokenSecret => {
          const secret = Option.filter(given, (s) => Redacted.value(s) !== "")
          return { source: Option.isSome(secret) ? SECRET_VARIABLE : "random", secret }
        }),
        Effect.mapError(() => new CliError({ message: `simulate: cannot read ${SECRET_VARIABLE}` }))
      )

/** What the running simulator prints: where each API is, and its demo credentials. */
export const announcement = (url: string, options: SimulateOptions, secret: SecretSource): string => {
  const products = DEMO_PRODUCTS.map((p) => `${p.brandId}/${p.garmentSku}`).join(", ")
  const lines = [
    `scanbridge simulator listening on ${url} (platform org ${DEMO_ORG.id}, key ${DEMO_ORG.apiKeys[0]})`,
    `  platform:   ${url}/api/orgs/${DEMO_ORG.id}/scans   org id: ${DEMO_ORG.id}   Authorization: ${DEMO_ORG.apiKeys[0]}`,
    secret === "random"
      ? `              scan tokens signed with a secret random to this run (--secret or ${SECRET_VARIABLE} keeps them valid across runs)`
      : `              scan tokens signed with the secret of ${secret}`,
    `  session:    ${url}/scanning/v0/create-session   clientId: ${DEMO_SESSION_CLIENT_ID}`,
    options.sessionCompleteAfter >= 0
      ? `              sessions complete ${options.sessionCompleteAfter} ms after creation`
      : `              complete a session: POST ${url}/_simulator/session/sessions/<SSID>/submit`,
    `  estimation: ${url}/tokens/anonymous?client_id=${DEMO_ESTIMATION_CLIENT_ID}   ${url}/estimation   client_id: ${DEMO_ESTIMATION_CLIENT_ID}`,
    `              jobs take ${PROCESSING_MS[options.staging ? "staging" : "production"] / 1000} s after the second photo${options.staging ? " (staging)" : ""}`,
    `  fit:        ${url}/fit/v2/CreateSession   clientKey: ${DEMO_FIT_CLIENT_KEY} (in every request body)`,
    `              products: ${products}; estimation tokens: POST ${url}/fit/v2/_simulator/estimations`
  ]
  if (options.faultRate > 0) lines.push(`  faults:     ${options.faultRate * 100}% of requests answered 503, seed ${options.seed}`)
  return lines.join("\n")
}

/** The system's error code (EADDRINUSE, EACCES, ...) of a failure to listen. */
const codeOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined

export const runSimulate = (options: SimulateOptions) =>
  Effect.flatMap(tokenSecret(options), ({ source, secret }) =>
    Effect.gen(function* () {
      const sim = yield* Simulator
      yield* Console.log(announcement(sim.url, options, source))
      return yield* Effect.never
    }).pipe(
      Effect.provide(
        Simulator.layer({
          port: options.port,
          host: options.host,
          platform: { orgs: [{ ...DEMO_ORG, quota: 1000 }], ...(Option.isSome(secret) ? { tokenSecret: secret.value } : {}) },
          session: options.sessionCompleteAfter >= 0 ? { completeAfterMs: options.sessionCompleteAfter } : {},
          estimation: { mode: options.staging ? "staging" : "production" },
          faults: { seed: options.seed, serverErrorRate: options.faultRate }
        })
      ),
      Effect.mapError((e) => new CliError({ message: `simulate: cannot listen on ${options.host} port ${options.port} (${codeOf(e.cause) ?? e._tag})` }))
    )
  )
