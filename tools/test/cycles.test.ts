/**
 * The import-cycle check of `pnpm cycles` and CI (.dependency-cruiser.cjs): it must see a cycle
 * made of type-only imports, which TypeScript erases and most tools never read.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { repoRoot } from "../docs/generated.js"

const TIMEOUT = 60_000
const dir = mkdtempSync(join(tmpdir(), "scanbridge-cycles-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The check, as `pnpm cycles` runs it, over a folder of the given modules. */
const check = (name: string, files: Readonly<Record<string, string>>) => {
  const folder = join(dir, name)
  mkdirSync(folder)
  for (const [file, text] of Object.entries(files)) writeFileSync(join(folder, file), text)
  const run = spawnSync(join(repoRoot, "node_modules", ".bin", "depcruise"), [folder, "--config", ".dependency-cruiser.cjs"], {
    cwd: repoRoot,
    encoding: "utf8"
  })
  return { status: run.status, output: run.stdout + run.stderr }
}

describe("pnpm cycles", () => {
  it(
    "fails on a cycle of type-only imports, naming its modules",
    () => {
      const result = check("types", {
        "a.ts": 'import type { B } from "./b.js"\nexport interface A { readonly b: B }\n',
        "b.ts": 'import type { A } from "./a.js"\nexport interface B { readonly a?: A }\n'
      })
      expect(result.status).not.toBe(0)
      expect(result.output).toContain("no-circular")
      expect(result.output).toMatch(/types\/a\.ts[\s\S]*types\/b\.ts/)
    },
    TIMEOUT
  )

  it(
    "passes the same modules with the dependency one way",
    () => {
      const result = check("oneway", {
        "a.ts": 'import type { B } from "./b.js"\nexport interface A { readonly b: B }\n',
        "b.ts": "export interface B { readonly n: number }\n"
      })
      expect(result.output).toContain("no dependency violations")
      expect(result.status).toBe(0)
    },
    TIMEOUT
  )
})
