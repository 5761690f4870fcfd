/**
 * The outputs a command is writing, for the one case their scope cannot clean up: the process
 * exiting before the interrupted command has finished (a second signal, or one not obeyed within
 * the grace period). Then their temporary files are removed here, synchronously, on the way out.
 */
import type { OutputFile } from "@scanbridge/migrate"
import { rmSync } from "node:fs"

const open = new Set<OutputFile>()

/** Remembers `output` until the scope it was opened in closes. */
export const track = (output: OutputFile): OutputFile => {
  open.add(output)
  return output
}

export const untrack = (output: OutputFile): void => void open.delete(output)

/** Removes the temporary files of every output still open, but those kept for a resumed run. */
export const removeTemporaries = (): void => {
  for (const output of open) if (output.temporary !== undefined && !output.resumable) rmSync(output.temporary, { force: true })
  open.clear()
}
