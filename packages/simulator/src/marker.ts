/**
 * A photo whose bytes contain `scanbridge-fail:<code>` fails with that code, so integrators can
 * test outcomes the simulator cannot see in a photo (a person facing the wrong way, an A-pose
 * with the arms too low). Put the marker in a JPEG comment segment.
 */
export const FAIL_MARKER = "scanbridge-fail:"

/** The code a photo asks to fail with, or null. */
export const markedFailure = (bytes: Uint8Array): string | null => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const at = buffer.indexOf(FAIL_MARKER, 0, "latin1")
  if (at < 0) return null
  const start = at + FAIL_MARKER.length
  return /^[A-Za-z0-9]+/.exec(buffer.subarray(start, start + 64).toString("latin1"))?.[0] ?? null
}
