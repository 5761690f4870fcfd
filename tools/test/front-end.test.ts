/**
 * The front-end modules run in a browser: bundled with esbuild's browser platform (a Node
 * built-in anywhere on the path fails the build), then run in a context that refuses code
 * generation from strings, as a page with a strict Content-Security-Policy does (no
 * `unsafe-eval`). Building a widget's options and a hosted scanner's address attempts no code
 * generation at all; reading the widget's result works once the page is jitless.
 */
import { describe, expect, it } from "@effect/vitest"
import { build } from "esbuild"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { createContext, runInContext } from "node:vm"
import { repoRoot } from "../docs/generated.js"

const ENTRY = `
import { Codegen } from "@scanbridge/model"
import { checkClientLibraryOptions, fitPhotoEstimationOf } from "@scanbridge/fit"
import { hostedScannerUrl, photosOfScan } from "@scanbridge/platform"
import { widgetOptions } from "@scanbridge/session"

globalThis.frontEnd = {
  link: (options) => hostedScannerUrl(options),
  widget: (settings) => widgetOptions(settings),
  library: (options) => checkClientLibraryOptions(options),
  platformPhotos: (scan) => photosOfScan(scan),
  fitParams: (scan, subject) => fitPhotoEstimationOf(scan, subject),
  jitless: () => Codegen.configure({ jitless: true })
}
`

const bundleForBrowser = async () => {
  const result = await build({
    // Resolved from tools/, whose dependencies are the workspace packages.
    stdin: { contents: ENTRY, resolveDir: join(repoRoot, "tools"), loader: "ts" },
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2022",
    conditions: ["@scanbridge/source"],
    write: false,
    logLevel: "silent"
  })
  return result.outputFiles[0]!.text
}

interface Checked {
  readonly _tag: string
  readonly right?: unknown
}

interface FrontEnd {
  readonly library: (options: unknown) => Checked
  readonly platformPhotos: (scan: unknown) => Checked
  readonly fitParams: (scan: unknown, subject: unknown) => Checked
  readonly link: (options: unknown) => { readonly _tag: string; readonly right?: string; readonly left?: { readonly message: string } }
  readonly widget: (settings: unknown) => { readonly _tag: string; readonly right?: { readonly onResult: (r: unknown) => void; readonly userStats?: unknown } }
  readonly jitless: () => void
}

/** A context without Node's globals, whose `eval` and `new Function` throw, like a strict CSP page's. */
const strictPage = (code: string) => {
  const page = createContext({ URL, TextEncoder, TextDecoder, console }, { codeGeneration: { strings: false, wasm: false } })
  runInContext(code, page)
  const frontEnd = (page as { frontEnd: FrontEnd }).frontEnd
  // Count the attempts at generating code: each throws an EvalError in this context.
  const counting = runInContext(
    `(() => { const F = Function; let n = 0; globalThis.Function = new Proxy(F, { construct(t, a) { n++; return Reflect.construct(t, a) } }); return () => n })()`,
    page
  ) as () => number
  return { frontEnd, generated: counting }
}

describe("the front-end modules in a browser", () => {
  it("bundle for the browser platform, without a Node built-in", async () => {
    const code = await bundleForBrowser()
    expect(code).not.toMatch(/require\(["']node:/)
    expect(code.length).toBeGreaterThan(0)
  })

  it("build a hosted scanner's address, a widget's options and a client-library scan's onward requests with no code generated, and read a result once jitless", async () => {
    const { frontEnd, generated } = strictPage(await bundleForBrowser())
    const link = frontEnd.link({
      address: "https://scanner.example.com/{LOCALE}/",
      locale: "zh-TW",
      screens: ["scan", "result"],
      subject: { heightMm: 1755, weightG: 72_400, age: 34, gender: "male" }
    })
    expect(link.right).toBe("https://scanner.example.com/zh-TW/?screens=scan,result&height=176&weight=72&age=34&gender=male")
    expect(frontEnd.link({ address: "https://scanner.example.com/{LOCALE}/", locale: "zh" }).left!.message).toContain("did you mean zh-CN or zh-HK or zh-TW?")
    const results: Array<{ readonly _tag: string }> = []
    const widget = frontEnd.widget({
      ssid: "s-1",
      systemOfMeasurement: "imperial",
      subject: { heightMm: 1720, weightG: 61_500, age: 30, gender: "female" },
      onResult: (r: { readonly _tag: string }) => results.push(r)
    })
    expect(widget.right!.userStats).toEqual({ heightFt: 5, heightIn: 8, weightLbs: 136, age: 30, gender: "female" })
    // A client-library scan, into the platform's photos and a fit photo estimation.
    expect(frontEnd.library({ clientKey: "org-1", locale: "ja" })._tag).toBe("Right")
    const scan = { front: "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ==", side: "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ==" }
    expect(frontEnd.platformPhotos(scan).right).toEqual({ front: "/9j/4AAQSkZJRgABAQ==", right: "/9j/4AAQSkZJRgABAQ==" })
    expect(frontEnd.fitParams(scan, { heightMm: 1720, weightG: 61_500, age: 30, gender: "female" })._tag).toBe("Right")
    expect(generated()).toBe(0)
    frontEnd.jitless()
    const stored = (JSON.parse(readFileSync(join(repoRoot, "examples", "export", "session", "results.json"), "utf8")) as ReadonlyArray<unknown>)[0]
    widget.right!.onResult(stored)
    expect(results.map((r) => r._tag)).toEqual(["Right"])
    expect(generated()).toBe(0)
  })
})
