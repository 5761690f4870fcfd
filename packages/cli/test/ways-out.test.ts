/**
 * Every message that names a way out names one that exists: each command-line flag a string of
 * packages/*\/src names is one of `scanbridge`'s (as its commands' usage lists them), and each
 * read option it names (lengthUnit, bodyFatScale, muscleMassUnit) is one the plain API's option
 * types declare. The strings are read with TypeScript's parser, so comments do not count and
 * template literals do.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"
import { COMMANDS } from "../src/commands.js"
import { repoRoot, run } from "./harness.js"

const FLAG = /--[a-z][a-z_-]*[a-z]/g
const OPTION = /\b(lengthUnit|bodyFatScale|muscleMassUnit)\b/g

const sourcesOf = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourcesOf(path) : name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : []
  })

/** The text of every string and template literal of a source file, each part of a template apart. */
const literalsOf = (file: string): ReadonlyArray<string> => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
      found.push(node.text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** Each name `pattern` finds in the literals of packages/*\/src, with the files that name it. */
const named = (pattern: RegExp): ReadonlyMap<string, ReadonlyArray<string>> => {
  const byName = new Map<string, Array<string>>()
  const packages = join(repoRoot, "packages")
  for (const pkg of readdirSync(packages)) {
    const src = join(packages, pkg, "src")
    if (!statSync(join(packages, pkg)).isDirectory() || !readdirSync(join(packages, pkg)).includes("src")) continue
    for (const file of sourcesOf(src)) {
      for (const literal of literalsOf(file)) {
        for (const [name] of literal.matchAll(pattern)) byName.set(name, [...new Set([...(byName.get(name) ?? []), file.slice(repoRoot.length)])])
      }
    }
  }
  return byName
}

/** The flags `scanbridge` takes: those its usage lines list, for the program and each command. */
const cliFlags = async (): Promise<ReadonlySet<string>> => {
  const flags = new Set<string>()
  for (const args of [["--help"], ...COMMANDS.map((c) => [c, "--help"])]) {
    const r = await run(...args)
    expect(r.code).toBe(0)
    for (const usage of r.stdout.split("\n").filter((l) => l.startsWith("$ scanbridge"))) for (const [flag] of usage.matchAll(FLAG)) flags.add(flag)
  }
  return flags
}

/** The members of the plain API's option types, as packages/scanbridge/src/plain.ts declares them (an interface's and those it extends). */
const plainOptions = (): ReadonlyMap<string, ReadonlySet<string>> => {
  const file = join(repoRoot, "packages/scanbridge/src/plain.ts")
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const interfaces = new Map<string, ts.InterfaceDeclaration>()
  source.forEachChild((node) => void (ts.isInterfaceDeclaration(node) ? interfaces.set(node.name.text, node) : undefined))
  const membersOf = (name: string): ReadonlySet<string> => {
    const decl = interfaces.get(name)
    if (decl === undefined) return new Set()
    const own = decl.members.flatMap((m) => (m.name !== undefined && ts.isIdentifier(m.name) ? [m.name.text] : []))
    const inherited = (decl.heritageClauses ?? []).flatMap((h) =>
      h.types.flatMap((t) => {
        const base = t.expression.getText(source)
        // `Omit<MigrateOptions, "from" | "into">`: the members of its first argument but those it omits.
        const [of, omitted] = t.typeArguments ?? []
        if (base !== "Omit" || of === undefined) return [...membersOf(base)]
        const dropped = new Set([...(omitted?.getText(source) ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]!))
        return [...membersOf(of.getText(source))].filter((member) => !dropped.has(member))
      })
    )
    return new Set([...own, ...inherited])
  }
  return new Map([...interfaces.keys()].map((name) => [name, membersOf(name)]))
}

describe("ways out", () => {
  it("every --flag a message of packages/*/src names is a flag of scanbridge's commands", async () => {
    const flags = await cliFlags()
    const namedFlags = named(FLAG)
    // The collection works: it finds the ways out of the length check and of the estimation reader.
    expect([...namedFlags.keys()]).toEqual(expect.arrayContaining(["--length-unit", "--body-fat-scale", "--muscle-mass-unit", "--resume", "--out"]))
    const missing = [...namedFlags].filter(([flag]) => !flags.has(flag)).map(([flag, files]) => `${flag} (${files.join(", ")})`)
    expect(missing).toEqual([])
  }, 60_000)

  it("every read option a message of packages/*/src names is declared by the plain API's normalize, migrate, migrateFile and migratePostgres options", () => {
    const options = plainOptions()
    const namedOptions = [...named(OPTION).keys()]
    expect(namedOptions.sort()).toEqual(["bodyFatScale", "lengthUnit", "muscleMassUnit"])
    for (const type of ["NormalizeOptions", "MigrateOptions", "MigrateFileOptions", "MigratePostgresOptions"]) {
      for (const option of namedOptions) expect(options.get(type), `${type}.${option}`).toContain(option)
    }
  })
})
