/**
 * A fresh process for codegen.test.ts: counts every `new Function` (and `Function()`) from its
 * start, imports @scanbridge/migrate, then normalizes the JSON lines of standard input and
 * prints `{ onImport, afterUse, results }`. `--jitless` configures Codegen before the import.
 */
import { generatedCode } from "./count-generated-code.js"
import { readFileSync } from "node:fs"

if (process.argv.includes("--jitless")) {
  const { Codegen } = await import("@scanbridge/model")
  Codegen.configure({ jitless: true })
}
const { defaultNormalizer } = await import("../src/index.js")
const onImport = generatedCode()

const results = readFileSync(0, "utf8")
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => {
    const result = defaultNormalizer.normalize(JSON.parse(line))
    return result._tag === "Right"
      ? { scans: result.right }
      : { error: { tag: result.left._tag, message: result.left.message, path: "path" in result.left ? result.left.path : null } }
  })

process.stdout.write(JSON.stringify({ onImport, afterUse: generatedCode(), results }))
