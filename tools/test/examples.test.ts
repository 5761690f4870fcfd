import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { beforeAll, describe, expect, it } from "vitest"
import { bundleAll } from "../bundle.js"
import { repoRoot } from "../docs/generated.js"

const run = promisify(execFile)

// Each example is shown in a generated region of a doc, followed by a text block of its output.
const EXAMPLES = [
  { name: "platform-quickstart", doc: "README.md" },
  { name: "session-migration", doc: "docs/migrate-from-session.md" },
  { name: "estimation-migration", doc: "docs/migrate-from-estimation.md" },
  { name: "fit-flow", doc: "docs/fit.md" }
]

// Each program runs as one bundle by node itself: tsx would compile the sources again in every
// process (seconds each on a busy machine). The bundles sit two folders below the repository's
// root, as the sources do, so what they find from import.meta.url (repoRoot) is the same.
const BUNDLES = join(repoRoot, "tools", ".bundles")
const bundled = (name: string) => join(BUNDLES, `${name}.mjs`)

beforeAll(async () => {
  await bundleAll(Object.fromEntries([...EXAMPLES.map(({ name }) => [name, `tools/examples/${name}.ts`]), ["demo", "tools/demo.ts"]]), BUNDLES)
}, 60_000)

describe("examples", () => {
  it.each(EXAMPLES)(
    "$name prints what $doc says it prints",
    async ({ name, doc }) => {
      const { stdout } = await run(process.execPath, [bundled(name)], { cwd: repoRoot })
      const text = readFileSync(join(repoRoot, doc), "utf8")
      const after = text.slice(text.indexOf(`<!-- /generated:${name} -->`))
      const shown = /```text\n([\s\S]*?)```/.exec(after)?.[1]
      expect(stdout).toBe(shown)
    },
    30_000
  )
})

describe("the demo", () => {
  it("prints what the README says it prints", async () => {
    const { stdout } = await run(process.execPath, [bundled("demo")], { cwd: repoRoot })
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8")
    const shown = /```text\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf("<!-- demo-output -->")))?.[1]
    expect(stdout).toBe(shown)
  }, 60_000)
})
