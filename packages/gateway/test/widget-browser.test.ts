/**
 * The widget in a real browser: Debian's Chromium, driven by playwright-core, loads a page written
 * as an integrator wrote it for the old widget (pages/integrator.html), whose only change is the
 * script's address, now the gateway's. The session is created through the gateway first, as the
 * integrator's back end does; the test clicks through the simulator's hosted scanner in the
 * widget's frame and sees `onResult` fire with the measurements of the scan the platform holds.
 *
 * The page is served from 127.0.0.1 under a strict Content-Security-Policy (no eval, no inline
 * style; the page's own inline script allowed), so that a widget that needs more fails here.
 * The browser polls on real time: the script's address asks for 100 ms (`pollMs`), and every
 * wait has a bound that only ends a hang. A missing Chromium fails every test, saying how to
 * install it (.ci/run does); it is never skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, ManagedRuntime } from "effect"
import { existsSync } from "node:fs"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { type Server, createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BrowserContext, type Page, chromium } from "playwright-core"
import type { Scan } from "@scanbridge/model"
import { decodeResultsEither } from "@scanbridge/session"
import { GatewayHarness, type GatewayHarnessService, HARNESS_CLIENT_ID, harnessLayer } from "./support/harness.js"

const CHROMIUM = "/usr/bin/chromium"
/** Measured on these machines (see the browser notes): without the background-networking flags Chromium keeps dialling out. */
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]
const POLL_MS = 100
/** The longest any one wait may take: only a hang reaches it. */
const HANG_MS = 30_000

const runtime = ManagedRuntime.make(harnessLayer())
let harness: GatewayHarnessService
let pages: Server
let pagesUrl: string
let context: BrowserContext
let profile: string

/** The integrator's page with the widget's address pointing at the gateway, and a session's id, as their back end renders it. */
const renderPage = async (ssid: string) =>
  (await readFile(new URL("./pages/integrator.html", import.meta.url), "utf8"))
    .replace("{{WIDGET_SCRIPT_URL}}", `${harness.gatewayUrl}/widget/v0/widget.js?pollMs=${POLL_MS}`)
    .replace("{{SSID}}", ssid)

