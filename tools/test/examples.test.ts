import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { repoRoot } from "../docs/generated.js"

const run = promisify(execFile)

describe("examples", () => {
  it("platform-quickstart prints what the README says it prints", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "tools/examples/platform-quickstart.ts"], { cwd: repoRoot })
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8")
    const after = readme.slice(readme.indexOf("<!-- /generated:platform-quickstart -->"))
    const shown = /```text\n([\s\S]*?)```/.exec(after)?.[1]
    expect(stdout).toBe(shown)
  }, 30_000)
})
