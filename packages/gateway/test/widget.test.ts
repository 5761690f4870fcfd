import { describe, expect, it } from "@effect/vitest"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Either, FastCheck as fc, Layer } from "effect"
import { createServer } from "node:http"
import { runInNewContext } from "node:vm"
import ts from "typescript"
import { checkWidgetOptions } from "@scanbridge/session"
import { widgetRouter } from "../src/widget.js"
import { WIDGET_STYLESHEET, widgetScript } from "../src/widget/script.js"

/** The widget router alone, on 127.0.0.1, for the length of the effect. */
const onWidget = <A>(f: (url: string) => Effect.Effect<A>) =>
  Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    const address = server.address
    return yield* f(address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}` : "")
  }).pipe(Effect.provide(HttpServer.serve(widgetRouter).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })))))

describe("GET /widget/v0/widget.js and widget.css", () => {
  it.live("are served as JavaScript and CSS to any origin, cacheable, and 304 to a client that holds them", () =>
    onWidget((url) =>
      Effect.promise(async () => {
        for (const [path, type, text] of [
          ["/widget/v0/widget.js", "application/javascript; charset=utf-8", widgetScript()],
          ["/widget/v0/widget.css", "text/css; charset=utf-8", WIDGET_STYLESHEET]
        ] as const) {
          const first = await fetch(`${url}${path}`, { headers: { origin: "https://shop.example" } })
          expect(first.status).toBe(200)
          expect(first.headers.get("content-type")).toBe(type)
          expect(first.headers.get("access-control-allow-origin")).toBe("*")
          expect(first.headers.get("cache-control")).toBe("public, max-age=300")
          expect(first.headers.get("x-content-type-options")).toBe("nosniff")
          expect(await first.text()).toBe(text)
          const etag = first.headers.get("etag")!
          expect(etag).toMatch(/^"[\w-]{43}"$/)
          const again = await fetch(`${url}${path}`, { headers: { "if-none-match": `"other", W/${etag}` } })
          expect(again.status).toBe(304)
          expect(await again.text()).toBe("")
          expect((await fetch(`${url}${path}`, { headers: { "if-none-match": '"other"' } })).status).toBe(200)
        }
        expect((await fetch(`${url}/widget/v1/widget.js`)).status).toBe(404)
      })
    )
  )
})

describe("the widget script", () => {
  it("is ES2019 as it is: TypeScript lowers nothing in it for an ES2019 target", () => {
    const emit = (code: string, target: ts.ScriptTarget) => ts.transpileModule(code, { compilerOptions: { target, removeComments: true } }).outputText
    const same = (code: string) => emit(code, ts.ScriptTarget.ES2019) === emit(code, ts.ScriptTarget.ESNext)
    expect(same(widgetScript())).toBe(true)
    // The check sees what ES2019 lacks.
    for (const newer of ["a?.b", "a ?? b", "class A { x = 1 }", "a ||= b", "1_000"]) expect(same(newer)).toBe(false)
  })

  it("evaluates no code and writes no inline style, so a strict Content-Security-Policy lets it run", () => {
    const script = widgetScript()
    for (const forbidden of [/\beval\b/, /new Function/, /\.style\b/, /"style"/, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, /setTimeout\("/]) {
      expect(script).not.toMatch(forbidden)
    }
  })
})

// --- The options' rules, against @scanbridge/session's checkWidgetOptions -------------------

interface Widget {
  insert(): void
  toggle(): void
  remove(): void
}

/** The script run as a page runs it, where no element exists: insert() checks the options and stops there. */
const loadWidget = () => {
  const logged: Array<string> = []
  const context: Record<string, unknown> = {
    document: {
      currentScript: { src: "http://127.0.0.1:9/widget/v0/widget.js" },
      baseURI: "http://127.0.0.1:8/",
      getElementById: () => null,
      getElementsByTagName: () => []
    },
    URL,
    setTimeout,
    clearTimeout,
    console: { error: (text: string) => logged.push(text) },
    fetch: () => Promise.reject(new Error("no request is made before the options pass"))
  }
  context["window"] = context
  runInNewContext(widgetScript(), context)
  const Widget = context["BodygramScanningWidget"] as new (containerId: unknown, options: unknown) => Widget
  return { Widget, logged }
}

/** What insert() reports for these options: a refusal's message, or "accepted" (it went on to look for the container). */
const opened = (options: unknown): string => {
  const { Widget, logged } = loadWidget()
  const errors: Array<{ errorType: string; message: string }> = []
  const given = typeof options === "object" && options !== null && !Array.isArray(options) ? (options as Record<string, unknown>) : undefined
  const withCapture =
    given !== undefined && !("onError" in given) ? { ...given, onError: (e: { errorType: string; message: string }) => errors.push(e) } : options
  new Widget("container", withCapture).insert()
  const message = errors[0]?.message ?? logged[0]?.replace(/^BodygramScanningWidget: \w+: /, "")
  expect(message).toBeDefined()
  if (message!.startsWith("containerId: ")) return "accepted"
  if (errors.length > 0) expect(errors[0]!.errorType).toBe("INVALID_USER_INPUT")
  return message!
}

const sessionSays = (options: unknown): string => Either.match(checkWidgetOptions(options), { onLeft: (e) => e.message, onRight: () => "accepted" as const })

/** The field a message names: what precedes its first ": ". */
const fieldOf = (message: string) => message.slice(0, message.indexOf(": "))

/** Mostly what a page sends, sometimes what it gets wrong: each rule is reached and crossed often. */
const mostly = <A>(usual: fc.Arbitrary<A>, ...odd: ReadonlyArray<fc.Arbitrary<unknown>>) =>
  fc.oneof({ weight: 6, arbitrary: usual as fc.Arbitrary<unknown> }, ...odd.map((arbitrary) => ({ weight: 1, arbitrary })))
const whole = (min: number, max: number) =>
  mostly(
    fc.integer({ min, max }),
    fc.integer({ min: -10, max: 100_000 }),
    fc.double({ min, max, noNaN: true }),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, "180", null, undefined)
  )
const gender = mostly(fc.constantFrom("male", "female"), fc.constantFrom("other", 1, undefined))
const metric = fc.record({ heightCm: whole(40, 260), weightKg: whole(5, 210), age: whole(0, 135), gender })
const imperial = fc.record({ heightFt: whole(0, 9), heightIn: whole(0, 13), weightLbs: whole(15, 460), age: whole(0, 135), gender })
/** Some keys left out, or a key of the other system added. */
const changed = fc
  .tuple(fc.oneof(metric, imperial), fc.constantFrom("heightCm", "heightIn", "age", "gender", "weightLbs"), fc.boolean())
  .map(([stats, key, drop]) => {
    const copy: Record<string, unknown> = { ...stats }
    if (drop) delete copy[key]
    else copy[key] = 70
    return copy
  })
const callback = mostly(
  fc.constant(() => undefined),
  fc.constantFrom("f", 1)
)
/** The system and its stats, mostly agreeing. */
const measured = mostly(
  fc.oneof(
    fc.tuple(fc.constantFrom(undefined, "metric"), metric).map(([systemOfMeasurement, userStats]) => ({ systemOfMeasurement, userStats })),
    imperial.map((userStats) => ({ systemOfMeasurement: "imperial", userStats }))
  ),
  fc.record({
    systemOfMeasurement: fc.constantFrom(undefined, null, "metric", "imperial", "si", 2),
    userStats: fc.oneof(metric, imperial, changed, fc.constantFrom(undefined, null, "tall", [180]))
  })
)
const options = fc
  .tuple(
    measured,
    fc.record(
      {
        ssid: mostly(fc.constant("ss_1"), fc.constantFrom("", "  ", 7, undefined)),
        os: mostly(fc.constantFrom(undefined, "ios"), fc.constant(13)),
        version: mostly(fc.constantFrom(undefined, "17.2"), fc.constant(false)),
        onLoad: callback,
        onResult: callback
      },
      { requiredKeys: ["ssid"] }
    )
  )
  .map(([system, rest]) => ({ ...rest, ...(system as object) }))

describe("the widget's options", () => {
  it.prop(
    "are refused exactly when @scanbridge/session's checkWidgetOptions refuses them, naming the same field",
    [fc.oneof({ weight: 20, arbitrary: options }, { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, "ss_1", []) })],
    ([given]) => {
      const widget = opened(given)
      const session = sessionSays(given)
      if (session === "accepted") expect(widget).toBe("accepted")
      else {
        expect(widget).not.toBe("accepted")
        expect(fieldOf(widget)).toBe(fieldOf(session))
      }
    },
    { fastCheck: { numRuns: 400 } }
  )

  it("say what is wrong, as the session package does", () => {
    const stats = { heightCm: 180, weightKg: 80, age: 30, gender: "male" }
    expect(opened({ ssid: "ss_1", userStats: stats })).toBe("accepted")
    expect(opened({ ssid: "ss_1", userStats: { ...stats, heightCm: 1800 } })).toBe("userStats.heightCm: 1800 is outside the human range 50-250 cm")
    expect(opened({ ssid: "ss_1", userStats: { ...stats, heightCm: 180.5 } })).toBe("userStats.heightCm: expected a whole number of cm; send 181")
    expect(opened({ ssid: "ss_1", systemOfMeasurement: "imperial", userStats: stats })).toBe(
      "userStats.heightCm: not a imperial stat, which is metric: the stats must be in the system of measurement (imperial); expected heightFt, heightIn, weightLbs, age, gender"
    )
    expect(opened({ ssid: "ss_1", systemOfMeasurement: "imperial", userStats: { heightFt: 5, heightIn: 12, weightLbs: 170, age: 30, gender: "male" } })).toBe(
      "userStats.heightIn: expected 0 to 11: the inches beyond heightFt"
    )
    expect(opened({ ssid: "" })).toBe("ssid: required: the session id from create-session")
    expect(opened({ ssid: "ss_1", onError: "log" })).toBe('onError: expected a function, not "log"')
    expect(opened(undefined)).toBe("options: expected an object, not undefined")
  })
})