/** No eval, no inline style, requests only to the gateway, frames only from the hosted scanner. */
const csp = () =>
  [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${harness.gatewayUrl}`,
    `style-src ${harness.gatewayUrl}`,
    `connect-src ${harness.gatewayUrl}`,
    `frame-src ${harness.simulatorUrl}`
  ].join("; ")

/** Why the browser cannot start, said by every test, which fails with it (a skip would pass CI unseen). */
const missing = existsSync(CHROMIUM)
  ? undefined
  : `the browser test needs Debian's Chromium at ${CHROMIUM}: install it with \`apt-get update && apt-get install -y chromium\` (.ci/run does)`

beforeAll(async () => {
  harness = await runtime.runPromise(GatewayHarness)
  pages = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1")
    if (url.pathname !== "/shop/scan") return void response.writeHead(404).end()
    renderPage(url.searchParams.get("ssid") ?? "").then((html) =>
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": csp() }).end(html)
    )
  })
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve))
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`
  if (missing !== undefined) return
  profile = await mkdtemp(join(tmpdir(), "scanbridge-chromium-"))
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: HANG_MS })
  context.setDefaultTimeout(HANG_MS)
})

afterAll(async () => {
  await context?.close()
  if (profile !== undefined) await rm(profile, { recursive: true, force: true })
  await new Promise((resolve) => (pages === undefined ? resolve(undefined) : pages.close(resolve)))
  await runtime.dispose()
})

interface WidgetEvent {
  readonly kind: "load" | "result" | "error"
  readonly value?: unknown
}

interface Opened {
  readonly page: Page
  /** What the page's callbacks recorded, in order. */
  readonly events: () => Promise<ReadonlyArray<WidgetEvent>>
  /** Resolves once the page has recorded an event of this kind. */
  readonly waitFor: (kind: WidgetEvent["kind"]) => Promise<void>
  /** The results requests the page has made so far, counted in the page as they start. */
  readonly resultsRequests: () => Promise<number>
  /** What the page's Content-Security-Policy refused. */
  readonly violations: () => Promise<ReadonlyArray<string>>
}

declare const window: {
  widgetEvents: Array<WidgetEvent>
  widget: { toggle(): void; remove(): void }
  BodygramScanningWidget: new (containerId: string, options: object) => { insert(): void }
  record: (kind: string, value?: unknown) => void
  scanbridgeTest: { results: number; violations: Array<string> }
  fetch: typeof fetch
}
declare const document: { addEventListener(type: string, f: (event: { violatedDirective: string; blockedURI: string }) => void): void }

/** The shop's page for this session, opened in a new tab. */
const open = async (ssid: string): Promise<Opened> => {
  if (missing !== undefined) throw new Error(missing)
  const page = await context.newPage()
  // The test's own eyes in the page, installed before the page's scripts run; the page is unchanged.
  await page.addInitScript(() => {
    const seen = { results: 0, violations: [] as Array<string> }
    window.scanbridgeTest = seen
    const original = window.fetch
    window.fetch = (input, init) => {
      if (String(input).includes("/scanning/v0/results/")) seen.results++
      return original(input, init)
    }
    document.addEventListener("securitypolicyviolation", (event) => seen.violations.push(`${event.violatedDirective} ${event.blockedURI}`))
  })
  await page.goto(`${pagesUrl}/shop/scan?ssid=${encodeURIComponent(ssid)}`)
  return {
    page,
    events: () => page.evaluate(() => window.widgetEvents),
    waitFor: async (kind) => void (await page.waitForFunction((k) => window.widgetEvents.some((e) => e.kind === k), kind, { timeout: HANG_MS })),
    resultsRequests: () => page.evaluate(() => window.scanbridgeTest.results),
    violations: () => page.evaluate(() => window.scanbridgeTest.violations)
  }
}

/** Runs `f` on the shop's page for this session, closing the tab after it whatever happens. */
const withShop = async (ssid: string, f: (shop: Opened) => Promise<void>) => {
  const shop = await open(ssid)
  try {
    await f(shop)
  } finally {
    await shop.page.close()
  }
}

/** A session created through the gateway, as the integrator's back end does. */
const createSession = async (clientScanningId: string): Promise<string> => {
  const response = await fetch(`${harness.gatewayUrl}/scanning/v0/create-session`, {
    method: "POST",
    body: JSON.stringify({ clientId: HARNESS_CLIENT_ID, clientScanningId })
  })
  const body = (await response.json()) as { scanningSession?: { scanningSessionId: string } }
  expect(response.status, JSON.stringify(body)).toBe(200)
  return body.scanningSession!.scanningSessionId
}

/** The scans the platform holds with this customScanId, as the integrator's new code reads them. */
const platformScans = (customScanId: string): Promise<ReadonlyArray<Scan>> =>
  Effect.runPromise(Effect.map(harness.platform.listScans({ customScanId }), (page) => page.results)).then((listed) =>
    Promise.all(listed.map((s) => Effect.runPromise(harness.platform.getScan(s.source.id!))))
  )

const scannerFrame = (page: Page) => page.frameLocator("#container iframe")

describe("a page written for the old widget, its script served by the gateway", () => {
  it("opens the hosted scanner for the session, and onResult gives the measurements of the scan the platform holds", { timeout: 120_000 }, async () => {
    const ssid = await createSession("order-1001")
    await withShop(ssid, async (shop) => {
      await shop.waitFor("load")
      const frame = scannerFrame(shop.page)
      // The page's userStats were passed on as the form-skip parameters: no form, the stats are in.
      await expect(frame.locator("#form").isHidden()).resolves.toBe(true)
      await expect(frame.locator("#height").inputValue()).resolves.toBe("180")
      await frame.getByRole("button", { name: "Scan" }).click()
      await shop.waitFor("result")
      await expect(frame.locator("#status").textContent()).resolves.toBe("done")

      const events = await shop.events()
      expect(events.map((e) => e.kind)).toEqual(["load", "result"])
      const result = events[1]!.value
      // onResult gets the session API's results, as GET results answers them.
      const answered = await fetch(`${harness.gatewayUrl}/scanning/v0/results/${ssid}`).then((r) => r.json())
      expect(result).toEqual(answered)
      expect(result).toMatchObject({ scanningSessionId: ssid, clientScanningId: "order-1001" })

      const [held, ...others] = await platformScans("order-1001")
      expect(others).toEqual([])
      expect(held!.subject).toMatchObject({ heightMm: 1800, weightG: 75_000, age: 34, gender: "male" })
      const decoded = decodeResultsEither(result)
      if (Either.isLeft(decoded)) throw decoded.left
      const scan = decoded.right
      for (const name of ["waistGirth", "hipGirth", "bustGirth", "insideLegHeight", "neckGirth"] as const) {
        expect(held!.measurementsMm[name]).toBeGreaterThan(0)
        expect(scan.measurementsMm[name], name).toBe(held!.measurementsMm[name])
      }
      expect(await shop.violations()).toEqual([])
    })
  })

  it("calls onError with INVALID_SESSION_ID for a session the gateway never issued, and opens no frame", { timeout: 120_000 }, async () => {
    await withShop("ss_never_issued", async (shop) => {
      await shop.waitFor("error")
      const events = await shop.events()
      expect(events).toEqual([{ kind: "error", value: { errorType: "INVALID_SESSION_ID", message: expect.any(String) } }])
      await expect(shop.page.locator("#container iframe").count()).resolves.toBe(0)
      expect(await shop.violations()).toEqual([])
    })
  })

  it("toggle() hides and shows the widget; remove() takes it off the page and stops reading results", { timeout: 120_000 }, async () => {
    const ssid = await createSession("order-1002")
    await withShop(ssid, async (shop) => {
      await shop.waitFor("load")
      const widget = shop.page.locator("#container .bodygram-widget")
      await expect(widget.isVisible()).resolves.toBe(true)
      await shop.page.evaluate(() => window.widget.toggle())
      await expect(widget.isHidden()).resolves.toBe(true)
      await shop.page.evaluate(() => window.widget.toggle())
      await expect(widget.isVisible()).resolves.toBe(true)

      // It is polling: a few reads of pending results have gone out.
      await shop.page.waitForFunction((n) => window.scanbridgeTest.results >= n, 3, { timeout: HANG_MS })
      // The count when remove() returns, read in the same turn of the page's event loop.
      const atRemoval = await shop.page.evaluate(() => {
        window.widget.remove()
        return window.scanbridgeTest.results
      })
      await expect(shop.page.locator("#container").innerHTML()).resolves.toBe("")
      // Twenty poll intervals on: no read has started since.
      await shop.page.waitForTimeout(20 * POLL_MS)
      expect(await shop.resultsRequests()).toBe(atRemoval)
      expect((await shop.events()).map((e) => e.kind)).toEqual(["load"])
    })
  })

  it("after remove(), a widget inserted again with imperial userStats opens the scanner with them, in ft, in and lb", { timeout: 120_000 }, async () => {
    const ssid = await createSession("order-1003")
    await withShop(ssid, async (shop) => {
      await shop.waitFor("load")
      await shop.page.evaluate((id) => {
        window.widget.remove()
        new window.BodygramScanningWidget("container", {
          ssid: id,
          systemOfMeasurement: "imperial",
          userStats: { heightFt: 5, heightIn: 10, weightLbs: 176, age: 30, gender: "female" },
          onResult: (result: unknown) => window.record("result", result),
          onError: (error: unknown) => window.record("error", error)
        }).insert()
      }, ssid)
      const frame = scannerFrame(shop.page)
      await expect(frame.locator("#inches").inputValue()).resolves.toBe("10")
      await expect(frame.locator("#form").isHidden()).resolves.toBe(true)
      await frame.getByRole("button", { name: "Scan" }).click()
      await shop.waitFor("result")
      expect((await shop.events()).map((e) => e.kind)).toEqual(["load", "result"])
      const [held] = await platformScans("order-1003")
      // 5 ft 10 in = 70 in = 1778 mm; 176 lb = 79 832 g.
      expect(held!.subject).toMatchObject({ heightMm: 1778, weightG: 79_832, age: 30, gender: "female" })
    })
  })
})
