/**
 * A fresh process for codegen.test.ts: counts every `new Function` (and `Function()`) from its
 * start, imports @scanbridge/migrate, then normalizes the JSON lines of standard input and
 * prints `{ onImport, afterUse, results }`. `--jitless` configures Codegen before the import.
 */
import { readFileSync } from "node:fs"

let calls = 0
globalThis.Function = new Proxy(Function, {
  construct: (target, args, newTarget) => {
    calls++
    return Reflect.construct(target, args, newTarget) as object
  },
  apply: (target, self, args) => {
    calls++
    return Reflect.apply(target, self, args) as unknown
  }
})

if (process.argv.includes("--jitless")) {
  const { Codegen } = await import("@scanbridge/model")
  Codegen.configure({ jitless: true })
}
const { defaultNormalizer } = await import("../src/index.js")
const onImport = calls

const results = readFileSync(0, "utf8")
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => {
    const result = defaultNormalizer.normalize(JSON.parse(line))
    return result._tag === "Right"
      ? { scans: result.right }
      : { error: { tag: result.left._tag, message: result.left.message, path: "path" in result.left ? result.left.path : null } }
  })

process.stdout.write(JSON.stringify({ onImport, afterUse: calls, results }))
