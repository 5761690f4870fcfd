/**
 * The widget (document 2, Widget): the gateway serves, at the old widget's versioned paths, a
 * script that defines `BodygramScanningWidget` and its stylesheet, so that a page written for the
 * old widget keeps working once its `<script src>` points at the gateway:
 * `GET /widget/v0/widget.js` and `GET /widget/v0/widget.css`.
 *
 * What the widget does (widget/script.ts): `new BodygramScanningWidget(containerId, options)`
 * keeps its arguments; `insert()` checks the options as document 2 lists them (`ssid` required,
 * `systemOfMeasurement` metric or imperial, `os` and `version` strings, `userStats` in the chosen
 * system's keys and human ranges, whole numbers, the callbacks functions: the rules of
 * @scanbridge/session's `checkWidgetOptions`), asks the gateway it was loaded from (the script's
 * own address) for the session's hosted-scanner address (`GET /gateway/v0/sessions/{SSID}/scanner`
 * with `userStats` as the form-skip parameters), opens it in an iframe in the container, calls
 * `onLoad` once the frame has loaded, and reads `GET /scanning/v0/results/{SSID}` until the
 * results are in: `onResult` gets the session's ScanningResults JSON, as the session API answers
 * it (what @scanbridge/session's `decodeResultsEither` reads). `toggle()` shows or hides the
 * widget (its `hidden` attribute); `remove()` takes it off the page and stops reading results.
 *
 * What document 2 leaves out, and what the gateway's widget does:
 * - The error object given to `onError`: not shown. It is `{errorType, message}`, the session
 *   API's error form: the results' `errorType` as the gateway answers it (SESSION_EXPIRED,
 *   INVALID_SESSION_ID, INTERNAL_ERROR...); INVALID_USER_INPUT for options the rules refuse, or a
 *   container id no element has (nothing is inserted then); INTERNAL_ERROR when the gateway cannot
 *   be reached or answers something else. Reading stops at the first error; `remove()` and
 *   `insert()` start again. Without `onError`, the error goes to the console.
 * - A session the gateway does not know, or whose scan is in, or which expired (the scanner
 *   endpoint's 404 and 410): no frame; the widget reads the results at once, which answer
 *   INVALID_SESSION_ID, the results (`onResult`, as for a page reloaded after the scan) or
 *   SESSION_EXPIRED, in the session API's forms and language. Parameters the scanner endpoint
 *   refuses (400) are INVALID_USER_INPUT.
 * - USER_INPUT_NOT_SUBMITTED is read as pending: the user is still in the scanner.
 * - How often results are read: every 2 s (document 2's "a couple of seconds"), and at once when
 *   the scanner posts `{type: "scanbridge:scanner", status: "done"}` from the frame (the
 *   simulator's scanner does; a message from any other window is ignored). A `pollMs` query
 *   parameter on the script's address sets the interval (50 to 60 000 ms), for tests.
 * - `os` and `version` are checked and not used: the hosted scanner reads its own device.
 * - The scanner's locale is not sent: the gateway takes the session's languageCode.
 * - The stylesheet: the script adds a `<link>` to it unless the page links it already. Under a
 *   Content-Security-Policy, the page allows the gateway's origin in `script-src`, `style-src`,
 *   `connect-src`, and the scanner's origin in `frame-src`; the widget evaluates no code and
 *   writes no inline style.
 * - Caching: both files are public, cacheable for five minutes with an ETag (a gateway upgrade
 *   reaches pages within minutes), with CORS `*` and `Cross-Origin-Resource-Policy: cross-origin`,
 *   so that pages on any origin load them.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { WIDGET_SCRIPT_PATH, WIDGET_STYLESHEET, WIDGET_STYLESHEET_PATH, widgetScript } from "./widget/script.js"

export { DEFAULT_POLL_MS, POLL_MS_RANGE, SCANNER_MESSAGE_TYPE, WIDGET_SCRIPT_PATH, WIDGET_STYLESHEET_PATH } from "./widget/script.js"

interface Asset {
  readonly body: string
  readonly etag: string
}

const assetOf = (body: string): Asset => ({ body, etag: `"${createHash("sha256").update(body).digest("base64url")}"` })

/** Whether an If-None-Match header names this ETag (weak or strong, or `*`). */
const matches = (header: string | undefined, etag: string): boolean =>
  (header ?? "")
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === etag || tag === "*")

/** A static file, built on its first request: 200, or 304 to a client that holds it. */
const serve = (build: () => string, contentType: string) => {
  let asset: Asset | undefined
  return Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    asset ??= assetOf(build())
    const headers = {
      "cache-control": "public, max-age=300",
      etag: asset.etag,
      "access-control-allow-origin": "*",
      "cross-origin-resource-policy": "cross-origin",
      "x-content-type-options": "nosniff"
    }
    return matches(request.headers["if-none-match"], asset.etag)
      ? HttpServerResponse.empty({ status: 304, headers })
      : HttpServerResponse.text(asset.body, { contentType, headers })
  })
}

/** The widget's script and stylesheet. Needs nothing from the gateway's services. */
export const widgetRouter = HttpRouter.empty.pipe(
  HttpRouter.get(WIDGET_SCRIPT_PATH, serve(widgetScript, "application/javascript; charset=utf-8")),
  HttpRouter.get(
    WIDGET_STYLESHEET_PATH,
    serve(() => WIDGET_STYLESHEET, "text/css; charset=utf-8")
  )
)
