/**
 * The ids a gateway session has: its SSID, and the customScanId its platform scan token carries,
 * by which the session's scan is found on the platform.
 */
import { randomBytes } from "node:crypto"
import { Wire as PlatformWire } from "@scanbridge/platform"

/**
 * A new SSID: 192 random bits. The SSID is the only capability the widget holds (it reads the
 * results and the scanner's address with it), so it must not be guessable from another one, as
 * the legacy simulator's counter is.
 */
export const newSsid = (): string => `ss_${randomBytes(24).toString("base64url")}`

/** The customScanId of a session whose clientScanningId cannot be the scan's: 128 random bits. */
export const gatewayScanId = (): string => `gw_${randomBytes(16).toString("base64url")}`

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * The clientScanningId as the platform's customScanId, or undefined where it cannot be one:
 * absent or empty (proto3's default, the same as absent), longer than the platform stores, or
 * holding a lone surrogate (which a query string carries as U+FFFD, so the list would look for
 * another id than the one stored).
 */
export const customScanIdOf = (clientScanningId: string | undefined): string | undefined =>
  clientScanningId === undefined ||
  clientScanningId === "" ||
  clientScanningId.length > PlatformWire.MAX_CUSTOM_SCAN_ID ||
  LONE_SURROGATE.test(clientScanningId)
    ? undefined
    : clientScanningId
