/**
 * The adapter kit is what adapters are written with: no adapter, Scanbridge's own four or the
 * example of one's own, reaches past it into `@scanbridge/model/internal` (which carries no
 * semver promise), and every name the kit exports is documented where it is declared.
 */
import { readFileSync, readdirSync } from "node:fs"
import { join, relative } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { repoRoot as root } from "../docs/generated.js"

/** The folders whose every file is adapter code. */
const ADAPTER_FOLDERS = ["packages/platform/src", "packages/session/src", "packages/fit/src", "packages/estimation/src", "examples/custom-adapter"]

const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    // Build output and installed packages are not the adapter's source.
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) return []
    const path = `${dir}/${entry.name}`
    return entry.isDirectory() ? filesUnder(path) : SOURCE.test(entry.name) ? [path] : []
  })

/**
 * The module specifiers of a file that name model's internal entry or its folder: imports,
 * re-exports, `import()`, `require()` and `import("...")` types alike, by package or by path.
 */
const internalImports = (text: string): ReadonlyArray<string> =>
  [...text.matchAll(/["'`]([^"'`\n]*(?:@scanbridge\/model\/internal|model\/src\/internal)[^"'`\n]*)["'`]/g)].map((m) => m[1]!)

describe("adapters use the kit, not model's internal entry", () => {
  it("finds a reach into internal in each form it can take, and not in the kit's own name", () => {
    expect(internalImports(`import { oneScan } from "@scanbridge/model/internal"`)).toEqual(["@scanbridge/model/internal"])
    expect(internalImports(`export * from '@scanbridge/model/internal'`)).toEqual(["@scanbridge/model/internal"])
    expect(internalImports(`const m = await import("../../packages/model/src/internal/walk.js")`)).toEqual(["../../packages/model/src/internal/walk.js"])
    expect(internalImports(`type W = import("@scanbridge/model/internal").DecodeWalk`)).toEqual(["@scanbridge/model/internal"])
    expect(internalImports(`import { oneScan } from "@scanbridge/model/adapter"\nimport { Scan } from "@scanbridge/model"`)).toEqual([])
  })

  it.each(ADAPTER_FOLDERS)("no file under %s imports @scanbridge/model/internal", (dir) => {
    const files = filesUnder(dir)
    expect(files.length).toBeGreaterThan(0)
    const reaches = files.flatMap((file) => internalImports(readFileSync(join(root, file), "utf8")).map((spec) => `${file}: ${spec}`))
    expect(reaches, "import these from @scanbridge/model/adapter (the kit) or @scanbridge/model").toEqual([])
  })
})

describe("the kit's surface", () => {
  const entry = join(root, "packages/model/src/adapter-kit.ts")
  const program = ts.createProgram([entry], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext
  })
  const checker = program.getTypeChecker()
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!)

  it("exports the names adapters are written with", () => {
    expect(exports.map((s) => s.name)).toEqual(
      expect.arrayContaining(["oneScan", "schemaDecoder", "hasOnlyKey", "walkScan", "DecodeWalk", "EncodeWalk", "BoundedNoteList"])
    )
  })

  it.each(exports.map((s) => [s.name, s] as const))("%s is documented where it is declared", (_, symbol) => {
    const declared = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
    const where = declared.declarations?.[0]
    const doc = ts.displayPartsToString(declared.getDocumentationComment(checker)).trim()
    expect(doc, `${where === undefined ? "?" : relative(root, where.getSourceFile().fileName)}: no TSDoc on ${declared.name}`).not.toBe("")
  })
})
