/**
 * What a gateway is told: the legacy client ids it accepts, the units its estimation answers
 * carry, the lifetimes of what it issues, and where the hosted scanner is. Resolved once into
 * `GatewayConfig`, the service every route reads.
 */
import { Context, Duration, Redacted } from "effect"
import { createHash } from "node:crypto"

export interface GatewayOptions {
  /**
   * The legacy client ids the gateway accepts, for create-session and tokens/anonymous. Secrets:
   * held redacted, compared by their SHA-256, never echoed.
   */
  readonly clientIds: ReadonlyArray<Redacted.Redacted<string> | string>
  /**
   * The unit of the lengths in estimation answers. The vendor's documents state none and stored
   * responses show both; the default, millimetres, is what the legacy simulator answers.
   */
  readonly estimationLengthUnit?: "mm" | "cm"
  /** How long a session (and its platform scan token) lives. Default one hour, as the legacy simulator's. */
  readonly sessionLifetime?: Duration.DurationInput
  /** How long an anonymous access token lives. Default one hour. */
  readonly tokenLifetime?: Duration.DurationInput
  /**
   * The hosted scanner's address, with `{LOCALE}` where the locale goes (platform's
   * `hostedScannerUrl`). The simulator serves one at `<platform url>/scanner/{LOCALE}/`.
   */
  readonly scannerAddress?: string
  /**
   * How long the photos of an estimation whose scan the platform never took are kept (their pair
   * never came, or the platform stayed down). Default 24 hours. Photos the platform took are
   * deleted at once, whatever this says.
   */
  readonly photoRetention?: Duration.DurationInput
  /** How long an estimation can be read after its creation. Default 30 days. */
  readonly estimationRetention?: Duration.DurationInput
}

export interface GatewaySettings {
  /** SHA-256 (hex) of each accepted client id. */
  readonly clientKeys: ReadonlySet<string>
  readonly estimationLengthUnit: "mm" | "cm"
  readonly sessionLifetimeMs: number
  readonly tokenLifetimeMs: number
  readonly scannerAddress: string | undefined
  readonly photoRetentionMs: number
  readonly estimationRetentionMs: number
}

export const DEFAULT_SESSION_LIFETIME = Duration.hours(1)
export const DEFAULT_TOKEN_LIFETIME = Duration.hours(1)
export const DEFAULT_PHOTO_RETENTION = Duration.hours(24)
export const DEFAULT_ESTIMATION_RETENTION = Duration.days(30)

/** The SHA-256 of a secret (a client id, an access token), as stored and compared. */
export const digest = (secret: Redacted.Redacted<string> | string): string =>
  createHash("sha256")
    .update(typeof secret === "string" ? secret : Redacted.value(secret))
    .digest("hex")

export const settingsOf = (options: GatewayOptions): GatewaySettings => ({
  clientKeys: new Set(options.clientIds.map(digest)),
  estimationLengthUnit: options.estimationLengthUnit ?? "mm",
  sessionLifetimeMs: Duration.toMillis(options.sessionLifetime ?? DEFAULT_SESSION_LIFETIME),
  tokenLifetimeMs: Duration.toMillis(options.tokenLifetime ?? DEFAULT_TOKEN_LIFETIME),
  scannerAddress: options.scannerAddress,
  photoRetentionMs: Duration.toMillis(options.photoRetention ?? DEFAULT_PHOTO_RETENTION),
  estimationRetentionMs: Duration.toMillis(options.estimationRetention ?? DEFAULT_ESTIMATION_RETENTION)
})

export class GatewayConfig extends Context.Tag("@scanbridge/gateway/GatewayConfig")<GatewayConfig, GatewaySettings>() {}
