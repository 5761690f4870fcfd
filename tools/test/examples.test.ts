import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { repoRoot } from "../docs/generated.js"

const run = promisify(execFile)

// Each example is shown in a generated region of a doc, followed by a text block of its output.
const EXAMPLES = [
  { name: "platform-quickstart", doc: "README.md" },
  { name: "session-migration", doc: "docs/migrate-from-session.md" },
  { name: "estimation-migration", doc: "docs/migrate-from-estimation.md" },
  { name: "fit-flow", doc: "docs/fit.md" }
]

describe("examples", () => {
  it.each(EXAMPLES)("$name prints what $doc says it prints", async ({ name, doc }) => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", `tools/examples/${name}.ts`], { cwd: repoRoot })
    const text = readFileSync(join(repoRoot, doc), "utf8")
    const after = text.slice(text.indexOf(`<!-- /generated:${name} -->`))
    const shown = /```text\n([\s\S]*?)```/.exec(after)?.[1]
    expect(stdout).toBe(shown)
  }, 30_000)
})

describe("the demo", () => {
  it("prints what the README says it prints", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "tools/demo.ts"], { cwd: repoRoot })
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8")
    const shown = /```text\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf("<!-- demo-output -->")))?.[1]
    expect(stdout).toBe(shown)
  }, 60_000)
})
