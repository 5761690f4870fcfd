/**
 * The hosted scanner (document 1, "Hosted scanner options"): the page a device opens with a scan
 * token, served by the simulator at `/scanner/{LOCALE}/`, so that `<simulator url>/scanner/{LOCALE}/`
 * is the address the platform client's `hostedScannerUrl` and the legacy gateway take. Clicking
 * its "Scan" button creates a photo scan on the simulator's platform API with the token, as the
 * vendor's scanner does once the user has posed: a test clicks through it in a real browser.
 *
 * Choices where the document says "not shown", each tested (scanner.test.ts):
 * - The address: `/scanner/{LOCALE}/` on the simulator's own origin, where the platform API is,
 *   so the page posts to `/api/orgs/{org}/scans` without CORS. An unknown locale is a 404 naming
 *   the near ones (model's checkLocale).
 * - The token: the `token` query parameter, presented as `Authorization: Bearer <token>` (as the
 *   simulator's platform takes scan tokens); the organisation is its JWT's `sub`. A page without
 *   a readable token says so and offers no scan.
 * - The form's parameters: Scanbridge's names and units (platform's hosted-scanner.ts): `height`,
 *   `weight`, `age`, `gender`, plus `inches` on imperial, whole numbers in the units the system
 *   shows (cm and kg, or ft, in and lb). A page given `inches` reads them as imperial; one given
 *   none shows a metric form. Any parameter missing shows the form, filled in with those given.
 *   `screens` is accepted and not followed: the page is one screen.
 * - The photos: two header-correct 1080 x 1920 JPEGs (estimation's makeJpeg), embedded in the
 *   page; no camera is asked for.
 * - When the scan is created, the page shows "done" and posts `{type: "scanbridge:scanner",
 *   status: "done"}` to its parent window (an embedding widget learns to read the results now);
 *   when it fails, `{type: "scanbridge:scanner", status: "error"}`. The messages go to any origin
 *   (the scanner does not know its embedder's), so they carry nothing of the person or the scan.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either, Schema } from "effect"
import { makeJpeg } from "@scanbridge/estimation"
import { GRAMS_PER_POUND, HUMAN_RANGES, MM_PER_INCH, checkLocale } from "@scanbridge/model"

/** The type of the messages the page posts to its parent window. */
export const SCANNER_MESSAGE_TYPE = "scanbridge:scanner"

const photo = (comment: string) => Buffer.from(makeJpeg(1080, 1920, { comment })).toString("base64")

