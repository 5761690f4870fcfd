/**
 * Each package's public surface is deliberate and written down: its `src/index.ts` names what it
 * exports (no bare `export *`, which would make every helper of a module API, but of another entry
 * of the package, such as a vendor package's `./adapter`, whose names are its own), and its README's
 * `## Public API` section lists every one of those names, in backticks. Model's other entries,
 * the adapter kit `@scanbridge/model/adapter` and `@scanbridge/model/internal`, are held to the
 * same: their names are listed in model's README.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { repoRoot as root } from "../docs/generated.js"

interface Exports {
  /** Every name the module exports, values and types alike, in source order. */
  readonly names: ReadonlyArray<string>
  /** The module specifiers of `export * from "..."` (without `as`). */
  readonly bare: ReadonlyArray<string>
}

const exported = (node: ts.Node): boolean => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)

/** The names an entry module exports, read with the TypeScript compiler's parser. */
const exportsOf = (fileName: string, text: string): Exports => {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const names: Array<string> = []
  const bare: Array<string> = []
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause
      const from = statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : ""
      if (clause === undefined) bare.push(from)
      else if (ts.isNamespaceExport(clause)) names.push(clause.name.text)
      else for (const element of clause.elements) names.push(element.name.text)
    } else if (ts.isExportAssignment(statement)) {
      names.push("default")
    } else if (ts.isVariableStatement(statement) && exported(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text)
        else throw new Error(`${fileName}: a destructuring export; name each export instead`)
      }
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement) ||
        ts.isModuleDeclaration(statement)) &&
      exported(statement) &&
      statement.name !== undefined
    ) {
      names.push(statement.name.text)
    }
  }
  return { names, bare }
}

/** The text of a README's `## Public API` section (up to the next `## ` heading), or undefined. */
const publicApiSection = (readme: string): string | undefined => {
  const start = readme.search(/^## Public API[ \t]*$/m)
  if (start < 0) return undefined
  const body = readme.slice(start + "## Public API".length)
  const end = body.search(/^## /m)
  return end < 0 ? body : body.slice(0, end)
}

/** The names a section lists: the leading identifier of each backticked span (`normalize(json)` lists `normalize`). */
const listedNames = (section: string): ReadonlySet<string> => new Set([...section.matchAll(/`([A-Za-z_$][\w$]*)[^`]*`/g)].map((m) => m[1]!))

interface Entry {
  /** The package folder, relative to the repository root. */
  readonly pkg: string
  /** The entry module, relative to the repository root. */
  readonly entry: string
}

const packages = readdirSync(join(root, "packages"))
  .filter((name) => existsSync(join(root, "packages", name, "package.json")))
  .sort()
  .map((name) => `packages/${name}`)

const entries: ReadonlyArray<Entry> = [
  ...packages.filter((pkg) => existsSync(join(root, pkg, "src/index.ts"))).map((pkg) => ({ pkg, entry: `${pkg}/src/index.ts` })),
  // Model's adapter kit (covered by semver) and its entry for Scanbridge's own packages (not), listed in model's README.
  ...["packages/model/src/adapter-kit.ts", "packages/model/src/internal/index.ts"]
    .filter((entry) => existsSync(join(root, entry)))
    .map((entry) => ({ pkg: "packages/model", entry }))
]

const read = (path: string) => readFileSync(join(root, path), "utf8")

/** The modules a package's `exports` name (their `@scanbridge/source` condition), relative to the repository root. */
const sourceEntries = (pkg: string): ReadonlySet<string> => {
  const manifest = JSON.parse(read(`${pkg}/package.json`)) as { readonly exports?: Record<string, { readonly "@scanbridge/source"?: string }> }
  return new Set(Object.values(manifest.exports ?? {}).flatMap((e) => (e["@scanbridge/source"] === undefined ? [] : [join(pkg, e["@scanbridge/source"])])))
}

/**
 * The names an entry exports, with those of the package's other entries it re-exports whole
 * (`export * from "./adapter-entry.js"`: an entry of its own, whose names are deliberate too), and
 * what it re-exports whole that is no entry.
 */
const entryExports = (pkg: string, entry: string): Exports => {
  const own = exportsOf(entry, read(entry))
  const entries = sourceEntries(pkg)
  const names = [...own.names]
  const bare: Array<string> = []
  for (const from of own.bare) {
    const target = join(dirname(entry), from.replace(/\.js$/, ".ts"))
    if (!entries.has(target)) bare.push(from)
    else {
      const inner = entryExports(pkg, target)
      names.push(...inner.names)
      bare.push(...inner.bare)
    }
  }
  return { names, bare }
}

describe("reading an entry module and a README", () => {
  it("lists named, namespace and declared exports, and finds a bare export *", () => {
    const { bare, names } = exportsOf(
      "index.ts",
      [
        `export { a, b as c, type D } from "./x.js"`,
        `export type { E } from "./y.js"`,
        `export * as Wire from "./wire.js"`,
        `export * from "./helpers.js"`,
        `export const f = 1, g = 2`,
        `export class H {}`,
        `export interface I {}`,
        `const hidden = 3`,
        `export { hidden as J }`
      ].join("\n")
    )
    expect(names).toEqual(["a", "c", "D", "E", "Wire", "f", "g", "H", "I", "J"])
    expect(bare).toEqual(["./helpers.js"])
  })

  it("reads the names of the Public API section only", () => {
    const readme =
      "# p\n\n`before`\n\n## Public API\n\n- `normalize(json)`, `encoders.toPlatformEntry`: one\n\n### Internal\n\n- `scanOf`\n\n## Next\n\n`after`\n"
    const section = publicApiSection(readme)!
    expect([...listedNames(section)].sort()).toEqual(["encoders", "normalize", "scanOf"])
    expect(publicApiSection("# p\n\n## Public APIs\n")).toBeUndefined()
  })
})

describe("the public API of every package", () => {
  it("covers every package that has an entry module", () => {
    expect(entries.map((e) => e.pkg)).toEqual(expect.arrayContaining(["packages/migrate", "packages/model", "packages/scanbridge", "packages/simulator"]))
    expect(entries.map((e) => e.entry)).toContain("packages/model/src/adapter-kit.ts")
  })

  it.each(packages)("%s has a README with a Public API section", (pkg) => {
    expect(publicApiSection(read(`${pkg}/README.md`)), `${pkg}/README.md has no "## Public API" section`).toBeDefined()
  })

  it.each(entries.map(({ entry, pkg }) => [entry, pkg] as const))("%s exports by name, and %s/README.md lists every name", (entry, pkg) => {
    const { bare, names } = entryExports(pkg, entry)
    expect(bare, `${entry}: bare \`export * from\` of a module that is no entry of the package; export the public API by name`).toEqual([])
    const listed = listedNames(publicApiSection(read(`${pkg}/README.md`)) ?? "")
    expect(
      names.filter((name) => !listed.has(name)),
      `${entry}: names missing from the "## Public API" section of ${pkg}/README.md`
    ).toEqual([])
  })
})
