import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runInNewContext } from "node:vm"
import { readJpegInfo } from "@scanbridge/estimation"
import { Wire } from "@scanbridge/platform"
import { DEMO_ORG, Simulator } from "../src/index.js"
import { SCANNER_MESSAGE_TYPE, scannerPage } from "../src/scanner.js"

const KEY = DEMO_ORG.apiKeys[0]!

const onSim = <A>(f: (url: string) => Effect.Effect<A>) => Effect.flatMap(Simulator, (sim) => f(sim.url)).pipe(Effect.provide(Simulator.layer()))

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> })

const issueToken = async (url: string, customScanId: string) => {
  const reply = await json(
    await fetch(`${url}/api/orgs/${DEMO_ORG.id}/scan-tokens`, {
      method: "POST",
      headers: { authorization: KEY },
      body: JSON.stringify({ scope: [Wire.SCOPES.create, Wire.SCOPES.read], customScanId })
    })
  )
  return reply.body["token"] as string
}

/** The scans the platform holds with this customScanId, read whole. */
const scansWith = async (url: string, customScanId: string) => {
  const list = await json(await fetch(`${url}/api/orgs/${DEMO_ORG.id}/scans?customScanId=${customScanId}`, { headers: { authorization: KEY } }))
  const ids = (list.body["results"] as ReadonlyArray<{ id: string }>).map((s) => s.id)
  return Promise.all(
    ids.map(async (id) => {
      const one = await json(await fetch(`${url}/api/orgs/${DEMO_ORG.id}/scans/${id}`, { headers: { authorization: KEY } }))
      return one.body["entry"] as Wire.EntryJson
    })
  )
}

interface FakeElement {
  hidden: boolean
  textContent: string
  value: string
  disabled: boolean
  readonly listeners: Record<string, () => void>
  addEventListener(type: string, f: () => void): void
}

const ELEMENT_IDS = ["status", "scan", "form", "height", "inches", "weight", "age", "gender", "height-unit", "weight-unit", "inches-field"]

/**
 * The page's own script, run as a browser runs it: the ids the page's HTML has, its address's
 * query, and fetch on the simulator's origin. A click resolves once the page has told its parent
 * how the scan went.
 */
const openPage = (url: string, query: string) => {
  const html = scannerPage("en")
  const source = /<script>\n([\s\S]*)\n<\/script>/.exec(html)![1]!
  const elements: Record<string, FakeElement> = {}
  for (const id of ELEMENT_IDS) {
    expect(html).toContain(`id="${id}"`)
    elements[id] = {
      hidden: new RegExp(`id="${id}"[^>]* hidden>`).test(html),
      textContent: "",
      value: "",
      disabled: false,
      listeners: {},
      addEventListener(type, f) {
        this.listeners[type] = f
      }
    }
  }
  const messages: Array<unknown> = []
  let told: (() => void) | undefined
  const requests: Array<string> = []
  const context: Record<string, unknown> = {
    document: { getElementById: (id: string) => elements[id] ?? null },
    location: { search: query },
    parent: {
      postMessage: (message: unknown, target: string) => {
        expect(target).toBe("*")
        messages.push(message)
        told?.()
      }
    },
    URLSearchParams,
    atob,
    fetch: (path: string, init: RequestInit) => {
      requests.push(path)
      return fetch(`${url}${path}`, init)
    }
  }
  context["window"] = context
  runInNewContext(source, context)
  const click = () =>
    new Promise<void>((resolve) => {
      told = resolve
      elements["scan"]!.listeners["click"]!()
    })
  return { elements, messages, requests, click }
}

