/** A test's input: `text` in a file of its own, for as long as `use` runs, then removed. */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const withInputFile = <A>(text: string, use: (file: string) => Promise<A>): Promise<A> =>
  mkdtemp(join(tmpdir(), "scanbridge-input-")).then(async (dir) => {
    try {
      const file = join(dir, "in.ndjson")
      await writeFile(file, text)
      return await use(file)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