/** The page's script: plain ES2019, no template literals (it sits in one). */
const script = (): string => {
  const constants = {
    FRONT: photo("scanbridge simulator: front"),
    RIGHT: photo("scanbridge simulator: right"),
    MM_PER_INCH,
    GRAMS_PER_POUND,
    RANGES: HUMAN_RANGES,
    MESSAGE_TYPE: SCANNER_MESSAGE_TYPE
  }
  return `(function () {
  "use strict";
  var C = ${JSON.stringify(constants)};
  var query = new URLSearchParams(location.search);
  var byId = function (id) { return document.getElementById(id); };
  var status = byId("status");
  var button = byId("scan");
  var imperial = query.has("inches");
  var fields = imperial ? ["height", "inches", "weight", "age", "gender"] : ["height", "weight", "age", "gender"];

  var tell = function (state) {
    if (window.parent && window.parent !== window) window.parent.postMessage({ type: C.MESSAGE_TYPE, status: state }, "*");
  };

  var organisation = function (token) {
    try {
      var part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
      while (part.length % 4 !== 0) part += "=";
      var claims = JSON.parse(atob(part));
      return typeof claims.sub === "string" && claims.sub !== "" ? claims.sub : null;
    } catch (e) {
      return null;
    }
  };

  var token = query.get("token") || "";
  var org = organisation(token);
  if (org === null) {
    status.textContent = "This scanner needs a scan token: open it with ?token=<scan token>.";
    button.disabled = true;
    return;
  }

  byId("height-unit").textContent = imperial ? "ft" : "cm";
  byId("weight-unit").textContent = imperial ? "lb" : "kg";
  byId("inches-field").hidden = !imperial;
  var missing = false;
  fields.forEach(function (name) {
    var given = query.get(name);
    if (given === null || given === "") missing = true;
    else byId(name).value = given;
  });
  byId("form").hidden = !missing;

  var whole = function (name) {
    var text = String(byId(name).value).trim();
    return /^[0-9]+$/.test(text) ? Number(text) : NaN;
  };

  // The stats in the platform's units (mm, g), or why they cannot be read.
  var stats = function () {
    var gender = byId("gender").value;
    if (gender !== "male" && gender !== "female") return "gender: choose male or female";
    var age = whole("age");
    var height = whole("height");
    var weight = whole("weight");
    var inches = imperial ? whole("inches") : 0;
    if (isNaN(age) || isNaN(height) || isNaN(weight) || isNaN(inches)) return "height, weight and age: whole numbers";
    var heightMm = imperial ? Math.round((height * 12 + inches) * C.MM_PER_INCH) : height * 10;
    var weightG = Math.round(imperial ? weight * C.GRAMS_PER_POUND : weight * 1000);
    var within = function (v, r) { return v >= r.min && v <= r.max; };
    if (!within(heightMm, C.RANGES.heightMm) || !within(weightG, C.RANGES.weightG) || !within(age, C.RANGES.age)) {
      return "height, weight or age: outside the human range";
    }
    return { age: age, gender: gender, height: heightMm, weight: weightG };
  };

  button.addEventListener("click", function () {
    var s = stats();
    if (typeof s === "string") {
      status.textContent = s;
      byId("form").hidden = false;
      return;
    }
    button.disabled = true;
    status.textContent = "Scanning...";
    var body = { photoScan: { age: s.age, gender: s.gender, height: s.height, weight: s.weight, frontPhoto: C.FRONT, rightPhoto: C.RIGHT } };
    fetch("/api/orgs/" + encodeURIComponent(org) + "/scans", {
      method: "POST",
      headers: { authorization: "Bearer " + token, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
      .then(function (response) {
        return response.json().then(
          function (json) { return { ok: response.ok, status: response.status, json: json }; },
          function () { return { ok: false, status: response.status, json: {} }; }
        );
      })
      .then(
        function (reply) {
          var entry = reply.json && reply.json.entry;
          if (reply.ok && entry && entry.status === "success") {
            status.textContent = "done";
            tell("done");
          } else if (reply.ok && entry) {
            status.textContent = "The scan failed: " + (entry.error && entry.error.code);
            tell("error");
          } else {
            status.textContent = "The scan was refused (HTTP " + reply.status + "): " + (reply.json && reply.json.message);
            button.disabled = false;
            tell("error");
          }
        },
        function () {
          status.textContent = "The platform could not be reached.";
          button.disabled = false;
          tell("error");
        }
      );
  });
})();`
}

let pageScript: string | undefined

const STYLE = `body { font-family: system-ui, sans-serif; margin: 1rem; }
form { display: grid; gap: 0.5rem; margin-bottom: 1rem; max-width: 20rem; }
[hidden] { display: none !important; }
button { font-size: 1.25rem; padding: 0.5rem 2rem; }`

/** The page for a locale the document lists. */
export const scannerPage = (locale: string): string => `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hosted scanner (Scanbridge simulator)</title>
<style>
${STYLE}
</style>
</head>
<body>
<main>
<h1>Body scan</h1>
<form id="form" hidden>
<label>Height <input id="height" inputmode="numeric" autocomplete="off"> <span id="height-unit">cm</span></label>
<label id="inches-field" hidden>and <input id="inches" inputmode="numeric" autocomplete="off"> in</label>
<label>Weight <input id="weight" inputmode="numeric" autocomplete="off"> <span id="weight-unit">kg</span></label>
<label>Age <input id="age" inputmode="numeric" autocomplete="off"></label>
<label>Gender <select id="gender"><option value="">choose</option><option value="male">male</option><option value="female">female</option></select></label>
</form>
<button id="scan" type="button">Scan</button>
<p id="status" role="status"></p>
</main>
<script>
${(pageScript ??= script())}
</script>
</body>
</html>
`

const localeParams = HttpRouter.schemaPathParams(Schema.Struct({ locale: Schema.String })).pipe(Effect.orDie)

/** GET /scanner/:locale/: the page, or a 404 for a locale the document does not list. */
export const scannerRouter = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/scanner/:locale/",
    Effect.map(localeParams, ({ locale }) => {
      const checked = checkLocale(locale)
      return Either.isLeft(checked)
        ? HttpServerResponse.text(checked.left, { status: 404 })
        : HttpServerResponse.text(scannerPage(checked.right), {
            contentType: "text/html; charset=utf-8",
            // The token is in the address: neither the page nor its address is kept anywhere.
            headers: { "cache-control": "no-store", "referrer-policy": "no-referrer" }
          })
    })
  )
)