describe("the hosted scanner page", () => {
  it.live("is served at /scanner/{LOCALE}/ as HTML, with two 9:16 JPEGs; an unknown locale is a 404 naming the near one", () =>
    onSim((url) =>
      Effect.promise(async () => {
        const page = await fetch(`${url}/scanner/pt-BR/?token=t&height=180`)
        expect(page.status).toBe(200)
        expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
        expect(page.headers.get("cache-control")).toBe("no-store")
        const html = await page.text()
        expect(html).toContain('<html lang="pt-BR">')
        expect(html).toContain('<button id="scan" type="button">Scan</button>')
        const photos = [...html.matchAll(/"(FRONT|RIGHT)":"([A-Za-z0-9+/=]+)"/g)].map((m) => readJpegInfo(Buffer.from(m[2]!, "base64")))
        expect(photos.map((p) => (p._tag === "Right" ? [p.right.width, p.right.height] : p.left))).toEqual([
          [1080, 1920],
          [1080, 1920]
        ])
        const unknown = await fetch(`${url}/scanner/pt/`)
        expect(unknown.status).toBe(404)
        expect(await unknown.text()).toContain("did you mean pt-BR?")
      })
    )
  )

  it.live("with the form's stats given, a click creates a photo scan with the token, in mm and g, and tells the parent", () =>
    onSim((url) =>
      Effect.promise(async () => {
        const token = await issueToken(url, "metric-1")
        const page = openPage(url, `?token=${token}&height=172&weight=68&age=41&gender=female`)
        expect(page.elements["form"]!.hidden).toBe(true)
        expect(page.elements["inches-field"]!.hidden).toBe(true)
        await page.click()
        expect(page.elements["status"]!.textContent).toBe("done")
        expect(page.messages).toEqual([{ type: SCANNER_MESSAGE_TYPE, status: "done" }])
        expect(page.requests).toEqual([`/api/orgs/${DEMO_ORG.id}/scans`])
        const [scan, ...others] = await scansWith(url, "metric-1")
        expect(others).toEqual([])
        expect(scan!.status).toBe("success")
        expect(scan!.input.photoScan).toMatchObject({ age: 41, gender: "female", height: 1720, weight: 68_000 })
        expect(scan!.measurements!.length).toBeGreaterThan(30)
        // The token is spent: a second click is refused, and the page says so.
        await page.click()
        expect(page.elements["status"]!.textContent).toMatch(/^The scan was refused \(HTTP 403\): scan token already used for scan_/)
        expect(page.messages[1]).toEqual({ type: SCANNER_MESSAGE_TYPE, status: "error" })
      })
    )
  )

  it.live("reads imperial stats when inches are given, and shows the form, filled in, when a stat is missing", () =>
    onSim((url) =>
      Effect.promise(async () => {
        const token = await issueToken(url, "imperial-1")
        const page = openPage(url, `?token=${token}&height=5&inches=10&weight=176&age=30`)
        expect(page.elements["form"]!.hidden).toBe(false)
        expect(page.elements["inches-field"]!.hidden).toBe(false)
        expect([page.elements["height-unit"]!.textContent, page.elements["weight-unit"]!.textContent]).toEqual(["ft", "lb"])
        expect(page.elements["height"]!.value).toBe("5")
        // Gender is missing: the click asks for it and sends nothing.
        page.elements["scan"]!.listeners["click"]!()
        expect(page.elements["status"]!.textContent).toBe("gender: choose male or female")
        expect(page.requests).toEqual([])
        page.elements["gender"]!.value = "male"
        await page.click()
        expect(page.elements["status"]!.textContent).toBe("done")
        const [scan] = await scansWith(url, "imperial-1")
        // 5 ft 10 in = 70 in = 1778 mm; 176 lb = 79 832 g.
        expect(scan!.input.photoScan).toMatchObject({ age: 30, gender: "male", height: 1778, weight: 79_832 })
      })
    )
  )

  it("offers no scan without a readable token", () => {
    const page = openPage("http://127.0.0.1:9", "?height=180")
    expect(page.elements["scan"]!.disabled).toBe(true)
    expect(page.elements["status"]!.textContent).toContain("needs a scan token")
  })
})
