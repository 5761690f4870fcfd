/**
 * The repository stands alone (issue 31): a clone is all a contributor or CI has. The vendor's
 * documents once sat in a folder named `shared` beside the first checkout, and tests and the
 * README read and linked it there, so a fresh clone failed. `.ci/run` proves the suite passes in
 * a clone with nothing beside it; these tests name the file and line that would break that.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { dirname, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { repoRoot } from "../docs/generated.js"

/** A path up out of the repository into that folder: written out, or as path segments. */
const OUTSIDE = [/\.\.[\\/](?:\.\.[\\/])*shared\b/, /["'`]\.\.["'`]\s*,\s*(?:["'`]\.\.["'`]\s*,\s*)*["'`]shared["'`]/]

const outsideReferences = (text: string): ReadonlyArray<number> =>
  text.split("\n").flatMap((line, index) => (OUTSIDE.some((pattern) => pattern.test(line)) ? [index + 1] : []))

/** Targets of inline links `[text](target "title")` and reference definitions `[name]: target`. */
const linkTargets = (markdown: string): ReadonlyArray<string> => [
  ...[...markdown.matchAll(/\]\((?:<([^>]+)>|([^)\s]+))(?:\s+"[^"]*")?\)/g)].map((m) => (m[1] ?? m[2])!),
  ...[...markdown.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!)
]

/** Where a relative link of `file` leads, relative to the repository; undefined for a URL or an anchor of the same page. */
const linkPath = (file: string, target: string): string | undefined => {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) return undefined
  const path = decodeURIComponent(target.replace(/[#?].*$/, ""))
  return relative(repoRoot, resolve(repoRoot, dirname(file), path))
}

/** The repository's files, committed or new (not ignored), as a clone of the next commit has them. */
const repositoryFiles = (): ReadonlyArray<string> =>
  execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: repoRoot, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter((file) => file !== "" && existsSync(resolve(repoRoot, file)))

const text = (file: string): string | undefined => {
  const bytes = readFileSync(resolve(repoRoot, file))
  return bytes.includes(0) ? undefined : bytes.toString("utf8")
}

describe("a repository that stands alone", () => {
  it("finds a path out to the folder beside the checkout, written out or joined, and nothing else", () => {
    const up = ".."
    expect(outsideReferences(`a\nsee ${up}/shared/spec/widget.md\n`)).toEqual([2])
    expect(outsideReferences(`[design](${up}/${up}/shared/design/ARCHITECTURE.md)`)).toEqual([1])
    expect(outsideReferences(`readFileSync(join(root, "${up}", "${up}", "shared", "spec", "x.md"))`)).toEqual([1])
    expect(outsideReferences(`join(here, '${up}', 'shared')`)).toEqual([1])
    expect(outsideReferences("0 of 35 shared measurements differ\n../sharedmemory is not it\nshared/spec")).toEqual([])
  })

  it("no file of the repository reads or links a path out to the folder beside the checkout", () => {
    const found = repositoryFiles().flatMap((file) => {
      const content = text(file)
      return content === undefined ? [] : outsideReferences(content).map((line) => `${file}:${line}`)
    })
    expect(found).toEqual([])
  })

  it("reads where a link leads, and that a link out of the repository leaves it", () => {
    expect(linkTargets('[a](docs/a.md) [b](<../b c.md> "t") [c](#x)\n[d]: ./d.md\n')).toEqual(["docs/a.md", "../b c.md", "#x", "./d.md"])
    expect(linkPath("README.md", "docs/architecture.md#the-layout")).toBe("docs/architecture.md")
    expect(linkPath("docs/migrate.md", "../README.md")).toBe("README.md")
    expect(linkPath("README.md", "../elsewhere/ARCHITECTURE.md")).toMatch(/^\.\.[\\/]/)
    expect(linkPath("README.md", "https://effect.website")).toBeUndefined()
    expect(linkPath("README.md", "#try-it")).toBeUndefined()
  })

  it("every relative link of the docs leads to a file of the repository", () => {
    const broken = repositoryFiles()
      .filter((file) => file.endsWith(".md"))
      .flatMap((file) =>
        linkTargets(text(file) ?? "").flatMap((target) => {
          const path = linkPath(file, target)
          if (path === undefined) return []
          if (path.startsWith("..")) return [`${file}: ${target} leaves the repository`]
          return existsSync(resolve(repoRoot, path)) ? [] : [`${file}: ${target} does not exist`]
        })
      )
    expect(broken).toEqual([])
  })
})
